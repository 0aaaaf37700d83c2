// Replay verifier: re-derives every roll and shuffle of a recorded game from its revealed seed and
// compares them with the game's events (docs/protocol.md, "Randomness").
//
//   node dist/src/verify.js REPLAY.json EVENTS.jsonl
//
// REPLAY.json is a replay file; EVENTS.jsonl is `conquest replay events REPLAY.json` (one GameEvent as
// proto3 JSON per line). Exit status: 0 all match, 1 a mismatch (each printed), 2 unreadable input.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { battle, dealMissions, dealTerritories, rollOff, shuffledDeck, Stream } from "./dice";

/** Territories and wild cards of each board a replay can name. */
const BOARDS: Record<string, { territories: number; wildCards: number }> = { classic: { territories: 42, wildCards: 2 } };
const DEALING_SETUPS = ["dealt", "neutral_piles"];

/** What the verifier needs from a replay file. */
export interface ReplayFacts {
  seed: bigint;
  gameId: string;
  seedCommitment: string;
  diceVersion: number;
  seats: number;
  board: string;
  setup: string;
  objective: string;
  threeContinentMissions: boolean;
}

/** One GameEvent as `conquest replay events` prints it: `sequence` and one oneof key. */
export type GameEvent = { sequence: string } & Record<string, any>;

export interface Mismatch {
  sequence: string;
  what: string;
  event: string;
  seed: string;
}

export interface Verdict {
  notes: string[];
  mismatches: Mismatch[];
}

/** Parse a replay file. The seed is read from the text as a BigInt (JSON.parse would round it). */
export function parseReplay(text: string): ReplayFacts {
  const data = JSON.parse(text);
  const seedText = /"seed"\s*:\s*"?(\d+)"?/.exec(text);
  if (!seedText || typeof data.game_id !== "string" || !Array.isArray(data.seats) || typeof data.rules !== "object") {
    throw new Error("not a replay file: expected a JSON object with seed, game_id, seats and rules");
  }
  const seed = BigInt(seedText[1]);
  if (Number(seed) !== Number(data.seed)) throw new Error(`the seed read as ${seed} is not the file's "seed" ${data.seed}`);
  return {
    seed,
    gameId: data.game_id,
    seedCommitment: String(data.seed_commitment ?? ""),
    diceVersion: data.dice_version ?? 1,
    seats: data.seats.length,
    board: data.board,
    setup: data.rules.setup,
    objective: data.rules.objective,
    threeContinentMissions: Boolean(data.rules.three_continent_missions),
  };
}

/** Parse `conquest replay events` output, in sequence order. */
export function parseEvents(text: string): GameEvent[] {
  const events = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as GameEvent);
  return events.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : BigInt(a.sequence) > BigInt(b.sequence) ? 1 : 0));
}

/** The oneof key of an event (the one that is not `sequence`). */
function kind(event: GameEvent): string {
  return Object.keys(event).find((key) => key !== "sequence") ?? "";
}

const show = (value: unknown) => JSON.stringify(value);

/** Check the seed commitment and, for dice version 2, every draw against the events. */
export function verify(replay: ReplayFacts, events: GameEvent[]): Verdict {
  const notes: string[] = [];
  const mismatches: Mismatch[] = [];
  const mismatch = (sequence: string, what: string, event: unknown, seed: unknown) =>
    mismatches.push({ sequence, what, event: show(event), seed: show(seed) });

  const commitment = createHash("sha256").update(`${replay.seed}:${replay.gameId}`).digest("hex");
  if (commitment !== replay.seedCommitment) mismatch("-", "seed commitment", replay.seedCommitment, commitment);
  if (replay.diceVersion === 1) {
    notes.push("dice version 1 (CPython Mersenne Twister) is checked by `conquest replay verify` only; seed commitment checked");
    return { notes, mismatches };
  }
  if (replay.diceVersion !== 2) throw new Error(`dice_version ${replay.diceVersion} is unknown to this verifier; it knows 1 and 2`);
  const board = BOARDS[replay.board];
  if (!board) throw new Error(`board ${show(replay.board)} is unknown to this verifier; it knows ${Object.keys(BOARDS).join(", ")}`);

  const stream = new Stream(replay.seed);
  const deals = DEALING_SETUPS.includes(replay.setup);
  const missionGame = replay.objective === "missions";
  let missions: number[] | undefined;
  let owners: number[] | undefined;
  let deck: number[] | undefined;
  let reserved: number[] = [];
  let rolled = false;
  let dealtSeen = false;
  let missionsSeen = false;
  let draws = 0;
  for (const event of events) {
    const seq = event.sequence;
    const key = kind(event);
    const body = event[key] ?? {};
    if (key === "firstPlayerRolled") {
      if (rolled) {
        mismatch(seq, "a second roll for the first player", body, "one per game");
        continue;
      }
      rolled = true;
      const expected = rollOff(stream, replay.seats);
      if (show(body.rolls ?? []) !== show(expected.rolls) || (body.seat ?? 0) !== expected.seat) {
        mismatch(seq, "first_player_rolled", { rolls: body.rolls, seat: body.seat }, expected);
      }
      if (missionGame) missions = dealMissions(stream, replay.seats, replay.threeContinentMissions);
      if (deals) owners = dealTerritories(stream, board.territories, replay.seats, replay.setup, expected.seat);
    } else if (key === "missionDealt") {
      missionsSeen = true;
      const seat = body.seat ?? 0;
      if (missions?.[seat] !== (body.mission ?? 0)) mismatch(seq, `mission_dealt to seat ${seat}`, body.mission, missions?.[seat] ?? "no mission deal");
    } else if (key === "missionsRevealed") {
      missionsSeen = true;
      if (show(body.missions ?? []) !== show(missions)) mismatch(seq, "missions_revealed", body.missions, missions ?? "no mission deal");
    } else if (key === "dealt") {
      dealtSeen = true;
      if (show(body.owners ?? []) !== show(owners)) {
        mismatch(seq, "dealt owners", body.owners, owners ?? `no deal in setup ${replay.setup}`);
      }
    } else if (key === "headquartersRevealed") {
      reserved = body.territories ?? [];
    } else if (key === "turnStarted" && deck === undefined) {
      deck = shuffledDeck(stream, board.territories + board.wildCards, reserved);
    } else if (key === "drew") {
      const front = deck?.shift();
      const card = body.card ?? 0;
      if (front === undefined) mismatch(seq, "drew", card, "an empty deck");
      else if (card !== -1 && card !== front) mismatch(seq, `drew (seat ${body.seat ?? 0})`, card, front);
    } else if (key === "traded") {
      deck?.push(...(body.cards ?? []));
    } else if (key === "rolled") {
      draws++;
      const said = { attacker: body.attackerDice ?? [], defender: body.defenderDice ?? [] };
      const expected = battle(stream, said.attacker.length, said.defender.length);
      if (show(said) !== show(expected)) mismatch(seq, `rolled ${body.source ?? 0}->${body.target ?? 0}`, said, expected);
    }
  }
  if (!rolled) mismatch("-", "first_player_rolled", "no such event", "every game rolls for the first player");
  if (deals && !dealtSeen) mismatch("-", "dealt", "no such event", `setup ${replay.setup} deals the territories`);
  if (missionGame && !missionsSeen) mismatch("-", "mission_dealt", "no such event", "a Secret Mission game deals missions");
  notes.push(`dice version 2: ${events.length} events, ${draws} battle rolls checked`);
  return { notes, mismatches };
}

function main(argv: string[]): number {
  if (argv.length !== 2 || argv[0].startsWith("-")) {
    console.error("usage: node dist/src/verify.js REPLAY.json EVENTS.jsonl   (EVENTS: `conquest replay events REPLAY.json`)");
    return 2;
  }
  let verdict: Verdict;
  try {
    verdict = verify(parseReplay(readFileSync(argv[0], "utf8")), parseEvents(readFileSync(argv[1], "utf8")));
  } catch (error) {
    console.error(`${argv[0]}: ${(error as Error).message}`);
    return 2;
  }
  for (const note of verdict.notes) console.log(`${argv[0]}: ${note}`);
  for (const m of verdict.mismatches) {
    console.log(`MISMATCH event ${m.sequence} ${m.what}: the event says ${m.event}; the seed gives ${m.seed}`);
  }
  console.log(verdict.mismatches.length === 0 ? `OK   ${argv[0]}` : `FAIL ${argv[0]}: ${verdict.mismatches.length} mismatch(es)`);
  return verdict.mismatches.length === 0 ? 0 : 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
