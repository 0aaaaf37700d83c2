package conquest.bot;

// Issue 19: "All four starter kits (TypeScript, Go, Rust, Java) answer every 2210 decision (at least
// with a legal choice)". The kit's answer to every golden 2210 request (one per phase, made by the
// server's tests/server/make_golden_2210.py) must be one its own Legal2210 allows.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.util.JsonFormat;
import conquest.v1.Action2210;
import conquest.v1.ConnectRequest;
import conquest.v1.ConnectResponse;
import conquest.v1.Decision;
import conquest.v1.DecisionRejected;
import conquest.v1.DecisionRequest;
import conquest.v1.Legal2210;
import conquest.v1.MoveUnitsAction;
import conquest.v1.Phase2210;
import conquest.v1.RemoveModsAction;
import java.util.ArrayList;
import java.util.Collections;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class R2210Test {
  static final Path GOLDEN = Path.of("../../tests/server/golden");

  /** Every golden 2210 request by file name, read the proto3 JSON way. */
  static Map<String, DecisionRequest> golden() throws IOException {
    Map<String, DecisionRequest> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(GOLDEN)) {
      for (Path path : files.filter(p -> p.getFileName().toString().startsWith("decision_request_2210_")).toList()) {
        ConnectResponse.Builder message = ConnectResponse.newBuilder();
        JsonFormat.parser().merge(Files.readString(path), message);
        out.put(path.getFileName().toString(), message.getDecisionRequest());
      }
    }
    assertFalse(out.isEmpty(), "no golden 2210 requests in " + GOLDEN.toAbsolutePath());
    return out;
  }

  /** Distinct members of of. */
  static boolean subset(List<Integer> xs, List<Integer> of) {
    return of.containsAll(xs) && xs.stream().distinct().count() == xs.size();
  }

  static boolean within(int x, int lo, int hi) {
    return lo <= x && x <= hi;
  }

  /** Why action is not allowed by legal (docs/protocol.md's table of 2210 phases), or "" when it is. */
  static String legalityProblem(Legal2210 legal, Action2210 action) {
    List<Integer> t = legal.getTerritoriesList();
    Phase2210 phase = legal.getPhase();
    boolean ok = switch (action.getKindCase()) {
      case END_PHASE -> legal.getCanEnd();
      case CLAIM -> phase == Phase2210.PHASE2210_SETUP_CLAIM && t.contains(action.getClaim().getTerritory());
      case PLACE -> (phase == Phase2210.PHASE2210_SETUP_PLACE || phase == Phase2210.PHASE2210_DEPLOY)
          && t.contains(action.getPlace().getTerritory()) && within(action.getPlace().getMods(), 1, legal.getPlaceMax());
      case PLACE_COMMANDERS -> {
        var p = action.getPlaceCommanders();
        yield phase == Phase2210.PHASE2210_SETUP_COMMANDERS && t.containsAll(List.of(p.getLand(), p.getDiplomat(), p.getStation()));
      }
      case BID -> phase == Phase2210.PHASE2210_BID && within(action.getBid().getEnergy(), 0, legal.getBidMax());
      case CHOOSE_MARKER -> phase == Phase2210.PHASE2210_CHOOSE_MARKER
          && legal.getMarkersList().contains(action.getChooseMarker().getMarker());
      case TAKE_CARD -> {
        int deck = action.getTakeCard().getDeck();
        yield phase == Phase2210.PHASE2210_BONUS_CARD && within(deck, 0, legal.getCardDecksCount() - 1)
            && legal.getCardDecks(deck) > 0;
      }
      case ROLL -> {
        var r = action.getRoll();
        yield phase == Phase2210.PHASE2210_ROLL && within(r.getDice(), 1, legal.getDiceMax())
            && subset(r.getD8List(), legal.getD8List()) && r.getD8Count() <= r.getDice();
      }
      case DEFEND -> phase == Phase2210.PHASE2210_DEFEND && within(action.getDefend().getDice(), 1, legal.getDefendMax());
      case LOSE -> {
        var l = action.getLose();
        yield phase == Phase2210.PHASE2210_LOSSES && within(l.getMods(), 0, legal.getOccupyMods())
            && subset(l.getCommandersList(), legal.getOccupyCommandersList())
            && l.getMods() + l.getCommandersCount() == legal.getLose();
      }
      case REMOVE -> {
        // Legal2210.lose territories, each named at most its mods_at times.
        List<Integer> r = action.getRemove().getTerritoriesList();
        boolean each = t.size() == legal.getModsAtCount() && t.containsAll(r);
        for (int i = 0; each && i < t.size(); i++) {
          each = Collections.frequency(r, t.get(i)) <= legal.getModsAt(i);
        }
        yield phase == Phase2210.PHASE2210_REDUCE && r.size() == legal.getLose() && each;
      }
      case OCCUPY -> {
        var o = action.getOccupy();
        int moved = o.getMods() + o.getCommandersCount();
        int there = legal.getOccupyMods() + legal.getOccupyCommandersCount();
        yield phase == Phase2210.PHASE2210_OCCUPY && within(o.getMods(), 0, legal.getOccupyMods())
            && subset(o.getCommandersList(), legal.getOccupyCommandersList())
            && o.getCommandersList().containsAll(legal.getMustMoveList()) && moved >= legal.getOccupyMin() && moved < there;
      }
      // Hire, build, buy, declare, fortify and play are never the safe choice: each phase that offers
      // them also allows EndPhase.
      default -> false;
    };
    return ok ? "" : action + " is not legal for " + legal;
  }

  @Test
  void defaultActionIsLegalForEveryGoldenRequest() throws IOException {
    Set<Phase2210> phases = EnumSet.noneOf(Phase2210.class);
    for (var entry : golden().entrySet()) {
      Legal2210 legal = entry.getValue().getR2210().getLegal();
      phases.add(legal.getPhase());
      assertEquals("", legalityProblem(legal, R2210.defaultAction(legal)), entry.getKey());
    }
    // Every phase that asks a seat something (all but unspecified and game over) has a golden request.
    for (Phase2210 phase : Phase2210.values()) {
      if (phase != Phase2210.UNRECOGNIZED && phase != Phase2210.PHASE2210_UNSPECIFIED
          && phase != Phase2210.PHASE2210_GAME_OVER) {
        assertTrue(phases.contains(phase), "no golden request of " + phase);
      }
    }
  }

  /** 004: commanders that rolled 8-sided dice must move in; MODs make up the rest of the least. */
  @Test
  void defaultActionOccupiesWithTheCommandersThatMustMove() {
    Legal2210 legal = Legal2210.newBuilder().setPhase(Phase2210.PHASE2210_OCCUPY).setOccupyMin(3).setOccupyMods(4)
        .addAllOccupyCommanders(List.of(0, 2)).addMustMove(2).build();
    Action2210 action = R2210.defaultAction(legal);
    assertEquals(MoveUnitsAction.newBuilder().setMods(2).addCommanders(2).build(), action.getOccupy());
    assertEquals("", legalityProblem(legal, action));
  }

  /** MOD Reduction: "Each opponent ... removes 4 of their own MODs from anywhere on the boards". */
  @Test
  void defaultActionRemovesTheFirstModsListed() {
    Legal2210 legal = Legal2210.newBuilder().setPhase(Phase2210.PHASE2210_REDUCE).addAllTerritories(List.of(5, 9, 60))
        .addAllModsAt(List.of(1, 2, 7)).setLose(4).build();
    Action2210 action = R2210.defaultAction(legal);
    assertEquals(RemoveModsAction.newBuilder().addAllTerritories(List.of(5, 9, 9, 60)).build(), action.getRemove());
    assertEquals("", legalityProblem(legal, action));
  }

  /**
   * docs/protocol.md: a 2210 Decision carries its r2210 member, never the classic action; so does the
   * retry after a rejection.
   */
  @Test
  void clientAnswersEvery2210RequestAndItsRetryWithA2210Decision() throws IOException {
    List<String> log = new ArrayList<>(); // the client's log, kept rather than printed
    Client client = new Client(new Client.Config("", "", "t", 1, List.of("2210-2"), 1), log::add);
    for (var entry : golden().entrySet()) {
      DecisionRequest req = entry.getValue();
      ClientTest.Recorder out = new ClientTest.Recorder();
      client.handle(ConnectResponse.newBuilder().setDecisionRequest(req).build(), out);
      DecisionRejected rejected = DecisionRejected.newBuilder().setGameId(req.getGameId())
          .setRequestId(req.getRequestId()).setCanRetry(true).build();
      client.handle(ConnectResponse.newBuilder().setDecisionRejected(rejected).build(), out);
      assertEquals(2, out.sent.size(), entry.getKey() + ": the answer and its retry");
      assertEquals("game " + req.getGameId() + ": decision " + req.getRequestId() + " rejected: ", log.get(log.size() - 1),
          entry.getKey() + ": the rejection is logged");
      for (ConnectRequest sent : out.sent) {
        Decision d = sent.getDecision();
        assertTrue(d.hasR2210() && !d.hasAction() && d.getRequestId() == req.getRequestId(), entry.getKey() + ": " + d);
        assertEquals(R2210.defaultAction(req.getR2210().getLegal()), d.getR2210(), entry.getKey());
      }
    }
  }
}
