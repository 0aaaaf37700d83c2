// The takeovers of a game taken over by another server (a `"format": 2` replay; docs/protocol.md, "Games
// taken over"), met in event order by the classic and the 2210 verifier alike.
import { createHash } from "node:crypto";
import { Stream } from "./dice";
import type { Report } from "./verify";

/** Replay formats: 1, a game played on one server; 2, a game taken over, with `reseeds`. */
export const FORMAT = 1;
export const RESEEDED_FORMAT = 2;

/** One takeover of a format 2 replay: from action `at` on, the game's draws come from the fresh `seed`;
 * `commitment` is sha256(`${seed}:${gameId}:${at}`) in hex. */
export interface Reseed {
  at: number;
  seed: bigint;
  commitment: string;
}

/** A seed as parseReplay leaves it (quoted before JSON.parse): the decimal digits of a non-negative integer. */
export function isSeed(value: unknown): value is string {
  return typeof value === "string" && /^\d+$/.test(value);
}

/** A replay's `reseeds` (its format already read as 1 or 2), checked as `conquest replay verify` reads
 * them: only in format 2, each `at` an action index 0..len(actions), in order. */
export function parseReseeds(data: Record<string, any>): Reseed[] {
  const listed: unknown = data.reseeds ?? [];
  if (!Array.isArray(listed)) throw new Error(`"reseeds" is ${JSON.stringify(listed)}: expected a list of {at, seed, commitment}`);
  if (listed.length > 0 && data.format !== RESEEDED_FORMAT) {
    throw new Error(`a replay with "reseeds" is format ${RESEEDED_FORMAT}, not ${data.format}`);
  }
  const actions = Array.isArray(data.actions) ? data.actions.length : 0;
  return listed.map((r: any, i: number) => {
    const at = r?.at;
    const previous = i === 0 ? 0 : listed[i - 1].at;
    if (!Number.isInteger(at) || at < previous || at > actions || !isSeed(r.seed) || typeof r.commitment !== "string") {
      throw new Error(
        `reseeds[${i}] is ${JSON.stringify(r)}: expected {"at": an action index ${previous}..${actions} (in order), ` +
          `"seed": an integer, "commitment": hex}`,
      );
    }
    return { at, seed: BigInt(r.seed), commitment: r.commitment };
  });
}

/** A reseed as a `reseeded` event writes it (proto3 JSON: 64-bit integers as strings). */
const listed = (reseed: Reseed) => ({ at: String(reseed.at), seed: String(reseed.seed), commitment: reseed.commitment });

/** Report a reseed whose recorded commitment is not sha256(`${seed}:${gameId}:${at}`) in hex. */
export function checkReseedCommitment(reseed: Reseed, gameId: string, sequence: string, mismatch: Report): void {
  const key = `${reseed.seed}:${gameId}:${reseed.at}`;
  const commitment = createHash("sha256").update(key).digest("hex");
  if (commitment !== reseed.commitment) mismatch(sequence, `reseed commitment sha256("${key}")`, reseed.commitment, commitment);
}

/** The takeovers of a replay, met in event order: each `reseeded` event must be the replay's next
 * `reseeds` entry (a missing, extra or different one is a mismatch), whose commitment is checked and whose
 * fresh seed starts the stream the game goes on with. */
export class Takeovers {
  /** How many of the reseeds have been met or found missing, and how many of them were missing. */
  private checked = 0;
  private skipped = 0;

  constructor(
    private readonly reseeds: Reseed[],
    private readonly gameId: string,
    private readonly mismatch: Report,
  ) {}

  /** At a `reseeded` event saying `said` (at, seed, commitment): the fresh stream of the replay's next
   * reseed, or undefined (reported) when the replay lists no more, so the game goes on with its stream. */
  next(sequence: string, said: Record<string, unknown>): Stream | undefined {
    const reseeds = this.reseeds;
    const event = { at: String(said.at ?? 0), seed: String(said.seed ?? 0), commitment: String(said.commitment ?? "") };
    // Listed takeovers before this event's action have no event of their own.
    while (this.checked < reseeds.length && reseeds[this.checked].at < Number(event.at)) {
      this.missing(sequence, "no such event before this one");
    }
    const reseed = reseeds[this.checked];
    if (reseed === undefined) {
      this.mismatch(sequence, "reseeded (a takeover the replay does not list)", event, `the replay's ${reseeds.length} reseeds`);
      return undefined;
    }
    this.checked++;
    const expected = listed(reseed);
    if (event.at !== expected.at || event.seed !== expected.seed || event.commitment !== expected.commitment) {
      this.mismatch(sequence, `reseeded ${this.checked} of ${reseeds.length} (the replay's entry)`, event, expected);
    }
    checkReseedCommitment(reseed, this.gameId, sequence, this.mismatch);
    return new Stream(reseed.seed);
  }

  /** After the last event: each listed takeover without its event is a mismatch. Returns the note's words. */
  finish(): string {
    const met = this.checked - this.skipped;
    while (this.checked < this.reseeds.length) this.missing("-", "no such event");
    return `${met} of ${this.reseeds.length} reseeds (games taken over) checked`;
  }

  /** Report the next listed takeover as having no event. */
  private missing(sequence: string, said: string): void {
    const reseed = this.reseeds[this.checked++];
    this.skipped++;
    this.mismatch(sequence, `reseeded ${this.checked} of ${this.reseeds.length}`, said, listed(reseed));
  }
}
