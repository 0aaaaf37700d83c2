package conquest.bot;

// The replay verifier re-derives dice version 2 exactly (issue 23: "Each starter kit ... ships a replay
// verifier (re-derive every roll and shuffle from the revealed seed and compare with the events)").
// Vectors: ../fixtures/dice_vectors.json; a recorded Secret Mission game (seed above 2^53):
// ../fixtures/replay_secret_mission.json with its `conquest replay events` output.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import conquest.bot.ReplayVerifier.Event;
import conquest.bot.ReplayVerifier.Mismatch;
import conquest.bot.ReplayVerifier.Replay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayVerifierTest {
  static String fixture(String name) throws IOException {
    return Files.readString(Path.of("../fixtures", name));
  }

  static List<Integer> ints(JsonElement array) {
    List<Integer> out = new ArrayList<>();
    for (JsonElement e : array.getAsJsonArray()) {
      out.add(e.getAsInt());
    }
    return out;
  }

  @Test
  void everyVectorOfEverySeed() throws IOException {
    JsonObject file = JsonParser.parseString(fixture("dice_vectors.json")).getAsJsonObject();
    assertEquals(2, file.get("version").getAsInt());
    JsonArray cases = file.getAsJsonArray("cases");
    assertTrue(cases.size() >= 3);
    for (JsonElement element : cases) {
      JsonObject c = element.getAsJsonObject();
      String name = "seed " + c.get("seed").getAsString();
      long seed = Long.parseUnsignedLong(c.get("seed").getAsString());
      Dice words = new Dice(seed);
      for (JsonElement w : c.getAsJsonArray("words")) {
        assertEquals(w.getAsLong(), words.word(), name + " words");
      }
      Dice dice = new Dice(seed);
      for (JsonElement u : c.getAsJsonArray("uniform6")) {
        assertEquals(u.getAsInt(), dice.uniform(6), name + " uniform6");
      }
      JsonObject battle = c.getAsJsonObject("battle_3v2");
      assertEquals(new Dice.Battle(ints(battle.get("attacker")), ints(battle.get("defender"))),
          new Dice(seed).battle(3, 2), name + " battle_3v2");
      JsonObject rollOff = c.getAsJsonObject("rolloff_4");
      assertEquals(new Dice.RollOff(ints(rollOff.get("rolls")), rollOff.get("seat").getAsInt()),
          new Dice(seed).rollOff(4), name + " rolloff_4");
      assertEquals(ints(c.get("deck_44")), new Dice(seed).shuffledDeck(44, List.of()), name + " deck_44");
      JsonObject deal = c.getAsJsonObject("deal_42_3");
      assertEquals(ints(deal.get("owners")),
          new Dice(seed).dealTerritories(42, 3, "dealt", deal.get("first_seat").getAsInt()), name + " deal_42_3");
    }
  }

  static Replay replay() throws IOException {
    return ReplayVerifier.parseReplay(fixture("replay_secret_mission.json"));
  }

  static List<Event> events() throws IOException {
    return ReplayVerifier.parseEvents(fixture("replay_secret_mission.events.jsonl"));
  }

  static JsonObject at(List<Event> events, long sequence) {
    return events.stream().filter(e -> e.sequence() == sequence).findFirst().orElseThrow().body();
  }

  static List<String> sequences(List<Mismatch> mismatches) {
    return mismatches.stream().map(Mismatch::sequence).toList();
  }

  @Test
  void aRecordedGameVerifies() throws IOException {
    assertEquals("5901499535385924463", Long.toUnsignedString(replay().seed()));
    assertEquals(List.of(), ReplayVerifier.verify(replay(), events()).mismatches());
  }

  @Test
  void aTamperedRollFailsAtItsEvent() throws IOException {
    List<Event> events = events();
    JsonArray dice = new JsonArray();
    List.of(6, 3, 3).forEach(d -> dice.add(new JsonPrimitive(d)));
    at(events, 70).add("attackerDice", dice);
    Mismatch want = new Mismatch("70", "rolled 1->5", "{\"attacker\":[6,3,3],\"defender\":[2]}",
        "{\"attacker\":[5,3,3],\"defender\":[2]}");
    assertEquals(List.of(want), ReplayVerifier.verify(replay(), events).mismatches());
  }

  @Test
  void aTamperedDrawAndAWrongSeedFail() throws IOException {
    List<Event> events = events();
    at(events, 101).addProperty("card", 30);
    assertEquals(List.of("101"), sequences(ReplayVerifier.verify(replay(), events).mismatches()));
    Replay r = replay();
    Replay wrongSeed = new Replay(r.seed() + 1, r.gameId(), r.seedCommitment(), r.diceVersion(), r.seats(), r.board(),
        r.setup(), r.objective(), r.threeContinentMissions(), r.reseeds());
    List<Mismatch> mismatches = ReplayVerifier.verify(wrongSeed, events()).mismatches();
    assertEquals("seed commitment", mismatches.get(0).what());
    assertTrue(mismatches.size() > 10, mismatches.toString());
  }

  @Test
  void diceVersion1IsLeftToTheServer() throws IOException {
    Replay r = replay();
    Replay v1 = new Replay(r.seed(), r.gameId(), r.seedCommitment(), 1, r.seats(), r.board(), r.setup(),
        r.objective(), r.threeContinentMissions(), r.reseeds());
    ReplayVerifier.Verdict verdict = ReplayVerifier.verify(v1, events());
    assertEquals(List.of(), verdict.mismatches());
    assertTrue(verdict.notes().get(0).contains("checked by `conquest replay verify` only"), verdict.notes().toString());
    Replay otherGame = new Replay(r.seed(), "other", r.seedCommitment(), 1, r.seats(), r.board(), r.setup(),
        r.objective(), r.threeContinentMissions(), r.reseeds());
    assertEquals("seed commitment", ReplayVerifier.verify(otherGame, List.of()).mismatches().get(0).what());
  }

  /** replay_classic_long: 45 cards drawn, so the last one is the first card traded back. */
  @Test
  void drawsPastTheFirst44CardsReachTheTradedCards() throws IOException {
    Replay replay = ReplayVerifier.parseReplay(fixture("replay_classic_long.json"));
    List<Event> events = ReplayVerifier.parseEvents(fixture("replay_classic_long.events.jsonl"));
    assertEquals(45, events.stream().filter(e -> e.kind().equals("drew")).count());
    assertEquals(List.of(), ReplayVerifier.verify(replay, events).mismatches());
    at(events, 1104).addProperty("card", 17);
    List<Mismatch> mismatches = ReplayVerifier.verify(replay, events).mismatches();
    assertEquals(List.of("1104"), sequences(mismatches));
    assertEquals("16", mismatches.get(0).seed());
  }
}
