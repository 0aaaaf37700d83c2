// The replay verifier re-derives dice version 2 exactly (issue 23: "Each starter kit ... ships a replay
// verifier (re-derive every roll and shuffle from the revealed seed and compare with the events)").
// Vectors: ../fixtures/dice_vectors.json; a recorded Secret Mission game (seed above 2^53):
// ../fixtures/replay_secret_mission.json with its `conquest replay events` output.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { battle, dealTerritories, rollOff, Stream } from "../src/dice";
import { parseEvents, parseReplay, verify, type GameEvent } from "../src/verify";

const FIXTURES = path.resolve(__dirname, "..", "..", "..", "fixtures");
const read = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
const vectors = JSON.parse(read("dice_vectors.json"));

test("the vectors file is dice version 2 with cases", () => {
  assert.equal(vectors.version, 2);
  assert.ok(vectors.cases.length >= 3);
});

for (const c of vectors.cases) {
  const fresh = () => new Stream(BigInt(c.seed));
  test(`seed ${c.seed}: every vector`, () => {
    const words = fresh();
    assert.deepEqual(c.words.map(() => words.word()), c.words);
    const dice = fresh();
    assert.deepEqual(c.uniform6.map(() => dice.uniform(6)), c.uniform6);
    assert.deepEqual(battle(fresh(), 3, 2), c.battle_3v2);
    assert.deepEqual(rollOff(fresh(), 4), c.rolloff_4);
    const deck = Array.from({ length: 44 }, (_, i) => i);
    fresh().shuffle(deck);
    assert.deepEqual(deck, c.deck_44);
    assert.deepEqual(dealTerritories(fresh(), 42, 3, "dealt", c.deal_42_3.first_seat), c.deal_42_3.owners);
  });
}

const replay = parseReplay(read("replay_secret_mission.json"));
const events = () => parseEvents(read("replay_secret_mission.events.jsonl"));

test("a recorded game verifies, its seed read exactly", () => {
  assert.equal(replay.seed, 5901499535385924463n);
  const verdict = verify(replay, events());
  assert.deepEqual(verdict.mismatches, []);
});

test("a tampered roll fails verification at its event", () => {
  const tampered = events();
  const roll = tampered.find((e: GameEvent) => e.sequence === "70")!;
  roll.rolled.attackerDice = [6, 3, 3];
  const verdict = verify(replay, tampered);
  assert.deepEqual(verdict.mismatches.map((m) => [m.sequence, m.event, m.seed]), [
    ["70", '{"attacker":[6,3,3],"defender":[2]}', '{"attacker":[5,3,3],"defender":[2]}'],
  ]);
});

test("a tampered card draw and a wrong seed fail verification", () => {
  const tampered = events();
  tampered.find((e: GameEvent) => e.sequence === "101")!.drew.card = 30;
  assert.deepEqual(verify(replay, tampered).mismatches.map((m) => m.sequence), ["101"]);
  const wrongSeed = verify({ ...replay, seed: replay.seed + 1n }, events()).mismatches;
  assert.equal(wrongSeed[0].what, "seed commitment");
  assert.ok(wrongSeed.length > 10);
});

test("dice version 1 is left to `conquest replay verify`, its commitment still checked", () => {
  const verdict = verify({ ...replay, diceVersion: 1 }, events());
  assert.deepEqual(verdict.mismatches, []);
  assert.match(verdict.notes[0], /checked by `conquest replay verify` only/);
  assert.equal(verify({ ...replay, diceVersion: 1, gameId: "other" }, []).mismatches[0].what, "seed commitment");
});

test("a game drawn past its first 44 cards verifies: traded cards go to the back of the deck", () => {
  // replay_classic_long: 45 cards drawn, so the last one is the first card traded back.
  const long = parseReplay(read("replay_classic_long.json"));
  const longEvents = parseEvents(read("replay_classic_long.events.jsonl"));
  assert.equal(longEvents.filter((e) => "drew" in e).length, 45);
  assert.deepEqual(verify(long, longEvents).mismatches, []);
  longEvents.find((e) => e.sequence === "1104")!.drew.card = 17;
  assert.deepEqual(verify(long, longEvents).mismatches.map((m) => [m.sequence, m.seed]), [["1104", "16"]]);
});
