package conquest.bot;

// The connection side of the kit: one stream, Hello, queues, many games at once, retries after a
// rejection and reconnects after a dropped connection. Strategy lives in Strategy.java.

import conquest.v1.Action;
import conquest.v1.Action2210;
import conquest.v1.BotServiceGrpc;
import conquest.v1.ConnectRequest;
import conquest.v1.ConnectResponse;
import conquest.v1.Decision;
import conquest.v1.DecisionRejected;
import conquest.v1.DecisionRequest;
import conquest.v1.GameOver;
import conquest.v1.GameStarted;
import conquest.v1.Hello;
import conquest.v1.JoinQueue;
import conquest.v1.LeaveQueue;
import conquest.v1.SeatResult;
import conquest.v1.Welcome;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Plays games for one bot; its games outlive a dropped connection. */
public final class Client {
  static final String CLIENT_NAME = "conquest-java-kit";
  static final String CLIENT_VERSION = "0.1.0";
  static final long FIRST_BACKOFF_MS = 500;
  static final long MAX_BACKOFF_MS = 15_000;

  /** Where to connect and what to play; games 0 means play forever, no queues means the server's first. */
  public record Config(String server, String token, String name, int capacity, List<String> queues, int games) {}

  private record SessionEnd(boolean welcomed, String reason, boolean fatal) {}

  private final Config config;
  private final Consumer<String> logSink;
  private final List<String> queues;
  private final Map<String, GameInfo> games = new HashMap<>();
  private final Map<String, DecisionRequest> lastRequests = new HashMap<>();
  private int started;

  /** A client that logs to standard output, each line stamped with the time. */
  public Client(Config config) {
    this(config, Client::print);
  }

  /**
   * A client whose log lines (connection, games started and over, rejections, server errors) go to
   * {@code log} instead (package-private: the tests keep them to assert on, and print nothing).
   */
  Client(Config config, Consumer<String> log) {
    this.config = config;
    this.logSink = log;
    this.queues = new ArrayList<>(config.queues());
  }

  private boolean wantMore() {
    return config.games() == 0 || started < config.games();
  }

  /** True once every wanted game has been played (package-private for the client test). */
  boolean done() {
    return !wantMore() && games.isEmpty();
  }

  /**
   * Play until the game count is reached or the server refuses the bot, reconnecting with
   * exponential backoff (and jitter) whenever the stream drops.
   */
  public void run() throws InterruptedException {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(config.server()).usePlaintext().build();
    try {
      long backoff = FIRST_BACKOFF_MS;
      for (;;) {
        SessionEnd end = session(BotServiceGrpc.newStub(channel));
        synchronized (this) {
          if (done()) {
            return;
          }
        }
        if (end.fatal()) {
          throw new IllegalStateException(end.reason());
        }
        if (end.welcomed()) {
          backoff = FIRST_BACKOFF_MS;
        }
        long wait = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
        log("connection lost (" + end.reason() + "); reconnecting in " + wait + " ms");
        Thread.sleep(wait);
        backoff = Math.min(2 * backoff, MAX_BACKOFF_MS);
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** One stream, until it ends. */
  private SessionEnd session(BotServiceGrpc.BotServiceStub api) throws InterruptedException {
    CompletableFuture<SessionEnd> ended = new CompletableFuture<>();
    boolean[] welcomed = {false};
    String[] fatal = {""};
    boolean[] halfClosed = {false};
    StreamObserver<ConnectRequest>[] out = new StreamObserver[1];
    synchronized (this) {
      out[0] = api.connect(new StreamObserver<>() {
        @Override
        public void onNext(ConnectResponse message) {
          synchronized (Client.this) {
            welcomed[0] |= message.hasWelcome();
            String why = handle(message, out[0]);
            if (!why.isEmpty()) {
              fatal[0] = why;
            }
            if (done() && !halfClosed[0]) {
              halfClosed[0] = true;
              out[0].onCompleted();
            }
          }
        }

        @Override
        public void onError(Throwable error) {
          String reason = fatal[0].isEmpty() ? error.getMessage() : fatal[0];
          ended.complete(new SessionEnd(welcomed[0], reason, !fatal[0].isEmpty()));
        }

        @Override
        public void onCompleted() {
          String reason = fatal[0].isEmpty() ? "the server closed the stream" : fatal[0];
          ended.complete(new SessionEnd(welcomed[0], reason, !fatal[0].isEmpty()));
        }
      });
      Hello hello = Hello.newBuilder()
          .setToken(config.token())
          .setName(config.name())
          .setClientName(CLIENT_NAME)
          .setClientVersion(CLIENT_VERSION)
          .setCapacity(config.capacity())
          .build();
      out[0].onNext(ConnectRequest.newBuilder().setHello(hello).build());
    }
    try {
      return ended.get();
    } catch (java.util.concurrent.ExecutionException e) {
      return new SessionEnd(welcomed[0], e.getMessage(), false);
    }
  }

  /**
   * Handle one server message; returns a reason when it is a fatal error reconnecting cannot fix
   * (package-private for the client test).
   */
  String handle(ConnectResponse message, StreamObserver<ConnectRequest> out) {
    switch (message.getMessageCase()) {
      case WELCOME -> {
        Welcome w = message.getWelcome();
        log("welcome " + w.getBotName() + " (session " + w.getSessionId() + ", server " + w.getServerVersion()
            + ", ranked " + w.getRanked() + ", resumed games " + w.getResumedGameIdsList() + ")");
        forgetGamesNotResumed(w.getResumedGameIdsList());
        if (done()) {
          return ""; // the session ends after this message
        }
        if (queues.isEmpty() && w.getQueuesCount() > 0) {
          queues.add(w.getQueues(0).getName());
        }
        joinQueues(out, w.getResumedGameIdsList());
      }
      case GAME_STARTED -> {
        // Sent again for each game resumed after a reconnect.
        GameStarted g = message.getGameStarted();
        if (!games.containsKey(g.getGameId())) {
          started++;
          log("game " + g.getGameId() + " started: seat " + g.getSeat() + " of " + g.getPlayersCount() + " ("
              + g.getQueue() + ")");
        }
        games.put(g.getGameId(), new GameInfo(g.getGameId(), g.getSeat(), g.getPlayersCount(), g.getMap(), g.getRules()));
        if (!wantMore()) {
          leaveQueues(out);
        }
      }
      case DECISION_REQUEST -> {
        DecisionRequest req = message.getDecisionRequest();
        if (req.hasR2210()) {
          // A RISK 2210 A.D. game: answered from its Legal2210 alone (R2210.java).
          lastRequests.put(req.getGameId(), req);
          send(out, req.getGameId(), req.getRequestId(), R2210.defaultAction(req.getR2210().getLegal()));
          return "";
        }
        send(out, req.getGameId(), req.getRequestId(), decide(req));
      }
      case DECISION_REJECTED -> {
        // Retry with the plainest legal action while time is left.
        DecisionRejected r = message.getDecisionRejected();
        log("game " + r.getGameId() + ": decision " + r.getRequestId() + " rejected: " + r.getReason());
        DecisionRequest last = lastRequests.get(r.getGameId());
        if (r.getCanRetry() && last != null && last.getRequestId() == r.getRequestId()) {
          if (last.hasR2210()) {
            send(out, r.getGameId(), r.getRequestId(), R2210.defaultAction(last.getR2210().getLegal()));
          } else {
            send(out, r.getGameId(), r.getRequestId(), Actions.safe(last.getLegal()));
          }
        }
      }
      case GAME_OVER -> {
        GameOver over = message.getGameOver();
        GameInfo game = games.remove(over.getGameId());
        lastRequests.remove(over.getGameId());
        for (SeatResult r : over.getResultsList()) {
          if (game != null && r.getSeat() == game.seat()) {
            log("game " + over.getGameId() + " over after " + over.getTurns() + " turns (" + over.getReason()
                + "): place " + r.getPlace() + ", " + r.getOutcome());
          }
        }
      }
      case ERROR -> {
        var e = message.getError();
        log("server error " + e.getCode() + ": " + e.getMessage());
        // A refused Hello is final; a server shutting down may come back.
        if (e.getFatal() && !e.getCode().equals("shutting_down")) {
          return e.getCode() + ": " + e.getMessage();
        }
        // A game the Welcome listed as resumed that will not come back (it ended, or our seat forfeited,
        // while we were away): stop waiting for it. One we never saw start counts as started, as
        // joinQueues counted it.
        if (e.getCode().equals("not_resumed")) {
          lastRequests.remove(e.getGameId());
          if (games.remove(e.getGameId()) == null) {
            started++;
          }
        }
      }
      default -> {
        // GAME_EVENTS: public events (a DecisionRequest carries its own in getEventsList()); the sample
        // reads the observation. QUEUE_STATUS: our membership stands until we leave, reach
        // JoinQueue.games or disconnect.
      }
    }
    return "";
  }

  /** The strategy's action; a game we know nothing of (or a strategy that throws) gets the plainest legal action. */
  private Action decide(DecisionRequest req) {
    GameInfo game = games.get(req.getGameId());
    if (game == null) {
      log("game " + req.getGameId() + ": request for a game we were not told about; playing safe");
      return Actions.safe(req.getLegal());
    }
    lastRequests.put(req.getGameId(), req);
    try {
      return Strategy.decide(game, req);
    } catch (RuntimeException error) {
      log("game " + req.getGameId() + ": strategy failed (" + error + "); playing safe");
      return Actions.safe(req.getLegal());
    }
  }

  private static void send(StreamObserver<ConnectRequest> out, String gameId, long requestId, Action action) {
    send(out, Decision.newBuilder().setGameId(gameId).setRequestId(requestId).setAction(action));
  }

  /** A RISK 2210 A.D. decision: the action goes in Decision.r2210, never in the classic action. */
  private static void send(StreamObserver<ConnectRequest> out, String gameId, long requestId, Action2210 action) {
    send(out, Decision.newBuilder().setGameId(gameId).setRequestId(requestId).setR2210(action));
  }

  private static void send(StreamObserver<ConnectRequest> out, Decision.Builder decision) {
    out.onNext(ConnectRequest.newBuilder().setDecision(decision).build());
  }

  /**
   * Drop the games that ended while we were disconnected: the server resumes only the games still in
   * progress, and sends no GameOver for the others.
   */
  private void forgetGamesNotResumed(List<String> resumed) {
    games.keySet().retainAll(resumed);
    lastRequests.keySet().retainAll(resumed);
  }

  /**
   * Join every configured queue once per connection (membership stands until we leave, reach
   * JoinQueue.games or disconnect) for the games still to start: games minus those started, counting a
   * resumed game we never saw start (seated as the connection dropped; its GameStarted follows). The
   * server seats us in at most that many, so it never starts a game we would abandon.
   */
  private void joinQueues(StreamObserver<ConnectRequest> out, List<String> resumed) {
    int left = 0; // JoinQueue.games 0: no limit
    if (config.games() > 0) {
      left = config.games() - started - (int) resumed.stream().filter(id -> !games.containsKey(id)).count();
      if (left <= 0) {
        return;
      }
    }
    for (String queue : queues) {
      JoinQueue join = JoinQueue.newBuilder().setQueue(queue).setGames(left).build();
      out.onNext(ConnectRequest.newBuilder().setJoinQueue(join).build());
    }
  }

  /**
   * Leave every queue once the wanted games have started (with several queues, each was joined for all
   * the games left, so another queue could still seat us).
   */
  private void leaveQueues(StreamObserver<ConnectRequest> out) {
    for (String queue : queues) {
      out.onNext(ConnectRequest.newBuilder().setLeaveQueue(LeaveQueue.newBuilder().setQueue(queue)).build());
    }
  }

  private void log(String line) {
    logSink.accept(line);
  }

  /** The default log: standard output, each line stamped with the time. */
  static void print(String line) {
    System.out.println(java.time.LocalTime.now().withNano(0) + " " + line);
    System.out.flush();
  }
}
