//! Games taken over by another server verify too. Issue 20: "A resumed game must not let a bot profit from
//! anything it saw that was lost (e.g. dice shown after the last persisted action): say how (for example a
//! fresh committed seed for the rest of the game, recorded in the replay so it still verifies)"; the
//! platform promises "trust that outsiders can check without reading our code". Fixtures:
//! ../fixtures/replay_classic_reseeded.json and replay_2210_reseeded.json (format 2, two reseeds each, the
//! second seed 2^62-1), with their `conquest replay events` output.
use conquest_bot::reseed::Reseed;
use conquest_bot::verify::{Mismatch, Replay, Verdict, parse_events, verify};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the fixture")
}

/// Each format 2 fixture and the sequences of its two `reseeded` events.
const GAMES: [(&str, [i64; 2]); 2] = [("replay_classic_reseeded", [133, 643]), ("replay_2210_reseeded", [158, 253])];

/// A fixture's replay and events, as text.
fn texts(name: &str) -> (String, String) {
    (fixture(&format!("{name}.json")), fixture(&format!("{name}.events.jsonl")))
}

fn check(replay: &str, events: &str) -> Verdict {
    verify(&Replay::parse(replay).unwrap(), &parse_events(events).unwrap()).unwrap()
}

/// A mismatch's sequence as a number (-1 for the whole game's "-").
fn sequence(m: &Mismatch) -> i64 {
    m.sequence.parse().unwrap_or(-1)
}

#[test]
fn the_reseeded_games_verify() {
    for (name, _) in GAMES {
        let (replay, events) = texts(name);
        let parsed = Replay::parse(&replay).unwrap();
        let seeds: Vec<u64> = parsed.reseeds.iter().map(|r| r.seed).collect();
        assert_eq!(seeds, [9007199254740993, 4611686018427387903], "{name}: the fresh seeds read exactly");
        let verdict = check(&replay, &events);
        assert_eq!(verdict.mismatches, vec![], "{name}");
        assert!(verdict.notes[1].starts_with("2 reseeds checked"), "{name}: {:?}", verdict.notes);
    }
}

/// (a) A reseed's commitment changed in the replay file: reported at its reseeded event, and only there
/// (the seed is the one played, so the draws stay in step).
#[test]
fn a_reseed_commitment_changed_in_the_replay_fails_at_its_event() {
    for (name, at) in GAMES {
        let (replay, events) = texts(name);
        let commitment = Replay::parse(&replay).unwrap().reseeds[0].commitment.clone();
        let replay = replay.replacen(&commitment, &"0".repeat(commitment.len()), 1);
        let mismatches = check(&replay, &events).mismatches;
        let sequences: Vec<i64> = mismatches.iter().map(sequence).collect();
        assert_eq!(sequences, [at[0], at[0]], "{name}: {mismatches:?}");
        assert!(mismatches[0].what.starts_with("reseeded, against the replay's reseed 1 of 2"), "{mismatches:?}");
        assert!(mismatches[1].what.contains("the replay's commitment"), "{mismatches:?}");
    }
}

/// (b) A fresh seed changed in the replay and in the events, its commitment recomputed: every reseed check
/// holds, and the dice after it give the change away.
#[test]
fn a_fresh_seed_changed_with_its_commitment_fails_after_it() {
    for (name, at) in GAMES {
        let (mut replay, mut events) = texts(name);
        let parsed = Replay::parse(&replay).unwrap();
        let Reseed { at: action, seed, commitment } = parsed.reseeds[1].clone();
        let recomputed = format!("{:x}", Sha256::digest(format!("{}:{}:{action}", seed - 1, parsed.game_id)));
        for text in [&mut replay, &mut events] {
            *text = text.replacen(&seed.to_string(), &(seed - 1).to_string(), 1).replacen(&commitment, &recomputed, 1);
        }
        let mismatches = check(&replay, &events).mismatches;
        assert!(!mismatches.is_empty() && mismatches.iter().all(|m| sequence(m) > at[1]), "{name}: {mismatches:?}");
    }
}

/// (c) The reseeded event removed from the events: reported missing, and the dice after it mismatch.
#[test]
fn a_removed_reseeded_event_is_reported_and_the_dice_after_it_mismatch() {
    for (name, at) in GAMES {
        let (replay, events) = texts(name);
        let marker = format!(r#"{{"sequence":"{}","#, at[1]);
        let events: String =
            events.lines().filter(|line| !line.starts_with(&marker)).map(|l| format!("{l}\n")).collect();
        let mismatches = check(&replay, &events).mismatches;
        assert!(mismatches.iter().any(|m| m.sequence == "-" && m.what == "reseeded"), "{name}: {mismatches:?}");
        assert!(mismatches.iter().any(|m| sequence(m) > at[1]), "{name}: {mismatches:?}");
        assert!(!mismatches.iter().any(|m| (0..at[1]).contains(&sequence(m))), "{name}: {mismatches:?}");
    }
}

/// (d) A battle roll after the last reseed changed: reported at its event, and only there.
#[test]
fn a_battle_roll_after_a_reseed_changed_fails_at_its_event() {
    for ((name, at), key) in GAMES.into_iter().zip(["attackerDice", "attacker_dice"]) {
        let (replay, events) = texts(name);
        let replay = Replay::parse(&replay).unwrap();
        let mut events = parse_events(&events).unwrap();
        let rolled = events.iter_mut().find(|e| e.kind == "rolled" && e.sequence > at[1]).unwrap();
        let die = rolled.body[key][0].as_i64().unwrap();
        rolled.body[key][0] = json!(die % 6 + 1);
        let changed = rolled.sequence;
        let mismatches = verify(&replay, &events).unwrap().mismatches;
        assert_eq!(mismatches.iter().map(sequence).collect::<Vec<_>>(), [changed], "{name}: {mismatches:?}");
    }
}

/// A reseeded event the replay does not list is reported at that event.
#[test]
fn a_reseeded_event_beyond_the_replays_reseeds_fails() {
    let (replay, events) = texts("replay_secret_mission");
    let mut events = parse_events(&events).unwrap();
    let mut extra = events[9].clone();
    extra.kind = "reseeded".into();
    extra.body = json!({"at": "5", "seed": "9007199254740993", "commitment": "ab"});
    events.insert(10, extra);
    let mismatches = verify(&Replay::parse(&replay).unwrap(), &events).unwrap().mismatches;
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    assert!(mismatches[0].what.starts_with("reseeded (an event beyond the replay's 0 reseeds)"), "{mismatches:?}");
}

/// docs/protocol.md: a replay with reseeds is format 2; a verifier refuses a format it does not know by its
/// number.
#[test]
fn other_formats_are_refused_by_their_number() {
    let text = fixture("replay_secret_mission.json").replacen("\"format\":1", "\"format\":3", 1);
    let refusal = Replay::parse(&text).unwrap_err();
    assert!(refusal.contains("replay format 3: this verifier reads format 1"), "{refusal}");
    let text = fixture("replay_classic_reseeded.json").replacen("\"format\":2", "\"format\":1", 1);
    let refusal = Replay::parse(&text).unwrap_err();
    assert!(refusal.contains("\"reseeds\" is format 2, not 1"), "{refusal}");
    let data: Value = serde_json::from_str(&fixture("replay_classic_reseeded.json")).unwrap();
    assert_eq!(Reseed::parse(&data["reseeds"][1]).unwrap().at, 400);
}
