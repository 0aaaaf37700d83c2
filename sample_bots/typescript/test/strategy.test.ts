// The strategy must answer every recorded request (each decision kind of the protocol, from real
// engine games; see ../fixtures/make_decisions.py) with an action its own LegalActions allow.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { safeAction } from "../src/actions";
import { loadProtocol } from "../src/protocol";
import type { Action, DecisionRequest, GameStarted, LegalActions } from "../src/protocol";
import { decide, type Game } from "../src/strategy";

interface Fixture {
  kind: string;
  game: Game;
  request: DecisionRequest;
  decision: Action;
}

/** Decode the recorded JSON the way the client decodes the wire: through the server message's codec. */
function loadFixtures(): Fixture[] {
  const codec = loadProtocol().conquest.v1.BotService.service.Connect;
  const asReceived = (json: object) => codec.responseDeserialize(codec.responseSerialize(json as never));
  const file = JSON.parse(readFileSync(path.resolve(__dirname, "..", "..", "..", "fixtures", "decisions.json"), "utf8"));
  const out: Fixture[] = [];
  for (const g of file.games) {
    const started = asReceived({ game_started: g.game_started }).game_started as GameStarted;
    for (const d of g.decisions) {
      const request = asReceived({ decision_request: d.request }).decision_request as DecisionRequest;
      const seat = request.observation!.to_act;
      const game = { id: started.game_id, seat, players: started.players, map: started.map!, rules: started.rules! };
      out.push({ kind: d.kind, game, request, decision: decide(game, request) });
    }
  }
  return out;
}

const fixtures = loadFixtures();

/** Why `action` is not allowed by `legal`, or "" when it is. */
function legalityProblem(legal: LegalActions, action: Action): string {
  const kinds = Object.keys(action).filter((k) => (action as Record<string, unknown>)[k] != null);
  if (kinds.length !== 1) return `an action sets exactly one kind, not ${kinds}`;
  const within = (x: number, lo: number, hi: number) => Number.isInteger(x) && lo <= x && x <= hi;
  if (action.claim) return legal.claim.includes(action.claim.territory!) ? "" : "claim of a territory not in legal.claim";
  if (action.choose_headquarters) {
    return legal.headquarters.includes(action.choose_headquarters.territory!) ? "" : "headquarters not in legal.headquarters";
  }
  if (action.place) {
    const { territory, armies } = action.place;
    if (legal.must_trade || !legal.place_territories.includes(territory!)) return "place on a territory not allowed";
    return within(armies!, legal.place_min, legal.place_max) ? "" : `place of ${armies} armies out of range`;
  }
  if (action.trade_cards) {
    const { cards, bonus_territory } = action.trade_cards;
    const set = legal.trades.find((s) => JSON.stringify(s.cards) === JSON.stringify(cards));
    if (!set) return "trade of a set not in legal.trades";
    if (bonus_territory !== undefined && !set.bonus_territories.includes(bonus_territory)) return "bonus territory not allowed";
    return "";
  }
  if (action.attack) {
    const { source, target, dice, repeat_until } = action.attack;
    const i = legal.attack_sources.findIndex((s, j) => s === source && legal.attack_targets[j] === target);
    if (i < 0) return "attack not in the legal options";
    if (!within(dice!, 1, legal.attack_max_dice[i])) return "attack dice out of range";
    return within(repeat_until!, 0, legal.attack_source_armies[i] - 1) ? "" : "repeat_until out of range";
  }
  if (action.choose_defence) return within(action.choose_defence.dice!, 1, legal.defend_max) ? "" : "defence dice out of range";
  if (action.occupy) {
    if (legal.occupy_max === 0) return "no move-in is owed";
    return within(action.occupy.armies!, legal.occupy_min, legal.occupy_max) ? "" : "occupy armies out of range";
  }
  if (action.fortify) {
    const { source, target, armies } = action.fortify;
    const i = legal.fortify_sources.findIndex((s, j) => s === source && legal.fortify_targets[j] === target);
    if (i < 0) return "fortify move not in the legal options";
    return within(armies!, 1, legal.fortify_max_armies[i]) ? "" : "fortify armies out of range";
  }
  return legal.can_end ? "" : "end_phase while can_end is false";
}

test("the strategy answers every recorded request legally, and every decision kind is recorded", () => {
  for (const f of fixtures) {
    assert.equal(legalityProblem(f.request.legal!, f.decision), "", `${f.kind} request ${f.request.request_id}: ${JSON.stringify(f.decision)}`);
  }
  const kinds = new Set(fixtures.map((f) => f.kind));
  for (const kind of [
    "setup_claim", "setup_place", "setup_place_neutral", "reinforce", "reinforce_may_trade", "reinforce_must_trade",
    "reinforce_trade_down_after_elimination", "attack", "defend", "occupy", "fortify",
    "choose_headquarters", "allied_reinforce", "allied_attack", "defend_allied", "occupy_allied",
  ]) {
    assert.ok(kinds.has(kind), `no recorded request of kind ${kind}`);
  }
});

test("the safe action (sent after a rejection) is legal for every recorded request", () => {
  for (const f of fixtures) {
    assert.equal(legalityProblem(f.request.legal!, safeAction(f.request.legal!)), "", `${f.kind} request ${f.request.request_id}`);
  }
});

// Issue 7: "plays the aggressive strategy (not just random legal moves)".
test("the strategy is aggressive", () => {
  for (const { kind, game, request, decision } of fixtures) {
    const legal = request.legal!;
    const obs = request.observation!;
    const neighbours = (t: number) => game.map.territories[t].neighbours;
    if (kind.startsWith("reinforce_")) assert.ok(decision.trade_cards, `${kind}: holds a tradeable set but played ${JSON.stringify(decision)}`);
    if (kind === "reinforce") assert.equal(decision.place?.armies, legal.place_max, "places all its armies at once");
    if (kind === "setup_place_neutral") assert.notEqual(obs.owners[decision.place!.territory!], obs.to_act, "neutral armies on a neutral territory");
    if (kind === "defend" || kind === "defend_allied") assert.equal(decision.choose_defence?.dice, legal.defend_max, "defends with the most dice");
    if (kind === "choose_headquarters") {
      // The territory whose armies outnumber its enemy neighbours' the most.
      const margin = (t: number) =>
        neighbours(t).reduce((m, n) => (obs.owners[n] === obs.to_act ? m : m - obs.armies[n]), obs.armies[t]);
      const chosen = decision.choose_headquarters!.territory!;
      for (const t of legal.headquarters) assert.ok(margin(t) <= margin(chosen), `chose ${chosen} over the safer ${t}`);
    }
    if (kind === "allied_reinforce") {
      // All the Allied Army's armies at once, next to our opponent when an Allied territory is.
      const { territory, armies } = decision.place!;
      assert.equal(armies, legal.place_max, "places all the Allied armies at once");
      assert.equal(obs.owners[territory!], legal.army, "on an Allied territory");
      const bordersOpponent = (t: number) => neighbours(t).some((n) => ![obs.to_act, legal.army].includes(obs.owners[n]));
      if (legal.place_territories.some(bordersOpponent)) assert.ok(bordersOpponent(territory!), "next to the opponent");
    }
    if (kind === "attack" || kind === "allied_attack") {
      const outnumbers = legal.attack_targets.some((t, i) => legal.attack_source_armies[i] - 1 > obs.armies[t]);
      if (outnumbers) assert.equal(decision.attack?.repeat_until, 1, `${kind}: attacks to the end where it outnumbers`);
      else assert.ok(decision.end_phase, `${kind}: ends attacking where no source outnumbers its target`);
    }
  }
});
