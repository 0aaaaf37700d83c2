//! The replay verifier: re-derives every roll and shuffle of a recorded game from its revealed seed and
//! compares them with the game's events (`conquest replay events` output). `src/bin/verify-replay.rs` is
//! its command line. A RISK 2210 A.D. replay (`"game": "2210"`) is walked by `verify2210.rs`.
use std::fmt;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::dice::{Stream, battle, deal_missions, deal_territories, roll_off, shuffled_deck};
use crate::reseed::{Reseed, Reseeds, check_commitment};
use crate::verify2210;

/// Territories and wild cards of each board a replay can name.
const BOARDS: &[(&str, usize, usize)] = &[("classic", 42, 2)];

/// What the verifier reads from a replay file.
#[derive(Clone, Debug)]
pub struct Replay {
    /// "classic" (a replay without `game`) or "2210".
    pub game: String,
    pub seed: u64,
    pub game_id: String,
    pub seed_commitment: String,
    pub dice_version: u64,
    pub seats: usize,
    pub board: String,
    pub setup: String,
    pub objective: String,
    pub three_continent_missions: bool,
    /// Format 2 (a game taken over by another server): each takeover, in order; none in format 1.
    pub reseeds: Vec<Reseed>,
}

impl Replay {
    /// Reads a replay file's JSON; a replay without `dice_version` is version 1.
    pub fn parse(text: &str) -> Result<Replay, String> {
        let data: Value = serde_json::from_str(text).map_err(|e| format!("not a replay file: {e}"))?;
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let (Some(seed), Some(game_id), Some(seats)) =
            (data["seed"].as_u64(), data["game_id"].as_str(), data["seats"].as_array())
        else {
            return Err(
                "not a replay file: expected a JSON object with seed (0..2^64-1), game_id, seats and rules".into()
            );
        };
        let format = data["format"].as_u64().unwrap_or(0);
        if format != 1 && format != 2 {
            return Err(format!(
                "replay format {format}: this verifier reads format 1 (a game played on one server) and format 2 \
                 (a game taken over by another server, with \"reseeds\"); a newer kit may read it"
            ));
        }
        let listed = data["reseeds"].as_array().map(Vec::as_slice).unwrap_or_default();
        let reseeds =
            listed.iter().map(Reseed::parse).collect::<Option<Vec<_>>>().ok_or(
                "a replay's \"reseeds\" are objects {\"at\": N, \"seed\": 0..2^64-1, \"commitment\": \"<hex>\"}",
            )?;
        if format == 1 && !reseeds.is_empty() {
            return Err("a replay with \"reseeds\" is format 2, not 1: the file is inconsistent".into());
        }
        Ok(Replay {
            game: data["game"].as_str().unwrap_or("classic").to_string(),
            seed,
            game_id: game_id.to_string(),
            seed_commitment: text(&data["seed_commitment"]),
            dice_version: data["dice_version"].as_u64().unwrap_or(1),
            seats: seats.len(),
            board: text(&data["board"]),
            setup: text(&data["rules"]["setup"]),
            objective: text(&data["rules"]["objective"]),
            three_continent_missions: data["rules"]["three_continent_missions"].as_bool().unwrap_or(false),
            reseeds,
        })
    }
}

/// One event as `conquest replay events` prints it. A classic GameEvent: its sequence, its oneof key and
/// that key's body (`seat` 0: a classic event's seat is in its body). A GameEvent2210: its sequence, its
/// `kind`, its `seat` (-1 for none; 0 when proto3 JSON leaves it out) and its `dataJson` parsed.
#[derive(Clone, Debug)]
pub struct Event {
    pub sequence: i64,
    pub kind: String,
    pub seat: i64,
    pub body: Value,
}

/// Reads `conquest replay events` output (one JSON object per line, classic or 2210), in sequence order.
pub fn parse_events(text: &str) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let fields: serde_json::Map<String, Value> =
            serde_json::from_str(line).map_err(|e| format!("events line {}: {e}", n + 1))?;
        let sequence = fields
            .get("sequence")
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("events line {}: sequence must be an int64 as a JSON string", n + 1))?;
        if let Some(kind) = fields.get("kind").and_then(Value::as_str) {
            let body = match fields.get("dataJson").and_then(Value::as_str) {
                Some(data) => {
                    serde_json::from_str(data).map_err(|e| format!("events line {}: dataJson: {e}", n + 1))?
                }
                None => Value::Null,
            };
            let seat = fields.get("seat").and_then(Value::as_i64).unwrap_or(0);
            events.push(Event { sequence, kind: kind.to_string(), seat, body });
            continue;
        }
        let (kind, body) =
            fields.into_iter().find(|(key, _)| key != "sequence").unwrap_or_else(|| (String::new(), Value::Null));
        events.push(Event { sequence, kind, seat: 0, body });
    }
    events.sort_by_key(|e| e.sequence);
    Ok(events)
}

/// One disagreement: the event's sequence ("-" for the whole game), what was compared, what the event
/// says and what the seed gives (both as JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub sequence: String,
    pub what: String,
    pub event: String,
    pub seed: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MISMATCH event {} {}: the event says {}; the seed gives {}",
            self.sequence, self.what, self.event, self.seed
        )
    }
}

/// What was checked (`notes`) and every disagreement found.
#[derive(Debug, Default)]
pub struct Verdict {
    pub notes: Vec<String>,
    pub mismatches: Vec<Mismatch>,
}

impl Verdict {
    /// Records a disagreement at `sequence` ("-" for the whole game).
    pub fn mismatch(&mut self, sequence: &str, what: &str, event: Value, seed: Value) {
        self.mismatches.push(Mismatch {
            sequence: sequence.into(),
            what: what.into(),
            event: event.to_string(),
            seed: seed.to_string(),
        })
    }
}

/// A list of integers of an event's body (empty if absent).
pub(crate) fn ints(body: &Value, key: &str) -> Vec<i64> {
    body[key].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default()
}

/// An integer of an event's body (0, proto3's default, if absent).
pub(crate) fn int(body: &Value, key: &str) -> i64 {
    body[key].as_i64().unwrap_or(0)
}

/// Checks the seed commitment and, for dice version 2, every draw against the events (a 2210 replay by
/// `verify2210::walk`). An error means the replay cannot be checked at all (an unknown game, dice version
/// or board).
pub fn verify(replay: &Replay, events: &[Event]) -> Result<Verdict, String> {
    let mut verdict = Verdict::default();
    let commitment = format!("{:x}", Sha256::digest(format!("{}:{}", replay.seed, replay.game_id)));
    if commitment != replay.seed_commitment {
        verdict.mismatch("-", "seed commitment", json!(replay.seed_commitment), json!(commitment));
    }
    if replay.game != "classic" && replay.game != "2210" {
        return Err(format!("game {:?} is unknown to this verifier; it knows classic and 2210", replay.game));
    }
    if replay.dice_version == 1 {
        for index in 0..replay.reseeds.len() {
            check_commitment(replay, index, "-", &mut verdict);
        }
        verdict.notes.push(format!(
            "dice version 1 (CPython Mersenne Twister) is checked by `conquest replay verify` only; seed commitment \
             and {} reseed commitments checked",
            replay.reseeds.len()
        ));
        return Ok(verdict);
    }
    if replay.dice_version != 2 {
        return Err(format!("dice_version {} is unknown to this verifier; it knows 1 and 2", replay.dice_version));
    }
    if replay.game == "2210" {
        verify2210::walk(replay, events, &mut verdict)?;
    } else {
        walk_classic(replay, events, &mut verdict)?;
    }
    Ok(verdict)
}

/// A classic game's draws, in event order (docs/protocol.md, "Each kind of draw").
fn walk_classic(replay: &Replay, events: &[Event], verdict: &mut Verdict) -> Result<(), String> {
    let &(_, territories, wild_cards) = BOARDS
        .iter()
        .find(|(name, _, _)| *name == replay.board)
        .ok_or_else(|| format!("board {:?} is unknown to this verifier; it knows classic", replay.board))?;
    let deals = replay.setup == "dealt" || replay.setup == "neutral_piles";
    let mission_game = replay.objective == "missions";
    let mut stream = Stream::new(replay.seed);
    // The mission deal, the territory deal and the card deck, once drawn.
    let [mut missions, mut owners, mut deck]: [Option<Vec<i64>>; 3] = [None, None, None];
    let mut reserved = Vec::new();
    let (mut rolled_off, mut dealt_seen, mut missions_seen, mut draws) = (false, false, false, 0);
    let mut taken = Reseeds::new(replay);
    for event in events {
        let (seq, b) = (event.sequence.to_string(), &event.body);
        match event.kind.as_str() {
            "firstPlayerRolled" => {
                if rolled_off {
                    verdict.mismatch(&seq, "a second roll for the first player", b.clone(), json!("one per game"));
                    continue;
                }
                rolled_off = true;
                let (rolls, starter) = roll_off(&mut stream, replay.seats);
                if ints(b, "rolls") != rolls || int(b, "seat") != starter as i64 {
                    verdict.mismatch(
                        &seq,
                        "first_player_rolled",
                        json!({"rolls": ints(b, "rolls"), "seat": int(b, "seat")}),
                        json!({"rolls": rolls, "seat": starter}),
                    );
                }
                if mission_game {
                    missions = Some(deal_missions(&mut stream, replay.seats, replay.three_continent_missions));
                }
                if deals {
                    owners = Some(deal_territories(&mut stream, territories, replay.seats, &replay.setup, starter));
                }
            }
            "missionDealt" => {
                missions_seen = true;
                let seat = int(b, "seat");
                let expected = missions.as_ref().and_then(|m| m.get(seat as usize)).copied();
                if expected != Some(int(b, "mission")) {
                    let what = format!("mission_dealt to seat {seat}");
                    verdict.mismatch(
                        &seq,
                        &what,
                        json!(int(b, "mission")),
                        expected.map_or(json!("no mission deal"), |m| json!(m)),
                    );
                }
            }
            "missionsRevealed" => {
                missions_seen = true;
                if Some(ints(b, "missions")) != missions {
                    verdict.mismatch(&seq, "missions_revealed", json!(ints(b, "missions")), json!(missions));
                }
            }
            "dealt" => {
                dealt_seen = true;
                if Some(ints(b, "owners")) != owners {
                    let seed =
                        owners.as_ref().map_or(json!(format!("no deal in setup {}", replay.setup)), |o| json!(o));
                    verdict.mismatch(&seq, "dealt owners", json!(ints(b, "owners")), seed);
                }
            }
            "headquartersRevealed" => reserved = ints(b, "territories"),
            "turnStarted" if deck.is_none() => {
                deck = Some(shuffled_deck(&mut stream, territories + wild_cards, &reserved));
            }
            "drew" => {
                let card = int(b, "card");
                match deck.as_mut().filter(|d| !d.is_empty()).map(|d| d.remove(0)) {
                    None => verdict.mismatch(&seq, "drew", json!(card), json!("an empty deck")),
                    Some(front) if card != -1 && card != front => {
                        verdict.mismatch(&seq, &format!("drew (seat {})", int(b, "seat")), json!(card), json!(front))
                    }
                    Some(_) => {}
                }
            }
            "traded" => {
                if let Some(deck) = deck.as_mut() {
                    deck.extend(ints(b, "cards"));
                }
            }
            "reseeded" => {
                if let Some(fresh) = taken.at(&seq, b, verdict) {
                    stream = fresh;
                    // The draw pile as it stands (none before the first turn: nothing to shuffle).
                    if let Some(deck) = deck.as_mut() {
                        stream.shuffle(deck);
                    }
                }
            }
            "rolled" => {
                draws += 1;
                let said = (ints(b, "attackerDice"), ints(b, "defenderDice"));
                let expected = battle(&mut stream, said.0.len(), said.1.len());
                if said != expected {
                    let what = format!("rolled {}->{}", int(b, "source"), int(b, "target"));
                    verdict.mismatch(
                        &seq,
                        &what,
                        json!({"attacker": said.0, "defender": said.1}),
                        json!({"attacker": expected.0, "defender": expected.1}),
                    );
                }
            }
            _ => {}
        }
    }
    if !rolled_off {
        verdict.mismatch(
            "-",
            "first_player_rolled",
            json!("no such event"),
            json!("every game rolls for the first player"),
        );
    }
    if deals && !dealt_seen {
        verdict.mismatch(
            "-",
            "dealt",
            json!("no such event"),
            json!(format!("setup {} deals the territories", replay.setup)),
        );
    }
    if mission_game && !missions_seen {
        verdict.mismatch("-", "mission_dealt", json!("no such event"), json!("a Secret Mission game deals missions"));
    }
    verdict.notes.push(format!("dice version 2: {} events, {draws} battle rolls checked", events.len()));
    taken.finish(verdict);
    Ok(())
}
