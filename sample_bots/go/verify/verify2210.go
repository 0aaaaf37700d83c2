package verify

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Game2210 is the replay file's "game" of a RISK 2210 A.D. game (a classic replay has none).
const Game2210 = "2210"

// neutralsPerDeck2210 is how many territories of each deck (land, water, lunar) a 2-player game gives
// the neutral, off the top once devastation is over.
var neutralsPerDeck2210 = [3]int{16, 6, 6}

// Event2210 is one GameEvent2210 as `conquest replay events` prints it for a 2210 replay (proto3 JSON):
// its sequence, kind, seat (-1: none) and facts (the string dataJson, parsed).
type Event2210 struct {
	Sequence int64
	Kind     string
	Seat     int
	Data     Data2210
}

// Data2210 holds the facts of every 2210 event kind the verifier reads (dataJson's names). A missing
// territory reads as -1, which no deck holds.
type Data2210 struct {
	Territory     int     `json:"territory"`
	Seats         []int   `json:"seats"`
	Rolls         [][]int `json:"rolls"`
	Source        int     `json:"source"`
	Target        int     `json:"target"`
	AttackerFaces []int   `json:"attacker_faces"`
	DefenderFaces []int   `json:"defender_faces"`
	AttackerDice  []int   `json:"attacker_dice"`
	DefenderDice  []int   `json:"defender_dice"`
	Faces         int     `json:"faces"`
	Roll          int     `json:"roll"`
	Cards         []int   `json:"cards"`
	ReseedFacts           // reseeded
}

// ParseEvents2210 reads a 2210 replay's `conquest replay events` output (one GameEvent2210 per line), in
// sequence order. A line without "kind" is not a GameEvent2210 (a classic game's events, say).
func ParseEvents2210(data []byte) ([]Event2210, error) {
	var events []Event2210
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, 1<<24)
	for line := 1; scanner.Scan(); line++ {
		if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
			continue
		}
		var raw struct {
			Sequence json.RawMessage `json:"sequence"`
			Kind     *string         `json:"kind"`
			Seat     int             `json:"seat"`
			DataJSON string          `json:"dataJson"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("events line %d: %w", line, err)
		}
		if raw.Kind == nil {
			return nil, fmt.Errorf(`events line %d: not a GameEvent2210 (no "kind"): a 2210 replay's events are needed`, line)
		}
		e := Event2210{Kind: *raw.Kind, Seat: raw.Seat, Data: Data2210{Territory: -1}}
		if raw.Sequence != nil {
			text := string(raw.Sequence)
			_ = json.Unmarshal(raw.Sequence, &text) // an int64 is a JSON string in proto3 JSON; a number also reads
			seq, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("events line %d: sequence: %w", line, err)
			}
			e.Sequence = seq
		}
		if raw.DataJSON != "" {
			if err := json.Unmarshal([]byte(raw.DataJSON), &e.Data); err != nil {
				return nil, fmt.Errorf("events line %d: %s dataJson: %w", line, e.Kind, err)
			}
		}
		events = append(events, e)
	}
	slices.SortStableFunc(events, func(a, b Event2210) int { return cmp.Compare(a.Sequence, b.Sequence) })
	return events, scanner.Err()
}

// territoryDeck2210 is the deck (0 land, 1 water, 2 lunar) holding a territory's card, or -1.
func territoryDeck2210(territory int) int {
	for d, ids := range TerritoryDecks2210 {
		if ids[0] <= territory && territory < ids[1] {
			return d
		}
	}
	return -1
}

var deckNames2210 = [3]string{"land", "water", "lunar"}
var commandNames2210 = [CommandDecks2210]string{"Land", "Diplomat", "Naval", "Space", "Nuclear"}

// sixOrEight: 2210 dice have 6 or 8 faces.
func sixOrEight(faces ...int) bool {
	return !slices.ContainsFunc(faces, func(f int) bool { return f != 6 && f != 8 })
}

// Verify2210 checks a RISK 2210 A.D. replay: the seed commitment and every draw against the events, as
// docs/protocol.md's table "Checking a 2210 game's draws" says. Notes say what was checked; an error
// means the replay cannot be checked at all.
func Verify2210(r *Replay, events []Event2210) (notes []string, mismatches []Mismatch, err error) {
	mismatch := func(seq string, what string, event, seed any) {
		mismatches = append(mismatches, Mismatch{seq, what, show(event), show(seed)})
	}
	if m, bad := checkCommitment(r); bad {
		mismatches = append(mismatches, m)
	}
	if r.DiceVersion != 2 {
		return nil, nil, fmt.Errorf("a 2210 replay of dice_version %d: 2210 games draw from dice version 2 only", r.DiceVersion)
	}
	seats := len(r.Seats)
	s := NewStream(r.Seed)
	territory, command := Decks2210(s)
	// The neutral's territories: land cards 5 to 20 of the deck as first shuffled, then water's and lunar's top.
	var neutral []int
	if seats == 2 {
		n := neutralsPerDeck2210
		neutral = slices.Concat(territory[0][4:4+n[0]], territory[1][:n[1]], territory[2][:n[2]])
	}
	var devastated, neutrals, bidTies, battles, cardRolls, commandCards, territoryCards int
	rolledOff := false
	taken := reseeds{replay: r}
	// take is a deck's top card, taken off; false when the deck is empty.
	take := func(deck *[]int) (int, bool) {
		if len(*deck) == 0 {
			return 0, false
		}
		top := (*deck)[0]
		*deck = (*deck)[1:]
		return top, true
	}
	for _, e := range events {
		seq, d := strconv.FormatInt(e.Sequence, 10), e.Data
		switch e.Kind {
		case "devastated":
			if devastated == 4 {
				mismatch(seq, "devastated", d.Territory, "devastation turns over four land cards, not five")
				continue
			}
			devastated++
			if top, _ := take(&territory[0]); d.Territory != top {
				mismatch(seq, fmt.Sprintf("devastated (land card %d of 4)", devastated), d.Territory, top)
			}
		case "neutral_placed":
			if seats != 2 {
				mismatch(seq, "neutral_placed", d.Territory, fmt.Sprintf("no neutral draw in a %d-player game", seats))
				continue
			}
			if neutrals == len(neutral) {
				mismatch(seq, "neutral_placed", d.Territory, fmt.Sprintf("the neutral draw is %d territories", len(neutral)))
				continue
			}
			if want := neutral[neutrals]; d.Territory != want {
				mismatch(seq, fmt.Sprintf("neutral_placed (%d of %d)", neutrals+1, len(neutral)), d.Territory, want)
			}
			neutrals++
			if neutrals == len(neutral) {
				Reshuffle2210(s, &territory)
			}
		case "reseeded":
			fresh, bad := taken.at(seq, d.ReseedFacts)
			mismatches = append(mismatches, bad...)
			if fresh != nil {
				s = fresh
				Reseed2210(s, &territory, &command)
			}
		case "first_player_rolled":
			if rolledOff {
				mismatch(seq, "a second first_player_rolled", d.Rolls, "one per game")
				continue
			}
			rolledOff = true
			order, rounds := OrderByRollOff(s, idRange(0, seats), true)
			if !slices.EqualFunc(d.Rolls, rounds, slices.Equal) || e.Seat != order[0] {
				mismatch(seq, "first_player_rolled", map[string]any{"rolls": d.Rolls, "seat": e.Seat},
					map[string]any{"rolls": rounds, "seat": order[0]})
			}
		case "bid_tie_rolled":
			bidTies++
			if _, rounds := OrderByRollOff(s, d.Seats, false); !slices.EqualFunc(d.Rolls, rounds, slices.Equal) {
				mismatch(seq, fmt.Sprintf("bid_tie_rolled among seats %v", d.Seats), d.Rolls, rounds)
			}
		case "rolled":
			what := fmt.Sprintf("rolled %d->%d", d.Source, d.Target)
			a, b := len(d.AttackerFaces), len(d.DefenderFaces)
			if a < 1 || a > 3 || b < 1 || b > 2 || !sixOrEight(d.AttackerFaces...) || !sixOrEight(d.DefenderFaces...) {
				mismatch(seq, what+" faces", map[string][]int{"attacker_faces": d.AttackerFaces, "defender_faces": d.DefenderFaces},
					"1-3 attacker and 1-2 defender dice of 6 or 8 faces (nothing drawn)")
				continue
			}
			battles++
			attacker, defender := BattleFaces(s, d.AttackerFaces, d.DefenderFaces)
			if !slices.Equal(d.AttackerDice, attacker) || !slices.Equal(d.DefenderDice, defender) {
				mismatch(seq, fmt.Sprintf("%s with faces %v v %v", what, d.AttackerFaces, d.DefenderFaces),
					map[string][]int{"attacker": d.AttackerDice, "defender": d.DefenderDice},
					map[string][]int{"attacker": attacker, "defender": defender})
			}
		case "card_rolled":
			if !sixOrEight(d.Faces) {
				mismatch(seq, fmt.Sprintf("card_rolled (seat %d) faces", e.Seat), d.Faces, "a d6 or a d8 (nothing drawn)")
				continue
			}
			cardRolls++
			if roll := Die(s, d.Faces); d.Roll != roll {
				mismatch(seq, fmt.Sprintf("card_rolled d%d (seat %d)", d.Faces, e.Seat), d.Roll, roll)
			}
		case "cards_drawn":
			for _, card := range d.Cards {
				deck := card / CommandDeckSize2210
				if card < 0 || deck >= CommandDecks2210 {
					mismatch(seq, fmt.Sprintf("cards_drawn (seat %d)", e.Seat), card, "not a Command card id (0..99)")
					continue
				}
				commandCards++
				what := fmt.Sprintf("cards_drawn (seat %d) from the %s deck", e.Seat, commandNames2210[deck])
				if top, ok := take(&command[deck]); !ok {
					mismatch(seq, what, card, "an empty deck")
				} else if card != top {
					mismatch(seq, what, card, top)
				}
			}
		case "territory_card_drawn":
			deck := territoryDeck2210(d.Territory)
			if deck < 0 {
				mismatch(seq, fmt.Sprintf("territory_card_drawn (seat %d)", e.Seat), d.Territory, "not a territory card (0..68)")
				continue
			}
			territoryCards++
			what := fmt.Sprintf("territory_card_drawn (seat %d) from the %s deck", e.Seat, deckNames2210[deck])
			if top, ok := take(&territory[deck]); !ok {
				mismatch(seq, what, d.Territory, "an empty deck")
			} else if d.Territory != top {
				mismatch(seq, what, d.Territory, top)
			}
		}
	}
	if !rolledOff {
		mismatch("-", "first_player_rolled", "no such event", "every 2210 game rolls for the first placer")
	}
	if devastated < 4 {
		mismatch("-", "devastated", fmt.Sprintf("%d events", devastated), "four: the land deck's top four cards")
	}
	if neutrals < len(neutral) {
		mismatch("-", "neutral_placed", fmt.Sprintf("%d events", neutrals), fmt.Sprintf("%d in a 2-player game", len(neutral)))
	}
	if m, bad := taken.missing(); bad {
		mismatches = append(mismatches, m)
	}
	notes = append(notes, fmt.Sprintf("RISK 2210 A.D., dice version 2: %d events; %d devastated, %d neutral, the first placer's "+
		"roll-off, %d bid ties, %d battle rolls, %d card rolls, %d Command cards and %d territory cards checked",
		len(events), devastated, neutrals, bidTies, battles, cardRolls, commandCards, territoryCards))
	if len(r.Reseeds) > 0 {
		notes = append(notes, taken.note())
	}
	return notes, mismatches, nil
}
