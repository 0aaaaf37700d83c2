// The replay verifier checks a game taken over by another server (issue 20: "Make every kit's verifier
// check format 2"; docs/protocol.md, "The replay of such a game"): at each `reseeded` event the replay's
// `reseeds` entry and its commitment, then a fresh stream and the undrawn cards shuffled again by it.
// Games: ../fixtures/replay_classic_reseeded.json (taken over at actions 120 and 400) and
// ../fixtures/replay_2210_reseeded.json (3 seats, taken over in year 2's bids at action 155, then at 255).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { parseEvents, parseReplay, verify, type GameEvent } from "../src/verify";

const FIXTURES = path.resolve(__dirname, "..", "..", "..", "fixtures");
const read = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

/** Each reseeded fixture: its files, its reseeded events' sequences, and how one reads a reseeded event's
 * facts and writes them back (classic: the `reseeded` field; 2210: the JSON string `dataJson`). */
const GAMES = [
  {
    name: "replay_classic_reseeded",
    reseeded: ["133", "643"],
    isReseeded: (e: GameEvent) => "reseeded" in e,
    isRoll: (e: GameEvent) => "rolled" in e,
    facts: (e: GameEvent): Record<string, any> => e.reseeded,
    setFacts: (e: GameEvent, facts: Record<string, any>) => (e.reseeded = { ...facts, at: String(facts.at) }),
    changeRoll: (e: GameEvent) => (e.rolled.attackerDice[0] = (e.rolled.attackerDice[0] % 6) + 1),
  },
  {
    name: "replay_2210_reseeded",
    reseeded: ["158", "253"],
    isReseeded: (e: GameEvent) => e.kind === "reseeded",
    isRoll: (e: GameEvent) => e.kind === "rolled",
    facts: (e: GameEvent): Record<string, any> => JSON.parse(e.dataJson),
    setFacts: (e: GameEvent, facts: Record<string, any>) => (e.dataJson = JSON.stringify({ ...facts, at: Number(facts.at) })),
    changeRoll: (e: GameEvent) => {
      const data = JSON.parse(e.dataJson);
      data.attacker_dice[data.attacker_dice.length - 1] = data.attacker_dice.at(-1) === 1 ? 2 : 1;
      e.dataJson = JSON.stringify(data);
    },
  },
];

const commitment = (seed: string, gameId: string, at: number) => createHash("sha256").update(`${seed}:${gameId}:${at}`).digest("hex");
const sequences = (mismatches: { sequence: string }[]) => mismatches.map((m) => m.sequence);
const after = (sequence: string) => (m: { sequence: string }) => m.sequence !== "-" && BigInt(m.sequence) > BigInt(sequence);

for (const game of GAMES) {
  const replayText = read(`${game.name}.json`);
  const events = () => parseEvents(read(`${game.name}.events.jsonl`));

  test(`${game.name} (format 2) verifies with no mismatch, both reseeds checked`, () => {
    // Issue 20: "Today each kit's verifier refuses format 2 ... Make every kit's verifier check format 2."
    const replay = parseReplay(replayText);
    assert.deepEqual(
      replay.reseeds.map((r) => r.seed),
      [9007199254740993n, 4611686018427387903n],
      "fresh seeds of 2^53+1 and 2^62-1 read exactly",
    );
    const all = events();
    assert.deepEqual(all.filter(game.isReseeded).map((e) => e.sequence), game.reseeded);
    const verdict = verify(replay, all);
    assert.deepEqual(verdict.mismatches, []);
    assert.match(verdict.notes[0], /, 2 of 2 reseeds \(games taken over\) checked$/);
  });

  test(`${game.name}: (a) a reseed's commitment changed in the replay is reported at its reseeded event`, () => {
    const replay = parseReplay(replayText);
    const second = replay.reseeds[1];
    const changed = commitment(String(second.seed), replay.gameId, second.at + 1);
    const tampered = { ...replay, reseeds: [replay.reseeds[0], { ...second, commitment: changed }] };
    const key = `${second.seed}:${replay.gameId}:${second.at}`;
    assert.deepEqual(
      verify(tampered, events()).mismatches.map((m) => [m.sequence, m.what]),
      [
        [game.reseeded[1], "reseeded 2 of 2 (the replay's entry)"],
        [game.reseeded[1], `reseed commitment sha256("${key}")`],
      ],
    );
  });

  test(`${game.name}: (b) a fresh seed changed in the replay and the events, its commitment recomputed, fails the dice after it`, () => {
    // docs/protocol.md: "start a new stream ... from the fresh seed ... Everything after comes from the new stream."
    const replay = parseReplay(replayText);
    const first = replay.reseeds[0];
    const seed = first.seed + 2n;
    const forged = { ...first, seed, commitment: commitment(String(seed), replay.gameId, first.at) };
    const all = events();
    const event = all.find((e) => e.sequence === game.reseeded[0])!;
    game.setFacts(event, { ...game.facts(event), seed: String(seed), commitment: forged.commitment });
    const mismatches = verify({ ...replay, reseeds: [forged, replay.reseeds[1]] }, all).mismatches;
    assert.ok(mismatches.length > 0);
    assert.ok(mismatches.every(after(game.reseeded[0])), `nothing at or before the reseed: ${sequences(mismatches)}`);
    const firstRoll = all.find((e) => game.isRoll(e) && BigInt(e.sequence) > BigInt(game.reseeded[0]))!;
    assert.equal(mismatches[0].sequence, firstRoll.sequence, "the first roll after the reseed");
  });

  test(`${game.name}: (c) a reseeded event removed from the events is reported missing, the dice after it fail`, () => {
    const all = events().filter((e) => e.sequence !== game.reseeded[0]);
    const mismatches = verify(parseReplay(replayText), all).mismatches;
    assert.ok(mismatches.filter(after(game.reseeded[0])).length > 1);
    const missing = mismatches.find((m) => m.what === "reseeded 1 of 2")!;
    assert.deepEqual([missing.sequence, missing.event], [game.reseeded[1], '"no such event before this one"']);
    // The last one removed is reported at the end.
    const withoutLast = verify(parseReplay(replayText), events().filter((e) => e.sequence !== game.reseeded[1])).mismatches;
    assert.deepEqual(
      withoutLast.filter((m) => m.what.startsWith("reseeded")).map((m) => [m.sequence, m.what, m.event]),
      [["-", "reseeded 2 of 2", '"no such event"']],
    );
  });

  test(`${game.name}: (d) a battle roll after a reseed changed is reported at its event alone`, () => {
    const all = events();
    const roll = all.find((e) => game.isRoll(e) && BigInt(e.sequence) > BigInt(game.reseeded[1]))!;
    game.changeRoll(roll);
    assert.deepEqual(sequences(verify(parseReplay(replayText), all).mismatches), [roll.sequence]);
  });

  test(`${game.name}: a reseeded event the replay does not list is reported, and the dice go on`, () => {
    const all = events();
    const extra = { ...all.find((e) => e.sequence === game.reseeded[1])! };
    const verdict = verify(parseReplay(replayText), [...all, extra]);
    assert.deepEqual(
      verdict.mismatches.map((m) => [m.sequence, m.what]),
      [[game.reseeded[1], "reseeded (a takeover the replay does not list)"]],
    );
  });
}

test("a replay format other than 1 and 2 is refused by its number", () => {
  const text = read("replay_classic_reseeded.json");
  assert.throws(() => parseReplay(text.replace('"format":2', '"format":3')), /^Error: replay format 3 is unknown to this verifier: it reads format 1 .* and 2 /);
});

test("reseeds are refused in a format 1 file, out of order or past the last action, as conquest replay verify does", () => {
  const text = read("replay_classic_reseeded.json");
  assert.throws(() => parseReplay(text.replace('"format":2', '"format":1')), /a replay with "reseeds" is format 2, not 1/);
  assert.throws(() => parseReplay(text.replace('"at":400', '"at":100')), /reseeds\[1\] .*an action index 120\.\.660 \(in order\)/);
  assert.throws(() => parseReplay(text.replace('"at":400', '"at":661')), /reseeds\[1\]/);
});

test("a dice version 1 replay taken over has its reseeds' commitments checked", () => {
  const replay = { ...parseReplay(read("replay_classic_reseeded.json")), diceVersion: 1 };
  const verdict = verify(replay, []);
  assert.deepEqual(verdict.mismatches, []);
  assert.match(verdict.notes[0], /seed commitment and 2 reseed commitments checked/);
  const forged = { ...replay, reseeds: [{ ...replay.reseeds[0], seed: 1n }, replay.reseeds[1]] };
  assert.deepEqual(sequences(verify(forged, []).mismatches), ["-"]);
});
