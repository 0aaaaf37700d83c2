package main

// The strategy must answer every recorded request (each decision kind of the protocol, from real
// engine games; see ../fixtures/make_decisions.py) with an action its own LegalActions allow.

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	pb "conquestbot/gen/conquest/v1"

	"google.golang.org/protobuf/encoding/protojson"
)

type fixture struct {
	Started  *pb.GameStarted
	Kind     string
	Request  *pb.DecisionRequest
	Decision *pb.Action
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	raw, err := os.ReadFile("../fixtures/decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Games []struct {
			GameStarted json.RawMessage `json:"game_started"`
			Decisions   []struct {
				Kind    string          `json:"kind"`
				Request json.RawMessage `json:"request"`
			} `json:"decisions"`
		} `json:"games"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, g := range file.Games {
		started := &pb.GameStarted{}
		if err := protojson.Unmarshal(g.GameStarted, started); err != nil {
			t.Fatal(err)
		}
		for _, d := range g.Decisions {
			req := &pb.DecisionRequest{}
			if err := protojson.Unmarshal(d.Request, req); err != nil {
				t.Fatal(err)
			}
			game := &Game{ID: started.GetGameId(), Seat: req.GetObservation().GetToAct(), Players: started.GetPlayers(), Map: started.GetMap()}
			out = append(out, fixture{Started: started, Kind: d.Kind, Request: req, Decision: Decide(game, req)})
		}
	}
	return out
}

// legalityProblem says why action is not allowed by legal, or "" when it is.
func legalityProblem(legal *pb.LegalActions, action *pb.Action) string {
	switch a := action.GetKind().(type) {
	case *pb.Action_Claim:
		if !slices.Contains(legal.GetClaim(), a.Claim.GetTerritory()) {
			return "claim of a territory not in legal.claim"
		}
	case *pb.Action_Place:
		if legal.GetMustTrade() || !slices.Contains(legal.GetPlaceTerritories(), a.Place.GetTerritory()) {
			return "place on a territory not in legal.place_territories"
		}
		if a.Place.GetArmies() < legal.GetPlaceMin() || a.Place.GetArmies() > legal.GetPlaceMax() {
			return fmt.Sprintf("place of %d armies outside %d..%d", a.Place.GetArmies(), legal.GetPlaceMin(), legal.GetPlaceMax())
		}
	case *pb.Action_TradeCards:
		for _, set := range legal.GetTrades() {
			if slices.Equal(set.GetCards(), a.TradeCards.GetCards()) {
				if a.TradeCards.BonusTerritory != nil && !slices.Contains(set.GetBonusTerritories(), a.TradeCards.GetBonusTerritory()) {
					return "bonus territory not in the set's bonus_territories"
				}
				return ""
			}
		}
		return "trade of a set not in legal.trades"
	case *pb.Action_Attack:
		for i, source := range legal.GetAttackSources() {
			if source == a.Attack.GetSource() && legal.GetAttackTargets()[i] == a.Attack.GetTarget() {
				if a.Attack.GetDice() < 1 || a.Attack.GetDice() > legal.GetAttackMaxDice()[i] {
					return "attack dice out of range"
				}
				if a.Attack.GetRepeatUntil() < 0 || a.Attack.GetRepeatUntil() >= legal.GetAttackSourceArmies()[i] {
					return "repeat_until out of range"
				}
				return ""
			}
		}
		return "attack not in the legal attack options"
	case *pb.Action_ChooseDefence:
		if a.ChooseDefence.GetDice() < 1 || a.ChooseDefence.GetDice() > legal.GetDefendMax() {
			return "defence dice out of range"
		}
	case *pb.Action_ChooseHeadquarters:
		if !slices.Contains(legal.GetHeadquarters(), a.ChooseHeadquarters.GetTerritory()) {
			return "headquarters not in legal.headquarters"
		}
	case *pb.Action_Occupy:
		if legal.GetOccupyMax() == 0 || a.Occupy.GetArmies() < legal.GetOccupyMin() || a.Occupy.GetArmies() > legal.GetOccupyMax() {
			return "occupy armies out of range"
		}
	case *pb.Action_Fortify:
		for i, source := range legal.GetFortifySources() {
			if source == a.Fortify.GetSource() && legal.GetFortifyTargets()[i] == a.Fortify.GetTarget() {
				if a.Fortify.GetArmies() < 1 || a.Fortify.GetArmies() > legal.GetFortifyMaxArmies()[i] {
					return "fortify armies out of range"
				}
				return ""
			}
		}
		return "fortify move not in the legal options"
	case *pb.Action_EndPhase:
		if !legal.GetCanEnd() {
			return "end_phase while can_end is false"
		}
	default:
		return "no action kind set"
	}
	return ""
}

func TestStrategyAnswersEveryRecordedRequestLegally(t *testing.T) {
	kinds := map[string]bool{}
	for _, f := range loadFixtures(t) {
		kinds[f.Kind] = true
		if problem := legalityProblem(f.Request.GetLegal(), f.Decision); problem != "" {
			t.Errorf("%s request %d: %v is illegal: %s", f.Kind, f.Request.GetRequestId(), f.Decision, problem)
		}
	}
	for _, kind := range []string{"setup_claim", "setup_place", "setup_place_neutral", "reinforce", "reinforce_may_trade",
		"reinforce_must_trade", "reinforce_trade_down_after_elimination", "attack", "defend", "occupy", "fortify",
		"choose_headquarters", "allied_reinforce", "allied_attack", "defend_allied", "occupy_allied"} {
		if !kinds[kind] {
			t.Errorf("no recorded request of kind %s", kind)
		}
	}
}

func TestSafeActionIsLegalForEveryRecordedRequest(t *testing.T) {
	for _, f := range loadFixtures(t) {
		if problem := legalityProblem(f.Request.GetLegal(), SafeAction(f.Request.GetLegal())); problem != "" {
			t.Errorf("%s request %d: safe action illegal: %s", f.Kind, f.Request.GetRequestId(), problem)
		}
	}
}

// Issue 7: "plays the aggressive strategy (not just random legal moves)".
func TestStrategyIsAggressive(t *testing.T) {
	for _, f := range loadFixtures(t) {
		legal, obs := f.Request.GetLegal(), f.Request.GetObservation()
		if f.Decision.GetKind() == nil {
			t.Fatalf("%s: no action", f.Kind)
		}
		switch f.Kind {
		case "reinforce_may_trade", "reinforce_must_trade", "reinforce_trade_down_after_elimination":
			if f.Decision.GetTradeCards() == nil {
				t.Errorf("%s: holds a tradeable set but played %v", f.Kind, f.Decision)
			}
		case "reinforce":
			if f.Decision.GetPlace().GetArmies() != legal.GetPlaceMax() {
				t.Errorf("reinforce: placed %d of %d armies at once", f.Decision.GetPlace().GetArmies(), legal.GetPlaceMax())
			}
		case "setup_place_neutral":
			if obs.GetOwners()[f.Decision.GetPlace().GetTerritory()] == obs.GetToAct() {
				t.Errorf("neutral placement went on our own territory")
			}
		case "choose_headquarters":
			// The territory whose armies outnumber its enemy neighbours' the most.
			margin := func(territory int32) int32 {
				m := obs.GetArmies()[territory]
				for _, n := range f.Started.GetMap().GetTerritories()[territory].GetNeighbours() {
					if obs.GetOwners()[n] != obs.GetToAct() {
						m -= obs.GetArmies()[n]
					}
				}
				return m
			}
			chosen := f.Decision.GetChooseHeadquarters().GetTerritory()
			for _, other := range legal.GetHeadquarters() {
				if margin(other) > margin(chosen) {
					t.Errorf("choose_headquarters: chose %d (margin %d) over %d (margin %d)", chosen, margin(chosen), other, margin(other))
				}
			}
		case "allied_reinforce":
			// All the Allied Army's armies at once, next to our opponent when an Allied territory is.
			p := f.Decision.GetPlace()
			if p.GetArmies() != legal.GetPlaceMax() || obs.GetOwners()[p.GetTerritory()] != legal.GetArmy() {
				t.Errorf("allied_reinforce: placed %v, want all %d armies on an Allied territory", p, legal.GetPlaceMax())
			}
			bordersOpponent := func(territory int32) bool {
				for _, n := range f.Started.GetMap().GetTerritories()[territory].GetNeighbours() {
					if o := obs.GetOwners()[n]; o != obs.GetToAct() && o != legal.GetArmy() {
						return true
					}
				}
				return false
			}
			if slices.ContainsFunc(legal.GetPlaceTerritories(), bordersOpponent) && !bordersOpponent(p.GetTerritory()) {
				t.Errorf("allied_reinforce: placed on %d, away from our opponent", p.GetTerritory())
			}
		case "attack", "allied_attack":
			outnumbers := false
			for i, target := range legal.GetAttackTargets() {
				outnumbers = outnumbers || legal.GetAttackSourceArmies()[i]-1 > obs.GetArmies()[target]
			}
			if outnumbers && f.Decision.GetAttack() == nil {
				t.Errorf("attack: ended attacking although a source outnumbers its target")
			}
			if a := f.Decision.GetAttack(); a != nil && a.GetRepeatUntil() != 1 {
				t.Errorf("attack: should roll on to the end, repeat_until=%d", a.GetRepeatUntil())
			}
		case "defend", "defend_allied":
			if f.Decision.GetChooseDefence().GetDice() != legal.GetDefendMax() {
				t.Errorf("defend: should defend with the most dice")
			}
		}
	}
}
