package conquest.bot;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import conquest.bot.ReplayVerifier.Mismatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The takeovers of a game taken over by another server (a {@code "format": 2} replay; docs/protocol.md,
 * "Games taken over"), met in event order by both verifiers: each {@code reseeded} event must be the
 * replay's next {@code reseeds} entry (a missing, extra or different one is a mismatch), whose commitment
 * is checked and whose fresh seed starts the stream the game goes on with.
 */
final class Takeovers {
  /** A game played on one server. */
  static final int FORMAT = 1;

  /** A game taken over, with {@code reseeds}. */
  static final int RESEEDED_FORMAT = 2;

  /**
   * One takeover: from action {@code at} on, the game's draws come from the fresh {@code seed} (an unsigned
   * 64-bit integer in a long); {@code commitment} is sha256("SEED:GAME_ID:AT") in hex.
   */
  public record Reseed(int at, long seed, String commitment) {
    /** As a {@code reseeded} event writes it (64-bit integers as strings), for a mismatch line. */
    Map<String, Object> facts() {
      return Takeovers.facts(Integer.toString(at), Long.toUnsignedString(seed), commitment);
    }
  }

  private final List<Reseed> reseeds;
  private final String gameId;
  private final List<Mismatch> mismatches;
  /** How many of the reseeds have been met or found missing, and how many of them were missing. */
  private int checked;
  private int skipped;

  Takeovers(List<Reseed> reseeds, String gameId, List<Mismatch> mismatches) {
    this.reseeds = reseeds;
    this.gameId = gameId;
    this.mismatches = mismatches;
  }

  /**
   * A replay file's format (1 or 2; any other is refused by its number) and its reseeds, checked as
   * {@code conquest replay verify} reads them: only in format 2, each {@code at} an action index, in order.
   */
  static List<Reseed> parseReseeds(JsonObject data) {
    int format = data.has("format") ? data.get("format").getAsInt() : 0;
    if (format != FORMAT && format != RESEEDED_FORMAT) {
      throw new IllegalArgumentException("replay format " + format + " is unknown to this verifier: it reads format "
          + FORMAT + " (a game played on one server) and " + RESEEDED_FORMAT + " (a game taken over, with \"reseeds\");"
          + " check a newer format with `conquest replay verify` or a newer kit");
    }
    JsonArray listed = data.has("reseeds") ? data.getAsJsonArray("reseeds") : new JsonArray();
    if (!listed.isEmpty() && format != RESEEDED_FORMAT) {
      throw new IllegalArgumentException("a replay with \"reseeds\" is format " + RESEEDED_FORMAT + ", not " + format);
    }
    int actions = data.has("actions") ? data.getAsJsonArray("actions").size() : 0;
    List<Reseed> reseeds = new ArrayList<>();
    for (JsonElement element : listed) {
      int previous = reseeds.isEmpty() ? 0 : reseeds.get(reseeds.size() - 1).at();
      String expected = "reseeds[" + reseeds.size() + "] is " + element + ": expected {\"at\": an action index "
          + previous + ".." + actions + " (in order), \"seed\": an integer 0..2^64-1, \"commitment\": hex}";
      Reseed reseed;
      try {
        JsonObject r = element.getAsJsonObject();
        reseed = new Reseed(r.get("at").getAsInt(), Long.parseUnsignedLong(r.get("seed").getAsString()),
            r.get("commitment").getAsString());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(expected, e);
      }
      if (reseed.at() < previous || reseed.at() > actions) {
        throw new IllegalArgumentException(expected);
      }
      reseeds.add(reseed);
    }
    return reseeds;
  }

  /** Reports {@code reseed} at {@code sequence} if its commitment is not sha256("SEED:GAME_ID:AT") in hex. */
  static void checkCommitment(Reseed reseed, String gameId, String sequence, List<Mismatch> mismatches) {
    String key = Long.toUnsignedString(reseed.seed()) + ":" + gameId + ":" + reseed.at();
    String commitment = ReplayVerifier.sha256Hex(key);
    if (!commitment.equals(reseed.commitment())) {
      mismatches.add(new Mismatch(sequence, "reseed commitment sha256(\"" + key + "\")",
          ReplayVerifier.show(reseed.commitment()), ReplayVerifier.show(commitment)));
    }
  }

  /**
   * At a {@code reseeded} event whose facts are {@code said} (at, seed, commitment): the fresh stream of the
   * replay's next reseed, or null (reported) when the replay lists no more, so the game goes on with its
   * stream.
   */
  Dice next(String sequence, JsonObject said) {
    Map<String, Object> event = facts(text(said, "at", "0"), text(said, "seed", "0"), text(said, "commitment", ""));
    // Listed takeovers before this event's action have no event of their own.
    while (checked < reseeds.size() && reseeds.get(checked).at() < atOf(said)) {
      missing(sequence, "no such event before this one");
    }
    if (checked == reseeds.size()) {
      mismatches.add(new Mismatch(sequence, "reseeded (a takeover the replay does not list)", ReplayVerifier.show(event),
          ReplayVerifier.show("the replay's " + reseeds.size() + " reseeds")));
      return null;
    }
    Reseed reseed = reseeds.get(checked++);
    if (!event.equals(reseed.facts())) {
      mismatches.add(new Mismatch(sequence, "reseeded " + checked + " of " + reseeds.size() + " (the replay's entry)",
          ReplayVerifier.show(event), ReplayVerifier.show(reseed.facts())));
    }
    checkCommitment(reseed, gameId, sequence, mismatches);
    return new Dice(reseed.seed());
  }

  /** After the last event: each listed takeover without its event is a mismatch. Returns the note's words. */
  String finish() {
    int met = checked - skipped;
    while (checked < reseeds.size()) {
      missing("-", "no such event");
    }
    return met + " of " + reseeds.size() + " reseeds (games taken over) checked";
  }

  /** Reports the next listed takeover as having no event. */
  private void missing(String sequence, String said) {
    Reseed reseed = reseeds.get(checked++);
    skipped++;
    mismatches.add(new Mismatch(sequence, "reseeded " + checked + " of " + reseeds.size(), ReplayVerifier.show(said),
        ReplayVerifier.show(reseed.facts())));
  }

  private static Map<String, Object> facts(String at, String seed, String commitment) {
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("at", at);
    facts.put("seed", seed);
    facts.put("commitment", commitment);
    return facts;
  }

  /** A field as text (a number or a string), or {@code absent} (proto3 JSON leaves out a 0). */
  private static String text(JsonObject said, String key, String absent) {
    return said.has(key) && said.get(key).isJsonPrimitive() ? said.get(key).getAsString() : absent;
  }

  /** The event's action index; below every reseed's when it is not a number, so none is taken as missing. */
  private static long atOf(JsonObject said) {
    try {
      return Long.parseLong(text(said, "at", "0"));
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }
}
