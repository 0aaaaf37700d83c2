// Replay verifier: re-derives every roll and shuffle of a recorded game from its revealed seed and
// compares them with the game's events (docs/protocol.md, "Randomness"; a RISK 2210 A.D. replay, marked
// `"game": "2210"`, by its table "Checking a 2210 game's draws"). A game taken over by another server
// (format 2) goes on from each `reseeds` entry with a fresh stream and its undrawn cards shuffled again
// (docs/protocol.md, "Games taken over").
//
//   node dist/src/verify.js REPLAY.json EVENTS.jsonl
//
// REPLAY.json is a replay file; EVENTS.jsonl is `conquest replay events REPLAY.json` (one GameEvent, or
// for a 2210 replay one GameEvent2210, as proto3 JSON per line). Exit status: 0 all match, 1 a mismatch
// (each printed), 2 unreadable input.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  battle,
  battleWithFaces,
  COMMAND_DECK_SIZE_2210,
  COMMAND_DECKS_2210,
  commandDecks2210,
  dealMissions,
  dealTerritories,
  die,
  neutralTerritories2210,
  rankByRollOff,
  reshuffleTerritoryDecks2210,
  rollOff,
  shuffledDeck,
  Stream,
  TERRITORY_DECKS_2210,
  territoryDeckOf2210,
  territoryDecks2210,
} from "./dice";
import { checkReseedCommitment, FORMAT, isSeed, parseReseeds, RESEEDED_FORMAT, type Reseed, Takeovers } from "./takeovers";

/** Territories and wild cards of each board a replay can name. */
const BOARDS: Record<string, { territories: number; wildCards: number }> = { classic: { territories: 42, wildCards: 2 } };
const DEALING_SETUPS = ["dealt", "neutral_piles"];

/** What the verifier needs from a replay file. */
export interface ReplayFacts {
  /** "classic" (a file without `game`) or "2210". */
  game: string;
  seed: bigint;
  gameId: string;
  seedCommitment: string;
  diceVersion: number;
  seats: number;
  board: string;
  setup: string;
  objective: string;
  threeContinentMissions: boolean;
  /** The takeovers in order (none in a format 1 replay). */
  reseeds: Reseed[];
}

/** One GameEvent as `conquest replay events` prints it: `sequence` and one oneof key; for a 2210 replay
 * one GameEvent2210: `sequence`, `kind`, `seat` (may be -1) and its facts as the JSON string `dataJson`. */
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

/** Parse a replay file. Every seed (the first and each reseed's) is read as a BigInt: they are quoted
 * before JSON.parse, which would round a number above 2^53. */
export function parseReplay(text: string): ReplayFacts {
  const data = JSON.parse(text.replace(/"seed"(\s*):(\s*)(\d+)/g, '"seed"$1:$2"$3"'));
  if (!isSeed(data?.seed) || typeof data.game_id !== "string" || !Array.isArray(data.seats) || typeof data.rules !== "object") {
    throw new Error("not a replay file: expected a JSON object with seed, game_id, seats and rules");
  }
  if (data.format !== FORMAT && data.format !== RESEEDED_FORMAT) {
    throw new Error(
      `replay format ${show(data.format)} is unknown to this verifier: it reads format ${FORMAT} (a game played on one server) ` +
        `and ${RESEEDED_FORMAT} (a game taken over, with "reseeds"); check a newer format with \`conquest replay verify\` or a newer kit`,
    );
  }
  return {
    game: data.game ?? "classic",
    seed: BigInt(data.seed),
    gameId: data.game_id,
    seedCommitment: String(data.seed_commitment ?? ""),
    diceVersion: data.dice_version ?? 1,
    seats: data.seats.length,
    board: data.board,
    setup: data.rules.setup,
    objective: data.rules.objective,
    threeContinentMissions: Boolean(data.rules.three_continent_missions),
    reseeds: parseReseeds(data),
  };
}

/** Parse `conquest replay events` output, in sequence order. */
export function parseEvents(text: string): GameEvent[] {
  const events = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as GameEvent);
  // proto3 JSON may leave out a 0: a missing sequence is event 0.
  const sequence = (event: GameEvent) => BigInt(event.sequence ?? 0);
  return events.sort((a, b) => (sequence(a) < sequence(b) ? -1 : sequence(a) > sequence(b) ? 1 : 0));
}

/** The oneof key of an event (the one that is not `sequence`). */
function kind(event: GameEvent): string {
  return Object.keys(event).find((key) => key !== "sequence") ?? "";
}

const show = (value: unknown) => JSON.stringify(value) ?? "nothing";

/** Report one mismatch: the event's sequence ("-" for the game as a whole), what was checked, what the
 * event says and what the seed gives. */
export type Report = (sequence: string, what: string, event: unknown, seed: unknown) => void;

/** Check the seed commitment and, for dice version 2, every draw against the events. */
export function verify(replay: ReplayFacts, events: GameEvent[]): Verdict {
  const notes: string[] = [];
  const mismatches: Mismatch[] = [];
  const mismatch: Report = (sequence, what, event, seed) => {
    mismatches.push({ sequence, what, event: show(event), seed: show(seed) });
  };

  const commitment = createHash("sha256").update(`${replay.seed}:${replay.gameId}`).digest("hex");
  if (commitment !== replay.seedCommitment) mismatch("-", "seed commitment", replay.seedCommitment, commitment);
  if (replay.game === "2210") return { notes: [verify2210(replay, events, mismatch)], mismatches };
  if (replay.game !== "classic") throw new Error(`game ${show(replay.game)} is unknown to this verifier; it knows classic and 2210`);
  if (replay.diceVersion === 1) {
    for (const reseed of replay.reseeds) checkReseedCommitment(reseed, replay.gameId, "-", mismatch);
    notes.push(
      "dice version 1 (CPython Mersenne Twister) is checked by `conquest replay verify` only; " +
        `seed commitment and ${replay.reseeds.length} reseed commitments checked`,
    );
    return { notes, mismatches };
  }
  if (replay.diceVersion !== 2) throw new Error(`dice_version ${replay.diceVersion} is unknown to this verifier; it knows 1 and 2`);
  const board = BOARDS[replay.board];
  if (!board) throw new Error(`board ${show(replay.board)} is unknown to this verifier; it knows ${Object.keys(BOARDS).join(", ")}`);

  let stream = new Stream(replay.seed);
  const takeovers = new Takeovers(replay.reseeds, replay.gameId, mismatch);
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
    } else if (key === "reseeded") {
      // The draw pile, top first, is shuffled again by the fresh stream (there is none before the first turn).
      const fresh = takeovers.next(seq, body);
      if (fresh !== undefined) {
        stream = fresh;
        if (deck !== undefined) stream.shuffle(deck);
      }
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
  notes.push(`dice version 2: ${events.length} events, ${draws} battle rolls checked, ${takeovers.finish()}`);
  return { notes, mismatches };
}

/** RISK 2210 A.D.: the land deck's top four cards are devastated. */
const DEVASTATED = 4;
const COMMANDERS = ["Land", "Diplomat", "Naval", "Space", "Nuclear"];
/** The faces a 2210 die may have (a d6 or a d8). */
const FACES_2210 = [6, 8];

/** One side's faces in a 2210 `rolled` event: 1..`most` dice, each of 6 or 8 faces, 8s first. */
function validFaces(faces: unknown, most: number): faces is number[] {
  return (
    Array.isArray(faces) &&
    faces.length >= 1 &&
    faces.length <= most &&
    faces.every((f, i) => FACES_2210.includes(f) && (i === 0 || f <= faces[i - 1]))
  );
}

/** Every draw of a RISK 2210 A.D. game against its GameEvent2210s, as docs/protocol.md's table "Checking a
 * 2210 game's draws" says: the decks first, then each event in sequence order with one stream. Returns
 * the note of what was checked. */
function verify2210(replay: ReplayFacts, events: GameEvent[], mismatch: Report): string {
  if (replay.diceVersion !== 2) throw new Error(`a RISK 2210 A.D. replay is dice version 2, not ${show(replay.diceVersion)}`);
  if (replay.board !== "2210") throw new Error(`a RISK 2210 A.D. replay's board is "2210", not ${show(replay.board)}`);
  let stream = new Stream(replay.seed);
  const takeovers = new Takeovers(replay.reseeds, replay.gameId, mismatch);
  const decks = territoryDecks2210(stream);
  const command = commandDecks2210(stream);
  // Two-player games: land cards 5 to 20 of the deck as first shuffled, then water's and lunar's top 6.
  const neutral = replay.seats === 2 ? neutralTerritories2210([decks[0].slice(DEVASTATED), ...decks.slice(1)]).flat() : [];
  const seats = Array.from({ length: replay.seats }, (_, s) => s);
  let devastated = 0;
  let neutrals = 0;
  let firstPlacer = false;
  const checked = { bidTies: 0, battles: 0, cardRolls: 0, commandCards: 0, territoryCards: 0 };
  for (const event of events) {
    const seq = String(event.sequence ?? 0);
    let data: Record<string, any>;
    try {
      data = JSON.parse(event.dataJson ?? "{}");
    } catch (error) {
      throw new Error(`event ${seq}: dataJson is not JSON (${(error as Error).message})`);
    }
    switch (event.kind) {
      case "reseeded": {
        // The undrawn cards of the land, water and lunar decks, then of the five Command decks, each top
        // first, are shuffled again by the fresh stream; a withdrawn bid draws nothing.
        const fresh = takeovers.next(seq, data);
        if (fresh === undefined) break;
        stream = fresh;
        for (const deck of [...decks, ...command]) stream.shuffle(deck);
        break;
      }
      case "devastated": {
        devastated++;
        if (devastated > DEVASTATED) {
          mismatch(seq, `devastated (a card past the ${DEVASTATED}th)`, data.territory, `${DEVASTATED} cards devastated`);
          break;
        }
        const top = decks[0].shift();
        if (data.territory !== top) mismatch(seq, `devastated (land card ${devastated} of ${DEVASTATED})`, data.territory, top);
        break;
      }
      case "neutral_placed": {
        if (neutrals >= neutral.length) {
          const expected = replay.seats === 2 ? `${neutral.length} neutral territories` : `no neutral draw with ${replay.seats} seats`;
          mismatch(seq, "neutral_placed", data.territory, expected);
          break;
        }
        const expected = neutral[neutrals++];
        if (data.territory !== expected) mismatch(seq, `neutral_placed (${neutrals} of ${neutral.length})`, data.territory, expected);
        if (neutrals === neutral.length) reshuffleTerritoryDecks2210(stream, decks);
        break;
      }
      case "first_player_rolled": {
        if (firstPlacer) {
          mismatch(seq, "a second first_player_rolled", data.rolls, "one per game");
          break;
        }
        firstPlacer = true;
        const { order, rounds } = rankByRollOff(stream, seats, true);
        const said = { rolls: data.rolls, seat: event.seat ?? 0 };
        const expected = { rolls: rounds, seat: order[0] };
        if (show(said) !== show(expected)) mismatch(seq, `first_player_rolled among seats 0..${replay.seats - 1}`, said, expected);
        break;
      }
      case "bid_tie_rolled": {
        checked.bidTies++;
        const tied: unknown = data.seats;
        if (!Array.isArray(tied) || !tied.every((s, i) => seats.includes(s) && (i === 0 || s > tied[i - 1]))) {
          mismatch(seq, "bid_tie_rolled seats", tied, `seats of 0..${replay.seats - 1} in ascending order`);
          break;
        }
        const { rounds } = rankByRollOff(stream, tied, false);
        if (show(data.rolls) !== show(rounds)) mismatch(seq, `bid_tie_rolled among seats ${show(tied)}`, data.rolls, rounds);
        break;
      }
      case "rolled": {
        checked.battles++;
        const faces = { attacker: data.attacker_faces, defender: data.defender_faces };
        if (!validFaces(faces.attacker, 3) || !validFaces(faces.defender, 2)) {
          mismatch(seq, "rolled faces", faces, "1..3 attacker and 1..2 defender dice of 6 or 8 faces, 8s first");
          break;
        }
        const said = { attacker: data.attacker_dice, defender: data.defender_dice };
        const expected = battleWithFaces(stream, faces.attacker, faces.defender);
        const what = `rolled ${data.source}->${data.target} (faces ${show(faces.attacker)} v ${show(faces.defender)})`;
        if (show(said) !== show(expected)) mismatch(seq, what, said, expected);
        break;
      }
      case "card_rolled": {
        checked.cardRolls++;
        if (!FACES_2210.includes(data.faces)) {
          mismatch(seq, "card_rolled faces", data.faces, "a die of 6 or 8 faces");
          break;
        }
        const roll = die(stream, data.faces);
        if (data.roll !== roll) mismatch(seq, `card_rolled (d${data.faces})`, data.roll, roll);
        break;
      }
      case "cards_drawn": {
        for (const card of Array.isArray(data.cards) ? data.cards : []) {
          checked.commandCards++;
          const deck = Math.floor(card / COMMAND_DECK_SIZE_2210);
          if (!Number.isInteger(card) || deck < 0 || deck >= COMMAND_DECKS_2210) {
            mismatch(seq, "cards_drawn", card, `a Command card id in 0..${COMMAND_DECKS_2210 * COMMAND_DECK_SIZE_2210 - 1}`);
            continue;
          }
          const top = command[deck].shift();
          if (card !== top) mismatch(seq, `cards_drawn (the ${COMMANDERS[deck]} deck's top)`, card, top ?? "an empty deck");
        }
        break;
      }
      case "territory_card_drawn": {
        checked.territoryCards++;
        const deck = territoryDeckOf2210(data.territory);
        if (deck < 0) {
          mismatch(seq, "territory_card_drawn", data.territory, "a territory card id in 0..68");
          break;
        }
        const top = decks[deck].shift();
        const what = `territory_card_drawn (the ${TERRITORY_DECKS_2210[deck].name} deck's top)`;
        if (data.territory !== top) mismatch(seq, what, data.territory, top ?? "an empty deck");
        break;
      }
    }
  }
  if (!firstPlacer) mismatch("-", "first_player_rolled", "no such event", "every 2210 game rolls for the first placer");
  if (devastated < DEVASTATED) mismatch("-", "devastated", `${devastated} events`, `the land deck's top ${DEVASTATED}`);
  if (neutrals < neutral.length) mismatch("-", "neutral_placed", `${neutrals} events`, `${neutral.length} in a 2-player game`);
  return (
    `dice version 2, RISK 2210 A.D.: ${events.length} events; the decks, ${devastated} devastated, ` +
    `${neutrals} neutral territories, ${firstPlacer ? 1 : 0} first placer roll-off, ${checked.bidTies} bid ties, ${checked.battles} battle rolls, ` +
    `${checked.cardRolls} card rolls, ${checked.commandCards} Command cards and ${checked.territoryCards} territory cards drawn checked, ` +
    takeovers.finish()
  );
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
