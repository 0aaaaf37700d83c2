package conquest.bot;

import conquest.v1.Action;
import conquest.v1.AttackAction;
import conquest.v1.CardSet;
import conquest.v1.ChooseDefenceAction;
import conquest.v1.ChooseHeadquartersAction;
import conquest.v1.ClaimAction;
import conquest.v1.EndPhaseAction;
import conquest.v1.FortifyAction;
import conquest.v1.LegalActions;
import conquest.v1.OccupyAction;
import conquest.v1.PlaceAction;
import conquest.v1.TradeCardsAction;

/** One-line constructors for every action, and the plainest legal action. */
public final class Actions {
  private Actions() {}

  public static Action claim(int territory) {
    return Action.newBuilder().setClaim(ClaimAction.newBuilder().setTerritory(territory)).build();
  }

  public static Action chooseHeadquarters(int territory) {
    return Action.newBuilder().setChooseHeadquarters(ChooseHeadquartersAction.newBuilder().setTerritory(territory)).build();
  }

  public static Action place(int territory, int armies) {
    return Action.newBuilder().setPlace(PlaceAction.newBuilder().setTerritory(territory).setArmies(armies)).build();
  }

  /** Trade a set; bonusTerritory -1 leaves the +2 to the server's choice. */
  public static Action trade(CardSet set, int bonusTerritory) {
    TradeCardsAction.Builder trade = TradeCardsAction.newBuilder().addAllCards(set.getCardsList());
    if (bonusTerritory >= 0) {
      trade.setBonusTerritory(bonusTerritory);
    }
    return Action.newBuilder().setTradeCards(trade).build();
  }

  public static Action attack(int source, int target, int dice, int repeatUntil) {
    return Action.newBuilder()
        .setAttack(AttackAction.newBuilder().setSource(source).setTarget(target).setDice(dice).setRepeatUntil(repeatUntil))
        .build();
  }

  public static Action defend(int dice) {
    return Action.newBuilder().setChooseDefence(ChooseDefenceAction.newBuilder().setDice(dice)).build();
  }

  public static Action occupy(int armies) {
    return Action.newBuilder().setOccupy(OccupyAction.newBuilder().setArmies(armies)).build();
  }

  public static Action fortify(int source, int target, int armies) {
    return Action.newBuilder()
        .setFortify(FortifyAction.newBuilder().setSource(source).setTarget(target).setArmies(armies))
        .build();
  }

  public static Action endPhase() {
    return Action.newBuilder().setEndPhase(EndPhaseAction.getDefaultInstance()).build();
  }

  /**
   * The plainest legal action, read off the legal actions alone (no board needed): the retry after a
   * rejection, and the answer for a game whose board we do not know.
   */
  public static Action safe(LegalActions legal) {
    if (legal.getClaimCount() > 0) {
      return claim(legal.getClaim(0));
    }
    if (legal.getHeadquartersCount() > 0) {
      return chooseHeadquarters(legal.getHeadquarters(0));
    }
    if (legal.getTradesCount() > 0 && (legal.getMustTrade() || legal.getPlaceTerritoriesCount() == 0)) {
      return trade(legal.getTrades(0), -1);
    }
    if (legal.getPlaceTerritoriesCount() > 0) {
      return place(legal.getPlaceTerritories(0), legal.getPlaceMax());
    }
    if (legal.getDefendMax() > 0) {
      return defend(legal.getDefendMax());
    }
    if (legal.getOccupyMax() > 0) {
      return occupy(legal.getOccupyMin());
    }
    return endPhase();
  }
}
