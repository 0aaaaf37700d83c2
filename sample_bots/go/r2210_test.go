package main

// Issue 19: "All four starter kits (TypeScript, Go, Rust, Java) answer every 2210 decision (at least
// with a legal choice)". The kit's answer to every golden 2210 request (one per phase, made by the
// server's tests/server/make_golden_2210.py) must be one its own Legal2210 allows.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	pb "conquestbot/gen/conquest/v1"

	"google.golang.org/protobuf/encoding/protojson"
)

func golden2210(t *testing.T) map[string]*pb.DecisionRequest {
	t.Helper()
	paths, err := filepath.Glob("../../tests/server/golden/decision_request_2210_*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden 2210 requests found (%v)", err)
	}
	out := map[string]*pb.DecisionRequest{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		msg := &pb.ConnectResponse{}
		if err := protojson.Unmarshal(raw, msg); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[filepath.Base(path)] = msg.GetDecisionRequest()
	}
	return out
}

func subset(xs, of []int32) bool {
	for i, x := range xs {
		if !slices.Contains(of, x) || slices.Contains(xs[:i], x) {
			return false
		}
	}
	return true
}

func countOf(xs []int32, x int32) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// legal2210 says why an action is not one the Legal2210 allows (docs/protocol.md's table of phases).
func legal2210(legal *pb.Legal2210, action *pb.Action2210) error {
	t := legal.GetTerritories()
	ok := false
	switch a := action.GetKind().(type) {
	case *pb.Action2210_EndPhase:
		ok = legal.GetCanEnd()
	case *pb.Action2210_Claim:
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_SETUP_CLAIM && slices.Contains(t, a.Claim.GetTerritory())
	case *pb.Action2210_Place:
		p := a.Place
		ok = (legal.GetPhase() == pb.Phase2210_PHASE2210_SETUP_PLACE || legal.GetPhase() == pb.Phase2210_PHASE2210_DEPLOY) &&
			slices.Contains(t, p.GetTerritory()) && p.GetMods() >= 1 && p.GetMods() <= legal.GetPlaceMax()
	case *pb.Action2210_PlaceCommanders:
		p := a.PlaceCommanders
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_SETUP_COMMANDERS && slices.Contains(t, p.GetLand()) &&
			slices.Contains(t, p.GetDiplomat()) && slices.Contains(t, p.GetStation())
	case *pb.Action2210_Bid:
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_BID && a.Bid.GetEnergy() >= 0 && a.Bid.GetEnergy() <= legal.GetBidMax()
	case *pb.Action2210_ChooseMarker:
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_CHOOSE_MARKER && slices.Contains(legal.GetMarkers(), a.ChooseMarker.GetMarker())
	case *pb.Action2210_TakeCard:
		d := a.TakeCard.GetDeck()
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_BONUS_CARD && d >= 0 && int(d) < len(legal.GetCardDecks()) &&
			legal.GetCardDecks()[d] > 0
	case *pb.Action2210_Roll:
		r := a.Roll
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_ROLL && r.GetDice() >= 1 && r.GetDice() <= legal.GetDiceMax() &&
			subset(r.GetD8(), legal.GetD8()) && int32(len(r.GetD8())) <= r.GetDice()
	case *pb.Action2210_Defend:
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_DEFEND && a.Defend.GetDice() >= 1 && a.Defend.GetDice() <= legal.GetDefendMax()
	case *pb.Action2210_Lose:
		l := a.Lose
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_LOSSES && l.GetMods() >= 0 && l.GetMods() <= legal.GetOccupyMods() &&
			subset(l.GetCommanders(), legal.GetOccupyCommanders()) && l.GetMods()+int32(len(l.GetCommanders())) == legal.GetLose()
	case *pb.Action2210_Remove:
		// Legal2210.lose territories, each named at most its mods_at times.
		r := a.Remove.GetTerritories()
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_REDUCE && int32(len(r)) == legal.GetLose() &&
			len(t) == len(legal.GetModsAt())
		for i, x := range t {
			ok = ok && int32(countOf(r, x)) <= legal.GetModsAt()[i]
		}
		for _, x := range r {
			ok = ok && slices.Contains(t, x)
		}
	case *pb.Action2210_Occupy:
		o := a.Occupy
		moved := o.GetMods() + int32(len(o.GetCommanders()))
		there := legal.GetOccupyMods() + int32(len(legal.GetOccupyCommanders()))
		ok = legal.GetPhase() == pb.Phase2210_PHASE2210_OCCUPY && o.GetMods() >= 0 && o.GetMods() <= legal.GetOccupyMods() &&
			subset(o.GetCommanders(), legal.GetOccupyCommanders()) && subset(legal.GetMustMove(), o.GetCommanders()) &&
			moved >= legal.GetOccupyMin() && moved < there
	}
	if !ok {
		return fmt.Errorf("%v is not legal for %v", action, legal)
	}
	return nil
}

func TestDefault2210IsLegalForEveryGoldenRequest(t *testing.T) {
	phases := map[pb.Phase2210]bool{}
	for name, req := range golden2210(t) {
		legal := req.GetR2210().GetLegal()
		phases[legal.GetPhase()] = true
		if err := legal2210(legal, Default2210(legal)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Every phase that asks a seat something (all but unspecified and game over) has a golden request.
	for phase := range pb.Phase2210_name {
		p := pb.Phase2210(phase)
		if p != pb.Phase2210_PHASE2210_UNSPECIFIED && p != pb.Phase2210_PHASE2210_GAME_OVER && !phases[p] {
			t.Errorf("no golden request of %v", p)
		}
	}
}

func TestDefault2210OccupiesWithTheCommandersThatMustMove(t *testing.T) {
	// 004: commanders that rolled 8-sided dice must move in; MODs make up the rest of the least.
	legal := &pb.Legal2210{
		Phase: pb.Phase2210_PHASE2210_OCCUPY, OccupyMin: 3, OccupyMods: 4, OccupyCommanders: []int32{0, 2}, MustMove: []int32{2},
	}
	got := Default2210(legal).GetOccupy()
	if got.GetMods() != 2 || !slices.Equal(got.GetCommanders(), []int32{2}) {
		t.Errorf("occupy %v, want 2 MODs and commander 2", got)
	}
	if err := legal2210(legal, Default2210(legal)); err != nil {
		t.Error(err)
	}
}

func TestDefault2210RemovesTheFirstModsListed(t *testing.T) {
	// MOD Reduction: "Each opponent ... removes 4 of their own MODs from anywhere on the boards".
	legal := &pb.Legal2210{
		Phase: pb.Phase2210_PHASE2210_REDUCE, Territories: []int32{5, 9, 60}, ModsAt: []int32{1, 2, 7}, Lose: 4,
	}
	got := Default2210(legal).GetRemove()
	if !slices.Equal(got.GetTerritories(), []int32{5, 9, 9, 60}) {
		t.Errorf("remove %v, want territories 5, 9, 9, 60", got)
	}
	if err := legal2210(legal, Default2210(legal)); err != nil {
		t.Error(err)
	}
}

func TestClientAnswersA2210RequestWithA2210Decision(t *testing.T) {
	// docs/protocol.md: a 2210 Decision carries its r2210 member, never the classic action.
	c := NewClient(Config{})
	for name, req := range golden2210(t) {
		d := c.decide(req).GetDecision()
		if d.GetAction() != nil || d.GetR2210() == nil || d.GetRequestId() != req.GetRequestId() {
			t.Errorf("%s: decision %v", name, d)
		}
	}
}
