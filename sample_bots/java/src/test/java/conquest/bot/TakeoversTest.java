package conquest.bot;

// Issue 20: "Today each kit's verifier refuses format 2 ... Make every kit's verifier check format 2."
// docs/protocol.md, "The replay of such a game": at each `reseeded` event the verifier checks the replay's
// `reseeds` entry and its commitment, starts a new stream from the fresh seed and shuffles the undrawn cards
// again by it. Games: ../fixtures/replay_classic_reseeded.json (taken over at actions 120 and 400) and
// ../fixtures/replay_2210_reseeded.json (3 seats, taken over in year 2's bids at action 155, then at 255).

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import conquest.bot.ReplayVerifier.Mismatch;
import conquest.bot.ReplayVerifier.Verdict;
import conquest.bot.Takeovers.Reseed;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TakeoversTest {
  static final String CLASSIC = "replay_classic_reseeded";
  static final String R2210 = "replay_2210_reseeded";

  /** A game's replay text and its events as JSON lines, which a test changes before verifying. */
  record Game(String name, JsonObject replay, List<JsonObject> events) {
    static Game load(String name) throws IOException {
      JsonObject replay = JsonParser.parseString(ReplayVerifierTest.fixture(name + ".json")).getAsJsonObject();
      List<JsonObject> events = new ArrayList<>();
      ReplayVerifierTest.fixture(name + ".events.jsonl").lines().filter(l -> !l.isBlank())
          .forEach(l -> events.add(JsonParser.parseString(l).getAsJsonObject()));
      return new Game(name, replay, events);
    }

    boolean is2210() {
      return name.equals(R2210);
    }

    Verdict verify() {
      String lines = events.stream().map(JsonObject::toString).collect(Collectors.joining("\n"));
      return ReplayVerifier.verifyTexts(replay.toString(), lines);
    }

    long sequence(JsonObject event) {
      return Long.parseLong(event.get("sequence").getAsString());
    }

    JsonObject event(long sequence) {
      return events.stream().filter(e -> sequence(e) == sequence).findFirst().orElseThrow();
    }

    /** The reseeded events' sequences, in order. */
    List<Long> reseeded() {
      return events.stream().filter(e -> is2210() ? e.get("kind").getAsString().equals("reseeded") : e.has("reseeded"))
          .map(this::sequence).toList();
    }

    /** The first battle roll after {@code sequence}. */
    JsonObject rollAfter(long sequence) {
      return events.stream()
          .filter(e -> sequence(e) > sequence && (is2210() ? e.get("kind").getAsString().equals("rolled") : e.has("rolled")))
          .findFirst().orElseThrow();
    }

    JsonObject reseed(int i) {
      return replay.getAsJsonArray("reseeds").get(i).getAsJsonObject();
    }

    /** Sets a reseeded event's seed and commitment (classic: its `reseeded` field; 2210: its dataJson). */
    void forgeEvent(long sequence, String seed, String commitment) {
      JsonObject event = event(sequence);
      JsonObject facts = is2210() ? JsonParser.parseString(event.get("dataJson").getAsString()).getAsJsonObject()
          : event.getAsJsonObject("reseeded");
      facts.addProperty("seed", seed);
      facts.addProperty("commitment", commitment);
      if (is2210()) {
        event.addProperty("dataJson", facts.toString());
      }
    }

    /** Changes a battle roll's first attacker die. */
    void changeRoll(JsonObject event) {
      JsonObject facts = is2210() ? JsonParser.parseString(event.get("dataJson").getAsString()).getAsJsonObject()
          : event.getAsJsonObject("rolled");
      JsonArray dice = facts.getAsJsonArray(is2210() ? "attacker_dice" : "attackerDice");
      dice.set(0, new JsonPrimitive(dice.get(0).getAsInt() == 1 ? 2 : 1));
      if (is2210()) {
        event.addProperty("dataJson", facts.toString());
      }
    }
  }

  static List<String> sequences(List<Mismatch> mismatches) {
    return mismatches.stream().map(Mismatch::sequence).toList();
  }

  static boolean after(Mismatch mismatch, long sequence) {
    return !mismatch.sequence().equals("-") && Long.parseLong(mismatch.sequence()) > sequence;
  }

  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aTakenOverGameVerifiesBothReseedsChecked(String name) throws IOException {
    Game game = Game.load(name);
    assertEquals(2, game.replay().get("format").getAsInt());
    Verdict verdict = game.verify();
    assertEquals(List.of(), verdict.mismatches());
    assertTrue(verdict.notes().get(0).endsWith(", 2 of 2 reseeds (games taken over) checked"), verdict.notes().toString());
    // Fresh seeds of 2^53+1 and 2^62-1, read exactly.
    List<Reseed> reseeds = Takeovers.parseReseeds(game.replay());
    assertEquals(List.of(9007199254740993L, 4611686018427387903L), reseeds.stream().map(Reseed::seed).toList());
    assertEquals(name.equals(CLASSIC) ? List.of(133L, 643L) : List.of(158L, 253L), game.reseeded());
  }

  /** (a) A reseed's commitment changed in the replay is reported at its reseeded event. */
  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aChangedCommitmentIsReportedAtItsEvent(String name) throws IOException {
    Game game = Game.load(name);
    JsonObject second = game.reseed(1);
    String key = second.get("seed").getAsString() + ":" + game.replay().get("game_id").getAsString() + ":"
        + second.get("at").getAsString();
    second.addProperty("commitment", ReplayVerifier.sha256Hex(key + "0"));
    String at = Long.toString(game.reseeded().get(1));
    assertEquals(List.of(List.of(at, "reseeded 2 of 2 (the replay's entry)"), List.of(at, "reseed commitment sha256(\"" + key + "\")")),
        game.verify().mismatches().stream().map(m -> List.of(m.sequence(), m.what())).toList());
  }

  /** (b) A fresh seed changed in the replay and the events, its commitment recomputed: the dice after it fail. */
  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aForgedFreshSeedFailsTheDiceAfterIt(String name) throws IOException {
    Game game = Game.load(name);
    JsonObject first = game.reseed(0);
    String seed = Long.toString(first.get("seed").getAsLong() + 2);
    String commitment = ReplayVerifier.sha256Hex(seed + ":" + game.replay().get("game_id").getAsString() + ":"
        + first.get("at").getAsString());
    first.addProperty("seed", Long.parseLong(seed));
    first.addProperty("commitment", commitment);
    long reseeded = game.reseeded().get(0);
    game.forgeEvent(reseeded, seed, commitment);
    List<Mismatch> mismatches = game.verify().mismatches();
    assertTrue(!mismatches.isEmpty() && mismatches.stream().allMatch(m -> after(m, reseeded)), mismatches.toString());
    assertEquals(game.sequence(game.rollAfter(reseeded)), Long.parseLong(mismatches.get(0).sequence()));
  }

  /** (c) A reseeded event removed from the events is reported missing, and the dice after it fail. */
  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aRemovedReseededEventIsReportedMissing(String name) throws IOException {
    Game game = Game.load(name);
    List<Long> reseeded = game.reseeded();
    game.events().remove(game.event(reseeded.get(0)));
    List<Mismatch> mismatches = game.verify().mismatches();
    assertTrue(mismatches.stream().filter(m -> after(m, reseeded.get(0))).count() > 1, mismatches.toString());
    Mismatch missing = mismatches.stream().filter(m -> m.what().equals("reseeded 1 of 2")).findFirst().orElseThrow();
    assertEquals(List.of(Long.toString(reseeded.get(1)), "\"no such event before this one\""),
        List.of(missing.sequence(), missing.event()));

    Game withoutLast = Game.load(name);
    withoutLast.events().remove(withoutLast.event(reseeded.get(1)));
    assertEquals(List.of(List.of("-", "reseeded 2 of 2", "\"no such event\"")),
        withoutLast.verify().mismatches().stream().filter(m -> m.what().startsWith("reseeded"))
            .map(m -> List.of(m.sequence(), m.what(), m.event())).toList());
  }

  /** (d) A battle roll after a reseed changed is reported at its event alone. */
  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aChangedRollAfterAReseedIsReportedAtItsEvent(String name) throws IOException {
    Game game = Game.load(name);
    JsonObject roll = game.rollAfter(game.reseeded().get(1));
    game.changeRoll(roll);
    assertEquals(List.of(roll.get("sequence").getAsString()), sequences(game.verify().mismatches()));
  }

  @ParameterizedTest
  @ValueSource(strings = {CLASSIC, R2210})
  void aReseededEventTheReplayDoesNotListIsReportedAndTheDiceGoOn(String name) throws IOException {
    Game game = Game.load(name);
    long last = game.reseeded().get(1);
    game.events().add(game.event(last).deepCopy());
    assertEquals(List.of(List.of(Long.toString(last), "reseeded (a takeover the replay does not list)")),
        game.verify().mismatches().stream().map(m -> List.of(m.sequence(), m.what())).toList());
  }

  @Test
  void aFormatOtherThan1And2IsRefusedByItsNumber() throws IOException {
    String text = ReplayVerifierTest.fixture(CLASSIC + ".json");
    IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
        () -> ReplayVerifier.parseReplay(text.replace("\"format\":2", "\"format\":3")));
    assertTrue(refusal.getMessage().startsWith("replay format 3 is unknown to this verifier: it reads format 1"),
        refusal.getMessage());
  }

  /** As `conquest replay verify` reads them: reseeds only in format 2, in order, within the actions. */
  @Test
  void misplacedReseedsAreRefused() throws IOException {
    String text = ReplayVerifierTest.fixture(CLASSIC + ".json");
    for (String[] bad : Arrays.asList(
        new String[] {"\"format\":2", "\"format\":1", "a replay with \"reseeds\" is format 2, not 1"},
        new String[] {"\"at\":400", "\"at\":100", "an action index 120..660 (in order)"},
        new String[] {"\"at\":400", "\"at\":661", "reseeds[1] is"})) {
      IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
          () -> ReplayVerifier.parseReplay(text.replace(bad[0], bad[1])));
      assertTrue(refusal.getMessage().contains(bad[2]), refusal.getMessage());
    }
  }

  @Test
  void aDiceVersion1GameTakenOverHasItsReseedsCommitmentsChecked() throws IOException {
    ReplayVerifier.Replay r = ReplayVerifier.parseReplay(ReplayVerifierTest.fixture(CLASSIC + ".json"));
    ReplayVerifier.Replay v1 = new ReplayVerifier.Replay(r.seed(), r.gameId(), r.seedCommitment(), 1, r.seats(),
        r.board(), r.setup(), r.objective(), r.threeContinentMissions(), r.reseeds());
    Verdict verdict = ReplayVerifier.verify(v1, List.of());
    assertEquals(List.of(), verdict.mismatches());
    assertTrue(verdict.notes().get(0).contains("seed commitment and 2 reseed commitments checked"), verdict.notes().toString());
    Reseed first = r.reseeds().get(0);
    ReplayVerifier.Replay forged = new ReplayVerifier.Replay(r.seed(), r.gameId(), r.seedCommitment(), 1, r.seats(),
        r.board(), r.setup(), r.objective(), r.threeContinentMissions(),
        List.of(new Reseed(first.at(), 1, first.commitment()), r.reseeds().get(1)));
    assertEquals(List.of("-"), sequences(ReplayVerifier.verify(forged, List.of()).mismatches()));
  }
}
