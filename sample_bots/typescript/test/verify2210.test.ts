// The replay verifier checks RISK 2210 A.D. replays: docs/protocol.md's table "Checking a 2210 game's
// draws", event by event. Issue 23: "Each starter kit (TypeScript, Go, Rust, Java) ships a replay
// verifier (re-derive every roll and shuffle from the revealed seed and compare with the events), run in
// `make interop` on replays of every ruleset against `conquest replay verify`."
// Games: ../fixtures/replay_2210_{two,three,five}_player.json with their `conquest replay events` output.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { parseEvents, parseReplay, verify, type GameEvent } from "../src/verify";

const FIXTURES = path.resolve(__dirname, "..", "..", "..", "fixtures");
const VERIFY_JS = path.resolve(__dirname, "..", "src", "verify.js");
const GAMES = ["replay_2210_two_player", "replay_2210_three_player", "replay_2210_five_player"];
const read = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
const load = (game: string) => ({ replay: parseReplay(read(`${game}.json`)), events: parseEvents(read(`${game}.events.jsonl`)) });

/** The events of `kind`, in sequence order. */
const ofKind = (events: GameEvent[], kind: string) => events.filter((e) => e.kind === kind);
/** Change one event's facts (its `dataJson`) in place. */
function edit(event: GameEvent, change: (data: Record<string, any>) => void): void {
  const data = JSON.parse(event.dataJson);
  change(data);
  event.dataJson = JSON.stringify(data);
}
/** Each mismatch as [sequence, what the event says, what the seed gives]. */
const found = (replay: ReturnType<typeof parseReplay>, events: GameEvent[]) =>
  verify(replay, events).mismatches.map((m) => [m.sequence, m.event, m.seed]);

for (const game of GAMES) {
  // Issue 23: "... re-derive every roll and shuffle from the revealed seed and compare with the events".
  test(`${game} verifies with no mismatch, every kind of draw it has checked`, () => {
    const { replay, events } = load(game);
    assert.equal(replay.game, "2210");
    assert.ok(replay.seed >= 1n << 53n, "a seed a double would round");
    const verdict = verify(replay, events);
    assert.deepEqual(verdict.mismatches, []);
    const battles = ofKind(events, "rolled").length;
    assert.ok(battles > 50);
    assert.match(verdict.notes[0], new RegExp(`RISK 2210 A\\.D\\.: ${events.length} events; the decks, 4 devastated, `));
    assert.match(verdict.notes[0], new RegExp(` ${battles} battle rolls, ${ofKind(events, "card_rolled").length} card rolls, `));
  });
}

test("the seed is read exactly from the text (above 2^53) and a 2210 replay is marked as one", () => {
  const { replay } = load("replay_2210_two_player");
  assert.equal(replay.seed, 8880083587908122874n);
  assert.equal(replay.board, "2210");
  assert.equal(replay.seats, 2);
  assert.equal(parseReplay(read("replay_secret_mission.json")).game, "classic");
});

// Issue 23: "... compare with the events": a battle's die changed is caught at its `rolled` event.
test("a changed battle die (a rolled event's attacker_dice) is caught at its event", () => {
  const { replay, events } = load("replay_2210_three_player");
  const rolled = ofKind(events, "rolled").find((e) => JSON.parse(e.dataJson).attacker_faces.includes(8))!;
  const data = JSON.parse(rolled.dataJson);
  const changed = [data.attacker_dice[0] === 1 ? 2 : 1, ...data.attacker_dice.slice(1)];
  edit(rolled, (d) => (d.attacker_dice = changed));
  assert.deepEqual(found(replay, events), [
    [
      rolled.sequence,
      JSON.stringify({ attacker: changed, defender: data.defender_dice }),
      JSON.stringify({ attacker: data.attacker_dice, defender: data.defender_dice }),
    ],
  ]);
});

// Issue 23: "... every roll and shuffle": a Command card that is not its shuffled deck's top is caught.
test("a changed cards_drawn card is caught at its event, the deck's top named", () => {
  const { replay, events } = load("replay_2210_five_player");
  const drawn = ofKind(events, "cards_drawn")[3];
  const card: number = JSON.parse(drawn.dataJson).cards[0];
  const other = card - (card % 20) + ((card + 1) % 20); // another card of the same Command deck
  edit(drawn, (d) => (d.cards[0] = other));
  assert.deepEqual(found(replay, events), [[drawn.sequence, String(other), String(card)]]);
  assert.match(verify(replay, events).mismatches[0].what, /^cards_drawn \(the \w+ deck's top\)$/);
});

// Issue 23: "... re-derive every roll ...": a Command card's die (Assassin Bomb's d8 here) is a roll too.
test("a changed card_rolled roll is caught at its event", () => {
  const { replay, events } = load("replay_2210_two_player");
  const [rolled] = ofKind(events, "card_rolled");
  const { faces, roll } = JSON.parse(rolled.dataJson);
  const changed = (roll % faces) + 1;
  edit(rolled, (d) => (d.roll = changed));
  assert.deepEqual(found(replay, events), [[rolled.sequence, String(changed), String(roll)]]);
  assert.equal(verify(replay, events).mismatches[0].what, `card_rolled (d${faces})`);
});

// Issue 23: "... every roll and shuffle ...": the 2-player neutral territories come off the shuffled decks.
test("a changed neutral_placed territory is caught at its event, and the reshuffle still follows", () => {
  const { replay, events } = load("replay_2210_two_player");
  const placed = ofKind(events, "neutral_placed");
  assert.equal(placed.length, 28);
  const target = placed[20]; // a water territory
  const territory: number = JSON.parse(target.dataJson).territory;
  edit(target, (d) => (d.territory = 68));
  assert.deepEqual(found(replay, events), [[target.sequence, "68", String(territory)]]);
});

// Issue 23: "... from the revealed seed ...": another seed fails the commitment and the draws.
test("a tampered seed fails the seed commitment (and the draws)", () => {
  const { replay, events } = load("replay_2210_three_player");
  const mismatches = verify({ ...replay, seed: replay.seed + 1n }, events).mismatches;
  assert.equal(mismatches[0].sequence, "-");
  assert.equal(mismatches[0].what, "seed commitment");
  assert.equal(mismatches[0].event, JSON.stringify(replay.seedCommitment));
  assert.ok(mismatches.length > 10);
  // The commitment alone: the same seed under another game id.
  assert.deepEqual(
    verify({ ...replay, gameId: "0000000000000000" }, events).mismatches.map((m) => m.what),
    ["seed commitment"],
  );
});

// Issue 23: "... compare with the events": a game's start that is not all there is reported.
test("a missing first_player_rolled and fewer than 4 devastated are mismatches", () => {
  // The five-player game draws no territory card after its start, so a devastation left out shifts
  // nothing later (in the three-player game its Scout Forces' card would be reported too).
  const { replay, events } = load("replay_2210_five_player");
  const lastDevastated = ofKind(events, "devastated")[3];
  assert.deepEqual(
    verify(replay, events.filter((e) => e !== lastDevastated)).mismatches.map((m) => [m.sequence, m.what, m.event]),
    [["-", "devastated", '"3 events"']],
  );
  const withoutRoll = verify(replay, events.filter((e) => e.kind !== "first_player_rolled")).mismatches;
  assert.deepEqual(withoutRoll.at(-1), {
    sequence: "-",
    what: "first_player_rolled",
    event: '"no such event"',
    seed: '"every 2210 game rolls for the first placer"',
  });
});

// Issue 23: "... compare with the events": the first placer is the event's seat and the bid ties' rounds.
test("a wrong first placer (the event's seat) and a changed bid tie's rolls are caught at their events", () => {
  const { replay, events } = load("replay_2210_five_player");
  const [first] = ofKind(events, "first_player_rolled");
  first.seat = (first.seat + 1) % 5;
  const [tie] = ofKind(events, "bid_tie_rolled");
  edit(tie, (d) => (d.rolls[0][0] = (d.rolls[0][0] % 6) + 1));
  assert.deepEqual(
    verify(replay, events).mismatches.map((m) => [m.sequence, m.what]),
    [
      [first.sequence, "first_player_rolled among seats 0..4"],
      [tie.sequence, "bid_tie_rolled among seats [0,1,2,3,4]"],
    ],
  );
});

// Issue 23: "... every roll and shuffle ...": Scout Forces' territory card is its deck's top.
test("a changed territory_card_drawn is caught at its event", () => {
  const { replay, events } = load("replay_2210_three_player");
  const [drawn] = ofKind(events, "territory_card_drawn");
  const territory: number = JSON.parse(drawn.dataJson).territory;
  edit(drawn, (d) => (d.territory = territory === 0 ? 1 : 0));
  assert.deepEqual(found(replay, events), [[drawn.sequence, String(territory === 0 ? 1 : 0), String(territory)]]);
});

test("a bid tie among a seat listed twice is a mismatch, not a draw", () => {
  const { replay, events } = load("replay_2210_three_player");
  const [tie] = ofKind(events, "bid_tie_rolled");
  edit(tie, (d) => (d.seats = [1, 1]));
  const [m] = verify(replay, events).mismatches;
  assert.deepEqual([m.sequence, m.what], [tie.sequence, "bid_tie_rolled seats"]);
});

test("a battle event with faces no 2210 die has is a mismatch, not a hang", () => {
  const { replay, events } = load("replay_2210_three_player");
  const [rolled] = ofKind(events, "rolled");
  edit(rolled, (d) => (d.attacker_faces = [0]));
  const [m] = verify(replay, events).mismatches;
  assert.deepEqual([m.sequence, m.what], [rolled.sequence, "rolled faces"]);
});

// Issue 23: "... run in `make interop` ...": the CLI the interop runs, on both kinds of replay.
test("the CLI: exit 0 and OK on 2210 and classic replays (format 1 and 2), 1 on a tampered copy, 2 on unreadable input", () => {
  const run = (replay: string, events: string) => spawnSync(process.execPath, [VERIFY_JS, replay, events], { encoding: "utf8" });
  for (const game of [...GAMES, "replay_secret_mission", "replay_classic_reseeded", "replay_2210_reseeded"]) {
    const out = run(path.join(FIXTURES, `${game}.json`), path.join(FIXTURES, `${game}.events.jsonl`));
    assert.equal(out.status, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /^OK {3}/m);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "verify2210-"));
  const lines = read("replay_2210_two_player.events.jsonl").split("\n");
  const at = lines.findIndex((line) => line.includes('"kind":"rolled"'));
  const event = JSON.parse(lines[at]);
  edit(event, (d) => (d.defender_dice = [9]));
  lines[at] = JSON.stringify(event);
  const tampered = path.join(dir, "tampered.events.jsonl");
  writeFileSync(tampered, lines.join("\n"));
  const replay = path.join(FIXTURES, "replay_2210_two_player.json");
  const bad = run(replay, tampered);
  assert.equal(bad.status, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout, new RegExp(`^MISMATCH event ${event.sequence} rolled .*: the event says .*"defender":\\[9\\].*; the seed gives `, "m"));
  assert.match(bad.stdout, /^FAIL .*: 1 mismatch\(es\)$/m);
  const broken = path.join(dir, "broken.events.jsonl");
  writeFileSync(broken, '{"sequence":"0","kind":"devastated","seat":-1,"dataJson":"{not json"}\n');
  assert.equal(run(replay, broken).status, 2);
  assert.equal(run(replay, path.join(dir, "missing.jsonl")).status, 2);
});
