// Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
// "Randomness: how every roll and shuffle is derived", and its "RISK 2210 A.D. games"). One Stream per
// game, drawn in event order.
import { createHash } from "node:crypto";

const SPAN = 2 ** 32;

/** from, from+1, ..., to-1. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** The SHA-256 counter stream: word i is the big-endian uint32 at bytes 4*(i mod 8) of
 * SHA-256(be64(seed) || be64(i div 8)). The seed is an unsigned 64-bit integer (a BigInt: a double loses it). */
export class Stream {
  private block = 0n;
  private words: number[] = [];
  private next = 8;
  private used = 0;

  constructor(readonly seed: bigint) {
    if (seed < 0n || seed >= 1n << 64n) throw new RangeError(`a dice version 2 seed is in 0..2^64-1, not ${seed}`);
  }

  /** How many words have been read, rejected ones included. */
  get wordsUsed(): number {
    return this.used;
  }

  /** The next 32-bit word. */
  word(): number {
    if (this.next === 8) {
      const message = Buffer.alloc(16);
      message.writeBigUInt64BE(this.seed, 0);
      message.writeBigUInt64BE(this.block, 8);
      const digest = createHash("sha256").update(message).digest();
      this.words = Array.from({ length: 8 }, (_, i) => digest.readUInt32BE(4 * i));
      this.block += 1n;
      this.next = 0;
    }
    this.used++;
    return this.words[this.next++];
  }

  /** Uniform in 0..n-1 (1 <= n <= 2^32): words at or above the largest multiple of n within 2^32 are dropped. */
  uniform(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > SPAN) throw new RangeError(`uniform(n) needs an integer n in 1..2^32, not ${n}`);
    const limit = SPAN - (SPAN % n);
    for (;;) {
      const x = this.word();
      if (x < limit) return x % n;
    }
  }

  /** Fisher-Yates from the back, in place. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i >= 1; i--) {
      const j = this.uniform(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
}

/** A die of `faces` faces (a d6, or RISK 2210 A.D.'s d8): 1 + uniform(faces). */
export function die(stream: Stream, faces: number): number {
  return 1 + stream.uniform(faces);
}

/** A roll-off ordering `seats` by d6 (RISK 2210 A.D.'s first placer and bid ties; the classic roll for the
 * first player is its first-placer case). In a round each seat still in, in the list's order, rolls a d6;
 * the round is recorded as one value per entry of `seats` (0 for a seat not rolling). The round's values
 * go from highest to lowest: a value rolled by one seat places it next; a value rolled by several is
 * settled first by rounds among just those seats (recursively), so one seat alone draws nothing. With
 * `firstOnly` (the first placer's roll-off) only the highest tie re-rolls: lower ties keep the list's
 * order and draw nothing. Returns the order and the rounds in the order rolled. */
export function rankByRollOff(stream: Stream, seats: number[], firstOnly: boolean): { order: number[]; rounds: number[][] } {
  if (new Set(seats).size !== seats.length) throw new RangeError(`a roll-off orders distinct seats, not ${seats}`);
  const rounds: number[][] = [];
  const rank = (group: number[]): number[] => {
    if (group.length <= 1) return group;
    const dice = new Map(group.map((s) => [s, die(stream, 6)] as const));
    rounds.push(seats.map((s) => dice.get(s) ?? 0));
    const order: number[] = [];
    for (const value of [...new Set(dice.values())].sort((a, b) => b - a)) {
      const tied = group.filter((s) => dice.get(s) === value);
      order.push(...(firstOnly && order.length > 0 ? tied : rank(tied)));
    }
    return order;
  };
  return { order: rank([...seats]), rounds };
}

/** The classic roll for the first player among `seats` seats: every round's dice flattened (0 for a seat
 * out of the round) and the seat that starts. */
export function rollOff(stream: Stream, seats: number): { rolls: number[]; seat: number } {
  const { order, rounds } = rankByRollOff(stream, range(0, seats), true);
  return { rolls: rounds.flat(), seat: order[0] };
}

/** One battle roll: the attacker's 1..3 dice and the defender's 1..2, each die's faces given (6, or 8 in
 * RISK 2210 A.D.). The five slot sizes are the attacker's faces padded with 6 to three, then the
 * defender's padded with 6 to two; one draw k = uniform(s0*...*s4) is read as mixed-radix digits,
 * d[i] = (k div (s0*...*s(i-1))) mod si + 1. The attacker takes d[0..a-1], the defender d[3..3+b-1], each
 * side sorted highest first. */
export function battleWithFaces(stream: Stream, attackerFaces: number[], defenderFaces: number[]): { attacker: number[]; defender: number[] } {
  const a = attackerFaces.length;
  const b = defenderFaces.length;
  if (a < 1 || a > 3 || b < 1 || b > 2) throw new RangeError(`a battle has 1..3 attacker and 1..2 defender dice, not ${a} and ${b}`);
  const sizes = [...attackerFaces, ...new Array<number>(3 - a).fill(6), ...defenderFaces, ...new Array<number>(2 - b).fill(6)];
  let k = stream.uniform(sizes.reduce((product, size) => product * size, 1));
  const d = sizes.map((size) => {
    const digit = (k % size) + 1;
    k = Math.floor(k / size);
    return digit;
  });
  const desc = (x: number, y: number) => y - x;
  return { attacker: d.slice(0, a).sort(desc), defender: d.slice(3, 3 + b).sort(desc) };
}

/** A classic battle roll of `attackerDice` (1..3) against `defenderDice` (1..2): all sixes, so one
 * uniform(7776) read as five base-6 digits. */
export function battle(stream: Stream, attackerDice: number, defenderDice: number): { attacker: number[]; defender: number[] } {
  return battleWithFaces(stream, new Array<number>(attackerDice).fill(6), new Array<number>(defenderDice).fill(6));
}

/** The Secret Mission deal: seat s gets the returned list's entry s. */
export function dealMissions(stream: Stream, seats: number, threeContinentMissions: boolean): number[] {
  const deck = Array.from({ length: seats }, (_, s) => s);
  deck.push(6, 7, 8, 9, 10, 11);
  if (threeContinentMissions) deck.push(12, 13);
  stream.shuffle(deck);
  return deck.slice(0, seats);
}

/** The territory deal: the owner of each territory by id (setup "dealt" from `firstSeat`, or
 * "neutral_piles": seat 0, seat 1, then the neutral army as owner `seats`). */
export function dealTerritories(stream: Stream, territories: number, seats: number, setup: string, firstSeat: number): number[] {
  const order = Array.from({ length: territories }, (_, t) => t);
  stream.shuffle(order);
  const owners = new Array<number>(territories).fill(0);
  const pile = Math.floor(territories / 3);
  order.forEach((t, i) => {
    owners[t] = setup === "neutral_piles" ? Math.min(Math.floor(i / pile), seats) : (firstSeat + i) % seats;
  });
  return owners;
}

/** The card deck: ids 0..cards-1 without the reserved ones (Capital Risk's headquarters), shuffled. */
export function shuffledDeck(stream: Stream, cards: number, reserved: number[]): number[] {
  const deck = Array.from({ length: cards }, (_, c) => c).filter((c) => !reserved.includes(c));
  stream.shuffle(deck);
  return deck;
}

// RISK 2210 A.D. (docs/protocol.md, "RISK 2210 A.D. games").

/** The territory decks in draw order, land, water and lunar, and the ids each holds. */
export const TERRITORY_DECKS_2210 = [
  { name: "land", ids: range(0, 42) },
  { name: "water", ids: range(42, 55) },
  { name: "lunar", ids: range(55, 69) },
] as const;
/** Two-player games: neutral territories taken off the top of each territory deck (land after devastation). */
export const NEUTRALS_2210 = [16, 6, 6];
/** The Command decks in Commander order (Land, Diplomat, Naval, Space, Nuclear): deck d holds card ids
 * 20d..20d+19, so a card's deck is its id div 20. */
export const COMMAND_DECKS_2210 = 5;
export const COMMAND_DECK_SIZE_2210 = 20;

/** Which territory deck (0 land, 1 water, 2 lunar) holds a territory card, or -1 for none. */
export function territoryDeckOf2210(territory: number): number {
  return TERRITORY_DECKS_2210.findIndex((deck) => deck.ids.includes(territory));
}

/** The territory decks as first shuffled (land, water, then lunar), each from its ascending ids; index 0
 * is the top. */
export function territoryDecks2210(stream: Stream): number[][] {
  return TERRITORY_DECKS_2210.map((deck) => {
    const cards = [...deck.ids];
    stream.shuffle(cards);
    return cards;
  });
}

/** The five Command decks, shuffled in Commander order, each from its ascending card ids. */
export function commandDecks2210(stream: Stream): number[][] {
  return range(0, COMMAND_DECKS_2210).map((d) => {
    const cards = range(d * COMMAND_DECK_SIZE_2210, (d + 1) * COMMAND_DECK_SIZE_2210);
    stream.shuffle(cards);
    return cards;
  });
}

/** The two-player neutral draw's territories per deck: the top NEUTRALS_2210[i] cards of each (land's
 * after devastation). Draws nothing; reshuffleTerritoryDecks2210 follows it. */
export function neutralTerritories2210(decks: number[][]): number[][] {
  return decks.map((deck, i) => deck.slice(0, NEUTRALS_2210[i]));
}

/** After the neutral draw: each territory deck, in deck order, sorted back into ascending order and shuffled. */
export function reshuffleTerritoryDecks2210(stream: Stream, decks: number[][]): void {
  for (const deck of decks) {
    deck.sort((x, y) => x - y);
    stream.shuffle(deck);
  }
}
