package conquest.bot;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
 * "Randomness: how every roll and shuffle is derived"). One {@code Dice} per game, drawn in event order.
 * Word i of the stream is the big-endian uint32 at bytes 4*(i mod 8) of SHA-256(be64(seed) || be64(i div 8)).
 */
public final class Dice {
  /** The five dice slots of a battle: d[0..2] the attacker's, d[3..4] the defender's. */
  public static final int ATTACKER_SLOTS = 3;

  public static final int DEFENDER_SLOTS = 2;

  /** The roll for the first player: every round's dice flattened (0 for a seat out of it), and the starter. */
  public record RollOff(List<Integer> rolls, int seat) {}

  /** A roll-off's rounds in the order rolled (one value per seat of its list, 0 for a seat not rolling), and
   * the seats in the order it gives. */
  public record Ordering(List<List<Integer>> rounds, List<Integer> order) {}

  /** One battle roll, each side's dice highest first. */
  public record Battle(List<Integer> attacker, List<Integer> defender) {}

  private final long seed;
  private final MessageDigest sha256;
  private long block;
  private final int[] words = new int[8];
  private int next = 8;
  private long used;

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
    used++;
    return Integer.toUnsignedLong(words[next++]);
  }

  /** How many words the stream has given so far, rejected ones included. */
  public long wordsUsed() {
    return used;
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

  /** A die of {@code faces} faces (a d6 or, in RISK 2210 A.D., a d8): 1 + uniform(faces). */
  public int die(int faces) {
    return 1 + uniform(faces);
  }

  /** Fisher-Yates from the back, in place. */
  public <T> void shuffle(List<T> items) {
    for (int i = items.size() - 1; i >= 1; i--) {
      Collections.swap(items, i, uniform(i + 1));
    }
  }

  /** The roll for the first player among {@code seats} seats: the first placer's roll-off of seats 0..seats-1. */
  public RollOff rollOff(int seats) {
    Ordering ordering = rollOff(range(seats), true);
    List<Integer> rolls = new ArrayList<>();
    ordering.rounds().forEach(rolls::addAll);
    return new RollOff(rolls, ordering.order().get(0));
  }

  /**
   * A roll-off ordering {@code seats} by d6 (docs/protocol.md, "RISK 2210 A.D. games"). In a round each
   * seat still in, in the list's order, rolls a d6; the values are then taken from highest to lowest, a
   * value rolled by one seat placing it next and a value rolled by several settled first by rounds among
   * just those seats (recursively). With {@code onlyFirst} (the first placer's roll-off, also the classic
   * roll for the first player) only the highest tie rolls again; lower ties keep the list's order.
   */
  public Ordering rollOff(List<Integer> seats, boolean onlyFirst) {
    if (seats.stream().distinct().count() != seats.size()) {
      throw new IllegalArgumentException("a roll-off orders distinct seats, not " + seats);
    }
    List<List<Integer>> rounds = new ArrayList<>();
    List<Integer> order = rank(List.copyOf(seats), seats, onlyFirst, rounds);
    return new Ordering(rounds, order);
  }

  private List<Integer> rank(List<Integer> group, List<Integer> seats, boolean onlyFirst, List<List<Integer>> rounds) {
    if (group.size() <= 1) {
      return group;
    }
    Map<Integer, Integer> dice = new HashMap<>();
    for (int seat : group) {
      dice.put(seat, die(6));
    }
    rounds.add(seats.stream().map(seat -> dice.getOrDefault(seat, 0)).toList());
    List<Integer> out = new ArrayList<>();
    for (int value = 6; value >= 1; value--) {
      final int v = value;
      List<Integer> tied = group.stream().filter(seat -> dice.get(seat) == v).toList();
      if (!tied.isEmpty()) {
        out.addAll(onlyFirst && !out.isEmpty() ? tied : rank(tied, seats, onlyFirst, rounds));
      }
    }
    return out;
  }

  /** One classic battle roll of {@code attackerDice} (1..3) against {@code defenderDice} (1..2): all d6s. */
  public Battle battle(int attackerDice, int defenderDice) {
    return battle(Collections.nCopies(attackerDice, 6), Collections.nCopies(defenderDice, 6));
  }

  /**
   * One battle roll with each die's faces given (RISK 2210 A.D.: 6 or 8; 1..3 attacker and 1..2 defender
   * dice). The five slots are the attacker's faces padded with 6 to three, then the defender's padded to
   * two; one uniform(product of the slots) is read as mixed-radix digits, d[0] the lowest. All sixes is the
   * classic uniform(7776).
   */
  public Battle battle(List<Integer> attackerFaces, List<Integer> defenderFaces) {
    if (attackerFaces.isEmpty() || attackerFaces.size() > ATTACKER_SLOTS || defenderFaces.isEmpty()
        || defenderFaces.size() > DEFENDER_SLOTS) {
      throw new IllegalArgumentException("a battle rolls 1 to 3 attacker and 1 to 2 defender dice, not "
          + attackerFaces + " against " + defenderFaces);
    }
    int[] sizes = {6, 6, 6, 6, 6};
    long total = 1;
    for (int i = 0; i < sizes.length; i++) {
      if (i < attackerFaces.size()) {
        sizes[i] = attackerFaces.get(i);
      } else if (i >= ATTACKER_SLOTS && i - ATTACKER_SLOTS < defenderFaces.size()) {
        sizes[i] = defenderFaces.get(i - ATTACKER_SLOTS);
      }
      if (sizes[i] < 1 || sizes[i] > 8) {
        throw new IllegalArgumentException("a battle die has 1 to 8 faces, not " + sizes[i]);
      }
      total *= sizes[i];
    }
    int k = uniform(total);
    List<Integer> d = new ArrayList<>();
    for (int size : sizes) {
      d.add(k % size + 1);
      k /= size;
    }
    List<Integer> attacker = new ArrayList<>(d.subList(0, attackerFaces.size()));
    List<Integer> defender = new ArrayList<>(d.subList(ATTACKER_SLOTS, ATTACKER_SLOTS + defenderFaces.size()));
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
