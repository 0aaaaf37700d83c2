package verify

// Games taken over by another server verify too. Issue 20: "A resumed game must not let a bot profit from
// anything it saw that was lost (e.g. dice shown after the last persisted action): say how (for example a
// fresh committed seed for the rest of the game, recorded in the replay so it still verifies)"; the
// platform promises "trust that outsiders can check without reading our code". Fixtures:
// ../../fixtures/replay_classic_reseeded.json and replay_2210_reseeded.json (format 2, two reseeds each,
// the second seed 2^62-1), with their `conquest replay events` output.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// reseededGame is a format 2 fixture and the sequences of its two `reseeded` events.
type reseededGame struct {
	name       string
	reseededAt [2]int64
}

var reseededGames = []reseededGame{
	{"replay_classic_reseeded", [2]int64{133, 643}},
	{"replay_2210_reseeded", [2]int64{158, 253}},
}

// verifyText runs VerifyFiles on a replay's and its events' text.
func verifyText(t *testing.T, replay, events string) ([]string, []Mismatch) {
	t.Helper()
	notes, mismatches, err := VerifyFiles([]byte(replay), []byte(events))
	if err != nil {
		t.Fatal(err)
	}
	return notes, mismatches
}

// texts is a fixture's replay, its events and its parsed replay.
func texts(t *testing.T, name string) (string, string, *Replay) {
	t.Helper()
	replay, events := string(readFixture(t, name+".json")), string(readFixture(t, name+".events.jsonl"))
	parsed, err := ParseReplay([]byte(replay))
	if err != nil {
		t.Fatal(err)
	}
	return replay, events, parsed
}

// seqAt is the sequence of a mismatch as a number (-1 for the whole game's "-").
func seqAt(m Mismatch) int64 {
	seq, err := strconv.ParseInt(m.Sequence, 10, 64)
	if err != nil {
		return -1
	}
	return seq
}

func TestReseededGamesVerify(t *testing.T) {
	for _, game := range reseededGames {
		replay, events, parsed := texts(t, game.name)
		want := []Reseed{{parsed.Reseeds[0].At, 9007199254740993, parsed.Reseeds[0].Commitment},
			{parsed.Reseeds[1].At, 4611686018427387903, parsed.Reseeds[1].Commitment}}
		if parsed.Format != 2 || !slices.Equal(parsed.Reseeds, want) {
			t.Fatalf("%s: format %d reseeds %v, want format 2 and the fresh seeds 2^53+1 and 2^62-1 exactly", game.name, parsed.Format, parsed.Reseeds)
		}
		notes, mismatches := verifyText(t, replay, events)
		if len(mismatches) > 0 || len(notes) != 2 || !strings.HasPrefix(notes[1], "2 reseeds checked") {
			t.Errorf("%s: notes %v, mismatches %v", game.name, notes, mismatches)
		}
	}
}

// (a) A reseed's commitment changed in the replay file: reported at its reseeded event, and only there
// (the seed is the one played, so the draws stay in step).
func TestReseedCommitmentChangedInTheReplayFails(t *testing.T) {
	for _, game := range reseededGames {
		replay, events, parsed := texts(t, game.name)
		commitment := parsed.Reseeds[0].Commitment
		replay = strings.Replace(replay, commitment, strings.Repeat("0", len(commitment)), 1)
		_, mismatches := verifyText(t, replay, events)
		at := strconv.FormatInt(game.reseededAt[0], 10)
		if !slices.Equal(sequences(mismatches), []string{at, at}) || !strings.Contains(mismatches[1].What, "the replay's commitment") {
			t.Errorf("%s: mismatches %v, want the reseeded event %s differing from the replay and a wrong commitment", game.name, mismatches, at)
		}
	}
}

// (b) A fresh seed changed in the replay and in the events, its commitment recomputed: every reseed
// check holds, and the dice after it give the change away.
func TestFreshSeedChangedWithItsCommitmentFails(t *testing.T) {
	for _, game := range reseededGames {
		replay, events, parsed := texts(t, game.name)
		old := parsed.Reseeds[1]
		seed := old.Seed - 1
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d:%s:%d", seed, parsed.GameID, old.At)))
		for _, text := range []*string{&replay, &events} {
			*text = strings.Replace(*text, strconv.FormatUint(old.Seed, 10), strconv.FormatUint(seed, 10), 1)
			*text = strings.Replace(*text, old.Commitment, hex.EncodeToString(sum[:]), 1)
		}
		_, mismatches := verifyText(t, replay, events)
		if len(mismatches) == 0 || slices.ContainsFunc(mismatches, func(m Mismatch) bool { return seqAt(m) <= game.reseededAt[1] }) {
			t.Errorf("%s: mismatches %v, want only draws after event %d", game.name, mismatches, game.reseededAt[1])
		}
	}
}

// (c) The reseeded event removed from the events: reported missing, and the dice after it mismatch.
func TestReseededEventRemovedFails(t *testing.T) {
	for _, game := range reseededGames {
		replay, events, _ := texts(t, game.name)
		lines := strings.Split(events, "\n")
		i := slices.IndexFunc(lines, func(line string) bool {
			return strings.HasPrefix(line, fmt.Sprintf(`{"sequence":"%d",`, game.reseededAt[1]))
		})
		events = strings.Join(slices.Delete(lines, i, i+1), "\n")
		_, mismatches := verifyText(t, replay, events)
		missing := slices.IndexFunc(mismatches, func(m Mismatch) bool { return m.Sequence == "-" && m.What == "reseeded" })
		after := slices.ContainsFunc(mismatches, func(m Mismatch) bool { return seqAt(m) > game.reseededAt[1] })
		before := slices.ContainsFunc(mismatches, func(m Mismatch) bool { return 0 <= seqAt(m) && seqAt(m) < game.reseededAt[1] })
		if missing < 0 || !after || before {
			t.Errorf("%s: mismatches %v, want the reseed reported missing and draws after event %d", game.name, mismatches, game.reseededAt[1])
		}
	}
}

// (d) A battle roll after the last reseed changed: reported at its event, and only there.
func TestBattleRollAfterAReseedChangedFails(t *testing.T) {
	after := func(seq int64) bool { return seq > reseededGames[0].reseededAt[1] }
	replay, events := load(t, reseededGames[0].name)
	i := slices.IndexFunc(events, func(e Event) bool { return e.Kind == "rolled" && after(e.Sequence) })
	events[i].Body.AttackerDice[0] = events[i].Body.AttackerDice[0]%6 + 1
	_, mismatches, _ := Verify(replay, events)
	if want := strconv.FormatInt(events[i].Sequence, 10); !slices.Equal(sequences(mismatches), []string{want}) {
		t.Errorf("classic: a changed roll at event %s gave %v", want, mismatches)
	}

	after = func(seq int64) bool { return seq > reseededGames[1].reseededAt[1] }
	replay, events2210 := load2210(t, reseededGames[1].name)
	j := slices.IndexFunc(events2210, func(e Event2210) bool { return e.Kind == "rolled" && after(e.Sequence) })
	events2210[j].Data.DefenderDice[0] = events2210[j].Data.DefenderDice[0]%6 + 1
	_, mismatches, _ = Verify2210(replay, events2210)
	if want := strconv.FormatInt(events2210[j].Sequence, 10); !slices.Equal(sequences(mismatches), []string{want}) {
		t.Errorf("2210: a changed roll at event %s gave %v", want, mismatches)
	}
}

// A reseeded event the replay does not list is reported at that event.
func TestReseededEventBeyondTheReplaysReseedsFails(t *testing.T) {
	replay, events := load(t, "replay_secret_mission")
	facts := ReseedFacts{json.Number("5"), json.Number("9007199254740993"), "ab"}
	events = slices.Insert(events, 10, Event{Sequence: events[9].Sequence, Kind: "reseeded", Body: Body{ReseedFacts: facts}})
	_, mismatches, _ := Verify(replay, events)
	if len(mismatches) != 1 || !strings.HasPrefix(mismatches[0].What, "reseeded (an event beyond the replay's 0 reseeds)") {
		t.Fatalf("mismatches %v, want only the unlisted reseeded event", mismatches)
	}
}

// docs/protocol.md: a replay with reseeds is format 2; a verifier refuses a format it does not know by
// its number.
func TestOtherFormatsAreRefusedByTheirNumber(t *testing.T) {
	data := strings.Replace(string(readFixture(t, "replay_secret_mission.json")), `"format":1`, `"format":3`, 1)
	if _, err := ParseReplay([]byte(data)); err == nil || !strings.Contains(err.Error(), "replay format 3: this verifier reads format 1") {
		t.Fatalf("a format 3 replay gave %v, want its refusal by number", err)
	}
	data = strings.Replace(string(readFixture(t, "replay_classic_reseeded.json")), `"format":2`, `"format":1`, 1)
	if _, err := ParseReplay([]byte(data)); err == nil || !strings.Contains(err.Error(), `"reseeds" is format 2, not 1`) {
		t.Fatalf("a format 1 replay with reseeds gave %v", err)
	}
}
