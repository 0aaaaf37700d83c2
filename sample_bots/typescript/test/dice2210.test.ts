// The RISK 2210 A.D. draws re-derive exactly (docs/protocol.md, "Randomness", "RISK 2210 A.D. games").
// Issue 23: "Each starter kit (TypeScript, Go, Rust, Java) ships a replay verifier (re-derive every roll
// and shuffle from the revealed seed and compare with the events), run in `make interop` on replays of
// every ruleset against `conquest replay verify`." These are the derivation's test vectors,
// ../fixtures/dice_vectors_2210.json (written by make_dice_vectors_2210.py from the engine's own code).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import {
  battle,
  battleWithFaces,
  commandDecks2210,
  die,
  neutralTerritories2210,
  rankByRollOff,
  reshuffleTerritoryDecks2210,
  Stream,
  territoryDeckOf2210,
  territoryDecks2210,
} from "../src/dice";

const FIXTURES = path.resolve(__dirname, "..", "..", "..", "fixtures");
const vectors = JSON.parse(readFileSync(path.join(FIXTURES, "dice_vectors_2210.json"), "utf8"));
const SEATS_4 = [0, 1, 2, 3];

test("the 2210 vectors file is dice version 2 with cases, one seed above 2^63", () => {
  assert.equal(vectors.version, 2);
  assert.equal(vectors.game, "2210");
  assert.ok(vectors.cases.length >= 2);
  assert.ok(vectors.cases.some((c: { seed: string }) => BigInt(c.seed) >= 1n << 63n));
});

for (const c of vectors.cases) {
  const fresh = () => new Stream(BigInt(c.seed));

  test(`seed ${c.seed}: d8, a die of 8 faces`, () => {
    const stream = fresh();
    assert.deepEqual(c.d8.map(() => die(stream, 8)), c.d8);
  });

  test(`seed ${c.seed}: battles of mixed 6- and 8-sided dice (one mixed-radix draw)`, () => {
    for (const key of ["battle_a866_d86", "battle_a88_d8"]) {
      const v = c[key];
      assert.deepEqual(battleWithFaces(fresh(), v.attacker_faces, v.defender_faces), { attacker: v.attacker, defender: v.defender }, key);
    }
  });

  test(`seed ${c.seed}: the first placer's roll-off and a bid tie's full ordering`, () => {
    const first = rankByRollOff(fresh(), SEATS_4, true);
    assert.deepEqual({ rolls: first.rounds, seat: first.order[0] }, c.rolloff_first_4);
    const bid = rankByRollOff(fresh(), SEATS_4, false);
    assert.deepEqual({ rolls: bid.rounds, order: bid.order }, c.rolloff_order_4);
  });

  test(`seed ${c.seed}: a 4-player start (decks, devastation, first placer, words used)`, () => {
    const v = c.setup_4;
    const stream = fresh();
    const [land, water, lunar] = territoryDecks2210(stream);
    assert.deepEqual({ land, water, lunar }, { land: v.land, water: v.water, lunar: v.lunar });
    assert.deepEqual(commandDecks2210(stream), v.command);
    assert.deepEqual(land.splice(0, 4), v.devastated);
    const { order, rounds } = rankByRollOff(stream, SEATS_4, true);
    assert.deepEqual({ rolls: rounds, first_seat: order[0] }, { rolls: v.rolls, first_seat: v.first_seat });
    assert.equal(stream.wordsUsed, v.words_used);
  });

  test(`seed ${c.seed}: a 2-player start (the neutral draw, the decks reshuffled, words used)`, () => {
    const v = c.setup_2;
    const stream = fresh();
    const decks = territoryDecks2210(stream);
    commandDecks2210(stream);
    decks[0].splice(0, 4);
    const [land, water, lunar] = neutralTerritories2210(decks);
    assert.deepEqual({ land, water, lunar }, v.neutral);
    reshuffleTerritoryDecks2210(stream, decks);
    assert.deepEqual({ land: decks[0], water: decks[1], lunar: decks[2] }, { land: v.land, water: v.water, lunar: v.lunar });
    const { order, rounds } = rankByRollOff(stream, [0, 1], true);
    assert.deepEqual({ rolls: rounds, first_seat: order[0] }, { rolls: v.rolls, first_seat: v.first_seat });
    assert.equal(stream.wordsUsed, v.words_used);
  });
}

test("the classic battle is the all-sixes case: one uniform(7776)", () => {
  const seed = 12345n;
  const k = new Stream(seed).uniform(6 ** 5);
  const digits = [0, 1, 2, 3, 4].map((i) => (Math.floor(k / 6 ** i) % 6) + 1);
  const desc = (x: number, y: number) => y - x;
  assert.deepEqual(battle(new Stream(seed), 3, 2), { attacker: digits.slice(0, 3).sort(desc), defender: digits.slice(3).sort(desc) });
  assert.deepEqual(battle(new Stream(seed), 2, 1), battleWithFaces(new Stream(seed), [6, 6], [6]));
});

test("a roll-off of one seat draws nothing; a territory card's deck is found by its id", () => {
  const stream = new Stream(7n);
  assert.deepEqual(rankByRollOff(stream, [3], false), { order: [3], rounds: [] });
  assert.equal(stream.wordsUsed, 0);
  assert.deepEqual([0, 41, 42, 54, 55, 68, 69, -1].map(territoryDeckOf2210), [0, 0, 1, 1, 2, 2, -1, -1]);
});

test("uniform refuses a range it cannot draw from (a die of 0 faces would never end)", () => {
  assert.throws(() => new Stream(1n).uniform(0), RangeError);
  assert.throws(() => new Stream(1n).uniform(2.5), RangeError);
});

test("a roll-off refuses a seat listed twice (its tie could never be settled)", () => {
  assert.throws(() => rankByRollOff(new Stream(1n), [1, 1], false), RangeError);
});
