package main

// RISK 2210 A.D. games (docs/protocol.md, "RISK 2210 A.D. games"): the kit answers every 2210 decision
// with the safe legal choice read from the request's Legal2210 alone, the same answer the server gives on
// a timeout. A 2210 strategy of your own goes in Default2210's place.

import (
	"fmt"
	"slices"

	pb "conquestbot/gen/conquest/v1"
)

func endPhase2210() *pb.Action2210 {
	return &pb.Action2210{Kind: &pb.Action2210_EndPhase{EndPhase: &pb.EndPhaseAction{}}}
}

// Default2210 stops where stopping is allowed (passes a card window or the nuclear exchange, moves no
// decoys), bids nothing, rolls and defends with every die, moves in the least, and otherwise takes the
// first choice offered (MOD Reduction: the first MODs listed). It panics on a phase that asks nothing.
func Default2210(legal *pb.Legal2210) *pb.Action2210 {
	if legal.GetCanEnd() {
		return endPhase2210()
	}
	t := legal.GetTerritories()
	switch legal.GetPhase() {
	case pb.Phase2210_PHASE2210_SETUP_CLAIM:
		return &pb.Action2210{Kind: &pb.Action2210_Claim{Claim: &pb.ClaimAction{Territory: t[0]}}}
	case pb.Phase2210_PHASE2210_SETUP_PLACE, pb.Phase2210_PHASE2210_DEPLOY:
		place := &pb.PlaceModsAction{Territory: t[0], Mods: legal.GetPlaceMax()}
		return &pb.Action2210{Kind: &pb.Action2210_Place{Place: place}}
	case pb.Phase2210_PHASE2210_SETUP_COMMANDERS:
		place := &pb.PlaceCommandersAction{Land: t[0], Diplomat: t[0], Station: t[0]}
		return &pb.Action2210{Kind: &pb.Action2210_PlaceCommanders{PlaceCommanders: place}}
	case pb.Phase2210_PHASE2210_BID:
		return &pb.Action2210{Kind: &pb.Action2210_Bid{Bid: &pb.BidAction{Energy: 0}}}
	case pb.Phase2210_PHASE2210_CHOOSE_MARKER:
		marker := &pb.ChooseMarkerAction{Marker: legal.GetMarkers()[0]}
		return &pb.Action2210{Kind: &pb.Action2210_ChooseMarker{ChooseMarker: marker}}
	case pb.Phase2210_PHASE2210_BONUS_CARD:
		for deck, n := range legal.GetCardDecks() {
			if n > 0 {
				take := &pb.TakeCardAction{Deck: int32(deck)}
				return &pb.Action2210{Kind: &pb.Action2210_TakeCard{TakeCard: take}}
			}
		}
	case pb.Phase2210_PHASE2210_ROLL:
		return &pb.Action2210{Kind: &pb.Action2210_Roll{Roll: &pb.RollAction{Dice: legal.GetDiceMax()}}}
	case pb.Phase2210_PHASE2210_DEFEND:
		defend := &pb.ChooseDefenceAction{Dice: legal.GetDefendMax()}
		return &pb.Action2210{Kind: &pb.Action2210_Defend{Defend: defend}}
	case pb.Phase2210_PHASE2210_LOSSES:
		// MODs first, then commanders in the order offered.
		mods := min(legal.GetLose(), legal.GetOccupyMods())
		commanders := slices.Clone(legal.GetOccupyCommanders()[:legal.GetLose()-mods])
		lose := &pb.ChooseLossesAction{Mods: mods, Commanders: commanders}
		return &pb.Action2210{Kind: &pb.Action2210_Lose{Lose: lose}}
	case pb.Phase2210_PHASE2210_REDUCE:
		// One territory per MOD, the territories in the order offered, each at most mods_at[i] times.
		var remove []int32
		for i, n := range legal.GetModsAt() {
			for range n {
				if int32(len(remove)) < legal.GetLose() {
					remove = append(remove, t[i])
				}
			}
		}
		return &pb.Action2210{Kind: &pb.Action2210_Remove{Remove: &pb.RemoveModsAction{Territories: remove}}}
	case pb.Phase2210_PHASE2210_OCCUPY:
		// The commanders that must move, more commanders only when the MODs cannot make up the least.
		commanders := slices.Clone(legal.GetMustMove())
		for _, c := range legal.GetOccupyCommanders() {
			if legal.GetOccupyMods()+int32(len(commanders)) >= legal.GetOccupyMin() {
				break
			}
			if !slices.Contains(commanders, c) {
				commanders = append(commanders, c)
			}
		}
		mods := max(0, legal.GetOccupyMin()-int32(len(commanders)))
		occupy := &pb.MoveUnitsAction{Mods: mods, Commanders: commanders}
		return &pb.Action2210{Kind: &pb.Action2210_Occupy{Occupy: occupy}}
	}
	panic(fmt.Sprintf("no 2210 decision in phase %v", legal.GetPhase()))
}
