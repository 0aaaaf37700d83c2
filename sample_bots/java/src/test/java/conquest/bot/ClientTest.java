package conquest.bot;

// The client's message handling, fed server messages directly (no network).

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import conquest.v1.ConnectRequest;
import conquest.v1.ConnectResponse;
import conquest.v1.GameOver;
import conquest.v1.GameStarted;
import conquest.v1.Welcome;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientTest {
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
    Client client = new Client(new Client.Config("", "", "t", 2, List.of("classic-4"), 2));
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
}
