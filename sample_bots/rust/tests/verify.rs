//! The replay verifier re-derives dice version 2 exactly (issue 23: "Each starter kit ... ships a replay
//! verifier (re-derive every roll and shuffle from the revealed seed and compare with the events)").
//! Vectors: ../fixtures/dice_vectors.json; a recorded Secret Mission game (seed above 2^53):
//! ../fixtures/replay_secret_mission.json with its `conquest replay events` output.
use conquest_bot::dice::{Stream, battle, deal_territories, roll_off, shuffled_deck};
use conquest_bot::verify::{Event, Mismatch, Replay, parse_events, verify};
use serde_json::Value;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the fixture")
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

#[test]
fn every_vector_of_every_seed() {
    let file: Value = serde_json::from_str(&fixture("dice_vectors.json")).unwrap();
    assert_eq!(file["version"], 2);
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 3);
    for c in cases {
        let seed: u64 = c["seed"].as_str().unwrap().parse().unwrap();
        let mut s = Stream::new(seed);
        let words: Vec<i64> = ints(&c["words"]).iter().map(|_| i64::from(s.word())).collect();
        assert_eq!(words, ints(&c["words"]), "seed {seed} words");
        let mut s = Stream::new(seed);
        let dice: Vec<i64> = ints(&c["uniform6"]).iter().map(|_| s.uniform(6) as i64).collect();
        assert_eq!(dice, ints(&c["uniform6"]), "seed {seed} uniform6");
        let (attacker, defender) = battle(&mut Stream::new(seed), 3, 2);
        assert_eq!(attacker, ints(&c["battle_3v2"]["attacker"]), "seed {seed} battle attacker");
        assert_eq!(defender, ints(&c["battle_3v2"]["defender"]), "seed {seed} battle defender");
        let (rolls, starter) = roll_off(&mut Stream::new(seed), 4);
        assert_eq!(rolls, ints(&c["rolloff_4"]["rolls"]), "seed {seed} roll-off");
        assert_eq!(starter as u64, c["rolloff_4"]["seat"].as_u64().unwrap(), "seed {seed} starter");
        assert_eq!(shuffled_deck(&mut Stream::new(seed), 44, &[]), ints(&c["deck_44"]), "seed {seed} deck");
        let first = c["deal_42_3"]["first_seat"].as_u64().unwrap() as usize;
        let owners = deal_territories(&mut Stream::new(seed), 42, 3, "dealt", first);
        assert_eq!(owners, ints(&c["deal_42_3"]["owners"]), "seed {seed} deal");
    }
}

fn recorded() -> (Replay, Vec<Event>) {
    let replay = Replay::parse(&fixture("replay_secret_mission.json")).unwrap();
    (replay, parse_events(&fixture("replay_secret_mission.events.jsonl")).unwrap())
}

fn at(events: &mut [Event], sequence: i64) -> &mut Value {
    &mut events.iter_mut().find(|e| e.sequence == sequence).unwrap().body
}

#[test]
fn a_recorded_game_verifies() {
    let (replay, events) = recorded();
    assert_eq!(replay.seed, 5901499535385924463);
    assert_eq!(verify(&replay, &events).unwrap().mismatches, vec![]);
}

#[test]
fn a_tampered_roll_fails_at_its_event() {
    let (replay, mut events) = recorded();
    at(&mut events, 70)["attackerDice"] = serde_json::json!([6, 3, 3]);
    let want = Mismatch {
        sequence: "70".into(),
        what: "rolled 1->5".into(),
        event: r#"{"attacker":[6,3,3],"defender":[2]}"#.into(),
        seed: r#"{"attacker":[5,3,3],"defender":[2]}"#.into(),
    };
    assert_eq!(verify(&replay, &events).unwrap().mismatches, vec![want]);
}

#[test]
fn a_tampered_draw_and_a_wrong_seed_fail() {
    let (replay, mut events) = recorded();
    at(&mut events, 101)["card"] = serde_json::json!(30);
    let found: Vec<String> = verify(&replay, &events).unwrap().mismatches.into_iter().map(|m| m.sequence).collect();
    assert_eq!(found, vec!["101"]);
    let (mut replay, events) = recorded();
    replay.seed += 1;
    let mismatches = verify(&replay, &events).unwrap().mismatches;
    assert_eq!(mismatches[0].what, "seed commitment");
    assert!(mismatches.len() > 10, "{mismatches:?}");
}

#[test]
fn dice_version_1_is_left_to_the_server() {
    let (mut replay, events) = recorded();
    replay.dice_version = 1;
    let verdict = verify(&replay, &events).unwrap();
    assert_eq!(verdict.mismatches, vec![]);
    assert!(verdict.notes[0].contains("checked by `conquest replay verify` only"), "{:?}", verdict.notes);
    replay.game_id = "other".into();
    assert_eq!(verify(&replay, &[]).unwrap().mismatches[0].what, "seed commitment");
}

/// replay_classic_long: 45 cards drawn, so the last one is the first card traded back.
#[test]
fn draws_past_the_first_44_cards_reach_the_traded_cards() {
    let replay = Replay::parse(&fixture("replay_classic_long.json")).unwrap();
    let mut events = parse_events(&fixture("replay_classic_long.events.jsonl")).unwrap();
    assert_eq!(events.iter().filter(|e| e.kind == "drew").count(), 45);
    assert_eq!(verify(&replay, &events).unwrap().mismatches, vec![]);
    at(&mut events, 1104)["card"] = serde_json::json!(17);
    let found: Vec<(String, String)> =
        verify(&replay, &events).unwrap().mismatches.into_iter().map(|m| (m.sequence, m.seed)).collect();
    assert_eq!(found, vec![("1104".to_string(), "16".to_string())]);
}
