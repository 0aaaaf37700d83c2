package conquest.bot;

// ============================================================================================
// PUT YOUR STRATEGY HERE.
//
// decide() is called once per DecisionRequest and returns one action. Everything legal is in
// req.getLegal() (ranges, never one entry per army count); the board is in game.map(), the state
// in req.getObservation(). The rest of the kit (connection, queues, retries, reconnects) never
// needs to change. This sample is the aggressive strategy: stack reinforcements on the strongest
// front, attack wherever it outnumbers the defender, move everything forward, and fortify
// interior stacks to the front; it commands the Allied Army the same way against the opponent and
// picks the safest territory as headquarters.
// ============================================================================================

import conquest.v1.Action;
import conquest.v1.CardSet;
import conquest.v1.DecisionRequest;
import conquest.v1.LegalActions;
import conquest.v1.Observation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class Strategy {
  private Strategy() {}

  public static Action decide(GameInfo game, DecisionRequest req) {
    Observation obs = req.getObservation();
    LegalActions legal = req.getLegal();
    // legal.getArmy() is whose armies this decision commands: ours, or the Allied Army's in its phases.
    BoardView b = new BoardView(game, obs, legal.getArmy());
    switch (obs.getPhase()) {
      case PHASE_SETUP_CLAIM:
        return Actions.claim(b.bestClaim(legal.getClaimList()));
      case PHASE_SETUP_PLACE:
        if (legal.getPlaceNeutral()) {
          // Two-player game: this placement is for the neutral army. Put it where it blocks the
          // opponent most and us least.
          return Actions.place(b.bestNeutralPlacement(legal.getPlaceTerritoriesList()), legal.getPlaceMin());
        }
        return Actions.place(b.stackTerritory(legal.getPlaceTerritoriesList()), legal.getPlaceMax());
      case PHASE_CHOOSE_HEADQUARTERS:
        // Capital Risk: the territory hardest to take.
        return Actions.chooseHeadquarters(b.safestTerritory(legal.getHeadquartersList()));
      case PHASE_REINFORCE:
        if (legal.getTradesCount() > 0) {
          // Armies now beat armies later: trade whenever a set may be traded (and when we must).
          CardSet set = legal.getTrades(0);
          int bonus = set.getBonusTerritoriesCount() > 0 ? b.stackTerritory(set.getBonusTerritoriesList()) : -1;
          return Actions.trade(set, bonus);
        }
        return Actions.place(b.stackTerritory(legal.getPlaceTerritoriesList()), legal.getPlaceMax());
      case PHASE_ALLIED_REINFORCE:
        // The Allied Army's armies, placed by us: all at once where they outnumber our opponent most.
        return Actions.place(b.stackTerritory(legal.getPlaceTerritoriesList()), legal.getPlaceMax());
      case PHASE_ATTACK:
      case PHASE_ALLIED_ATTACK: {
        // The Allied Army attacks only our opponent, so the same rule serves both.
        int i = b.bestAttack(legal);
        if (i < 0) {
          return Actions.endPhase();
        }
        // Roll on until the target falls or the source is down to one army.
        return Actions.attack(legal.getAttackSources(i), legal.getAttackTargets(i), legal.getAttackMaxDice(i), 1);
      }
      case PHASE_DEFEND:
        return Actions.defend(legal.getDefendMax());
      case PHASE_OCCUPY:
        // Everything forward, unless the captured territory is safe and the source still faces an enemy.
        if (!b.bordersEnemy(obs.getPendingTarget()) && b.bordersEnemy(obs.getPendingSource())) {
          return Actions.occupy(legal.getOccupyMin());
        }
        return Actions.occupy(legal.getOccupyMax());
      case PHASE_FORTIFY: {
        int i = b.bestFortify(legal);
        if (i < 0) {
          return Actions.endPhase();
        }
        return Actions.fortify(legal.getFortifySources(i), legal.getFortifyTargets(i), legal.getFortifyMaxArmies(i));
      }
      default:
        // A phase this kit does not know yet: never leave the seat stuck.
        return Actions.safe(legal);
    }
  }

  /** One seat's view of the board at one decision. */
  private static final class BoardView {
    final int seat;
    /** Whose armies we command: our seat, or the Allied Army's owner number. */
    final int side;
    final List<Integer> owners;
    final List<Integer> armies;
    final GameInfo game;
    /** The opponent with the fewest territories: eliminating it pays its cards. */
    final int prey;

    BoardView(GameInfo game, Observation obs, int side) {
      this.game = game;
      this.seat = game.seat();
      this.side = side;
      this.owners = obs.getOwnersList();
      this.armies = obs.getArmiesList();
      Map<Integer, Integer> counts = new HashMap<>();
      for (int o : owners) {
        counts.merge(o, 1, Integer::sum);
      }
      int best = -1;
      int fewest = owners.size() + 1;
      for (int other = 0; other < game.players(); other++) {
        int count = counts.getOrDefault(other, 0);
        if (other != seat && count > 0 && count < fewest) {
          best = other;
          fewest = count;
        }
      }
      this.prey = best;
    }

    List<Integer> neighbours(int t) {
      return game.map().getTerritories(t).getNeighboursList();
    }

    /** Territories of owner are there to be taken: anyone's but ours and the side's we command. */
    boolean isEnemy(int owner) {
      return owner != seat && owner != side;
    }

    boolean bordersEnemy(int t) {
      return neighbours(t).stream().anyMatch(n -> isEnemy(owners.get(n)));
    }

    /** How far the movable armies of source outnumber target (the prey counts 2 weaker). */
    int edge(int source, int target) {
      return armies.get(source) - 1 - armies.get(target) + (owners.get(target) == prey ? 2 : 0);
    }

    /** Next to what we hold (to build a continent), else the first free territory. */
    int bestClaim(List<Integer> free) {
      for (int t : free) {
        if (neighbours(t).stream().anyMatch(n -> owners.get(n) == seat)) {
          return t;
        }
      }
      return free.get(0);
    }

    /** The allowed territory with the best edge over an enemy neighbour, else the first allowed one. */
    int stackTerritory(List<Integer> allowed) {
      int best = allowed.get(0);
      int bestEdge = Integer.MIN_VALUE;
      for (int t : allowed) {
        for (int n : neighbours(t)) {
          if (isEnemy(owners.get(n)) && edge(t, n) > bestEdge) {
            best = t;
            bestEdge = edge(t, n);
          }
        }
      }
      return best;
    }

    /** The allowed territory whose armies outnumber its enemy neighbours' armies the most (the first of the best). */
    int safestTerritory(List<Integer> allowed) {
      int best = allowed.get(0);
      int bestMargin = Integer.MIN_VALUE;
      for (int t : allowed) {
        int margin = armies.get(t);
        for (int n : neighbours(t)) {
          if (isEnemy(owners.get(n))) {
            margin -= armies.get(n);
          }
        }
        if (margin > bestMargin) {
          best = t;
          bestMargin = margin;
        }
      }
      return best;
    }

    /** The neutral territory with the most opponent neighbours and the fewest of ours. */
    int bestNeutralPlacement(List<Integer> allowed) {
      int best = allowed.get(0);
      int bestScore = Integer.MIN_VALUE;
      for (int t : allowed) {
        int score = 0;
        for (int n : neighbours(t)) {
          if (owners.get(n) == seat) {
            score--;
          } else if (!owners.get(n).equals(owners.get(t))) {
            score++;
          }
        }
        if (score > bestScore) {
          best = t;
          bestScore = score;
        }
      }
      return best;
    }

    /** Index of the legal attack with the biggest edge where the source outnumbers the target, or -1. */
    int bestAttack(LegalActions legal) {
      int best = -1;
      int bestEdge = Integer.MIN_VALUE;
      for (int i = 0; i < legal.getAttackSourcesCount(); i++) {
        int source = legal.getAttackSources(i);
        int target = legal.getAttackTargets(i);
        if (legal.getAttackSourceArmies(i) - 1 > armies.get(target) && edge(source, target) > bestEdge) {
          best = i;
          bestEdge = edge(source, target);
        }
      }
      return best;
    }

    /** Index of the free move taking the biggest interior stack to a territory on the front, or -1. */
    int bestFortify(LegalActions legal) {
      int best = -1;
      int bestArmies = 0;
      for (int i = 0; i < legal.getFortifySourcesCount(); i++) {
        int moving = legal.getFortifyMaxArmies(i);
        if (moving > bestArmies && !bordersEnemy(legal.getFortifySources(i)) && bordersEnemy(legal.getFortifyTargets(i))) {
          best = i;
          bestArmies = moving;
        }
      }
      return best;
    }
  }
}
