// One-line constructors for every action, and the plainest legal action.
import type { Action, CardSet, LegalActions } from "./protocol";

export const claim = (territory: number): Action => ({ claim: { territory } });
export const chooseHeadquarters = (territory: number): Action => ({ choose_headquarters: { territory } });
export const place = (territory: number, armies: number): Action => ({ place: { territory, armies } });
/** Trade a set; bonusTerritory -1 leaves the +2 to the server's choice. */
export const trade = (set: CardSet, bonusTerritory: number): Action => ({
  trade_cards: bonusTerritory >= 0 ? { cards: set.cards, bonus_territory: bonusTerritory } : { cards: set.cards },
});
export const attack = (source: number, target: number, dice: number, repeatUntil: number): Action => ({
  attack: { source, target, dice, repeat_until: repeatUntil },
});
export const defend = (dice: number): Action => ({ choose_defence: { dice } });
export const occupy = (armies: number): Action => ({ occupy: { armies } });
export const fortify = (source: number, target: number, armies: number): Action => ({
  fortify: { source, target, armies },
});
export const endPhase = (): Action => ({ end_phase: {} });

/**
 * The plainest legal action, read off the legal actions alone (no board needed): the retry after a
 * rejection, and the answer for a game whose board we do not know.
 */
export function safeAction(legal: LegalActions): Action {
  if (legal.claim.length > 0) return claim(legal.claim[0]);
  if (legal.headquarters.length > 0) return chooseHeadquarters(legal.headquarters[0]);
  if (legal.trades.length > 0 && (legal.must_trade || legal.place_territories.length === 0)) {
    return trade(legal.trades[0], -1);
  }
  if (legal.place_territories.length > 0) return place(legal.place_territories[0], legal.place_max);
  if (legal.defend_max > 0) return defend(legal.defend_max);
  if (legal.occupy_max > 0) return occupy(legal.occupy_min);
  return endPhase();
}
