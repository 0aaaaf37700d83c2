package main

import (
	pb "conquestbot/gen/conquest/v1"

	"google.golang.org/protobuf/proto"
)

func claimAction(territory int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Claim{Claim: &pb.ClaimAction{Territory: territory}}}
}

func chooseHeadquartersAction(territory int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_ChooseHeadquarters{ChooseHeadquarters: &pb.ChooseHeadquartersAction{Territory: territory}}}
}

func placeAction(territory, armies int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Place{Place: &pb.PlaceAction{Territory: territory, Armies: armies}}}
}

// tradeAction trades a set; bonusTerritory -1 leaves the +2 to the server's choice.
func tradeAction(set *pb.CardSet, bonusTerritory int32) *pb.Action {
	trade := &pb.TradeCardsAction{Cards: set.GetCards()}
	if bonusTerritory >= 0 {
		trade.BonusTerritory = proto.Int32(bonusTerritory)
	}
	return &pb.Action{Kind: &pb.Action_TradeCards{TradeCards: trade}}
}

func attackAction(source, target, dice, repeatUntil int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Attack{Attack: &pb.AttackAction{
		Source: source, Target: target, Dice: dice, RepeatUntil: repeatUntil,
	}}}
}

func defendAction(dice int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_ChooseDefence{ChooseDefence: &pb.ChooseDefenceAction{Dice: dice}}}
}

func occupyAction(armies int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Occupy{Occupy: &pb.OccupyAction{Armies: armies}}}
}

func fortifyAction(source, target, armies int32) *pb.Action {
	return &pb.Action{Kind: &pb.Action_Fortify{Fortify: &pb.FortifyAction{Source: source, Target: target, Armies: armies}}}
}

func endPhaseAction() *pb.Action {
	return &pb.Action{Kind: &pb.Action_EndPhase{EndPhase: &pb.EndPhaseAction{}}}
}

// SafeAction is the plainest legal action, read off the legal actions alone (no board needed):
// the retry after a rejection, and the answer for a game whose board we do not know.
func SafeAction(legal *pb.LegalActions) *pb.Action {
	switch {
	case len(legal.GetClaim()) > 0:
		return claimAction(legal.GetClaim()[0])
	case len(legal.GetHeadquarters()) > 0:
		return chooseHeadquartersAction(legal.GetHeadquarters()[0])
	case len(legal.GetTrades()) > 0 && (legal.GetMustTrade() || len(legal.GetPlaceTerritories()) == 0):
		return tradeAction(legal.GetTrades()[0], -1)
	case len(legal.GetPlaceTerritories()) > 0:
		return placeAction(legal.GetPlaceTerritories()[0], legal.GetPlaceMax())
	case legal.GetDefendMax() > 0:
		return defendAction(legal.GetDefendMax())
	case legal.GetOccupyMax() > 0:
		return occupyAction(legal.GetOccupyMin())
	}
	return endPhaseAction()
}
