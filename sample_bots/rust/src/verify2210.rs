//! RISK 2210 A.D. replays: docs/protocol.md's table "Checking a 2210 game's draws", event by event, with
//! one version 2 stream ("Randomness", "RISK 2210 A.D. games"). `verify::verify` calls `walk` for a replay
//! marked `"game": "2210"`; `Decks` is the game's cards, public for the vector tests.
use std::ops::Range;

use serde_json::{Value, json};

use crate::dice::{Stream, battle_faces, roll_off_order};
use crate::reseed::Reseeds;
use crate::verify::{Event, Replay, Verdict, int, ints};

/// The territory decks' card ids, in deck order: land (the two wild cards are out), water, lunar.
pub const TERRITORY_DECKS: [Range<i64>; 3] = [0..42, 42..55, 55..69];
/// Five Command decks (Land, Diplomat, Naval, Space, Nuclear) of 20 cards: deck d holds 20d..20d+19.
pub const COMMAND_DECKS: i64 = 5;
pub const COMMAND_DECK_SIZE: i64 = 20;
/// Land cards turned over at the start: the land deck's top four.
pub const DEVASTATED: usize = 4;
/// A two-player game's neutral territories per territory deck (land, water, lunar), off the top.
pub const NEUTRALS: [usize; 3] = [16, 6, 6];

/// A 2210 game's decks, top (index 0) first.
#[derive(Clone, Debug, PartialEq)]
pub struct Decks {
    /// Land, water, lunar.
    pub territory: [Vec<i64>; 3],
    /// Land, Diplomat, Naval, Space, Nuclear Command cards.
    pub command: Vec<Vec<i64>>,
}

impl Decks {
    /// The start's first draws: land, water and lunar shuffled, then the five Command decks, each from its
    /// ascending card ids.
    pub fn shuffled(stream: &mut Stream) -> Decks {
        let mut shuffled = |ids: Range<i64>| {
            let mut deck: Vec<i64> = ids.collect();
            stream.shuffle(&mut deck);
            deck
        };
        let territory = TERRITORY_DECKS.map(&mut shuffled);
        let command =
            (0..COMMAND_DECKS).map(|d| shuffled(d * COMMAND_DECK_SIZE..(d + 1) * COMMAND_DECK_SIZE)).collect();
        Decks { territory, command }
    }

    /// A two-player game's 28 neutral territories, in order: land cards 5 to 20 of the land deck as first
    /// shuffled (the top 16 after devastation), then water's top 6, then lunar's top 6.
    pub fn neutral_order(&self) -> Vec<i64> {
        let [land, water, lunar] = &self.territory;
        [&land[DEVASTATED..DEVASTATED + NEUTRALS[0]], &water[..NEUTRALS[1]], &lunar[..NEUTRALS[2]]].concat()
    }

    /// A takeover's shuffle, with the fresh stream: the undrawn cards of each territory deck (land, water,
    /// lunar), then of each Command deck (Land, Diplomat, Naval, Space, Nuclear), top first.
    pub fn reseed(&mut self, stream: &mut Stream) {
        for deck in self.territory.iter_mut().chain(self.command.iter_mut()) {
            stream.shuffle(deck);
        }
    }

    /// After the neutral draw: each territory deck sorted back into ascending order and shuffled.
    pub fn reshuffle_territories(&mut self, stream: &mut Stream) {
        for deck in &mut self.territory {
            deck.sort_unstable();
            stream.shuffle(deck);
        }
    }
}

/// The territory deck of a territory card (0 land, 1 water, 2 lunar), if it is one.
fn territory_deck(territory: i64) -> Option<usize> {
    TERRITORY_DECKS.iter().position(|ids| ids.contains(&territory))
}

/// The top of a deck, taken off: the card, or what the seed gives instead.
fn take_top(deck: Option<&mut Vec<i64>>, not_a_card: &str) -> Result<i64, Value> {
    match deck {
        None => Err(json!(not_a_card)),
        Some(deck) if deck.is_empty() => Err(json!("an empty deck")),
        Some(deck) => Ok(deck.remove(0)),
    }
}

/// The dice faces of a battle, if each side's are ones a 2210 battle rolls (1..=most dice of 6 or 8 sides).
fn faces(body: &Value, key: &str, most: usize) -> Option<Vec<u64>> {
    let faces =
        body[key].as_array()?.iter().map(|f| f.as_u64().filter(|f| *f == 6 || *f == 8)).collect::<Option<Vec<_>>>()?;
    (1..=most).contains(&faces.len()).then_some(faces)
}

fn rounds(body: &Value, key: &str) -> Vec<Vec<i64>> {
    let round = |r: &Value| r.as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default();
    body[key].as_array().map(|a| a.iter().map(round).collect()).unwrap_or_default()
}

/// Walks a 2210 game's events in sequence order after drawing its decks, checking every row of the table;
/// adds each disagreement and a note of what was checked to `verdict`. An error: a board it does not know.
pub fn walk(replay: &Replay, events: &[Event], verdict: &mut Verdict) -> Result<(), String> {
    if replay.board != "2210" {
        return Err(format!("board {:?} is unknown to this verifier for a 2210 game; it knows 2210", replay.board));
    }
    let mut stream = Stream::new(replay.seed);
    let mut decks = Decks::shuffled(&mut stream);
    let neutral_order = if replay.seats == 2 { decks.neutral_order() } else { Vec::new() };
    let (mut devastated, mut neutrals, mut first_placer) = (0, 0, false);
    let (mut bid_ties, mut battles, mut card_rolls, mut cards, mut territory_cards) = (0, 0, 0, 0, 0);
    let mut taken = Reseeds::new(replay);
    for event in events {
        let (seq, b) = (event.sequence.to_string(), &event.body);
        match event.kind.as_str() {
            "devastated" => {
                let territory = int(b, "territory");
                devastated += 1;
                if devastated > DEVASTATED {
                    verdict.mismatch(&seq, "devastated", json!(territory), json!("four devastated lands per game"));
                    continue;
                }
                match take_top(Some(&mut decks.territory[0]), "") {
                    Ok(top) if top == territory => {}
                    Ok(top) => verdict.mismatch(&seq, "devastated", json!(territory), json!(top)),
                    Err(seed) => verdict.mismatch(&seq, "devastated", json!(territory), seed),
                }
            }
            "neutral_placed" => {
                let territory = int(b, "territory");
                let Some(&expected) = neutral_order.get(neutrals) else {
                    let seed = if replay.seats == 2 {
                        format!("{} neutral territories", neutral_order.len())
                    } else {
                        format!("no neutral draw in a {}-player game", replay.seats)
                    };
                    verdict.mismatch(&seq, "neutral_placed", json!(territory), json!(seed));
                    continue;
                };
                neutrals += 1;
                if territory != expected {
                    verdict.mismatch(&seq, &format!("neutral_placed {neutrals}"), json!(territory), json!(expected));
                }
                if neutrals == neutral_order.len() {
                    decks.reshuffle_territories(&mut stream);
                }
            }
            "reseeded" => {
                if let Some(fresh) = taken.at(&seq, b, verdict) {
                    stream = fresh;
                    decks.reseed(&mut stream);
                }
            }
            "first_player_rolled" => {
                if first_placer {
                    verdict.mismatch(
                        &seq,
                        "a second first_player_rolled",
                        json!(rounds(b, "rolls")),
                        json!("one per game"),
                    );
                    continue;
                }
                first_placer = true;
                let seats: Vec<i64> = (0..replay.seats as i64).collect();
                let (order, expected) = roll_off_order(&mut stream, &seats, true);
                let said = (rounds(b, "rolls"), event.seat);
                if said != (expected.clone(), order.first().copied().unwrap_or(-1)) {
                    verdict.mismatch(
                        &seq,
                        "first_player_rolled",
                        json!({"rolls": said.0, "seat": said.1}),
                        json!({"rolls": expected, "seat": order.first()}),
                    );
                }
            }
            "bid_tie_rolled" => {
                bid_ties += 1;
                let seats = ints(b, "seats");
                let (_, expected) = roll_off_order(&mut stream, &seats, false);
                if rounds(b, "rolls") != expected {
                    let what = format!("bid_tie_rolled among seats {seats:?}");
                    verdict.mismatch(&seq, &what, json!(rounds(b, "rolls")), json!(expected));
                }
            }
            "rolled" => {
                battles += 1;
                let what = format!("rolled {}->{}", int(b, "source"), int(b, "target"));
                let said = (ints(b, "attacker_dice"), ints(b, "defender_dice"));
                let (Some(attacker), Some(defender)) = (faces(b, "attacker_faces", 3), faces(b, "defender_faces", 2))
                else {
                    let event = json!({"attacker_faces": b["attacker_faces"], "defender_faces": b["defender_faces"]});
                    let seed = json!("1-3 attacker and 1-2 defender dice of 6 or 8 faces");
                    verdict.mismatch(&seq, &format!("{what} faces"), event, seed);
                    continue;
                };
                let expected = battle_faces(&mut stream, &attacker, &defender);
                if said != expected {
                    verdict.mismatch(
                        &seq,
                        &format!("{what} (faces {attacker:?} v {defender:?})"),
                        json!({"attacker": said.0, "defender": said.1}),
                        json!({"attacker": expected.0, "defender": expected.1}),
                    );
                }
            }
            "card_rolled" => {
                card_rolls += 1;
                let (faces, roll) = (int(b, "faces"), int(b, "roll"));
                if faces != 6 && faces != 8 {
                    verdict.mismatch(&seq, "card_rolled faces", json!(faces), json!("a d6 or a d8"));
                    continue;
                }
                let expected = stream.die(faces as u64);
                if roll != expected {
                    verdict.mismatch(&seq, &format!("card_rolled (d{faces})"), json!(roll), json!(expected));
                }
            }
            "cards_drawn" => {
                let said = ints(b, "cards");
                cards += said.len();
                let expected: Vec<Value> = said
                    .iter()
                    .map(|&card| {
                        let deck = (0..COMMAND_DECKS * COMMAND_DECK_SIZE)
                            .contains(&card)
                            .then(|| &mut decks.command[(card / COMMAND_DECK_SIZE) as usize]);
                        take_top(deck, "not a Command card").map_or_else(|seed| seed, |top| json!(top))
                    })
                    .collect();
                if said.iter().zip(&expected).any(|(card, top)| json!(card) != *top) {
                    let what = format!("cards_drawn (seat {})", event.seat);
                    verdict.mismatch(&seq, &what, json!(said), json!(expected));
                }
            }
            "territory_card_drawn" => {
                territory_cards += 1;
                let territory = int(b, "territory");
                let deck = territory_deck(territory).map(|d| &mut decks.territory[d]);
                match take_top(deck, "not a territory card") {
                    Ok(top) if top == territory => {}
                    Ok(top) => verdict.mismatch(&seq, "territory_card_drawn", json!(territory), json!(top)),
                    Err(seed) => verdict.mismatch(&seq, "territory_card_drawn", json!(territory), seed),
                }
            }
            _ => {}
        }
    }
    if devastated < DEVASTATED {
        let said = format!("{devastated} devastated events");
        verdict.mismatch("-", "devastated", json!(said), json!("the land deck's top four are devastated"));
    }
    if neutrals < neutral_order.len() {
        let said = format!("{neutrals} neutral_placed events");
        verdict.mismatch("-", "neutral_placed", json!(said), json!("a 2-player game places 28 neutral territories"));
    }
    if !first_placer {
        verdict.mismatch(
            "-",
            "first_player_rolled",
            json!("no such event"),
            json!("every game rolls for the first placer"),
        );
    }
    verdict.notes.push(format!(
        "dice version 2, RISK 2210 A.D.: {} events; {} devastated, {neutrals} neutral territories, the first \
         placer's roll-off, {bid_ties} bid ties, {battles} battle rolls, {card_rolls} card rolls, {cards} Command \
         cards and {territory_cards} territory cards checked",
        events.len(),
        devastated.min(DEVASTATED),
    ));
    taken.finish(verdict);
    Ok(())
}
