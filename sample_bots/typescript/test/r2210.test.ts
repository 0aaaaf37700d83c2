// Issue 19: "All four starter kits (TypeScript, Go, Rust, Java) answer every 2210 decision (at least with
// a legal choice)". The kit's answer to every golden 2210 request (one per phase, made by the server's
// tests/server/make_golden_2210.py) must be one its own Legal2210 allows.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "../src/client";
import type { ConnectRequest, DecisionRequest } from "../src/protocol";
import { loadProtocol } from "../src/protocol";
import { type Action2210, default2210, type Legal2210 } from "../src/r2210";

const GOLDEN = path.resolve(__dirname, "..", "..", "..", "..", "tests", "server", "golden");

/** protojson's lowerCamelCase names as the loader's (keepCase) snake_case ones. */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(v)]),
  );
}

/** Every golden 2210 request, decoded the way the client decodes the wire. */
function golden(): Map<string, DecisionRequest> {
  const codec = loadProtocol().conquest.v1.BotService.service.Connect;
  const out = new Map<string, DecisionRequest>();
  for (const name of readdirSync(GOLDEN).filter((n) => n.startsWith("decision_request_2210_"))) {
    const json = snakeKeys(JSON.parse(readFileSync(path.join(GOLDEN, name), "utf8")));
    out.set(name, codec.responseDeserialize(codec.responseSerialize(json as never)).decision_request as DecisionRequest);
  }
  assert.ok(out.size > 0, `no golden 2210 requests in ${GOLDEN}`);
  return out;
}

const subset = (xs: number[], of: number[]) => xs.every((x, i) => of.includes(x) && xs.indexOf(x) === i);
const within = (x: number | undefined, lo: number, hi: number) => Number.isInteger(x) && lo <= x! && x! <= hi;

/** Why `action` is not allowed by `legal` (docs/protocol.md's table of 2210 phases), or "" when it is. */
function problem(legal: Legal2210, a: Action2210): string {
  const kinds = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] != null);
  if (kinds.length !== 1) return `an action sets exactly one kind, not ${kinds}`;
  const t = legal.territories;
  const phase = legal.phase;
  let ok = false;
  if (a.end_phase) ok = legal.can_end;
  else if (a.claim) ok = phase === "PHASE2210_SETUP_CLAIM" && t.includes(a.claim.territory!);
  else if (a.place) {
    ok = (phase === "PHASE2210_SETUP_PLACE" || phase === "PHASE2210_DEPLOY") && t.includes(a.place.territory!) &&
      within(a.place.mods, 1, legal.place_max);
  } else if (a.place_commanders) {
    const p = a.place_commanders;
    ok = phase === "PHASE2210_SETUP_COMMANDERS" && [p.land!, p.diplomat!, p.station!].every((x) => t.includes(x));
  } else if (a.bid) ok = phase === "PHASE2210_BID" && within(a.bid.energy, 0, legal.bid_max);
  else if (a.choose_marker) ok = phase === "PHASE2210_CHOOSE_MARKER" && legal.markers.includes(a.choose_marker.marker!);
  else if (a.take_card) ok = phase === "PHASE2210_BONUS_CARD" && (legal.card_decks[a.take_card.deck!] ?? 0) > 0;
  else if (a.roll) {
    const d8 = a.roll.d8 ?? [];
    ok = phase === "PHASE2210_ROLL" && within(a.roll.dice, 1, legal.dice_max) && subset(d8, legal.d8) &&
      d8.length <= a.roll.dice!;
  } else if (a.defend) ok = phase === "PHASE2210_DEFEND" && within(a.defend.dice, 1, legal.defend_max);
  else if (a.lose) {
    const c = a.lose.commanders ?? [];
    ok = phase === "PHASE2210_LOSSES" && within(a.lose.mods, 0, legal.occupy_mods) &&
      subset(c, legal.occupy_commanders) && a.lose.mods! + c.length === legal.lose;
  } else if (a.remove) {
    // Legal2210.lose territories, each named at most its mods_at times.
    const r = a.remove.territories ?? [];
    ok = phase === "PHASE2210_REDUCE" && r.length === legal.lose && r.every((x) => t.includes(x)) &&
      t.length === legal.mods_at.length && t.every((x, i) => r.filter((y) => y === x).length <= legal.mods_at[i]);
  } else if (a.occupy) {
    const c = a.occupy.commanders ?? [];
    const moved = a.occupy.mods! + c.length;
    ok = phase === "PHASE2210_OCCUPY" && within(a.occupy.mods, 0, legal.occupy_mods) &&
      subset(c, legal.occupy_commanders) && legal.must_move.every((m) => c.includes(m)) &&
      moved >= legal.occupy_min && moved < legal.occupy_mods + legal.occupy_commanders.length;
  }
  return ok ? "" : `${JSON.stringify(a)} is not legal for ${JSON.stringify(legal)}`;
}

test("the 2210 answer is legal for every golden 2210 request, one of each phase that asks", () => {
  const phases = new Set<string>();
  for (const [name, req] of golden()) {
    const legal = req.r2210!.legal!;
    phases.add(legal.phase);
    assert.equal(problem(legal, default2210(legal)), "", name);
  }
  assert.equal(phases.size, 20, `phases with a golden request: ${[...phases]}`);
});

test("the 2210 answer moves in the commanders that must move, MODs making up the least", () => {
  // 004: commanders that rolled 8-sided dice must move in.
  const legal = {
    ...golden().get("decision_request_2210_occupy.json")!.r2210!.legal!,
    occupy_min: 3, occupy_mods: 4, occupy_commanders: [0, 2], must_move: [2],
  };
  assert.deepEqual(default2210(legal), { occupy: { mods: 2, commanders: [2] } });
  assert.equal(problem(legal, default2210(legal)), "");
});

test("the 2210 answer removes the first MODs listed", () => {
  // MOD Reduction: "Each opponent ... removes 4 of their own MODs from anywhere on the boards".
  const legal = {
    ...golden().get("decision_request_2210_reduce.json")!.r2210!.legal!,
    territories: [5, 9, 60], mods_at: [1, 2, 7], lose: 4,
  };
  assert.deepEqual(default2210(legal), { remove: { territories: [5, 9, 9, 60] } });
  assert.equal(problem(legal, default2210(legal)), "");
});

test("a 2210 request is answered with a 2210 decision", () => {
  // docs/protocol.md: a 2210 Decision carries its r2210 member, never the classic action.
  const client = new Client({ server: "", token: "", name: "t", capacity: 1, queues: [], games: 0 });
  const internals = client as unknown as { handle(m: unknown, send: (m: ConnectRequest) => void): string };
  for (const [name, req] of golden()) {
    const sent: ConnectRequest[] = [];
    internals.handle({ message: "decision_request", decision_request: req }, (m) => sent.push(m));
    assert.equal(sent.length, 1, name);
    assert.ok(sent[0].decision?.r2210 && !sent[0].decision.action, name);
    assert.equal(sent[0].decision.request_id, req.request_id, name);
  }
});
