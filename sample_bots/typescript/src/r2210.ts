// RISK 2210 A.D. games (docs/protocol.md, "RISK 2210 A.D. games"): the kit answers every 2210 decision
// with the safe legal choice read from the request's Legal2210 alone, the same answer the server gives on
// a timeout. A 2210 strategy of your own goes in default2210's place.
import type { Action2210 } from "../gen/conquest/v1/Action2210";
import type { Legal2210__Output as Legal2210 } from "../gen/conquest/v1/Legal2210";

export type { Action2210, Legal2210 };

/**
 * Stop where stopping is allowed (pass a card window or the nuclear exchange, move no decoys), bid
 * nothing, roll and defend with every die, move in the least, and otherwise take the first choice offered
 * (MOD Reduction: the first MODs listed). Throws on a phase that asks nothing.
 */
export function default2210(legal: Legal2210): Action2210 {
  if (legal.can_end) return { end_phase: {} };
  const t = legal.territories;
  switch (legal.phase) {
    case "PHASE2210_SETUP_CLAIM":
      return { claim: { territory: t[0] } };
    case "PHASE2210_SETUP_PLACE":
    case "PHASE2210_DEPLOY":
      return { place: { territory: t[0], mods: legal.place_max } };
    case "PHASE2210_SETUP_COMMANDERS":
      return { place_commanders: { land: t[0], diplomat: t[0], station: t[0] } };
    case "PHASE2210_BID":
      return { bid: { energy: 0 } };
    case "PHASE2210_CHOOSE_MARKER":
      return { choose_marker: { marker: legal.markers[0] } };
    case "PHASE2210_BONUS_CARD": {
      const deck = legal.card_decks.findIndex((n) => n > 0);
      if (deck >= 0) return { take_card: { deck } };
      break;
    }
    case "PHASE2210_ROLL":
      return { roll: { dice: legal.dice_max, d8: [] } };
    case "PHASE2210_DEFEND":
      return { defend: { dice: legal.defend_max } };
    case "PHASE2210_LOSSES": {
      // MODs first, then commanders in the order offered.
      const mods = Math.min(legal.lose, legal.occupy_mods);
      return { lose: { mods, commanders: legal.occupy_commanders.slice(0, legal.lose - mods) } };
    }
    case "PHASE2210_REDUCE": {
      // One territory per MOD, the territories in the order offered, each at most mods_at[i] times.
      const each = t.flatMap((territory, i) => Array<number>(legal.mods_at[i]).fill(territory));
      return { remove: { territories: each.slice(0, legal.lose) } };
    }
    case "PHASE2210_OCCUPY": {
      // The commanders that must move, more commanders only when the MODs cannot make up the least.
      const commanders = [...legal.must_move];
      for (const c of legal.occupy_commanders) {
        if (legal.occupy_mods + commanders.length >= legal.occupy_min) break;
        if (!commanders.includes(c)) commanders.push(c);
      }
      return { occupy: { mods: Math.max(0, legal.occupy_min - commanders.length), commanders } };
    }
  }
  throw new Error(`no 2210 decision in phase ${legal.phase}`);
}
