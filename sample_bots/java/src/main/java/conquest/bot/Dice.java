package conquest.bot;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
 * "Randomness: how every roll and shuffle is derived"). One {@code Dice} per game, drawn in event order.
 * Word i of the stream is the big-endian uint32 at bytes 4*(i mod 8) of SHA-256(be64(seed) || be64(i div 8)).
 */
public final class Dice {
  /** 6^5: a battle draws one number in 0..7775, d[0..2] the attacker's dice, d[3..4] the defender's. */
  public static final long FIVE_DICE = 7776;

  /** The roll for the first player: every round's dice flattened (0 for a seat out of it), and the starter. */
  public record RollOff(List<Integer> rolls, int seat) {}

  /** One battle roll, each side's dice highest first. */
  public record Battle(List<Integer> attacker, List<Integer> defender) {}

  private final long seed;
  private final MessageDigest sha256;
  private long block;
  private final int[] words = new int[8];
  private int next = 8;

  /** A game's stream at word 0; the seed is an unsigned 64-bit integer held in a long. */
  public Dice(long seed) {
    this.seed = seed;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** The next 32-bit word, as an unsigned value in a long. */
  public long word() {
    if (next == 8) {
      ByteBuffer digest = ByteBuffer.wrap(sha256.digest(ByteBuffer.allocate(16).putLong(seed).putLong(block).array()));
      for (int i = 0; i < 8; i++) {
        words[i] = digest.getInt();
      }
      block++;
      next = 0;
    }
    return Integer.toUnsignedLong(words[next++]);
  }

  /** Uniform in 0..n-1 (1 <= n <= 2^32): words at or above the largest multiple of n within 2^32 are dropped. */
  public int uniform(long n) {
    long limit = (1L << 32) - (1L << 32) % n;
    while (true) {
      long x = word();
      if (x < limit) {
        return (int) (x % n);
      }
    }
  }

  /** Fisher-Yates from the back, in place. */
  public <T> void shuffle(List<T> items) {
    for (int i = items.size() - 1; i >= 1; i--) {
      Collections.swap(items, i, uniform(i + 1));
    }
  }

  /** The roll for the first player among {@code seats} seats. */
  public RollOff rollOff(int seats) {
    List<Integer> in = new ArrayList<>(range(seats));
    List<Integer> rolls = new ArrayList<>();
    while (true) {
      int[] round = new int[seats];
      for (int seat : in) {
        round[seat] = 1 + uniform(6);
      }
      int best = 0;
      for (int die : round) {
        best = Math.max(best, die);
        rolls.add(die);
      }
      final int top = best;
      in.removeIf(seat -> round[seat] != top);
      if (in.size() == 1) {
        return new RollOff(rolls, in.get(0));
      }
    }
  }

  /** One battle roll of {@code attackerDice} (1..3) against {@code defenderDice} (1..2). */
  public Battle battle(int attackerDice, int defenderDice) {
    int k = uniform(FIVE_DICE);
    List<Integer> d = new ArrayList<>();
    for (int i = 0; i < 5; i++, k /= 6) {
      d.add(k % 6 + 1);
    }
    List<Integer> attacker = new ArrayList<>(d.subList(0, attackerDice));
    List<Integer> defender = new ArrayList<>(d.subList(3, 3 + defenderDice));
    attacker.sort(Collections.reverseOrder());
    defender.sort(Collections.reverseOrder());
    return new Battle(attacker, defender);
  }

  /** The Secret Mission deal: seat s gets entry s. */
  public List<Integer> dealMissions(int seats, boolean threeContinentMissions) {
    List<Integer> deck = new ArrayList<>(range(seats));
    deck.addAll(List.of(6, 7, 8, 9, 10, 11));
    if (threeContinentMissions) {
      deck.addAll(List.of(12, 13));
    }
    shuffle(deck);
    return new ArrayList<>(deck.subList(0, seats));
  }

  /**
   * The owner of each territory by id: setup "dealt" from {@code firstSeat}, or "neutral_piles" (seat 0,
   * seat 1, then the neutral army as owner {@code seats}).
   */
  public List<Integer> dealTerritories(int territories, int seats, String setup, int firstSeat) {
    List<Integer> order = new ArrayList<>(range(territories));
    shuffle(order);
    Integer[] owners = new Integer[territories];
    int pile = territories / 3;
    for (int i = 0; i < territories; i++) {
      owners[order.get(i)] = setup.equals("neutral_piles") ? Math.min(i / pile, seats) : (firstSeat + i) % seats;
    }
    return List.of(owners);
  }

  /** Card ids 0..cards-1 without the reserved ones (Capital Risk's headquarters), shuffled. */
  public List<Integer> shuffledDeck(int cards, List<Integer> reserved) {
    List<Integer> deck = new ArrayList<>(range(cards));
    deck.removeAll(reserved);
    shuffle(deck);
    return deck;
  }

  private static List<Integer> range(int n) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(i);
    }
    return out;
  }
}
