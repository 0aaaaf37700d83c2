package main

// ============================================================================================
// PUT YOUR STRATEGY HERE.
//
// Decide is called once per DecisionRequest and returns one action. Everything legal is in
// req.Legal (ranges, never one entry per army count); the board is in game.Map, the state in
// req.Observation. The rest of the kit (connection, queues, retries, reconnects) never needs
// to change. This sample is the aggressive strategy: stack reinforcements on the strongest
// front, attack wherever it outnumbers the defender, move everything forward, and fortify
// interior stacks to the front; it commands the Allied Army the same way against the opponent
// and picks the safest territory as headquarters.
// ============================================================================================

import (
	pb "conquestbot/gen/conquest/v1"
)

// Decide picks the action for one decision of one game.
func Decide(game *Game, req *pb.DecisionRequest) *pb.Action {
	obs, legal := req.GetObservation(), req.GetLegal()
	// legal.Army is whose armies this decision commands: ours, or the Allied Army's in its phases.
	b := newBoardView(game, obs, legal.GetArmy())
	switch obs.GetPhase() {
	case pb.Phase_PHASE_SETUP_CLAIM:
		return claimAction(b.bestClaim(legal.GetClaim()))
	case pb.Phase_PHASE_SETUP_PLACE:
		if legal.GetPlaceNeutral() {
			// Two-player game: this placement is for the neutral army. Put it where it blocks the
			// opponent most and us least.
			return placeAction(b.bestNeutralPlacement(legal.GetPlaceTerritories()), legal.GetPlaceMin())
		}
		return placeAction(b.stackTerritory(legal.GetPlaceTerritories()), legal.GetPlaceMax())
	case pb.Phase_PHASE_CHOOSE_HEADQUARTERS:
		// Capital Risk: the territory hardest to take.
		return chooseHeadquartersAction(b.safestTerritory(legal.GetHeadquarters()))
	case pb.Phase_PHASE_REINFORCE:
		if trades := legal.GetTrades(); len(trades) > 0 {
			// Armies now beat armies later: trade whenever a set may be traded (and when we must).
			return tradeAction(trades[0], b.bestBonusTerritory(trades[0].GetBonusTerritories()))
		}
		return placeAction(b.stackTerritory(legal.GetPlaceTerritories()), legal.GetPlaceMax())
	case pb.Phase_PHASE_ALLIED_REINFORCE:
		// The Allied Army's armies, placed by us: all at once where they outnumber our opponent most.
		return placeAction(b.stackTerritory(legal.GetPlaceTerritories()), legal.GetPlaceMax())
	case pb.Phase_PHASE_ATTACK, pb.Phase_PHASE_ALLIED_ATTACK:
		// The Allied Army attacks only our opponent, so the same rule serves both.
		if i := b.bestAttack(legal); i >= 0 {
			// Roll on until the target falls or the source is down to one army.
			return attackAction(legal.GetAttackSources()[i], legal.GetAttackTargets()[i], legal.GetAttackMaxDice()[i], 1)
		}
		return endPhaseAction()
	case pb.Phase_PHASE_DEFEND:
		return defendAction(legal.GetDefendMax())
	case pb.Phase_PHASE_OCCUPY:
		// Everything forward, unless the captured territory is safe and the source still faces an enemy.
		if !b.bordersEnemy(obs.GetPendingTarget()) && b.bordersEnemy(obs.GetPendingSource()) {
			return occupyAction(legal.GetOccupyMin())
		}
		return occupyAction(legal.GetOccupyMax())
	case pb.Phase_PHASE_FORTIFY:
		if i := b.bestFortify(legal); i >= 0 {
			return fortifyAction(legal.GetFortifySources()[i], legal.GetFortifyTargets()[i], legal.GetFortifyMaxArmies()[i])
		}
		return endPhaseAction()
	}
	// A phase this kit does not know yet: never leave the seat stuck.
	return SafeAction(legal)
}

// boardView is one seat's view of the board at one decision.
type boardView struct {
	seat       int32 // our seat
	side       int32 // whose armies we command: our seat, or the Allied Army's owner number
	owners     []int32
	armies     []int32
	neighbours [][]int32
	prey       int32 // the opponent with the fewest territories: eliminating it pays its cards
}

func newBoardView(game *Game, obs *pb.Observation, side int32) *boardView {
	b := &boardView{seat: game.Seat, side: side, owners: obs.GetOwners(), armies: obs.GetArmies(), prey: -1}
	for _, t := range game.Map.GetTerritories() {
		b.neighbours = append(b.neighbours, t.GetNeighbours())
	}
	counts := make(map[int32]int)
	for _, o := range b.owners {
		counts[o]++
	}
	fewest := len(b.owners) + 1
	for other := int32(0); other < int32(len(game.Players)); other++ {
		if other != b.seat && counts[other] > 0 && counts[other] < fewest {
			b.prey, fewest = other, counts[other]
		}
	}
	return b
}

// isEnemy says whether territories of owner are there to be taken: anyone's but ours and the side's
// we command (the Allied Army attacks only our opponent).
func (b *boardView) isEnemy(owner int32) bool { return owner != b.seat && owner != b.side }

func (b *boardView) bordersEnemy(t int32) bool {
	for _, n := range b.neighbours[t] {
		if b.isEnemy(b.owners[n]) {
			return true
		}
	}
	return false
}

// edge is how far the movable armies of source outnumber target (the prey counts 2 weaker).
func (b *boardView) edge(source, target int32) int32 {
	e := b.armies[source] - 1 - b.armies[target]
	if b.owners[target] == b.prey {
		e += 2
	}
	return e
}

// bestClaim claims next to what we hold (to build a continent), else the first free territory.
func (b *boardView) bestClaim(free []int32) int32 {
	for _, t := range free {
		for _, n := range b.neighbours[t] {
			if b.owners[n] == b.seat {
				return t
			}
		}
	}
	return free[0]
}

// stackTerritory is where new armies go: the own territory with the best edge over an enemy
// neighbour, or the first allowed territory when none faces an enemy.
func (b *boardView) stackTerritory(allowed []int32) int32 {
	best, bestEdge := allowed[0], int32(-1<<30)
	for _, t := range allowed {
		for _, n := range b.neighbours[t] {
			if b.isEnemy(b.owners[n]) && b.edge(t, n) > bestEdge {
				best, bestEdge = t, b.edge(t, n)
			}
		}
	}
	return best
}

// safestTerritory is the allowed territory whose armies outnumber its enemy neighbours' armies the
// most (the first of the best).
func (b *boardView) safestTerritory(allowed []int32) int32 {
	best, bestMargin := allowed[0], int32(-1<<30)
	for _, t := range allowed {
		margin := b.armies[t]
		for _, n := range b.neighbours[t] {
			if b.isEnemy(b.owners[n]) {
				margin -= b.armies[n]
			}
		}
		if margin > bestMargin {
			best, bestMargin = t, margin
		}
	}
	return best
}

// bestNeutralPlacement picks the neutral territory with the most opponent neighbours and the
// fewest of ours: neutral armies there shield us and block the opponent.
func (b *boardView) bestNeutralPlacement(allowed []int32) int32 {
	best, bestScore := allowed[0], -1<<30
	for _, t := range allowed {
		score := 0
		for _, n := range b.neighbours[t] {
			switch b.owners[n] {
			case b.seat:
				score--
			case b.owners[t]:
			default:
				score++
			}
		}
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	return best
}

// bestBonusTerritory puts the +2 on a front territory when one is eligible; -1 means no bonus.
func (b *boardView) bestBonusTerritory(eligible []int32) int32 {
	if len(eligible) == 0 {
		return -1
	}
	return b.stackTerritory(eligible)
}

// bestAttack is the index of the legal attack with the biggest edge among those where the source
// outnumbers the target, or -1.
func (b *boardView) bestAttack(legal *pb.LegalActions) int {
	best, bestEdge := -1, int32(-1<<30)
	for i, source := range legal.GetAttackSources() {
		target := legal.GetAttackTargets()[i]
		movable := legal.GetAttackSourceArmies()[i] - 1
		if movable > b.armies[target] && b.edge(source, target) > bestEdge {
			best, bestEdge = i, b.edge(source, target)
		}
	}
	return best
}

// bestFortify is the index of the free move that takes the biggest interior stack (no enemy
// neighbour) to a territory on the front, or -1.
func (b *boardView) bestFortify(legal *pb.LegalActions) int {
	best, bestArmies := -1, int32(0)
	for i, source := range legal.GetFortifySources() {
		target := legal.GetFortifyTargets()[i]
		moving := legal.GetFortifyMaxArmies()[i]
		if moving > bestArmies && !b.bordersEnemy(source) && b.bordersEnemy(target) {
			best, bestArmies = i, moving
		}
	}
	return best
}
