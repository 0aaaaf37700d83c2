package conquest.bot;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import conquest.bot.ReplayVerifier.Mismatch;
import conquest.bot.ReplayVerifier.Verdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The replay verifier for RISK 2210 A.D. games: draws the territory and Command decks from the revealed
 * seed, then walks the events in sequence order with one stream, checking each draw as docs/protocol.md's
 * table "Checking a 2210 game's draws" says. {@link ReplayVerifier#main} sends a replay marked
 * {@code "game": "2210"} here.
 */
public final class ReplayVerifier2210 {
  /** Territory card ids by deck: land 0..41 (the wild cards are out), water 42..54, lunar 55..68. */
  static final int[] TERRITORY_DECK_STARTS = {0, 42, 55, 69};

  static final List<String> TERRITORY_DECKS = List.of("land", "water", "lunar");

  /** The Command decks in Commander order; deck d holds card ids 20d .. 20d+19. */
  static final List<String> COMMAND_DECKS = List.of("Land", "Diplomat", "Naval", "Space", "Nuclear");

  static final int COMMAND_DECK_SIZE = 20;

  /** Land cards turned over by devastation at the start. */
  static final int DEVASTATED = 4;

  /** Two-player games: neutral territories taken off the top of each territory deck (land, water, lunar). */
  static final int[] NEUTRALS = {16, 6, 6};

  /** Seats a 2210 game can have. */
  static final int MIN_SEATS = 2;

  static final int MAX_SEATS = 5;

  /**
   * What the verifier reads from a 2210 replay file; the seed is an unsigned 64-bit integer in a long;
   * {@code reseeds} are the game's takeovers in order (none in a format 1 replay).
   */
  public record Replay(long seed, String gameId, String seedCommitment, int diceVersion, int seats,
      List<Takeovers.Reseed> reseeds) {}

  /** One GameEvent2210 as {@code conquest replay events} prints it; {@code data} is its parsed dataJson. */
  public record Event(long sequence, String kind, int seat, JsonObject data) {}

  /**
   * The decks of a game's start, each top first: land, water and lunar territory cards, then the five
   * Command decks. {@code neutrals} is what a two-player game's neutral draw takes, in order: land cards 5 to
   * 20 of the land deck as first shuffled (the top 16 after devastation), water's top 6, lunar's top 6.
   */
  static final class Decks {
    final List<List<Integer>> territory = new ArrayList<>();
    final List<List<Integer>> command = new ArrayList<>();
    final List<Integer> neutrals = new ArrayList<>();

    /** Shuffles land, water, lunar, then the Command decks in Commander order, from ascending ids. */
    Decks(Dice dice) {
      for (int d = 0; d < TERRITORY_DECKS.size(); d++) {
        territory.add(shuffled(dice, TERRITORY_DECK_STARTS[d], TERRITORY_DECK_STARTS[d + 1]));
      }
      for (int d = 0; d < COMMAND_DECKS.size(); d++) {
        command.add(shuffled(dice, d * COMMAND_DECK_SIZE, (d + 1) * COMMAND_DECK_SIZE));
      }
      neutrals.addAll(territory.get(0).subList(DEVASTATED, DEVASTATED + NEUTRALS[0]));
      for (int d = 1; d < TERRITORY_DECKS.size(); d++) {
        neutrals.addAll(territory.get(d).subList(0, NEUTRALS[d]));
      }
    }

    /**
     * After a takeover: the undrawn cards of the land, water and lunar decks, then of the five Command decks,
     * each shuffled again as it lies (top first) by the fresh stream.
     */
    void reshuffleAll(Dice dice) {
      territory.forEach(dice::shuffle);
      command.forEach(dice::shuffle);
    }

    /** After the neutral draw: each territory deck sorted back into ascending order and shuffled. */
    void reshuffleTerritories(Dice dice) {
      for (List<Integer> deck : territory) {
        Collections.sort(deck);
        dice.shuffle(deck);
      }
    }

    private static List<Integer> shuffled(Dice dice, int from, int to) {
      List<Integer> deck = new ArrayList<>();
      for (int id = from; id < to; id++) {
        deck.add(id);
      }
      dice.shuffle(deck);
      return deck;
    }
  }

  private ReplayVerifier2210() {}

  /** Whether a replay file's JSON is a RISK 2210 A.D. game's. */
  public static boolean is2210(JsonObject data) {
    return data.has("game") && data.get("game").isJsonPrimitive() && data.get("game").getAsString().equals("2210");
  }

  /** Reads a 2210 replay file's JSON: format 1 or 2, board "2210", 2 to 5 seats. */
  public static Replay parseReplay(String text) {
    return parseReplay(JsonParser.parseString(text).getAsJsonObject());
  }

  static Replay parseReplay(JsonObject data) {
    if (!data.has("seed") || !data.has("game_id") || !data.has("seats")) {
      throw new IllegalArgumentException("not a replay file: expected a JSON object with seed, game_id and seats");
    }
    if (!is2210(data)) {
      throw new IllegalArgumentException("not a RISK 2210 A.D. replay: its \"game\" is not \"2210\"");
    }
    List<Takeovers.Reseed> reseeds = Takeovers.parseReseeds(data);
    String board = data.has("board") ? data.get("board").getAsString() : "";
    if (!board.equals("2210")) {
      throw new IllegalArgumentException("board \"" + board + "\" is unknown to this verifier for a 2210 game; it knows 2210");
    }
    int seats = data.getAsJsonArray("seats").size();
    if (seats < MIN_SEATS || seats > MAX_SEATS) {
      throw new IllegalArgumentException("a 2210 game has 2 to 5 seats, not " + seats);
    }
    return new Replay(
        Long.parseUnsignedLong(data.get("seed").getAsString()),
        data.get("game_id").getAsString(),
        data.has("seed_commitment") ? data.get("seed_commitment").getAsString() : "",
        data.has("dice_version") ? data.get("dice_version").getAsInt() : 1,
        seats,
        reseeds);
  }

  /**
   * Reads {@code conquest replay events} output of a 2210 game (one GameEvent2210 as proto3 JSON per line),
   * in sequence order. Proto3 JSON leaves out a field at its default, so an absent seat is 0 and an absent
   * dataJson is {}.
   */
  public static List<Event> parseEvents(String text) {
    List<Event> events = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonObject fields = JsonParser.parseString(line).getAsJsonObject();
      if (!fields.has("kind")) {
        throw new IllegalArgumentException("not a GameEvent2210 line (no \"kind\"): " + line);
      }
      String dataJson = fields.has("dataJson") ? fields.get("dataJson").getAsString() : "";
      events.add(new Event(
          fields.has("sequence") ? Long.parseLong(fields.get("sequence").getAsString()) : 0,
          fields.get("kind").getAsString(),
          fields.has("seat") ? fields.get("seat").getAsInt() : 0,
          dataJson.isEmpty() ? new JsonObject() : JsonParser.parseString(dataJson).getAsJsonObject()));
    }
    events.sort(Comparator.comparingLong(Event::sequence));
    return events;
  }

  /** A list of lists of integers (a roll-off's rounds); absent is empty. */
  static List<List<Integer>> rounds(JsonObject data, String key) {
    List<List<Integer>> out = new ArrayList<>();
    if (data.has(key)) {
      for (JsonElement round : data.getAsJsonArray(key)) {
        List<Integer> values = new ArrayList<>();
        round.getAsJsonArray().forEach(v -> values.add(v.getAsInt()));
        out.add(values);
      }
    }
    return out;
  }

  /** The territory deck (0 land, 1 water, 2 lunar) of a territory id, or -1 for none. */
  static int territoryDeck(int territory) {
    for (int d = 0; d < TERRITORY_DECKS.size(); d++) {
      if (territory >= TERRITORY_DECK_STARTS[d] && territory < TERRITORY_DECK_STARTS[d + 1]) {
        return d;
      }
    }
    return -1;
  }

  private static boolean dieFaces(List<Integer> faces, int most) {
    return !faces.isEmpty() && faces.size() <= most && faces.stream().allMatch(f -> f == 6 || f == 8);
  }

  /**
   * Checks the seed commitment and every draw of a 2210 game against its events. Throws
   * IllegalArgumentException when the replay cannot be checked at all (an unknown dice version).
   */
  public static Verdict verify(Replay replay, List<Event> events) {
    List<String> notes = new ArrayList<>();
    List<Mismatch> mismatches =
        ReplayVerifier.checkCommitment(replay.seed(), replay.gameId(), replay.seedCommitment());
    if (replay.diceVersion() != 2) {
      throw new IllegalArgumentException("dice_version " + replay.diceVersion()
          + " is unknown to this verifier for a 2210 game; 2210 games draw from dice version 2");
    }
    new Walk(replay, mismatches).run(events, notes);
    return new Verdict(notes, mismatches);
  }

  /** One pass over a game's events with its stream and decks. */
  private static final class Walk {
    private final Replay replay;
    private final List<Mismatch> mismatches;
    private final Takeovers takeovers;
    private final Decks decks;
    private Dice dice;
    private final int neutralTotal;
    private int neutralsPlaced;
    private int devastated;
    private boolean firstRolled;
    private int battles;
    private int cardRolls;
    private int commandCards;
    private int territoryCards;
    private int rollOffs;

    Walk(Replay replay, List<Mismatch> mismatches) {
      this.replay = replay;
      this.mismatches = mismatches;
      this.takeovers = new Takeovers(replay.reseeds(), replay.gameId(), mismatches);
      this.dice = new Dice(replay.seed());
      this.decks = new Decks(dice);
      this.neutralTotal = replay.seats() == 2 ? decks.neutrals.size() : 0;
    }

    private void mismatch(String sequence, String what, Object event, Object seed) {
      mismatches.add(new Mismatch(sequence, what, ReplayVerifier.show(event), ReplayVerifier.show(seed)));
    }

    void run(List<Event> events, List<String> notes) {
      for (Event event : events) {
        check(event, Long.toString(event.sequence()), event.data());
      }
      if (devastated < DEVASTATED) {
        mismatch("-", "devastated", devastated + " such events", "the top " + DEVASTATED + " land cards are devastated");
      }
      if (neutralsPlaced < neutralTotal) {
        mismatch("-", "neutral_placed", neutralsPlaced + " such events",
            "a two-player game places " + neutralTotal + " neutral territories");
      }
      if (!firstRolled) {
        mismatch("-", "first_player_rolled", "no such event", "every game rolls off for the first placer");
      }
      notes.add("dice version 2, RISK 2210 A.D.: " + events.size() + " events; " + battles + " battle rolls, "
          + cardRolls + " card rolls, " + commandCards + " Command cards, " + territoryCards + " territory cards, "
          + devastated + " devastated, " + neutralsPlaced + " neutral territories and " + rollOffs
          + " roll-offs checked, " + takeovers.finish());
    }

    private void check(Event event, String seq, JsonObject b) {
      switch (event.kind()) {
        case "reseeded" -> {
          // Every deck's undrawn cards are shuffled again by the fresh stream; a withdrawn bid draws nothing.
          Dice fresh = takeovers.next(seq, b);
          if (fresh != null) {
            dice = fresh;
            decks.reshuffleAll(dice);
          }
        }
        case "devastated" -> {
          int territory = ReplayVerifier.integer(b, "territory");
          if (devastated == DEVASTATED) {
            mismatch(seq, "devastated", territory, "only the top " + DEVASTATED + " land cards are devastated");
            return;
          }
          if (decks.territory.get(0).isEmpty()) {
            mismatch(seq, "devastated", territory, "an empty land deck");
            return;
          }
          devastated++;
          int top = decks.territory.get(0).remove(0);
          if (territory != top) {
            mismatch(seq, "devastated (land card " + devastated + ")", territory, top);
          }
        }
        case "neutral_placed" -> {
          int territory = ReplayVerifier.integer(b, "territory");
          if (neutralsPlaced == neutralTotal) {
            mismatch(seq, "neutral_placed", territory, neutralTotal == 0
                ? "no neutral territories in a " + replay.seats() + "-player game"
                : "only " + neutralTotal + " neutral territories");
            return;
          }
          int expected = decks.neutrals.get(neutralsPlaced++);
          if (territory != expected) {
            mismatch(seq, "neutral_placed (neutral " + neutralsPlaced + " of " + neutralTotal + ")", territory, expected);
          }
          if (neutralsPlaced == neutralTotal) {
            decks.reshuffleTerritories(dice);
          }
        }
        case "first_player_rolled" -> {
          List<List<Integer>> rolls = rounds(b, "rolls");
          if (firstRolled) {
            mismatch(seq, "a second first_player_rolled", rolls, "one per game");
            return;
          }
          firstRolled = true;
          rollOffs++;
          List<Integer> seats = new ArrayList<>();
          for (int s = 0; s < replay.seats(); s++) {
            seats.add(s);
          }
          Dice.Ordering expected = dice.rollOff(seats, true);
          if (!rolls.equals(expected.rounds()) || event.seat() != expected.order().get(0)) {
            mismatch(seq, "first_player_rolled", ReplayVerifier.ordered("rolls", rolls, "seat", event.seat()),
                ReplayVerifier.ordered("rolls", expected.rounds(), "seat", expected.order().get(0)));
          }
        }
        case "bid_tie_rolled" -> {
          List<Integer> seats = ReplayVerifier.ints(b, "seats");
          List<List<Integer>> rolls = rounds(b, "rolls");
          if (seats.size() < 2 || seats.stream().distinct().count() != seats.size()) {
            mismatch(seq, "bid_tie_rolled seats", seats, "two or more distinct seats tied");
            return;
          }
          rollOffs++;
          List<List<Integer>> expected = dice.rollOff(seats, false).rounds();
          if (!rolls.equals(expected)) {
            mismatch(seq, "bid_tie_rolled " + ReplayVerifier.show(seats), rolls, expected);
          }
        }
        case "rolled" -> {
          List<Integer> attackerFaces = ReplayVerifier.ints(b, "attacker_faces");
          List<Integer> defenderFaces = ReplayVerifier.ints(b, "defender_faces");
          String what = "rolled " + ReplayVerifier.integer(b, "source") + "->" + ReplayVerifier.integer(b, "target");
          if (!dieFaces(attackerFaces, Dice.ATTACKER_SLOTS) || !dieFaces(defenderFaces, Dice.DEFENDER_SLOTS)) {
            mismatch(seq, what + " faces",
                ReplayVerifier.ordered("attacker_faces", attackerFaces, "defender_faces", defenderFaces),
                "1 to 3 attacker and 1 to 2 defender dice of 6 or 8 faces");
            return;
          }
          battles++;
          Dice.Battle said = new Dice.Battle(ReplayVerifier.ints(b, "attacker_dice"), ReplayVerifier.ints(b, "defender_dice"));
          Dice.Battle expected = dice.battle(attackerFaces, defenderFaces);
          if (!said.equals(expected)) {
            mismatch(seq, what, ReplayVerifier.ordered("attacker", said.attacker(), "defender", said.defender()),
                ReplayVerifier.ordered("attacker", expected.attacker(), "defender", expected.defender()));
          }
        }
        case "card_rolled" -> {
          int faces = ReplayVerifier.integer(b, "faces");
          int roll = ReplayVerifier.integer(b, "roll");
          if (faces != 6 && faces != 8) {
            mismatch(seq, "card_rolled faces", faces, "a d6 or a d8");
            return;
          }
          cardRolls++;
          int expected = dice.die(faces);
          if (roll != expected) {
            mismatch(seq, "card_rolled d" + faces + " (seat " + event.seat() + ")", roll, expected);
          }
        }
        case "cards_drawn" -> {
          for (int card : ReplayVerifier.ints(b, "cards")) {
            int d = card / COMMAND_DECK_SIZE;
            if (card < 0 || d >= COMMAND_DECKS.size()) {
              mismatch(seq, "cards_drawn (seat " + event.seat() + ")", card, "a Command card id 0..99");
              continue;
            }
            List<Integer> deck = decks.command.get(d);
            String what = "cards_drawn (seat " + event.seat() + ") from the " + COMMAND_DECKS.get(d) + " deck";
            if (deck.isEmpty()) {
              mismatch(seq, what, card, "an empty deck");
              continue;
            }
            commandCards++;
            int top = deck.remove(0);
            if (card != top) {
              mismatch(seq, what, card, top);
            }
          }
        }
        case "territory_card_drawn" -> {
          int territory = ReplayVerifier.integer(b, "territory");
          int d = territoryDeck(territory);
          if (d < 0) {
            mismatch(seq, "territory_card_drawn", territory, "a territory card id 0..68");
            return;
          }
          List<Integer> deck = decks.territory.get(d);
          String what = "territory_card_drawn (seat " + event.seat() + ") from the " + TERRITORY_DECKS.get(d) + " deck";
          if (deck.isEmpty()) {
            mismatch(seq, what, territory, "an empty deck");
            return;
          }
          territoryCards++;
          int top = deck.remove(0);
          if (territory != top) {
            mismatch(seq, what, territory, top);
          }
        }
        default -> {}
      }
    }
  }
}
