package conquest.bot;

// The client's message handling, fed server messages directly (no network).

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import conquest.v1.ConnectRequest;
import conquest.v1.ConnectResponse;
import conquest.v1.GameOver;
import conquest.v1.GameStarted;
import conquest.v1.QueueStatus;
import conquest.v1.Welcome;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientTest {
  /** The client's log lines, kept for the assertions instead of printed (a passing test prints nothing). */
  final List<String> log = new ArrayList<>();

  /** Records what the client sends. */
  static final class Recorder implements StreamObserver<ConnectRequest> {
    final List<ConnectRequest> sent = new ArrayList<>();

    @Override
    public void onNext(ConnectRequest message) {
      sent.add(message);
    }

    @Override
    public void onError(Throwable error) {}

    @Override
    public void onCompleted() {}
  }

  static ConnectResponse started(String gameId) {
    return ConnectResponse.newBuilder().setGameStarted(GameStarted.newBuilder().setGameId(gameId)).build();
  }

  static ConnectResponse welcome(String... resumed) {
    return ConnectResponse.newBuilder().setWelcome(Welcome.newBuilder().addAllResumedGameIds(List.of(resumed))).build();
  }

  /**
   * Issue 7 (session 1 note): "the Go, TS and Java clients don't forget games that ended while they
   * were disconnected, so with --games N such a game is never counted". The Welcome after a reconnect
   * lists the games still in progress; the others ended while we were away and get no GameOver.
   */
  @Test
  void welcomeAfterAReconnectForgetsTheGamesThatEndedMeanwhile() {
    Client client = client(2);
    Recorder out = new Recorder();
    client.handle(started("ended"), out);
    client.handle(started("running"), out);
    client.handle(welcome("running"), out);
    assertFalse(client.done(), "the resumed game is still being played");
    client.handle(ConnectResponse.newBuilder().setGameOver(GameOver.newBuilder().setGameId("running")).build(), out);
    assertTrue(client.done(), "both games are over");
    client.handle(welcome(), out);
    assertTrue(out.sent.stream().noneMatch(ConnectRequest::hasJoinQueue), "joined a queue after its games were all played");
  }

  static ConnectResponse over(String gameId) {
    return ConnectResponse.newBuilder().setGameOver(GameOver.newBuilder().setGameId(gameId)).build();
  }

  /** The JoinQueue.games of every JoinQueue sent. */
  static List<Integer> joins(Recorder out) {
    return out.sent.stream().filter(ConnectRequest::hasJoinQueue).map(m -> m.getJoinQueue().getGames()).toList();
  }

  Client client(int games) {
    return new Client(new Client.Config("", "", "t", 2, List.of("classic-4"), games), log::add);
  }

  /**
   * bot.proto, JoinQueue.games: "Seat this bot in at most this many more games of the queue, then leave
   * it (0: no limit)". With --games 1 and capacity 2 the kit used to join without a limit, was seated in
   * two games and abandoned the second when it stopped.
   */
  @Test
  void joinQueueAsksForTheGamesToPlay() {
    for (int games : new int[] {0, 1, 3}) {
      Recorder out = new Recorder();
      client(games).handle(welcome(), out);
      assertEquals(List.of(games), joins(out), "--games " + games);
    }
  }

  /**
   * The server seats the last game of the limit (QueueStatus joined=false) before that game's
   * GameStarted reaches us; a game ending in between must not join again, or a game more than asked
   * would start.
   */
  @Test
  void noJoinQueueWhenAGameEnds() {
    Client client = client(2);
    Recorder out = new Recorder();
    client.handle(welcome(), out);
    client.handle(started("a"), out);
    QueueStatus left = QueueStatus.newBuilder().setQueue("classic-4").setJoined(false).build();
    client.handle(ConnectResponse.newBuilder().setQueueStatus(left).build(), out);
    client.handle(over("a"), out);
    client.handle(started("b"), out);
    client.handle(over("b"), out);
    assertEquals(List.of(2), joins(out));
    assertTrue(client.done());
  }

  /**
   * After a reconnect the kit joins again (membership does not survive a disconnect) for the games left:
   * --games minus those started, whether they finished, are resumed, or ended while we were away.
   */
  @Test
  void joinQueueAfterAReconnectAsksForTheGamesLeft() {
    Client client = client(4);
    client.handle(welcome(), new Recorder());
    client.handle(started("finished"), new Recorder());
    client.handle(over("finished"), new Recorder());
    client.handle(started("running"), new Recorder());
    Recorder out = new Recorder();
    client.handle(welcome("running"), out);
    client.handle(started("running"), out);
    assertEquals(List.of(2), joins(out), "4 games, 2 started");
    // A resumed game we never saw start (seated as the connection dropped) counts too.
    out = new Recorder();
    client.handle(welcome("running", "unseen"), out);
    client.handle(started("running"), out);
    client.handle(started("unseen"), out);
    assertEquals(List.of(1), joins(out), "4 games, 3 started");
    out = new Recorder();
    client.handle(welcome("running", "unseen"), out);
    assertEquals(List.of(1), joins(out), "still 4 games, 3 started");
  }

  /**
   * Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
   * forever ... the bot must be told": Error{not_resumed} for a game the Welcome listed ends the wait.
   */
  @Test
  void notResumedStopsTheWaitForAGameTheWelcomeListed() {
    Client client = client(1);
    client.handle(welcome(), new Recorder());
    client.handle(started("gone"), new Recorder());
    client.handle(welcome("gone"), new Recorder());
    assertFalse(client.done(), "waiting for the resumed game");
    var error = conquest.v1.Error.newBuilder().setCode("not_resumed").setGameId("gone");
    client.handle(ConnectResponse.newBuilder().setError(error).build(), new Recorder());
    assertTrue(client.done(), "the game will not come back: done");
    assertEquals("server error not_resumed: ", log.get(log.size() - 1), log::toString);
  }
}
