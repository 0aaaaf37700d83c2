// Package verify re-derives every roll and shuffle of a recorded game from its revealed seed (dice
// version 2, docs/protocol.md "Randomness: how every roll and shuffle is derived", classic and RISK 2210
// A.D.) and compares them with the game's events.
package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// Stream is the SHA-256 counter stream: word i is the big-endian uint32 at bytes 4*(i mod 8) of
// SHA-256(be64(seed) || be64(i div 8)).
type Stream struct {
	seed  uint64
	block uint64
	words [8]uint32
	next  int
}

// NewStream starts a game's stream at word 0.
func NewStream(seed uint64) *Stream { return &Stream{seed: seed, next: 8} }

// Word is the next 32-bit word.
func (s *Stream) Word() uint32 {
	if s.next == 8 {
		var message [16]byte
		binary.BigEndian.PutUint64(message[:8], s.seed)
		binary.BigEndian.PutUint64(message[8:], s.block)
		digest := sha256.Sum256(message[:])
		for i := range s.words {
			s.words[i] = binary.BigEndian.Uint32(digest[4*i:])
		}
		s.block++
		s.next = 0
	}
	w := s.words[s.next]
	s.next++
	return w
}

// WordsUsed is how many words have been drawn, rejected ones included.
func (s *Stream) WordsUsed() int { return int(s.block)*8 - (8 - s.next) }

// Uniform is uniform in 0..n-1 (1 <= n <= 2^32): words at or above the largest multiple of n within 2^32
// are dropped, so there is no modulo bias.
func (s *Stream) Uniform(n uint64) int {
	limit := uint64(1)<<32 - (uint64(1)<<32)%n
	for {
		if x := uint64(s.Word()); x < limit {
			return int(x % n)
		}
	}
}

// Shuffle is Fisher-Yates from the back, in place.
func (s *Stream) Shuffle(items []int) {
	for i := len(items) - 1; i >= 1; i-- {
		j := s.Uniform(uint64(i + 1))
		items[i], items[j] = items[j], items[i]
	}
}

// Die is one die of faces sides, 1..faces: 1 + Uniform(faces) (a d6 is the classic die; 2210 also rolls d8s).
func Die(s *Stream, faces int) int { return 1 + s.Uniform(uint64(faces)) }

// RollOff is the classic roll for the first player among seats 0..seats-1 (seats >= 2): every round's
// dice flattened (0 for a seat out of the round) and the seat that starts. It draws exactly as 2210's
// first placer's roll-off, which also settles only the highest tie.
func RollOff(s *Stream, seats int) (rolls []int, starter int) {
	order, rounds := OrderByRollOff(s, idRange(0, seats), true)
	return slices.Concat(rounds...), order[0]
}

// OrderByRollOff is the 2210 roll-off ordering seats (a list of seats; a bid tie lists them ascending):
// the order, highest first, and every round in the order rolled, one value per entry of seats (0 for an
// entry not rolling). In a round the entries still in roll 1 + Uniform(6) in the list's order; the round's
// values are then taken from highest to lowest, and a value rolled by several entries is settled first,
// by rounds among just those (recursively, completely), before the next lower value. One entry alone
// draws nothing. firstOnly is the first placer's roll-off: only the highest tie re-rolls, and lower ties
// keep the list's order and draw nothing.
func OrderByRollOff(s *Stream, seats []int, firstOnly bool) (order []int, rounds [][]int) {
	var rank func(group []int) []int // group and result: indices into seats
	rank = func(group []int) []int {
		if len(group) <= 1 {
			return group
		}
		round := make([]int, len(seats))
		for _, i := range group {
			round[i] = Die(s, 6)
		}
		rounds = append(rounds, round)
		var out []int
		for value := 6; value >= 1; value-- {
			var tied []int
			for _, i := range group {
				if round[i] == value {
					tied = append(tied, i)
				}
			}
			if firstOnly && len(out) > 0 {
				out = append(out, tied...)
			} else if len(tied) > 0 {
				out = append(out, rank(tied)...)
			}
		}
		return out
	}
	for _, i := range rank(idRange(0, len(seats))) {
		order = append(order, seats[i])
	}
	return order, rounds
}

// idRange is from, from+1, ..., to-1.
func idRange(from, to int) []int {
	list := make([]int, 0, max(to-from, 0))
	for id := from; id < to; id++ {
		list = append(list, id)
	}
	return list
}

// Battle is one classic roll of attackerDice (1..3) against defenderDice (1..2), each side highest
// first: the all-sixes BattleFaces, one Uniform(7776) read as five base-6 digits.
func Battle(s *Stream, attackerDice, defenderDice int) (attacker, defender []int) {
	return BattleFaces(s, slices.Repeat([]int{6}, attackerDice), slices.Repeat([]int{6}, defenderDice))
}

// BattleFaces is one battle roll of dice with the given faces (attacker 1..3 dice, defender 1..2; 6 or 8
// faces each), each side highest first. The five slots are the attacker's faces padded with 6 to three,
// then the defender's padded with 6 to two; one k = Uniform(s0*s1*s2*s3*s4) is read as mixed-radix
// digits, d[i] = (k div (s0*...*s(i-1))) mod si + 1. The attacker takes d[0..a-1], the defender d[3..3+b-1].
func BattleFaces(s *Stream, attackerFaces, defenderFaces []int) (attacker, defender []int) {
	sizes := [5]int{6, 6, 6, 6, 6}
	copy(sizes[:3], attackerFaces)
	copy(sizes[3:], defenderFaces)
	total := 1
	for _, size := range sizes {
		total *= size
	}
	k := s.Uniform(uint64(total))
	var d [5]int
	for i, size := range sizes {
		d[i] = k%size + 1
		k /= size
	}
	return highestFirst(d[:len(attackerFaces)]), highestFirst(d[3 : 3+len(defenderFaces)])
}

func highestFirst(dice []int) []int {
	out := slices.Clone(dice)
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// DealMissions is the Secret Mission deal: seat s gets entry s.
func DealMissions(s *Stream, seats int, threeContinentMissions bool) []int {
	var deck []int
	for seat := range seats {
		deck = append(deck, seat)
	}
	deck = append(deck, 6, 7, 8, 9, 10, 11)
	if threeContinentMissions {
		deck = append(deck, 12, 13)
	}
	s.Shuffle(deck)
	return deck[:seats]
}

// DealTerritories is the owner of each territory by id: setup "dealt" from firstSeat, or "neutral_piles"
// (seat 0, seat 1, then the neutral army as owner `seats`).
func DealTerritories(s *Stream, territories, seats int, setup string, firstSeat int) []int {
	order := make([]int, territories)
	for t := range order {
		order[t] = t
	}
	s.Shuffle(order)
	owners := make([]int, territories)
	pile := territories / 3
	for i, t := range order {
		if setup == "neutral_piles" {
			owners[t] = min(i/pile, seats)
		} else {
			owners[t] = (firstSeat + i) % seats
		}
	}
	return owners
}

// ShuffledDeck is card ids 0..cards-1 without the reserved ones (Capital Risk's headquarters), shuffled.
func ShuffledDeck(s *Stream, cards int, reserved []int) []int {
	var deck []int
	for c := range cards {
		if !slices.Contains(reserved, c) {
			deck = append(deck, c)
		}
	}
	s.Shuffle(deck)
	return deck
}

// The 2210 decks: territory cards by deck (land, water, lunar: ids from..to-1, the wild cards out) and the
// five Command decks in Commander order (Land, Diplomat, Naval, Space, Nuclear), deck d holding card ids
// 20d..20d+19.
var TerritoryDecks2210 = [3][2]int{{0, 42}, {42, 55}, {55, 69}}

const (
	CommandDecks2210    = 5
	CommandDeckSize2210 = 20
)

// Decks2210 is the first draws of a 2210 game: each territory deck, then each Command deck, from its
// ascending ids, shuffled; index 0 is a deck's top.
func Decks2210(s *Stream) (territory [3][]int, command [CommandDecks2210][]int) {
	for d, ids := range TerritoryDecks2210 {
		territory[d] = idRange(ids[0], ids[1])
		s.Shuffle(territory[d])
	}
	for d := range command {
		command[d] = idRange(d*CommandDeckSize2210, (d+1)*CommandDeckSize2210)
		s.Shuffle(command[d])
	}
	return territory, command
}

// Reshuffle2210 is the end of a 2-player game's neutral draw: each territory deck, in deck order, sorted
// back into ascending order (the neutral territories included) and shuffled again.
func Reshuffle2210(s *Stream, territory *[3][]int) {
	for _, deck := range territory {
		slices.Sort(deck)
		s.Shuffle(deck)
	}
}

// Reseed2210 is a takeover's shuffle: with the fresh stream, the undrawn cards of each territory deck
// (land, water, lunar), then of each Command deck (Land, Diplomat, Naval, Space, Nuclear), top first.
func Reseed2210(s *Stream, territory *[3][]int, command *[CommandDecks2210][]int) {
	for _, deck := range territory {
		s.Shuffle(deck)
	}
	for _, deck := range command {
		s.Shuffle(deck)
	}
}
