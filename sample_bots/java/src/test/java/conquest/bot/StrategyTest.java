package conquest.bot;

// The strategy must answer every recorded request (each decision kind of the protocol, from real
// engine games; see ../fixtures/make_decisions.py) with an action its own LegalActions allow.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.util.JsonFormat;
import conquest.v1.Action;
import conquest.v1.CardSet;
import conquest.v1.DecisionRequest;
import conquest.v1.GameStarted;
import conquest.v1.LegalActions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class StrategyTest {
  record Fixture(String kind, GameInfo game, DecisionRequest request, Action decision) {}

  static List<Fixture> fixtures = new ArrayList<>();

  @BeforeAll
  static void load() throws Exception {
    JsonObject file = JsonParser.parseString(Files.readString(Path.of("../fixtures/decisions.json"))).getAsJsonObject();
    for (JsonElement g : file.getAsJsonArray("games")) {
      GameStarted.Builder started = GameStarted.newBuilder();
      JsonFormat.parser().merge(g.getAsJsonObject().get("game_started").toString(), started);
      for (JsonElement d : g.getAsJsonObject().getAsJsonArray("decisions")) {
        DecisionRequest.Builder req = DecisionRequest.newBuilder();
        JsonFormat.parser().merge(d.getAsJsonObject().get("request").toString(), req);
        DecisionRequest request = req.build();
        GameInfo game = new GameInfo(started.getGameId(), request.getObservation().getToAct(), started.getPlayersCount(),
            started.getMap(), started.getRules());
        fixtures.add(new Fixture(d.getAsJsonObject().get("kind").getAsString(), game, request, Strategy.decide(game, request)));
      }
    }
  }

  /** Why action is not allowed by legal, or "" when it is. */
  static String legalityProblem(LegalActions legal, Action action) {
    switch (action.getKindCase()) {
      case CLAIM:
        return legal.getClaimList().contains(action.getClaim().getTerritory()) ? "" : "claim not in legal.claim";
      case CHOOSE_HEADQUARTERS:
        return legal.getHeadquartersList().contains(action.getChooseHeadquarters().getTerritory()) ? "" : "headquarters not in legal.headquarters";
      case PLACE: {
        var p = action.getPlace();
        if (legal.getMustTrade() || !legal.getPlaceTerritoriesList().contains(p.getTerritory())) {
          return "place on a territory not allowed";
        }
        return p.getArmies() >= legal.getPlaceMin() && p.getArmies() <= legal.getPlaceMax() ? "" : "place armies out of range";
      }
      case TRADE_CARDS: {
        var t = action.getTradeCards();
        for (CardSet set : legal.getTradesList()) {
          if (set.getCardsList().equals(t.getCardsList())) {
            return !t.hasBonusTerritory() || set.getBonusTerritoriesList().contains(t.getBonusTerritory()) ? "" : "bonus territory not allowed";
          }
        }
        return "trade of a set not in legal.trades";
      }
      case ATTACK: {
        var a = action.getAttack();
        for (int i = 0; i < legal.getAttackSourcesCount(); i++) {
          if (legal.getAttackSources(i) == a.getSource() && legal.getAttackTargets(i) == a.getTarget()) {
            if (a.getDice() < 1 || a.getDice() > legal.getAttackMaxDice(i)) {
              return "attack dice out of range";
            }
            return a.getRepeatUntil() >= 0 && a.getRepeatUntil() < legal.getAttackSourceArmies(i) ? "" : "repeat_until out of range";
          }
        }
        return "attack not in the legal options";
      }
      case CHOOSE_DEFENCE: {
        int dice = action.getChooseDefence().getDice();
        return dice >= 1 && dice <= legal.getDefendMax() ? "" : "defence dice out of range";
      }
      case OCCUPY: {
        int armies = action.getOccupy().getArmies();
        return legal.getOccupyMax() > 0 && armies >= legal.getOccupyMin() && armies <= legal.getOccupyMax() ? "" : "occupy out of range";
      }
      case FORTIFY: {
        var f = action.getFortify();
        for (int i = 0; i < legal.getFortifySourcesCount(); i++) {
          if (legal.getFortifySources(i) == f.getSource() && legal.getFortifyTargets(i) == f.getTarget()) {
            return f.getArmies() >= 1 && f.getArmies() <= legal.getFortifyMaxArmies(i) ? "" : "fortify armies out of range";
          }
        }
        return "fortify move not in the legal options";
      }
      case END_PHASE:
        return legal.getCanEnd() ? "" : "end_phase while can_end is false";
      default:
        return "no action kind set";
    }
  }

  @Test
  void answersEveryRecordedRequestLegally() {
    Set<String> kinds = new HashSet<>();
    for (Fixture f : fixtures) {
      kinds.add(f.kind());
      assertEquals("", legalityProblem(f.request().getLegal(), f.decision()), f.kind() + " request " + f.request().getRequestId() + ": " + f.decision());
    }
    for (String kind : List.of("setup_claim", "setup_place", "setup_place_neutral", "reinforce", "reinforce_may_trade",
        "reinforce_must_trade", "reinforce_trade_down_after_elimination", "attack", "defend", "occupy", "fortify",
        "choose_headquarters", "allied_reinforce", "allied_attack", "defend_allied", "occupy_allied")) {
      assertTrue(kinds.contains(kind), "no recorded request of kind " + kind);
    }
  }

  @Test
  void safeActionIsLegalForEveryRecordedRequest() {
    for (Fixture f : fixtures) {
      assertEquals("", legalityProblem(f.request().getLegal(), Actions.safe(f.request().getLegal())), f.kind());
    }
  }

  /** Issue 7: "plays the aggressive strategy (not just random legal moves)". */
  @Test
  void strategyIsAggressive() {
    for (Fixture f : fixtures) {
      LegalActions legal = f.request().getLegal();
      var obs = f.request().getObservation();
      if (f.kind().startsWith("reinforce_")) {
        assertTrue(f.decision().hasTradeCards(), f.kind() + ": holds a tradeable set but played " + f.decision());
      }
      if (f.kind().equals("reinforce")) {
        assertEquals(legal.getPlaceMax(), f.decision().getPlace().getArmies(), "places all its armies at once");
      }
      if (f.kind().equals("setup_place_neutral")) {
        assertNotEquals(obs.getToAct(), obs.getOwners(f.decision().getPlace().getTerritory()), "neutral armies on a neutral territory");
      }
      if (f.kind().equals("choose_headquarters")) {
        // The territory whose armies outnumber its enemy neighbours' the most.
        int chosen = f.decision().getChooseHeadquarters().getTerritory();
        for (int t : legal.getHeadquartersList()) {
          assertTrue(margin(f, t) <= margin(f, chosen), "chose " + chosen + " over the safer " + t);
        }
      }
      if (f.kind().equals("allied_reinforce")) {
        // All the Allied Army's armies at once, next to our opponent when an Allied territory is.
        var p = f.decision().getPlace();
        assertEquals(legal.getPlaceMax(), p.getArmies(), "places all the Allied armies at once");
        assertEquals(legal.getArmy(), obs.getOwners(p.getTerritory()), "on an Allied territory");
        if (legal.getPlaceTerritoriesList().stream().anyMatch(t -> bordersOpponent(f, t))) {
          assertTrue(bordersOpponent(f, p.getTerritory()), "next to the opponent");
        }
      }
      if (f.kind().equals("defend") || f.kind().equals("defend_allied")) {
        assertEquals(legal.getDefendMax(), f.decision().getChooseDefence().getDice(), "defends with the most dice");
      }
      if (f.kind().equals("attack") || f.kind().equals("allied_attack")) {
        boolean outnumbers = false;
        for (int i = 0; i < legal.getAttackTargetsCount(); i++) {
          outnumbers |= legal.getAttackSourceArmies(i) - 1 > obs.getArmies(legal.getAttackTargets(i));
        }
        if (outnumbers) {
          assertNotNull(f.decision().hasAttack() ? f.decision().getAttack() : null, "attacks where it outnumbers");
          assertEquals(1, f.decision().getAttack().getRepeatUntil(), "rolls on to the end");
        } else {
          assertTrue(f.decision().hasEndPhase(), f.kind() + ": ends attacking where no source outnumbers its target");
        }
      }
    }
  }

  /** Armies on t minus the armies on its neighbours held by others. */
  static int margin(Fixture f, int t) {
    var obs = f.request().getObservation();
    int margin = obs.getArmies(t);
    for (int n : f.game().map().getTerritories(t).getNeighboursList()) {
      if (obs.getOwners(n) != obs.getToAct()) {
        margin -= obs.getArmies(n);
      }
    }
    return margin;
  }

  /** True when t neighbours a territory of neither the deciding seat nor the army it commands. */
  static boolean bordersOpponent(Fixture f, int t) {
    var obs = f.request().getObservation();
    int army = f.request().getLegal().getArmy();
    return f.game().map().getTerritories(t).getNeighboursList().stream()
        .anyMatch(n -> obs.getOwners(n) != obs.getToAct() && obs.getOwners(n) != army);
  }
}
