// ============================================================================================
// PUT YOUR STRATEGY HERE.
//
// `decide` is called once per DecisionRequest and returns one action. Everything legal is in
// req.legal (ranges, never one entry per army count); the board is in game.map, the state in
// req.observation. The rest of the kit (connection, queues, retries, reconnects) never needs to
// change. This sample is the aggressive strategy: stack reinforcements on the strongest front,
// attack wherever it outnumbers the defender, move everything forward, and fortify interior
// stacks to the front; it commands the Allied Army the same way against the opponent and picks
// the safest territory as headquarters.
// ============================================================================================
import * as act from "./actions";
import type { Action, DecisionRequest, LegalActions, MapInfo, Mission, Observation, Player, RulesInfo } from "./protocol";

/** What the kit remembers of one game in progress. */
export interface Game {
  id: string;
  seat: number;
  players: Player[];
  map: MapInfo;
  rules: RulesInfo;
}

/** Our headquarters territory id (Capital Risk), or -1 before we have chosen and in other games. */
export function headquarters(game: Game, obs: Observation): number {
  return obs.headquarters[game.seat] ?? -1;
}

/** Our Secret Mission card, or undefined in other games. */
export function mission(game: Game, obs: Observation): Mission | undefined {
  return obs.mission >= 0 ? game.rules.missions[obs.mission] : undefined;
}

export function decide(game: Game, req: DecisionRequest): Action {
  const obs = req.observation!;
  const legal = req.legal!;
  // legal.army is whose armies this decision commands: ours, or the Allied Army's in its phases.
  const b = new BoardView(game, obs, legal.army);
  switch (obs.phase) {
    case "PHASE_SETUP_CLAIM":
      return act.claim(b.bestClaim(legal.claim));
    case "PHASE_SETUP_PLACE":
      if (legal.place_neutral) {
        // Two-player game: this placement is for the neutral army. Put it where it blocks the
        // opponent most and us least.
        return act.place(b.bestNeutralPlacement(legal.place_territories), legal.place_min);
      }
      return act.place(b.stackTerritory(legal.place_territories), legal.place_max);
    case "PHASE_CHOOSE_HEADQUARTERS":
      // Capital Risk: the territory hardest to take.
      return act.chooseHeadquarters(b.safestTerritory(legal.headquarters));
    case "PHASE_REINFORCE":
      if (legal.trades.length > 0) {
        // Armies now beat armies later: trade whenever a set may be traded (and when we must).
        const set = legal.trades[0];
        return act.trade(set, set.bonus_territories.length > 0 ? b.stackTerritory(set.bonus_territories) : -1);
      }
      return act.place(b.stackTerritory(legal.place_territories), legal.place_max);
    case "PHASE_ALLIED_REINFORCE":
      // The Allied Army's armies, placed by us: all at once where they outnumber our opponent most.
      return act.place(b.stackTerritory(legal.place_territories), legal.place_max);
    case "PHASE_ATTACK":
    case "PHASE_ALLIED_ATTACK": {
      // The Allied Army attacks only our opponent, so the same rule serves both.
      const i = b.bestAttack(legal);
      if (i < 0) return act.endPhase();
      // Roll on until the target falls or the source is down to one army.
      return act.attack(legal.attack_sources[i], legal.attack_targets[i], legal.attack_max_dice[i], 1);
    }
    case "PHASE_DEFEND":
      return act.defend(legal.defend_max);
    case "PHASE_OCCUPY":
      // Everything forward, unless the captured territory is safe and the source still faces an enemy.
      if (!b.bordersEnemy(obs.pending_target) && b.bordersEnemy(obs.pending_source)) return act.occupy(legal.occupy_min);
      return act.occupy(legal.occupy_max);
    case "PHASE_FORTIFY": {
      const i = b.bestFortify(legal);
      if (i < 0) return act.endPhase();
      return act.fortify(legal.fortify_sources[i], legal.fortify_targets[i], legal.fortify_max_armies[i]);
    }
    default:
      // A phase this kit does not know yet: never leave the seat stuck.
      return act.safeAction(legal);
  }
}

/** One seat's view of the board at one decision. */
class BoardView {
  readonly seat: number;
  /** Whose armies we command: our seat, or the Allied Army's owner number. */
  readonly side: number;
  readonly owners: number[];
  readonly armies: number[];
  readonly neighbours: number[][];
  /** The opponent with the fewest territories: eliminating it pays its cards. */
  readonly prey: number;

  constructor(game: Game, obs: Observation, side: number) {
    this.seat = game.seat;
    this.side = side;
    this.owners = obs.owners;
    this.armies = obs.armies;
    this.neighbours = game.map.territories.map((t) => t.neighbours);
    const counts = new Map<number, number>();
    for (const o of this.owners) counts.set(o, (counts.get(o) ?? 0) + 1);
    let prey = -1;
    let fewest = this.owners.length + 1;
    for (let other = 0; other < game.players.length; other++) {
      const count = counts.get(other) ?? 0;
      if (other !== this.seat && count > 0 && count < fewest) [prey, fewest] = [other, count];
    }
    this.prey = prey;
  }

  /** Territories of `owner` are there to be taken: anyone's but ours and the side's we command. */
  isEnemy(owner: number): boolean {
    return owner !== this.seat && owner !== this.side;
  }

  bordersEnemy(t: number): boolean {
    return this.neighbours[t].some((n) => this.isEnemy(this.owners[n]));
  }

  /** How far the movable armies of source outnumber target (the prey counts 2 weaker). */
  edge(source: number, target: number): number {
    return this.armies[source] - 1 - this.armies[target] + (this.owners[target] === this.prey ? 2 : 0);
  }

  /** Next to what we hold (to build a continent), else the first free territory. */
  bestClaim(free: number[]): number {
    return free.find((t) => this.neighbours[t].some((n) => this.owners[n] === this.seat)) ?? free[0];
  }

  /** The allowed territory with the best edge over an enemy neighbour, else the first allowed one. */
  stackTerritory(allowed: number[]): number {
    let best = allowed[0];
    let bestEdge = -Infinity;
    for (const t of allowed) {
      for (const n of this.neighbours[t]) {
        if (this.isEnemy(this.owners[n]) && this.edge(t, n) > bestEdge) [best, bestEdge] = [t, this.edge(t, n)];
      }
    }
    return best;
  }

  /** The allowed territory whose armies outnumber its enemy neighbours' armies the most (the first of the best). */
  safestTerritory(allowed: number[]): number {
    let best = allowed[0];
    let bestMargin = -Infinity;
    for (const t of allowed) {
      let margin = this.armies[t];
      for (const n of this.neighbours[t]) if (this.isEnemy(this.owners[n])) margin -= this.armies[n];
      if (margin > bestMargin) [best, bestMargin] = [t, margin];
    }
    return best;
  }

  /** The neutral territory with the most opponent neighbours and the fewest of ours. */
  bestNeutralPlacement(allowed: number[]): number {
    let best = allowed[0];
    let bestScore = -Infinity;
    for (const t of allowed) {
      let score = 0;
      for (const n of this.neighbours[t]) {
        if (this.owners[n] === this.seat) score--;
        else if (this.owners[n] !== this.owners[t]) score++;
      }
      if (score > bestScore) [best, bestScore] = [t, score];
    }
    return best;
  }

  /** Index of the legal attack with the biggest edge where the source outnumbers the target, or -1. */
  bestAttack(legal: LegalActions): number {
    let best = -1;
    let bestEdge = -Infinity;
    legal.attack_sources.forEach((source, i) => {
      const target = legal.attack_targets[i];
      const movable = legal.attack_source_armies[i] - 1;
      if (movable > this.armies[target] && this.edge(source, target) > bestEdge) {
        [best, bestEdge] = [i, this.edge(source, target)];
      }
    });
    return best;
  }

  /** Index of the free move taking the biggest interior stack to a territory on the front, or -1. */
  bestFortify(legal: LegalActions): number {
    let best = -1;
    let bestArmies = 0;
    legal.fortify_sources.forEach((source, i) => {
      const moving = legal.fortify_max_armies[i];
      if (moving > bestArmies && !this.bordersEnemy(source) && this.bordersEnemy(legal.fortify_targets[i])) {
        [best, bestArmies] = [i, moving];
      }
    });
    return best;
  }
}
