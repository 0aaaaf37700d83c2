// Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
// "Randomness: how every roll and shuffle is derived"). One Stream per game, drawn in event order.
import { createHash } from "node:crypto";

const SPAN = 2 ** 32;
/** A battle draws one number in 0..7775: five base-6 digits, d[0..2] the attacker's, d[3..4] the defender's. */
export const FIVE_DICE = 6 ** 5;

/** The SHA-256 counter stream: word i is the big-endian uint32 at bytes 4*(i mod 8) of
 * SHA-256(be64(seed) || be64(i div 8)). The seed is an unsigned 64-bit integer (a BigInt: a double loses it). */
export class Stream {
  private block = 0n;
  private words: number[] = [];
  private next = 8;

  constructor(readonly seed: bigint) {
    if (seed < 0n || seed >= 1n << 64n) throw new RangeError(`a dice version 2 seed is in 0..2^64-1, not ${seed}`);
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
    return this.words[this.next++];
  }

  /** Uniform in 0..n-1 (1 <= n <= 2^32): words at or above the largest multiple of n within 2^32 are dropped. */
  uniform(n: number): number {
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

/** The roll for the first player among `seats` seats: every round's dice flattened (0 for a seat out of
 * the round) and the seat that starts. */
export function rollOff(stream: Stream, seats: number): { rolls: number[]; seat: number } {
  let inRound = Array.from({ length: seats }, (_, s) => s);
  const rolls: number[] = [];
  for (;;) {
    const round = new Array<number>(seats).fill(0);
    for (const s of inRound) round[s] = 1 + stream.uniform(6);
    rolls.push(...round);
    const best = Math.max(...round);
    inRound = inRound.filter((s) => round[s] === best);
    if (inRound.length === 1) return { rolls, seat: inRound[0] };
  }
}

/** One battle roll of `attackerDice` (1..3) against `defenderDice` (1..2), each side sorted highest first. */
export function battle(stream: Stream, attackerDice: number, defenderDice: number): { attacker: number[]; defender: number[] } {
  const k = stream.uniform(FIVE_DICE);
  const d = Array.from({ length: 5 }, (_, i) => (Math.floor(k / 6 ** i) % 6) + 1);
  const desc = (a: number, b: number) => b - a;
  return { attacker: d.slice(0, attackerDice).sort(desc), defender: d.slice(3, 3 + defenderDice).sort(desc) };
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
