package conquest.bot;

// RISK 2210 A.D. games (docs/protocol.md, "RISK 2210 A.D. games"): the kit answers every 2210 decision
// with the safe legal choice read from the request's Legal2210 alone, the same answer the server gives on
// a timeout. A 2210 strategy of your own goes in defaultAction's place.

import conquest.v1.Action2210;
import conquest.v1.BidAction;
import conquest.v1.ChooseDefenceAction;
import conquest.v1.ChooseLossesAction;
import conquest.v1.ChooseMarkerAction;
import conquest.v1.ClaimAction;
import conquest.v1.EndPhaseAction;
import conquest.v1.Legal2210;
import conquest.v1.MoveUnitsAction;
import conquest.v1.PlaceCommandersAction;
import conquest.v1.PlaceModsAction;
import conquest.v1.RemoveModsAction;
import conquest.v1.RollAction;
import conquest.v1.TakeCardAction;
import java.util.ArrayList;
import java.util.List;

/** The kit's answer to a RISK 2210 A.D. decision. */
public final class R2210 {
  private R2210() {}

  /**
   * Stop where stopping is allowed (pass a card window or the nuclear exchange, move no decoys), bid
   * nothing, roll and defend with every die, move in the least, and otherwise take the first choice offered
   * (MOD Reduction: the first MODs listed). Throws on a phase that asks nothing.
   */
  public static Action2210 defaultAction(Legal2210 legal) {
    Action2210.Builder a = Action2210.newBuilder();
    if (legal.getCanEnd()) {
      return a.setEndPhase(EndPhaseAction.getDefaultInstance()).build();
    }
    switch (legal.getPhase()) {
      case PHASE2210_SETUP_CLAIM -> {
        return a.setClaim(ClaimAction.newBuilder().setTerritory(legal.getTerritories(0))).build();
      }
      case PHASE2210_SETUP_PLACE, PHASE2210_DEPLOY -> {
        var place = PlaceModsAction.newBuilder().setTerritory(legal.getTerritories(0)).setMods(legal.getPlaceMax());
        return a.setPlace(place).build();
      }
      case PHASE2210_SETUP_COMMANDERS -> {
        int t = legal.getTerritories(0);
        return a.setPlaceCommanders(PlaceCommandersAction.newBuilder().setLand(t).setDiplomat(t).setStation(t)).build();
      }
      case PHASE2210_BID -> {
        return a.setBid(BidAction.newBuilder().setEnergy(0)).build();
      }
      case PHASE2210_CHOOSE_MARKER -> {
        return a.setChooseMarker(ChooseMarkerAction.newBuilder().setMarker(legal.getMarkers(0))).build();
      }
      case PHASE2210_BONUS_CARD -> {
        for (int deck = 0; deck < legal.getCardDecksCount(); deck++) {
          if (legal.getCardDecks(deck) > 0) {
            return a.setTakeCard(TakeCardAction.newBuilder().setDeck(deck)).build();
          }
        }
      }
      case PHASE2210_ROLL -> {
        return a.setRoll(RollAction.newBuilder().setDice(legal.getDiceMax())).build();
      }
      case PHASE2210_DEFEND -> {
        return a.setDefend(ChooseDefenceAction.newBuilder().setDice(legal.getDefendMax())).build();
      }
      case PHASE2210_LOSSES -> {
        // MODs first, then commanders in the order offered.
        int mods = Math.min(legal.getLose(), legal.getOccupyMods());
        List<Integer> commanders = legal.getOccupyCommandersList().subList(0, legal.getLose() - mods);
        return a.setLose(ChooseLossesAction.newBuilder().setMods(mods).addAllCommanders(commanders)).build();
      }
      case PHASE2210_REDUCE -> {
        // One territory per MOD, the territories in the order offered, each at most mods_at[i] times.
        List<Integer> remove = new ArrayList<>();
        for (int i = 0; i < legal.getModsAtCount(); i++) {
          for (int n = 0; n < legal.getModsAt(i) && remove.size() < legal.getLose(); n++) {
            remove.add(legal.getTerritories(i));
          }
        }
        return a.setRemove(RemoveModsAction.newBuilder().addAllTerritories(remove)).build();
      }
      case PHASE2210_OCCUPY -> {
        // The commanders that must move, more commanders only when the MODs cannot make up the least.
        List<Integer> commanders = new ArrayList<>(legal.getMustMoveList());
        for (int c : legal.getOccupyCommandersList()) {
          if (legal.getOccupyMods() + commanders.size() >= legal.getOccupyMin()) {
            break;
          }
          if (!commanders.contains(c)) {
            commanders.add(c);
          }
        }
        int mods = Math.max(0, legal.getOccupyMin() - commanders.size());
        return a.setOccupy(MoveUnitsAction.newBuilder().setMods(mods).addAllCommanders(commanders)).build();
      }
      default -> {}
    }
    throw new IllegalStateException("no 2210 decision in phase " + legal.getPhase());
  }
}
