// Package verify re-derives every roll and shuffle of a recorded game from its revealed seed (dice
// version 2, docs/protocol.md "Randomness: how every roll and shuffle is derived") and compares them with
// the game's events.
package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// FiveDice is 6^5: a battle draws one number in 0..7775, five base-6 digits (d[0..2] the attacker's,
// d[3..4] the defender's).
const FiveDice = 6 * 6 * 6 * 6 * 6

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

// RollOff is the roll for the first player: every round's dice flattened (0 for a seat out of the round)
// and the seat that starts.
func RollOff(s *Stream, seats int) (rolls []int, starter int) {
	in := make([]int, seats)
	for i := range in {
		in[i] = i
	}
	for {
		round := make([]int, seats)
		for _, seat := range in {
			round[seat] = 1 + s.Uniform(6)
		}
		rolls = append(rolls, round...)
		best := slices.Max(round)
		in = slices.DeleteFunc(in, func(seat int) bool { return round[seat] != best })
		if len(in) == 1 {
			return rolls, in[0]
		}
	}
}

// Battle is one roll of attackerDice (1..3) against defenderDice (1..2), each side highest first.
func Battle(s *Stream, attackerDice, defenderDice int) (attacker, defender []int) {
	k := s.Uniform(FiveDice)
	var d [5]int
	for i := range d {
		d[i] = k%6 + 1
		k /= 6
	}
	attacker = slices.Clone(d[:attackerDice])
	defender = slices.Clone(d[3 : 3+defenderDice])
	slices.Sort(attacker)
	slices.Reverse(attacker)
	slices.Sort(defender)
	slices.Reverse(defender)
	return attacker, defender
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
