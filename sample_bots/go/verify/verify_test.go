package verify

// The replay verifier re-derives dice version 2 exactly (issue 23: "Each starter kit ... ships a replay
// verifier (re-derive every roll and shuffle from the revealed seed and compare with the events)").
// Vectors: ../../fixtures/dice_vectors.json; a recorded Secret Mission game (seed above 2^53):
// ../../fixtures/replay_secret_mission.json with its `conquest replay events` output.

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type vectorCase struct {
	Seed      string   `json:"seed"`
	Words     []uint32 `json:"words"`
	Uniform6  []int    `json:"uniform6"`
	Battle3v2 struct {
		Attacker []int `json:"attacker"`
		Defender []int `json:"defender"`
	} `json:"battle_3v2"`
	Rolloff4 struct {
		Rolls []int `json:"rolls"`
		Seat  int   `json:"seat"`
	} `json:"rolloff_4"`
	Deck44  []int `json:"deck_44"`
	Deal423 struct {
		FirstSeat int   `json:"first_seat"`
		Owners    []int `json:"owners"`
	} `json:"deal_42_3"`
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../fixtures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestVectors(t *testing.T) {
	var file struct {
		Version int          `json:"version"`
		Cases   []vectorCase `json:"cases"`
	}
	if err := json.Unmarshal(readFixture(t, "dice_vectors.json"), &file); err != nil {
		t.Fatal(err)
	}
	if file.Version != 2 || len(file.Cases) < 3 {
		t.Fatalf("expected dice version 2 vectors with 3 cases, got version %d, %d cases", file.Version, len(file.Cases))
	}
	for _, c := range file.Cases {
		seed, err := strconv.ParseUint(c.Seed, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		s := NewStream(seed)
		for i, want := range c.Words {
			if got := s.Word(); got != want {
				t.Errorf("seed %s word(%d) = %d, want %d", c.Seed, i, got, want)
			}
		}
		s = NewStream(seed)
		for i, want := range c.Uniform6 {
			if got := s.Uniform(6); got != want {
				t.Errorf("seed %s uniform6[%d] = %d, want %d", c.Seed, i, got, want)
			}
		}
		attacker, defender := Battle(NewStream(seed), 3, 2)
		if !slices.Equal(attacker, c.Battle3v2.Attacker) || !slices.Equal(defender, c.Battle3v2.Defender) {
			t.Errorf("seed %s battle_3v2 = %v %v, want %+v", c.Seed, attacker, defender, c.Battle3v2)
		}
		rolls, starter := RollOff(NewStream(seed), 4)
		if !slices.Equal(rolls, c.Rolloff4.Rolls) || starter != c.Rolloff4.Seat {
			t.Errorf("seed %s rolloff_4 = %v seat %d, want %+v", c.Seed, rolls, starter, c.Rolloff4)
		}
		if deck := ShuffledDeck(NewStream(seed), 44, nil); !slices.Equal(deck, c.Deck44) {
			t.Errorf("seed %s deck_44 = %v, want %v", c.Seed, deck, c.Deck44)
		}
		if owners := DealTerritories(NewStream(seed), 42, 3, "dealt", c.Deal423.FirstSeat); !slices.Equal(owners, c.Deal423.Owners) {
			t.Errorf("seed %s deal_42_3 = %v, want %v", c.Seed, owners, c.Deal423.Owners)
		}
	}
}

// load reads a recorded game: NAME.json and its `conquest replay events` output NAME.events.jsonl.
func load(t *testing.T, name string) (*Replay, []Event) {
	t.Helper()
	replay, err := ParseReplay(readFixture(t, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	events, err := ParseEvents(readFixture(t, name+".events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return replay, events
}

func recorded(t *testing.T) (*Replay, []Event) { return load(t, "replay_secret_mission") }

func sequences(mismatches []Mismatch) []string {
	var out []string
	for _, m := range mismatches {
		out = append(out, m.Sequence)
	}
	return out
}

func TestRecordedGameVerifies(t *testing.T) {
	replay, events := recorded(t)
	if replay.Seed != 5901499535385924463 {
		t.Fatalf("seed read as %d", replay.Seed)
	}
	_, mismatches, err := Verify(replay, events)
	if err != nil || len(mismatches) > 0 {
		t.Fatalf("err %v, mismatches %v", err, mismatches)
	}
}

func TestTamperedRollFails(t *testing.T) {
	replay, events := recorded(t)
	i := slices.IndexFunc(events, func(e Event) bool { return e.Sequence == 70 })
	events[i].Body.AttackerDice = []int{6, 3, 3}
	_, mismatches, _ := Verify(replay, events)
	want := Mismatch{"70", "rolled 1->5", `{"attacker":[6,3,3],"defender":[2]}`, `{"attacker":[5,3,3],"defender":[2]}`}
	if len(mismatches) != 1 || mismatches[0] != want {
		t.Fatalf("mismatches %v, want only %v", mismatches, want)
	}
}

func TestTamperedDrawAndWrongSeedFail(t *testing.T) {
	replay, events := recorded(t)
	i := slices.IndexFunc(events, func(e Event) bool { return e.Sequence == 101 })
	events[i].Body.Card = 30
	if _, mismatches, _ := Verify(replay, events); !slices.Equal(sequences(mismatches), []string{"101"}) {
		t.Fatalf("mismatches %v, want only event 101", mismatches)
	}
	replay, events = recorded(t)
	replay.Seed++
	_, mismatches, _ := Verify(replay, events)
	if len(mismatches) < 10 || mismatches[0].What != "seed commitment" {
		t.Fatalf("a wrong seed gave %d mismatches: %v", len(mismatches), mismatches)
	}
}

func TestDiceVersion1LeftToTheServer(t *testing.T) {
	replay, events := recorded(t)
	replay.DiceVersion = 1
	notes, mismatches, err := Verify(replay, events)
	if err != nil || len(mismatches) > 0 || !strings.Contains(notes[0], "checked by `conquest replay verify` only") {
		t.Fatalf("notes %v mismatches %v err %v", notes, mismatches, err)
	}
	replay.GameID = "other"
	if _, mismatches, _ = Verify(replay, nil); len(mismatches) != 1 || mismatches[0].What != "seed commitment" {
		t.Fatalf("a wrong game id gave %v", mismatches)
	}
}

// replay_classic_long: 45 cards drawn, so the last one is the first card traded back.
func TestDrawsPastTheFirst44CardsReachTradedCards(t *testing.T) {
	replay, events := load(t, "replay_classic_long")
	if draws := len(slices.DeleteFunc(slices.Clone(events), func(e Event) bool { return e.Kind != "drew" })); draws != 45 {
		t.Fatalf("the fixture has %d draws, want 45", draws)
	}
	if _, mismatches, _ := Verify(replay, events); len(mismatches) > 0 {
		t.Fatalf("mismatches %v", mismatches)
	}
	events[slices.IndexFunc(events, func(e Event) bool { return e.Sequence == 1104 })].Body.Card = 17
	if _, mismatches, _ := Verify(replay, events); len(mismatches) != 1 || mismatches[0].Sequence != "1104" || mismatches[0].Seed != "16" {
		t.Fatalf("mismatches %v, want only event 1104 (the seed gives 16)", mismatches)
	}
}
