package verify

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// boards: territories and wild cards of each board a replay can name.
var boards = map[string][2]int{"classic": {42, 2}}

// Replay is what the verifier reads from a replay file.
type Replay struct {
	Format         int      `json:"format"`
	Seed           uint64   `json:"seed"`
	GameID         string   `json:"game_id"`
	SeedCommitment string   `json:"seed_commitment"`
	DiceVersion    int      `json:"dice_version"`
	Seats          []string `json:"seats"`
	Board          string   `json:"board"`
	Game           string   `json:"game"`    // "2210" for RISK 2210 A.D. (Game2210), absent for classic
	Reseeds        []Reseed `json:"reseeds"` // format 2: the game's takeovers, in order
	Rules          struct {
		Setup                  string `json:"setup"`
		Objective              string `json:"objective"`
		ThreeContinentMissions bool   `json:"three_continent_missions"`
	} `json:"rules"`
}

// ParseReplay reads a replay file's JSON; a replay without dice_version is version 1.
func ParseReplay(data []byte) (*Replay, error) {
	r := &Replay{DiceVersion: 1}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("not a replay file: %w", err)
	}
	if r.GameID == "" || len(r.Seats) == 0 {
		return nil, fmt.Errorf("not a replay file: expected a JSON object with seed, game_id, seats and rules")
	}
	if r.Format != 1 && r.Format != 2 {
		return nil, fmt.Errorf("replay format %d: this verifier reads format 1 (a game played on one server) and "+
			"format 2 (a game taken over by another server, with \"reseeds\"); a newer kit may read it", r.Format)
	}
	if r.Format == 1 && len(r.Reseeds) > 0 {
		return nil, fmt.Errorf("a replay with \"reseeds\" is format 2, not 1: the file is inconsistent")
	}
	return r, nil
}

// Body holds the fields of every event kind the verifier reads (proto3 JSON names; absent means 0).
type Body struct {
	Rolls        []int `json:"rolls"`
	Seat         int   `json:"seat"`
	Mission      int   `json:"mission"`
	Missions     []int `json:"missions"`
	Owners       []int `json:"owners"`
	Territories  []int `json:"territories"`
	Card         int   `json:"card"`
	Cards        []int `json:"cards"`
	Source       int   `json:"source"`
	Target       int   `json:"target"`
	AttackerDice []int `json:"attackerDice"`
	DefenderDice []int `json:"defenderDice"`
	ReseedFacts        // reseeded
}

// Event is one GameEvent as `conquest replay events` prints it: its sequence and its oneof key.
type Event struct {
	Sequence int64
	Kind     string
	Body     Body
}

// ParseEvents reads `conquest replay events` output (one JSON object per line), in sequence order.
func ParseEvents(data []byte) ([]Event, error) {
	var events []Event
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, 1<<24)
	for line := 1; scanner.Scan(); line++ {
		if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(scanner.Bytes(), &fields); err != nil {
			return nil, fmt.Errorf("events line %d: %w", line, err)
		}
		var e Event
		for key, raw := range fields {
			if key == "sequence" {
				var text string
				if err := json.Unmarshal(raw, &text); err != nil {
					return nil, fmt.Errorf("events line %d: sequence must be an int64 as a JSON string: %w", line, err)
				}
				seq, err := strconv.ParseInt(text, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("events line %d: %w", line, err)
				}
				e.Sequence = seq
			} else {
				e.Kind = key
				if err := json.Unmarshal(raw, &e.Body); err != nil {
					return nil, fmt.Errorf("events line %d: %s: %w", line, key, err)
				}
			}
		}
		events = append(events, e)
	}
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Sequence, b.Sequence) })
	return events, scanner.Err()
}

// Mismatch is one disagreement: the event's sequence ("-" for the whole game), what was compared, what
// the event says and what the seed gives.
type Mismatch struct {
	Sequence, What, Event, Seed string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("MISMATCH event %s %s: the event says %s; the seed gives %s", m.Sequence, m.What, m.Event, m.Seed)
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkCommitment compares sha256 of "<seed>:<game_id>" with the replay's seed commitment.
func checkCommitment(r *Replay) (m Mismatch, bad bool) {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d:%s", r.Seed, r.GameID)))
	commitment := hex.EncodeToString(sum[:])
	return Mismatch{"-", "seed commitment", show(r.SeedCommitment), show(commitment)}, commitment != r.SeedCommitment
}

// VerifyFiles checks a replay file and its `conquest replay events` output: a RISK 2210 A.D. replay
// ("game": "2210") with ParseEvents2210 and Verify2210, any other with ParseEvents and Verify.
func VerifyFiles(replayData, eventsData []byte) (notes []string, mismatches []Mismatch, err error) {
	replay, err := ParseReplay(replayData)
	if err != nil {
		return nil, nil, err
	}
	if replay.Game == Game2210 {
		events, err := ParseEvents2210(eventsData)
		if err != nil {
			return nil, nil, err
		}
		return Verify2210(replay, events)
	}
	events, err := ParseEvents(eventsData)
	if err != nil {
		return nil, nil, err
	}
	return Verify(replay, events)
}

// Verify checks the seed commitment and, for dice version 2, every draw against the events. Notes say
// what was checked; an error means the replay cannot be checked at all (an unknown version or board).
func Verify(r *Replay, events []Event) (notes []string, mismatches []Mismatch, err error) {
	if r.Game == Game2210 {
		return nil, nil, fmt.Errorf("a RISK 2210 A.D. replay: Verify2210 checks it, with ParseEvents2210's events")
	}
	mismatch := func(seq string, what string, event, seed any) {
		mismatches = append(mismatches, Mismatch{seq, what, show(event), show(seed)})
	}
	if m, bad := checkCommitment(r); bad {
		mismatches = append(mismatches, m)
	}
	if r.DiceVersion == 1 {
		for i := range r.Reseeds {
			if m, bad := reseedCommitment(r, i, "-"); bad {
				mismatches = append(mismatches, m)
			}
		}
		notes = append(notes, fmt.Sprintf("dice version 1 (CPython Mersenne Twister) is checked by `conquest replay verify` "+
			"only; seed commitment and %d reseed commitments checked", len(r.Reseeds)))
		return notes, mismatches, nil
	}
	if r.DiceVersion != 2 {
		return nil, nil, fmt.Errorf("dice_version %d is unknown to this verifier; it knows 1 and 2", r.DiceVersion)
	}
	board, ok := boards[r.Board]
	if !ok {
		return nil, nil, fmt.Errorf("board %q is unknown to this verifier; it knows classic", r.Board)
	}
	territories, cards := board[0], board[0]+board[1]
	seats := len(r.Seats)
	deals := r.Rules.Setup == "dealt" || r.Rules.Setup == "neutral_piles"
	missionGame := r.Rules.Objective == "missions"
	s := NewStream(r.Seed)
	var missions, owners, deck, reserved []int
	shuffled, rolledOff, dealtSeen, missionsSeen, draws := false, false, false, false, 0
	taken := reseeds{replay: r}
	for _, e := range events {
		seq, b := strconv.FormatInt(e.Sequence, 10), e.Body
		switch e.Kind {
		case "firstPlayerRolled":
			if rolledOff {
				mismatch(seq, "a second roll for the first player", b.Rolls, "one per game")
				continue
			}
			rolledOff = true
			rolls, starter := RollOff(s, seats)
			if !slices.Equal(b.Rolls, rolls) || b.Seat != starter {
				mismatch(seq, "first_player_rolled", map[string]any{"rolls": b.Rolls, "seat": b.Seat},
					map[string]any{"rolls": rolls, "seat": starter})
			}
			if missionGame {
				missions = DealMissions(s, seats, r.Rules.ThreeContinentMissions)
			}
			if deals {
				owners = DealTerritories(s, territories, seats, r.Rules.Setup, starter)
			}
		case "missionDealt":
			missionsSeen = true
			if b.Seat < 0 || b.Seat >= len(missions) {
				mismatch(seq, fmt.Sprintf("mission_dealt to seat %d", b.Seat), b.Mission, "no mission for that seat")
			} else if missions[b.Seat] != b.Mission {
				mismatch(seq, fmt.Sprintf("mission_dealt to seat %d", b.Seat), b.Mission, missions[b.Seat])
			}
		case "missionsRevealed":
			missionsSeen = true
			if !slices.Equal(b.Missions, missions) {
				mismatch(seq, "missions_revealed", b.Missions, missions)
			}
		case "dealt":
			dealtSeen = true
			if owners == nil {
				mismatch(seq, "dealt owners", b.Owners, "no deal in setup "+r.Rules.Setup)
			} else if !slices.Equal(b.Owners, owners) {
				mismatch(seq, "dealt owners", b.Owners, owners)
			}
		case "headquartersRevealed":
			reserved = b.Territories
		case "turnStarted":
			if !shuffled {
				shuffled = true
				deck = ShuffledDeck(s, cards, reserved)
			}
		case "drew":
			if len(deck) == 0 {
				mismatch(seq, "drew", b.Card, "an empty deck")
				continue
			}
			front := deck[0]
			deck = deck[1:]
			if b.Card != -1 && b.Card != front {
				mismatch(seq, fmt.Sprintf("drew (seat %d)", b.Seat), b.Card, front)
			}
		case "traded":
			if shuffled {
				deck = append(deck, b.Cards...)
			}
		case "reseeded":
			fresh, bad := taken.at(seq, b.ReseedFacts)
			mismatches = append(mismatches, bad...)
			if fresh != nil {
				s = fresh
				s.Shuffle(deck) // the draw pile as it stands (none before the first turn: nothing drawn)
			}
		case "rolled":
			draws++
			attacker, defender := Battle(s, len(b.AttackerDice), len(b.DefenderDice))
			if !slices.Equal(b.AttackerDice, attacker) || !slices.Equal(b.DefenderDice, defender) {
				mismatch(seq, fmt.Sprintf("rolled %d->%d", b.Source, b.Target),
					map[string][]int{"attacker": b.AttackerDice, "defender": b.DefenderDice},
					map[string][]int{"attacker": attacker, "defender": defender})
			}
		}
	}
	if !rolledOff {
		mismatch("-", "first_player_rolled", "no such event", "every game rolls for the first player")
	}
	if deals && !dealtSeen {
		mismatch("-", "dealt", "no such event", "setup "+r.Rules.Setup+" deals the territories")
	}
	if missionGame && !missionsSeen {
		mismatch("-", "mission_dealt", "no such event", "a Secret Mission game deals missions")
	}
	if m, bad := taken.missing(); bad {
		mismatches = append(mismatches, m)
	}
	notes = append(notes, fmt.Sprintf("dice version 2: %d events, %d battle rolls checked", len(events), draws))
	if len(r.Reseeds) > 0 {
		notes = append(notes, taken.note())
	}
	return notes, mismatches, nil
}
