package conquest.bot;

// Issue 23: "Each starter kit (TypeScript, Go, Rust, Java) ships a replay verifier (re-derive every roll and
// shuffle from the revealed seed and compare with the events), run in `make interop` on replays of every
// ruleset against `conquest replay verify`." These tests hold the Java kit's verifier to that for RISK 2210
// A.D.: the draws of docs/protocol.md's "RISK 2210 A.D. games" against ../fixtures/dice_vectors_2210.json,
// and the table "Checking a 2210 game's draws" against the three recorded games
// ../fixtures/replay_2210_{two,three,five}_player.json with their `conquest replay events` output, and
// tampered copies of them.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import conquest.bot.ReplayVerifier.Mismatch;
import conquest.bot.ReplayVerifier.Verdict;
import conquest.bot.ReplayVerifier2210.Decks;
import conquest.bot.ReplayVerifier2210.Event;
import conquest.bot.ReplayVerifier2210.Replay;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayVerifier2210Test {
  static final List<String> GAMES = List.of("replay_2210_two_player", "replay_2210_three_player",
      "replay_2210_five_player");

  static String fixture(String name) throws IOException {
    return ReplayVerifierTest.fixture(name);
  }

  static List<Integer> ints(JsonElement array) {
    return ReplayVerifierTest.ints(array);
  }

  static List<List<Integer>> rounds(JsonElement array) {
    List<List<Integer>> out = new ArrayList<>();
    array.getAsJsonArray().forEach(round -> out.add(ints(round)));
    return out;
  }

  static List<Integer> seats(int n) {
    List<Integer> out = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      out.add(s);
    }
    return out;
  }

  /** Issue 23 ("re-derive every roll and shuffle from the revealed seed"): every 2210 vector of every seed. */
  @Test
  void everyVectorOfEverySeed() throws IOException {
    JsonObject file = JsonParser.parseString(fixture("dice_vectors_2210.json")).getAsJsonObject();
    assertEquals(2, file.get("version").getAsInt());
    assertEquals("2210", file.get("game").getAsString());
    JsonArray cases = file.getAsJsonArray("cases");
    assertTrue(cases.size() >= 2);
    for (JsonElement element : cases) {
      JsonObject c = element.getAsJsonObject();
      String name = "seed " + c.get("seed").getAsString();
      long seed = Long.parseUnsignedLong(c.get("seed").getAsString());

      Dice d8 = new Dice(seed);
      List<Integer> rolls = new ArrayList<>();
      c.getAsJsonArray("d8").forEach(x -> rolls.add(d8.die(8)));
      assertEquals(ints(c.get("d8")), rolls, name + " d8");

      for (String key : List.of("battle_a866_d86", "battle_a88_d8")) {
        JsonObject battle = c.getAsJsonObject(key);
        assertEquals(new Dice.Battle(ints(battle.get("attacker")), ints(battle.get("defender"))),
            new Dice(seed).battle(ints(battle.get("attacker_faces")), ints(battle.get("defender_faces"))),
            name + " " + key);
      }

      JsonObject first = c.getAsJsonObject("rolloff_first_4");
      Dice.Ordering firstPlacer = new Dice(seed).rollOff(seats(4), true);
      assertEquals(rounds(first.get("rolls")), firstPlacer.rounds(), name + " rolloff_first_4 rolls");
      assertEquals(first.get("seat").getAsInt(), firstPlacer.order().get(0), name + " rolloff_first_4 seat");

      JsonObject order = c.getAsJsonObject("rolloff_order_4");
      Dice.Ordering bidTie = new Dice(seed).rollOff(seats(4), false);
      assertEquals(new Dice.Ordering(rounds(order.get("rolls")), ints(order.get("order"))), bidTie,
          name + " rolloff_order_4");

      checkSetup4(name, seed, c.getAsJsonObject("setup_4"));
      checkSetup2(name, seed, c.getAsJsonObject("setup_2"));
    }
  }

  /** The start of a 4-player game: decks, devastation (draws nothing), the first placer's roll-off. */
  static void checkSetup4(String name, long seed, JsonObject setup) {
    Dice dice = new Dice(seed);
    Decks decks = new Decks(dice);
    assertEquals(ints(setup.get("land")), decks.territory.get(0), name + " setup_4 land");
    assertEquals(ints(setup.get("water")), decks.territory.get(1), name + " setup_4 water");
    assertEquals(ints(setup.get("lunar")), decks.territory.get(2), name + " setup_4 lunar");
    assertEquals(rounds(setup.get("command")), decks.command, name + " setup_4 command");
    assertEquals(ints(setup.get("devastated")), decks.territory.get(0).subList(0, 4), name + " setup_4 devastated");
    Dice.Ordering rollOff = dice.rollOff(seats(4), true);
    assertEquals(rounds(setup.get("rolls")), rollOff.rounds(), name + " setup_4 rolls");
    assertEquals(setup.get("first_seat").getAsInt(), rollOff.order().get(0), name + " setup_4 first_seat");
    assertEquals(setup.get("words_used").getAsLong(), dice.wordsUsed(), name + " setup_4 words_used");
  }

  /** The start of a 2-player game: the same decks, devastation, the neutral draw, the reshuffle, the roll-off. */
  static void checkSetup2(String name, long seed, JsonObject setup) {
    Dice dice = new Dice(seed);
    Decks decks = new Decks(dice);
    JsonObject neutral = setup.getAsJsonObject("neutral");
    assertEquals(ints(neutral.get("land")), decks.neutrals.subList(0, 16), name + " setup_2 neutral land");
    assertEquals(ints(neutral.get("water")), decks.neutrals.subList(16, 22), name + " setup_2 neutral water");
    assertEquals(ints(neutral.get("lunar")), decks.neutrals.subList(22, 28), name + " setup_2 neutral lunar");
    decks.territory.get(0).subList(0, 4).clear();
    decks.reshuffleTerritories(dice);
    assertEquals(ints(setup.get("land")), decks.territory.get(0), name + " setup_2 land");
    assertEquals(ints(setup.get("water")), decks.territory.get(1), name + " setup_2 water");
    assertEquals(ints(setup.get("lunar")), decks.territory.get(2), name + " setup_2 lunar");
    Dice.Ordering rollOff = dice.rollOff(seats(2), true);
    assertEquals(rounds(setup.get("rolls")), rollOff.rounds(), name + " setup_2 rolls");
    assertEquals(setup.get("first_seat").getAsInt(), rollOff.order().get(0), name + " setup_2 first_seat");
    assertEquals(setup.get("words_used").getAsLong(), dice.wordsUsed(), name + " setup_2 words_used");
  }

  static Replay replay(String game) throws IOException {
    return ReplayVerifier2210.parseReplay(fixture(game + ".json"));
  }

  static List<Event> events(String game) throws IOException {
    return ReplayVerifier2210.parseEvents(fixture(game + ".events.jsonl"));
  }

  static Event first(List<Event> events, String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).findFirst().orElseThrow();
  }

  static List<String> sequences(List<Mismatch> mismatches) {
    return mismatches.stream().map(Mismatch::sequence).toList();
  }

  static JsonArray array(List<Integer> values) {
    JsonArray out = new JsonArray();
    values.forEach(v -> out.add(new JsonPrimitive(v)));
    return out;
  }

  /** Issue 23 ("compare with the events"): the three recorded games verify, every row of the table met. */
  @Test
  void theRecordedGamesVerify() throws IOException {
    String notes = "";
    for (String game : GAMES) {
      Verdict verdict = ReplayVerifier.verifyTexts(fixture(game + ".json"), fixture(game + ".events.jsonl"));
      assertEquals(List.of(), verdict.mismatches(), game);
      notes += verdict.notes().get(0) + "\n";
    }
    assertTrue(notes.contains("67 battle rolls, 1 card rolls, 9 Command cards, 0 territory cards, 4 devastated,"
        + " 28 neutral territories and 3 roll-offs checked"), notes);
    assertTrue(notes.contains("127 battle rolls, 0 card rolls, 16 Command cards, 1 territory cards"), notes);
    assertTrue(notes.contains("180 battle rolls, 2 card rolls, 22 Command cards"), notes);
    assertTrue(notes.contains("0 neutral territories and 6 roll-offs checked"), notes);
  }

  @Test
  void theSeedAbove2To63AndTheCommitmentAreRead() throws IOException {
    Replay r = replay("replay_2210_two_player");
    assertEquals("8880083587908122874", Long.toUnsignedString(r.seed()));
    assertEquals(2, r.seats());
    assertEquals(2, r.diceVersion());
  }

  /** Issue 23: a tampered copy is rejected; a battle die changed (an 8-sided die's battle) fails at its event. */
  @Test
  void aChangedBattleDieFailsAtItsEvent() throws IOException {
    String game = "replay_2210_five_player";
    List<Event> events = events(game);
    Event rolled = first(events, "rolled");
    assertEquals(List.of(8, 6, 6), ints(rolled.data().get("attacker_faces")));
    assertEquals(List.of(5, 5, 1), ints(rolled.data().get("attacker_dice")));
    rolled.data().add("attacker_dice", array(List.of(6, 5, 1)));
    Mismatch want = new Mismatch("142", "rolled 0->1", "{\"attacker\":[6,5,1],\"defender\":[3]}",
        "{\"attacker\":[5,5,1],\"defender\":[3]}");
    assertEquals(List.of(want), ReplayVerifier2210.verify(replay(game), events).mismatches());
  }

  @Test
  void aChangedCommandCardFailsAtItsEvent() throws IOException {
    String game = "replay_2210_five_player";
    List<Event> events = events(game);
    Event drawn = first(events, "cards_drawn");
    assertEquals(List.of(14), ints(drawn.data().get("cards")));
    drawn.data().add("cards", array(List.of(15)));
    Mismatch want = new Mismatch("180", "cards_drawn (seat 3) from the Land deck", "15", "14");
    assertEquals(List.of(want), ReplayVerifier2210.verify(replay(game), events).mismatches());
  }

  @Test
  void aChangedCardRollFailsAtItsEvent() throws IOException {
    String game = "replay_2210_two_player";
    List<Event> events = events(game);
    Event rolled = first(events, "card_rolled");
    assertEquals(8, rolled.data().get("faces").getAsInt());
    assertEquals(8, rolled.data().get("roll").getAsInt());
    rolled.data().addProperty("roll", 3);
    Mismatch want = new Mismatch("254", "card_rolled d8 (seat 1)", "3", "8");
    assertEquals(List.of(want), ReplayVerifier2210.verify(replay(game), events).mismatches());
  }

  @Test
  void aChangedNeutralTerritoryFailsAtItsEvent() throws IOException {
    String game = "replay_2210_two_player";
    List<Event> events = events(game);
    Event neutral = events.stream().filter(e -> e.kind().equals("neutral_placed")).skip(2).findFirst().orElseThrow();
    int territory = neutral.data().get("territory").getAsInt();
    neutral.data().addProperty("territory", (territory + 1) % 42);
    List<Mismatch> mismatches = ReplayVerifier2210.verify(replay(game), events).mismatches();
    assertEquals(List.of(Long.toString(neutral.sequence())), sequences(mismatches));
    assertEquals("neutral_placed (neutral 3 of 28)", mismatches.get(0).what());
    assertEquals(Integer.toString(territory), mismatches.get(0).seed());
  }

  @Test
  void aChangedTerritoryCardAndFirstPlacerFailAtTheirEvents() throws IOException {
    String game = "replay_2210_three_player";
    List<Event> events = events(game);
    first(events, "territory_card_drawn").data().addProperty("territory", 35);
    Event rolled = first(events, "first_player_rolled");
    events.set(events.indexOf(rolled), new Event(rolled.sequence(), rolled.kind(), 1, rolled.data()));
    List<Mismatch> mismatches = ReplayVerifier2210.verify(replay(game), events).mismatches();
    assertEquals(List.of("4", "511"), sequences(mismatches));
    assertEquals("{\"rolls\":[[6,5,2]],\"seat\":1}", mismatches.get(0).event());
    assertEquals("{\"rolls\":[[6,5,2]],\"seat\":0}", mismatches.get(0).seed());
  }

  /** Issue 23: a tampered seed fails its commitment, and its draws then fail from the devastation on. */
  @Test
  void aTamperedSeedFailsTheCommitment() throws IOException {
    String game = "replay_2210_three_player";
    Replay r = replay(game);
    Replay wrongSeed = new Replay(r.seed() + 1, r.gameId(), r.seedCommitment(), r.diceVersion(), r.seats(), r.reseeds());
    List<Mismatch> mismatches = ReplayVerifier2210.verify(wrongSeed, events(game)).mismatches();
    assertEquals("-", mismatches.get(0).sequence());
    assertEquals("seed commitment", mismatches.get(0).what());
    assertTrue(mismatches.get(1).what().startsWith("devastated"), mismatches.get(1).toString());
    assertTrue(mismatches.size() > 50, mismatches.toString());
    Replay otherGame = new Replay(r.seed(), "other", r.seedCommitment(), r.diceVersion(), r.seats(), r.reseeds());
    List<Mismatch> commitmentOnly = ReplayVerifier2210.verify(otherGame, events(game)).mismatches();
    assertEquals(List.of("seed commitment"), commitmentOnly.stream().map(Mismatch::what).toList());
  }

  @Test
  void aMissingFirstPlacerRollOrDevastationIsAMismatch() throws IOException {
    String game = "replay_2210_five_player";
    List<Event> noRoll = events(game);
    noRoll.remove(first(noRoll, "first_player_rolled"));
    List<Mismatch> mismatches = ReplayVerifier2210.verify(replay(game), noRoll).mismatches();
    assertTrue(mismatches.stream().anyMatch(m -> m.sequence().equals("-") && m.what().equals("first_player_rolled")),
        mismatches.toString());

    List<Event> threeDevastated = events(game);
    threeDevastated.removeIf(e -> e.kind().equals("devastated") && e.sequence() == 3);
    Mismatch want = new Mismatch("-", "devastated", "\"3 such events\"", "\"the top 4 land cards are devastated\"");
    assertEquals(List.of(want), ReplayVerifier2210.verify(replay(game), threeDevastated).mismatches());
  }

  @Test
  void aMissingNeutralTerritoryIsAMismatch() throws IOException {
    String game = "replay_2210_two_player";
    List<Event> events = events(game);
    Event last = events.stream().filter(e -> e.kind().equals("neutral_placed")).reduce((a, b) -> b).orElseThrow();
    events.remove(last);
    List<Mismatch> mismatches = ReplayVerifier2210.verify(replay(game), events).mismatches();
    assertTrue(mismatches.stream().anyMatch(m -> m.sequence().equals("-") && m.what().equals("neutral_placed")),
        mismatches.toString());
  }

  /** One run of the command line with its report and errors captured, so that a passing test prints nothing. */
  record Cli(int status, String out, String err) {
    static Cli run(String... args) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status = ReplayVerifier.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8));
      return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** What a failed assertion shows: the exit status and everything the verifier printed. */
    @Override
    public String toString() {
      return "exit " + status + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
    }
  }

  /**
   * The CLI reads both games, format 1 and 2: a 2210 file (`"game": "2210"`) and a classic one; exit 0, 1
   * tampered, 2 unreadable or of an unknown format. The report goes to stdout, the reason input is
   * unreadable to stderr.
   */
  @Test
  void theCommandLineDispatchesOnTheGame(@TempDir Path dir) throws IOException {
    String fixtures = "../fixtures/";
    List<String> games = new ArrayList<>(GAMES);
    games.addAll(List.of("replay_secret_mission", "replay_classic_reseeded", "replay_2210_reseeded"));
    for (String game : games) {
      String replay = fixtures + game + ".json";
      Cli cli = Cli.run(replay, fixtures + game + ".events.jsonl");
      assertEquals(0, cli.status(), cli::toString);
      assertTrue(cli.out().endsWith("OK   " + replay + System.lineSeparator()) && cli.err().isEmpty(), cli::toString);
    }

    String lines = fixture("replay_2210_two_player.events.jsonl");
    Path tampered = dir.resolve("tampered.events.jsonl");
    Files.writeString(tampered, lines.replace("\\\"faces\\\":8,\\\"roll\\\":8", "\\\"faces\\\":8,\\\"roll\\\":7"));
    Cli cli = Cli.run(fixtures + "replay_2210_two_player.json", tampered.toString());
    assertEquals(1, cli.status(), cli::toString);
    assertTrue(cli.out().contains("card_rolled d8 (seat 1): the event says 7; the seed gives 8")
        && cli.out().contains("FAIL " + fixtures + "replay_2210_two_player.json: 1 mismatch(es)"), cli::toString);

    JsonObject format3 = JsonParser.parseString(fixture("replay_2210_two_player.json")).getAsJsonObject();
    format3.addProperty("format", 3);
    Path unknown = dir.resolve("format3.json");
    Files.writeString(unknown, format3.toString());
    cli = Cli.run(unknown.toString(), fixtures + "replay_2210_two_player.events.jsonl");
    assertEquals(2, cli.status(), cli::toString);
    assertTrue(cli.out().isEmpty() && cli.err().contains("replay format 3 is unknown"), cli::toString);
    String notEvents = lines.lines().map(l -> "{\"sequence\":\"1\"}").collect(Collectors.joining("\n"));
    Path classicLines = dir.resolve("classic.events.jsonl");
    Files.writeString(classicLines, notEvents);
    cli = Cli.run(fixtures + "replay_2210_two_player.json", classicLines.toString());
    assertEquals(2, cli.status(), cli::toString);
    assertTrue(cli.out().isEmpty() && cli.err().contains("not a GameEvent2210 line"), cli::toString);
  }
}
