package conquest.bot;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replay verifier: re-derives every roll and shuffle of a recorded game from its revealed seed and
 * compares them with the game's events (docs/protocol.md, "Randomness"). A game taken over by another server
 * (format 2) goes on at each {@code reseeded} event with a fresh stream and its undrawn cards shuffled again
 * by it ({@link Takeovers}).
 *
 * <pre>java -cp target/conquest-bot.jar conquest.bot.ReplayVerifier REPLAY.json EVENTS.jsonl</pre>
 *
 * EVENTS.jsonl is {@code conquest replay events REPLAY.json}. A replay marked {@code "game": "2210"} (RISK
 * 2210 A.D.) is checked by {@link ReplayVerifier2210}, every other one here. Exit status: 0 all match, 1 a
 * mismatch (each printed), 2 unreadable input.
 */
public final class ReplayVerifier {
  /** Territories and wild cards of each board a replay can name. */
  private static final Map<String, int[]> BOARDS = Map.of("classic", new int[] {42, 2});

  /**
   * What the verifier reads from a replay file; the seed is an unsigned 64-bit integer held in a long;
   * {@code reseeds} are a game's takeovers in order (none in a format 1 replay).
   */
  public record Replay(long seed, String gameId, String seedCommitment, int diceVersion, int seats, String board,
      String setup, String objective, boolean threeContinentMissions, List<Takeovers.Reseed> reseeds) {}

  /** One GameEvent as {@code conquest replay events} prints it: its sequence, oneof key and that key's body. */
  public record Event(long sequence, String kind, JsonObject body) {}

  /** One disagreement: the event's sequence ("-" for the whole game), what, the event's and the seed's word. */
  public record Mismatch(String sequence, String what, String event, String seed) {
    @Override
    public String toString() {
      return "MISMATCH event " + sequence + " " + what + ": the event says " + event + "; the seed gives " + seed;
    }
  }

  /** What was checked and every disagreement found. */
  public record Verdict(List<String> notes, List<Mismatch> mismatches) {}

  private ReplayVerifier() {}

  /** Reads a replay file's JSON; a replay without dice_version is version 1. */
  public static Replay parseReplay(String text) {
    return parseReplay(JsonParser.parseString(text).getAsJsonObject());
  }

  static Replay parseReplay(JsonObject data) {
    if (!data.has("seed") || !data.has("game_id") || !data.has("seats") || !data.has("rules")) {
      throw new IllegalArgumentException("not a replay file: expected a JSON object with seed, game_id, seats and rules");
    }
    List<Takeovers.Reseed> reseeds = Takeovers.parseReseeds(data);
    JsonObject rules = data.getAsJsonObject("rules");
    return new Replay(
        Long.parseUnsignedLong(data.get("seed").getAsString()),
        data.get("game_id").getAsString(),
        data.has("seed_commitment") ? data.get("seed_commitment").getAsString() : "",
        data.has("dice_version") ? data.get("dice_version").getAsInt() : 1,
        data.getAsJsonArray("seats").size(),
        data.get("board").getAsString(),
        rules.get("setup").getAsString(),
        rules.get("objective").getAsString(),
        rules.has("three_continent_missions") && rules.get("three_continent_missions").getAsBoolean(),
        reseeds);
  }

  /** Reads {@code conquest replay events} output (one JSON object per line), in sequence order. */
  public static List<Event> parseEvents(String text) {
    List<Event> events = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonObject fields = JsonParser.parseString(line).getAsJsonObject();
      long sequence = Long.parseLong(fields.get("sequence").getAsString());
      String kind = fields.keySet().stream().filter(k -> !k.equals("sequence")).findFirst().orElse("");
      events.add(new Event(sequence, kind, kind.isEmpty() ? new JsonObject() : fields.getAsJsonObject(kind)));
    }
    events.sort(Comparator.comparingLong(Event::sequence));
    return events;
  }

  static List<Integer> ints(JsonObject body, String key) {
    List<Integer> out = new ArrayList<>();
    if (body.has(key)) {
      for (JsonElement e : body.getAsJsonArray(key)) {
        out.add(e.getAsInt());
      }
    }
    return out;
  }

  static int integer(JsonObject body, String key) {
    return body.has(key) ? body.get(key).getAsInt() : 0;
  }

  /** A value as JSON, for a mismatch line. */
  static String show(Object value) {
    if (value instanceof String s) {
      return new JsonPrimitive(s).toString();
    }
    if (value instanceof Map<?, ?> map) {
      List<String> parts = new ArrayList<>();
      map.forEach((k, v) -> parts.add(new JsonPrimitive(k.toString()) + ":" + show(v)));
      return "{" + String.join(",", parts) + "}";
    }
    return value.toString().replace(" ", "");
  }

  static String sha256Hex(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** The seed commitment check shared by both games: sha256 of "SEED:GAME_ID", the seed in decimal. */
  static List<Mismatch> checkCommitment(long seed, String gameId, String recorded) {
    String commitment = sha256Hex(Long.toUnsignedString(seed) + ":" + gameId);
    if (commitment.equals(recorded)) {
      return new ArrayList<>();
    }
    return new ArrayList<>(List.of(new Mismatch("-", "seed commitment", show(recorded), show(commitment))));
  }

  /** Verifies a replay file's text against its events' text, a 2210 replay by ReplayVerifier2210. */
  public static Verdict verifyTexts(String replayText, String eventsText) {
    JsonObject data = JsonParser.parseString(replayText).getAsJsonObject();
    if (ReplayVerifier2210.is2210(data)) {
      return ReplayVerifier2210.verify(ReplayVerifier2210.parseReplay(data), ReplayVerifier2210.parseEvents(eventsText));
    }
    return verify(parseReplay(data), parseEvents(eventsText));
  }

  /**
   * Checks the seed commitment and, for dice version 2, every draw against the events. Throws
   * IllegalArgumentException when the replay cannot be checked at all (an unknown dice version or board).
   */
  public static Verdict verify(Replay replay, List<Event> events) {
    List<String> notes = new ArrayList<>();
    List<Mismatch> mismatches = checkCommitment(replay.seed(), replay.gameId(), replay.seedCommitment());
    if (replay.diceVersion() == 1) {
      replay.reseeds().forEach(reseed -> Takeovers.checkCommitment(reseed, replay.gameId(), "-", mismatches));
      notes.add("dice version 1 (CPython Mersenne Twister) is checked by `conquest replay verify` only;"
          + " seed commitment and " + replay.reseeds().size() + " reseed commitments checked");
      return new Verdict(notes, mismatches);
    }
    if (replay.diceVersion() != 2) {
      throw new IllegalArgumentException(
          "dice_version " + replay.diceVersion() + " is unknown to this verifier; it knows 1 and 2");
    }
    int[] board = BOARDS.get(replay.board());
    if (board == null) {
      throw new IllegalArgumentException("board \"" + replay.board() + "\" is unknown to this verifier; it knows classic");
    }
    boolean deals = replay.setup().equals("dealt") || replay.setup().equals("neutral_piles");
    boolean missionGame = replay.objective().equals("missions");
    Dice dice = new Dice(replay.seed());
    Takeovers takeovers = new Takeovers(replay.reseeds(), replay.gameId(), mismatches);
    List<Integer> missions = null;
    List<Integer> owners = null;
    List<Integer> deck = null;
    List<Integer> reserved = List.of();
    boolean rolledOff = false;
    boolean dealtSeen = false;
    boolean missionsSeen = false;
    int draws = 0;
    for (Event event : events) {
      String seq = Long.toString(event.sequence());
      JsonObject b = event.body();
      switch (event.kind()) {
        case "firstPlayerRolled" -> {
          if (rolledOff) {
            mismatches.add(new Mismatch(seq, "a second roll for the first player", show(ints(b, "rolls")),
                show("one per game")));
            continue;
          }
          rolledOff = true;
          Dice.RollOff expected = dice.rollOff(replay.seats());
          if (!ints(b, "rolls").equals(expected.rolls()) || integer(b, "seat") != expected.seat()) {
            mismatches.add(new Mismatch(seq, "first_player_rolled",
                show(ordered("rolls", ints(b, "rolls"), "seat", integer(b, "seat"))),
                show(ordered("rolls", expected.rolls(), "seat", expected.seat()))));
          }
          if (missionGame) {
            missions = dice.dealMissions(replay.seats(), replay.threeContinentMissions());
          }
          if (deals) {
            owners = dice.dealTerritories(board[0], replay.seats(), replay.setup(), expected.seat());
          }
        }
        case "missionDealt" -> {
          missionsSeen = true;
          int seat = integer(b, "seat");
          Integer expected = missions != null && seat >= 0 && seat < missions.size() ? missions.get(seat) : null;
          if (expected == null || expected != integer(b, "mission")) {
            mismatches.add(new Mismatch(seq, "mission_dealt to seat " + seat, show(integer(b, "mission")),
                expected == null ? show("no mission deal") : show(expected)));
          }
        }
        case "missionsRevealed" -> {
          missionsSeen = true;
          if (!ints(b, "missions").equals(missions)) {
            mismatches.add(new Mismatch(seq, "missions_revealed", show(ints(b, "missions")),
                missions == null ? show("no mission deal") : show(missions)));
          }
        }
        case "dealt" -> {
          dealtSeen = true;
          if (!ints(b, "owners").equals(owners)) {
            mismatches.add(new Mismatch(seq, "dealt owners", show(ints(b, "owners")),
                owners == null ? show("no deal in setup " + replay.setup()) : show(owners)));
          }
        }
        case "headquartersRevealed" -> reserved = ints(b, "territories");
        case "turnStarted" -> {
          if (deck == null) {
            deck = dice.shuffledDeck(board[0] + board[1], reserved);
          }
        }
        case "drew" -> {
          int card = integer(b, "card");
          if (deck == null || deck.isEmpty()) {
            mismatches.add(new Mismatch(seq, "drew", show(card), show("an empty deck")));
            continue;
          }
          int front = deck.remove(0);
          if (card != -1 && card != front) {
            mismatches.add(new Mismatch(seq, "drew (seat " + integer(b, "seat") + ")", show(card), show(front)));
          }
        }
        case "traded" -> {
          if (deck != null) {
            deck.addAll(ints(b, "cards"));
          }
        }
        case "reseeded" -> {
          // The draw pile, top first, is shuffled again by the fresh stream (there is none before the first turn).
          Dice fresh = takeovers.next(seq, b);
          if (fresh != null) {
            dice = fresh;
            if (deck != null) {
              dice.shuffle(deck);
            }
          }
        }
        case "rolled" -> {
          draws++;
          Dice.Battle said = new Dice.Battle(ints(b, "attackerDice"), ints(b, "defenderDice"));
          Dice.Battle expected = dice.battle(said.attacker().size(), said.defender().size());
          if (!said.equals(expected)) {
            mismatches.add(new Mismatch(seq, "rolled " + integer(b, "source") + "->" + integer(b, "target"),
                show(ordered("attacker", said.attacker(), "defender", said.defender())),
                show(ordered("attacker", expected.attacker(), "defender", expected.defender()))));
          }
        }
        default -> {}
      }
    }
    if (!rolledOff) {
      mismatches.add(new Mismatch("-", "first_player_rolled", show("no such event"),
          show("every game rolls for the first player")));
    }
    if (deals && !dealtSeen) {
      mismatches.add(new Mismatch("-", "dealt", show("no such event"),
          show("setup " + replay.setup() + " deals the territories")));
    }
    if (missionGame && !missionsSeen) {
      mismatches.add(new Mismatch("-", "mission_dealt", show("no such event"),
          show("a Secret Mission game deals missions")));
    }
    notes.add("dice version 2: " + events.size() + " events, " + draws + " battle rolls checked, " + takeovers.finish());
    return new Verdict(notes, mismatches);
  }

  static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return map;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * The command line: the report (notes, each mismatch, OK or FAIL) on {@code out}, usage and unreadable
   * input on {@code err}; returns the exit status (package-private: the tests capture both streams).
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length != 2) {
      err.println("usage: java -cp target/conquest-bot.jar conquest.bot.ReplayVerifier REPLAY.json EVENTS.jsonl"
          + "   (EVENTS: `conquest replay events REPLAY.json`)");
      return 2;
    }
    Verdict verdict;
    try {
      verdict = verifyTexts(Files.readString(Path.of(args[0])), Files.readString(Path.of(args[1])));
    } catch (IOException | RuntimeException e) {
      err.println(args[0] + ": " + e);
      return 2;
    }
    for (String note : verdict.notes()) {
      out.println(args[0] + ": " + note);
    }
    for (Mismatch mismatch : verdict.mismatches()) {
      out.println(mismatch);
    }
    if (verdict.mismatches().isEmpty()) {
      out.println("OK   " + args[0]);
      return 0;
    }
    out.println("FAIL " + args[0] + ": " + verdict.mismatches().size() + " mismatch(es)");
    return 1;
  }
}
