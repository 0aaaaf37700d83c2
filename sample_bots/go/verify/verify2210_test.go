package verify

// RISK 2210 A.D. replays verify too. Issue 23: "Each starter kit (TypeScript, Go, Rust, Java) ships a
// replay verifier (re-derive every roll and shuffle from the revealed seed and compare with the events),
// run in `make interop` on replays of every ruleset against `conquest replay verify`."
// Vectors: ../../fixtures/dice_vectors_2210.json (docs/protocol.md, "RISK 2210 A.D. games"); recorded 2-,
// 3- and 5-player games: ../../fixtures/replay_2210_*.json with their `conquest replay events` output.

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type battleVector struct {
	AttackerFaces []int `json:"attacker_faces"`
	DefenderFaces []int `json:"defender_faces"`
	Attacker      []int `json:"attacker"`
	Defender      []int `json:"defender"`
}

type decksVector struct {
	Land  []int `json:"land"`
	Water []int `json:"water"`
	Lunar []int `json:"lunar"`
}

type vectorCase2210 struct {
	Seed          string       `json:"seed"`
	D8            []int        `json:"d8"`
	BattleA866D86 battleVector `json:"battle_a866_d86"`
	BattleA88D8   battleVector `json:"battle_a88_d8"`
	RolloffFirst4 struct {
		Rolls [][]int `json:"rolls"`
		Seat  int     `json:"seat"`
	} `json:"rolloff_first_4"`
	RolloffOrder4 struct {
		Rolls [][]int `json:"rolls"`
		Order []int   `json:"order"`
	} `json:"rolloff_order_4"`
	Setup4 struct {
		decksVector
		Command    [][]int `json:"command"`
		Devastated []int   `json:"devastated"`
		Rolls      [][]int `json:"rolls"`
		FirstSeat  int     `json:"first_seat"`
		WordsUsed  int     `json:"words_used"`
	} `json:"setup_4"`
	Setup2 struct {
		decksVector
		Neutral   decksVector `json:"neutral"`
		Rolls     [][]int     `json:"rolls"`
		FirstSeat int         `json:"first_seat"`
		WordsUsed int         `json:"words_used"`
	} `json:"setup_2"`
}

func (d decksVector) decks() [3][]int { return [3][]int{d.Land, d.Water, d.Lunar} }

func vectors2210(t *testing.T) []vectorCase2210 {
	t.Helper()
	var file struct {
		Version int              `json:"version"`
		Game    string           `json:"game"`
		Cases   []vectorCase2210 `json:"cases"`
	}
	if err := json.Unmarshal(readFixture(t, "dice_vectors_2210.json"), &file); err != nil {
		t.Fatal(err)
	}
	if file.Version != 2 || file.Game != "2210" || len(file.Cases) < 2 {
		t.Fatalf("expected 2210 dice version 2 vectors, got version %d game %q, %d cases", file.Version, file.Game, len(file.Cases))
	}
	for _, c := range file.Cases {
		if len(c.D8) == 0 || len(c.Setup4.Land) != 42 || len(c.Setup2.Land) != 38 || c.Setup4.WordsUsed == 0 {
			t.Fatalf("seed %s: an entry is missing from the vectors", c.Seed)
		}
	}
	return file.Cases
}

func seedOf(t *testing.T, c vectorCase2210) uint64 {
	t.Helper()
	seed, err := strconv.ParseUint(c.Seed, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return seed
}

func TestVectors2210DiceBattlesAndRollOffs(t *testing.T) {
	for _, c := range vectors2210(t) {
		seed := seedOf(t, c)
		s := NewStream(seed)
		for i, want := range c.D8 {
			if got := Die(s, 8); got != want {
				t.Errorf("seed %s d8[%d] = %d, want %d", c.Seed, i, got, want)
			}
		}
		for name, v := range map[string]battleVector{"battle_a866_d86": c.BattleA866D86, "battle_a88_d8": c.BattleA88D8} {
			attacker, defender := BattleFaces(NewStream(seed), v.AttackerFaces, v.DefenderFaces)
			if !slices.Equal(attacker, v.Attacker) || !slices.Equal(defender, v.Defender) {
				t.Errorf("seed %s %s = %v %v, want %v %v", c.Seed, name, attacker, defender, v.Attacker, v.Defender)
			}
		}
		order, rounds := OrderByRollOff(NewStream(seed), []int{0, 1, 2, 3}, true)
		if !slices.EqualFunc(rounds, c.RolloffFirst4.Rolls, slices.Equal) || order[0] != c.RolloffFirst4.Seat {
			t.Errorf("seed %s rolloff_first_4 = %v first %d, want %+v", c.Seed, rounds, order[0], c.RolloffFirst4)
		}
		order, rounds = OrderByRollOff(NewStream(seed), []int{0, 1, 2, 3}, false)
		if !slices.EqualFunc(rounds, c.RolloffOrder4.Rolls, slices.Equal) || !slices.Equal(order, c.RolloffOrder4.Order) {
			t.Errorf("seed %s rolloff_order_4 = %v order %v, want %+v", c.Seed, rounds, order, c.RolloffOrder4)
		}
	}
}

// The classic battle is the all-sixes 2210 battle, and the classic roll-off the first placer's.
func TestClassicDrawsAreThe2210DrawsWithSixes(t *testing.T) {
	for _, seed := range []uint64{1, 4242424242424242, 18446744073709551557} {
		for a := 1; a <= 3; a++ {
			for b := 1; b <= 2; b++ {
				attacker, defender := Battle(NewStream(seed), a, b)
				attacker2, defender2 := BattleFaces(NewStream(seed), []int{6, 6, 6}[:a], []int{6, 6}[:b])
				if !slices.Equal(attacker, attacker2) || !slices.Equal(defender, defender2) {
					t.Errorf("seed %d %dv%d: classic %v %v, 2210 %v %v", seed, a, b, attacker, defender, attacker2, defender2)
				}
			}
		}
	}
}

func TestVectors2210Setups(t *testing.T) {
	for _, c := range vectors2210(t) {
		seed := seedOf(t, c)
		v4 := c.Setup4
		s := NewStream(seed)
		territory, command := Decks2210(s)
		for d, want := range v4.decks() {
			if !slices.Equal(territory[d], want) {
				t.Errorf("seed %s setup_4 territory deck %d = %v, want %v", c.Seed, d, territory[d], want)
			}
		}
		if !slices.EqualFunc(command[:], v4.Command, slices.Equal) {
			t.Errorf("seed %s setup_4 command = %v, want %v", c.Seed, command, v4.Command)
		}
		if !slices.Equal(territory[0][:4], v4.Devastated) {
			t.Errorf("seed %s setup_4 devastated = %v, want %v", c.Seed, territory[0][:4], v4.Devastated)
		}
		order, rounds := OrderByRollOff(s, []int{0, 1, 2, 3}, true)
		if !slices.EqualFunc(rounds, v4.Rolls, slices.Equal) || order[0] != v4.FirstSeat {
			t.Errorf("seed %s setup_4 roll-off = %v first %d, want %v first %d", c.Seed, rounds, order[0], v4.Rolls, v4.FirstSeat)
		}
		if s.WordsUsed() != v4.WordsUsed {
			t.Errorf("seed %s setup_4 words used %d, want %d", c.Seed, s.WordsUsed(), v4.WordsUsed)
		}

		v2 := c.Setup2
		s = NewStream(seed)
		territory, _ = Decks2210(s)
		territory[0] = territory[0][4:] // devastation: the top four land cards, discarded
		neutral := [3][]int{slices.Clone(territory[0][:16]), slices.Clone(territory[1][:6]), slices.Clone(territory[2][:6])}
		for d, want := range v2.Neutral.decks() {
			if !slices.Equal(neutral[d], want) {
				t.Errorf("seed %s setup_2 neutral of deck %d = %v, want %v", c.Seed, d, neutral[d], want)
			}
		}
		Reshuffle2210(s, &territory)
		for d, want := range v2.decks() {
			if !slices.Equal(territory[d], want) {
				t.Errorf("seed %s setup_2 reshuffled deck %d = %v, want %v", c.Seed, d, territory[d], want)
			}
		}
		order, rounds = OrderByRollOff(s, []int{0, 1}, true)
		if !slices.EqualFunc(rounds, v2.Rolls, slices.Equal) || order[0] != v2.FirstSeat {
			t.Errorf("seed %s setup_2 roll-off = %v first %d, want %v first %d", c.Seed, rounds, order[0], v2.Rolls, v2.FirstSeat)
		}
		if s.WordsUsed() != v2.WordsUsed {
			t.Errorf("seed %s setup_2 words used %d, want %d", c.Seed, s.WordsUsed(), v2.WordsUsed)
		}
	}
}

var games2210 = []string{"replay_2210_two_player", "replay_2210_three_player", "replay_2210_five_player"}

// load2210 reads a recorded 2210 game: NAME.json and its `conquest replay events` output NAME.events.jsonl.
func load2210(t *testing.T, name string) (*Replay, []Event2210) {
	t.Helper()
	replay, err := ParseReplay(readFixture(t, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if replay.Game != Game2210 || replay.DiceVersion != 2 {
		t.Fatalf("%s: game %q dice version %d, want a 2210 game of dice version 2", name, replay.Game, replay.DiceVersion)
	}
	events, err := ParseEvents2210(readFixture(t, name+".events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return replay, events
}

func TestRecorded2210GamesVerify(t *testing.T) {
	seeds := map[string]uint64{ // above 2^53: read as 64-bit integers, not doubles
		"replay_2210_two_player":   8880083587908122874,
		"replay_2210_three_player": 7811897161428788894,
		"replay_2210_five_player":  4801031176913461614,
	}
	for _, name := range games2210 {
		replay, events := load2210(t, name)
		if replay.Seed != seeds[name] {
			t.Errorf("%s: seed read as %d", name, replay.Seed)
		}
		notes, mismatches, err := Verify2210(replay, events)
		if err != nil || len(mismatches) > 0 {
			t.Errorf("%s: err %v, mismatches %v", name, err, mismatches)
		}
		neutrals := map[bool]string{true: "28 neutral", false: "0 neutral"}[len(replay.Seats) == 2]
		if len(notes) != 1 || !strings.Contains(notes[0], "4 devastated, "+neutrals) {
			t.Errorf("%s: notes %v", name, notes)
		}
	}
}

// The CLI's entry point reads both kinds of replay and refuses events of the other kind.
func TestVerifyFilesDispatchesOnTheGame(t *testing.T) {
	for _, name := range append([]string{"replay_secret_mission", "replay_classic_long"}, games2210...) {
		notes, mismatches, err := VerifyFiles(readFixture(t, name+".json"), readFixture(t, name+".events.jsonl"))
		if err != nil || len(mismatches) > 0 || strings.Contains(notes[0], "2210") != strings.Contains(name, "2210") {
			t.Errorf("%s: notes %v, err %v, mismatches %v", name, notes, err, mismatches)
		}
	}
	if _, _, err := VerifyFiles(readFixture(t, "replay_2210_two_player.json"), readFixture(t, "replay_secret_mission.events.jsonl")); err == nil {
		t.Error("a 2210 replay with a classic game's events: no error")
	}
	if _, _, err := VerifyFiles(readFixture(t, "replay_secret_mission.json"), readFixture(t, "replay_2210_two_player.events.jsonl")); err == nil {
		t.Error("a classic replay with a 2210 game's events: no error")
	}
	replay, _ := load2210(t, "replay_2210_two_player")
	if _, _, err := Verify(replay, nil); err == nil {
		t.Error("the classic Verify took a 2210 replay")
	}
}

// first2210 is the index of the first event of kind whose facts satisfy ok.
func first2210(t *testing.T, events []Event2210, kind string, ok func(Data2210) bool) int {
	t.Helper()
	i := slices.IndexFunc(events, func(e Event2210) bool { return e.Kind == kind && ok(e.Data) })
	if i < 0 {
		t.Fatalf("no %s event in the fixture", kind)
	}
	return i
}

func any2210(Data2210) bool { return true }

// A changed fact of any checked kind is reported at its event, and only there (the draws stay in step).
func TestTampered2210EventsFailAtTheirEvent(t *testing.T) {
	cases := []struct {
		game, kind string
		ok         func(Data2210) bool
		tamper     func(e *Event2210)
	}{
		{"replay_2210_three_player", "rolled", // a battle with a d8: the mixed-radix draw
			func(d Data2210) bool {
				return slices.Contains(d.AttackerFaces, 8) || slices.Contains(d.DefenderFaces, 8)
			},
			func(e *Event2210) { e.Data.AttackerDice[0] = e.Data.AttackerDice[0]%6 + 1 }},
		{"replay_2210_five_player", "rolled", any2210, func(e *Event2210) { e.Data.DefenderDice[0] = e.Data.DefenderDice[0]%6 + 1 }},
		{"replay_2210_five_player", "cards_drawn", any2210, func(e *Event2210) {
			card := e.Data.Cards[0] // another card of the same Command deck
			e.Data.Cards[0] = card - card%20 + (card%20+1)%20
		}},
		{"replay_2210_five_player", "card_rolled", any2210, func(e *Event2210) { e.Data.Roll = e.Data.Roll%e.Data.Faces + 1 }},
		{"replay_2210_two_player", "card_rolled", any2210, func(e *Event2210) { e.Data.Roll = e.Data.Roll%e.Data.Faces + 1 }},
		{"replay_2210_two_player", "neutral_placed", any2210, func(e *Event2210) { e.Data.Territory = (e.Data.Territory + 1) % 42 }},
		{"replay_2210_three_player", "devastated", any2210, func(e *Event2210) { e.Data.Territory = (e.Data.Territory + 1) % 42 }},
		{"replay_2210_three_player", "first_player_rolled", any2210, func(e *Event2210) { e.Seat = (e.Seat + 1) % 3 }},
		{"replay_2210_five_player", "bid_tie_rolled", any2210, func(e *Event2210) { e.Data.Rolls[0][0] = e.Data.Rolls[0][0]%6 + 1 }},
		{"replay_2210_three_player", "territory_card_drawn", any2210, func(e *Event2210) { e.Data.Territory = (e.Data.Territory + 1) % 42 }},
	}
	for _, c := range cases {
		replay, events := load2210(t, c.game)
		i := first2210(t, events, c.kind, c.ok)
		c.tamper(&events[i])
		_, mismatches, _ := Verify2210(replay, events)
		if want := strconv.FormatInt(events[i].Sequence, 10); !slices.Equal(sequences(mismatches), []string{want}) {
			t.Errorf("%s: a changed %s at event %s gave %v", c.game, c.kind, want, mismatches)
		}
	}
}

func TestTampered2210MismatchSaysWhatAndBoth(t *testing.T) {
	replay, events := load2210(t, "replay_2210_two_player")
	i := first2210(t, events, "card_rolled", any2210) // an Assassin Bomb's d8
	events[i].Data.Roll = 1
	_, mismatches, _ := Verify2210(replay, events)
	want := Mismatch{"254", "card_rolled d8 (seat 1)", "1", "8"}
	if len(mismatches) != 1 || mismatches[0] != want {
		t.Fatalf("mismatches %v, want only %v", mismatches, want)
	}
}

func TestTampered2210SeedFails(t *testing.T) {
	replay, events := load2210(t, "replay_2210_three_player")
	replay.Seed++
	_, mismatches, _ := Verify2210(replay, events)
	if len(mismatches) < 10 || mismatches[0].What != "seed commitment" {
		t.Fatalf("a wrong seed gave %d mismatches: %v", len(mismatches), mismatches)
	}
	replay, events = load2210(t, "replay_2210_three_player")
	replay.GameID = "other"
	if _, mismatches, _ = Verify2210(replay, events); len(mismatches) != 1 || mismatches[0].What != "seed commitment" {
		t.Fatalf("a wrong game id gave %v", mismatches)
	}
}

func TestMissing2210EventsFail(t *testing.T) {
	without := func(events []Event2210, kind string, n int) []Event2210 {
		i := slices.IndexFunc(events, func(e Event2210) bool { return e.Kind == kind })
		return slices.Delete(events, i, i+n)
	}
	reported := func(mismatches []Mismatch, what string) bool {
		return slices.ContainsFunc(mismatches, func(m Mismatch) bool { return m.Sequence == "-" && m.What == what })
	}
	replay, events := load2210(t, "replay_2210_five_player")
	if _, mismatches, _ := Verify2210(replay, without(events, "first_player_rolled", 1)); !reported(mismatches, "first_player_rolled") {
		t.Errorf("no first_player_rolled: %v", mismatches)
	}
	replay, events = load2210(t, "replay_2210_five_player")
	if _, mismatches, _ := Verify2210(replay, without(events, "devastated", 4)); !reported(mismatches, "devastated") || len(mismatches) != 1 {
		t.Errorf("no devastated events: %v", mismatches)
	}
	replay, events = load2210(t, "replay_2210_two_player")
	if _, mismatches, _ := Verify2210(replay, without(events, "neutral_placed", 28)); !reported(mismatches, "neutral_placed") {
		t.Errorf("no neutral_placed events: %v", mismatches)
	}
}
