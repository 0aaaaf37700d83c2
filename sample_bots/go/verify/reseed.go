package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// Reseed is one takeover of a format 2 replay (docs/protocol.md, "Games taken over"): from action At on,
// every draw comes from a new stream of Seed, committed to as sha256("<seed>:<game_id>:<at>") in hex.
type Reseed struct {
	At         int64  `json:"at"`
	Seed       uint64 `json:"seed"`
	Commitment string `json:"commitment"`
}

// ReseedFacts is a `reseeded` event's facts as printed: at and seed are 64-bit integers, written as JSON
// strings in a classic GameEvent and at as a number in a 2210 event's dataJson (json.Number reads both,
// never through a double).
type ReseedFacts struct {
	At         json.Number `json:"at"`
	Seed       json.Number `json:"seed"`
	Commitment string      `json:"commitment"`
}

// reseedCommitment compares the replay's i-th reseed's commitment with sha256 of "<seed>:<game_id>:<at>".
func reseedCommitment(r *Replay, i int, sequence string) (m Mismatch, bad bool) {
	reseed := r.Reseeds[i]
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d:%s:%d", reseed.Seed, r.GameID, reseed.At)))
	commitment := hex.EncodeToString(sum[:])
	what := fmt.Sprintf(`reseed %d of %d (at %d): the replay's commitment, against sha256 of "seed:game_id:at"`, i+1, len(r.Reseeds), reseed.At)
	return Mismatch{sequence, what, show(reseed.Commitment), show(commitment)}, commitment != reseed.Commitment
}

// reseeds follows a format 2 replay's takeovers through its events: the k-th `reseeded` event must be
// the replay's k-th reseed, whose commitment must hold.
type reseeds struct {
	replay *Replay
	seen   int
}

// at checks the `reseeded` event at sequence seq. The stream the game goes on with is the replay's fresh
// seed's (nil when the replay lists no further reseed: the game then keeps its stream).
func (rs *reseeds) at(seq string, facts ReseedFacts) (fresh *Stream, mismatches []Mismatch) {
	r := rs.replay
	said := map[string]any{"at": facts.At, "seed": facts.Seed, "commitment": facts.Commitment}
	if rs.seen == len(r.Reseeds) {
		what := fmt.Sprintf("reseeded (an event beyond the replay's %d reseeds)", len(r.Reseeds))
		return nil, []Mismatch{{seq, what, show(said), show("no reseed")}}
	}
	i := rs.seen
	rs.seen++
	listed := r.Reseeds[i]
	at, atErr := strconv.ParseInt(facts.At.String(), 10, 64)
	seed, seedErr := strconv.ParseUint(facts.Seed.String(), 10, 64)
	if atErr != nil || seedErr != nil || at != listed.At || seed != listed.Seed || facts.Commitment != listed.Commitment {
		what := fmt.Sprintf("reseeded, against the replay's reseed %d of %d", i+1, len(r.Reseeds))
		mismatches = append(mismatches, Mismatch{seq, what, show(said), show(listed)})
	}
	if m, bad := reseedCommitment(r, i, seq); bad {
		mismatches = append(mismatches, m)
	}
	return NewStream(listed.Seed), mismatches
}

// missing is a mismatch when fewer `reseeded` events came than the replay lists reseeds.
func (rs *reseeds) missing() (m Mismatch, bad bool) {
	n := len(rs.replay.Reseeds)
	said, listed := fmt.Sprintf("%d reseeded events", rs.seen), fmt.Sprintf("%d: one per reseed the replay lists", n)
	return Mismatch{"-", "reseeded", show(said), show(listed)}, rs.seen < n
}

// note says how many reseeds were checked.
func (rs *reseeds) note() string {
	return fmt.Sprintf("%d reseeds checked (commitment, a new stream, the undrawn cards shuffled again)", rs.seen)
}
