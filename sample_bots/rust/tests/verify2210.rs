//! The replay verifier re-derives RISK 2210 A.D.'s draws exactly. Issue 23: "Each starter kit
//! (TypeScript, Go, Rust, Java) ships a replay verifier (re-derive every roll and shuffle from the revealed
//! seed and compare with the events), run in `make interop` on replays of every ruleset against `conquest
//! replay verify`." Vectors: ../fixtures/dice_vectors_2210.json (docs/protocol.md, "RISK 2210 A.D. games");
//! recorded 2-, 3- and 5-player games: ../fixtures/replay_2210_*.json with their `conquest replay events`
//! output, checked row by row of the docs' table "Checking a 2210 game's draws".
use std::process::Command;

use conquest_bot::dice::{Stream, battle_faces, roll_off_order};
use conquest_bot::verify::{Event, Mismatch, Replay, parse_events, verify};
use conquest_bot::verify2210::{DEVASTATED, Decks};
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("the fixture")
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn faces(v: &Value) -> Vec<u64> {
    ints(v).into_iter().map(|f| f as u64).collect()
}

fn rounds(v: &Value) -> Vec<Vec<i64>> {
    v.as_array().unwrap().iter().map(ints).collect()
}

/// Each case of dice_vectors_2210.json with its seed; every entry starts a fresh stream from the seed.
fn cases() -> Vec<(u64, Value)> {
    let file: Value = serde_json::from_str(&fixture("dice_vectors_2210.json")).unwrap();
    assert_eq!((file["version"].as_u64(), file["game"].as_str()), (Some(2), Some("2210")));
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 2);
    cases.iter().map(|c| (c["seed"].as_str().unwrap().parse().unwrap(), c.clone())).collect()
}

#[test]
fn d8_and_mixed_d6_d8_battles() {
    for (seed, c) in cases() {
        let mut s = Stream::new(seed);
        let d8: Vec<i64> = ints(&c["d8"]).iter().map(|_| s.die(8)).collect();
        assert_eq!(d8, ints(&c["d8"]), "seed {seed} d8");
        for name in ["battle_a866_d86", "battle_a88_d8"] {
            let v = &c[name];
            let (attacker, defender) =
                battle_faces(&mut Stream::new(seed), &faces(&v["attacker_faces"]), &faces(&v["defender_faces"]));
            assert_eq!(attacker, ints(&v["attacker"]), "seed {seed} {name} attacker");
            assert_eq!(defender, ints(&v["defender"]), "seed {seed} {name} defender");
        }
    }
}

#[test]
fn roll_offs_for_the_first_placer_and_a_bid_tie() {
    for (seed, c) in cases() {
        let (order, rolls) = roll_off_order(&mut Stream::new(seed), &[0, 1, 2, 3], true);
        assert_eq!(rolls, rounds(&c["rolloff_first_4"]["rolls"]), "seed {seed} first placer's rounds");
        assert_eq!(order[0], c["rolloff_first_4"]["seat"].as_i64().unwrap(), "seed {seed} first placer");
        let (order, rolls) = roll_off_order(&mut Stream::new(seed), &[0, 1, 2, 3], false);
        assert_eq!(rolls, rounds(&c["rolloff_order_4"]["rolls"]), "seed {seed} bid tie rounds");
        assert_eq!(order, ints(&c["rolloff_order_4"]["order"]), "seed {seed} bid tie order");
    }
}

/// Only the highest tie re-rolls for the first placer; every tie does in a bid tie, each settled completely
/// (recursively) before the next lower value, and a seat alone draws nothing.
#[test]
fn a_roll_off_settles_ties_highest_first() {
    // Seed 18446744073709551557's first round is [6, 1, 1, 6]: seats 0 and 3 tie high, 1 and 2 low.
    let seed = 18446744073709551557;
    let (order, rolls) = roll_off_order(&mut Stream::new(seed), &[0, 1, 2, 3], true);
    assert_eq!((order, rolls.len()), (vec![0, 3, 1, 2], 2));
    let (order, rolls) = roll_off_order(&mut Stream::new(seed), &[0, 1, 2, 3], false);
    assert_eq!((order, rolls.len()), (vec![0, 3, 2, 1], 3));
    let mut stream = Stream::new(seed);
    assert_eq!(roll_off_order(&mut stream, &[4], false), (vec![4], vec![]));
    assert_eq!(stream.words_used(), 0);
}

/// A 4-player start: the three territory decks, the five Command decks, devastation (the land deck's top
/// four), the first placer's roll-off, and how many words of the stream all that drew.
#[test]
fn a_four_player_start() {
    for (seed, c) in cases() {
        let v = &c["setup_4"];
        let mut stream = Stream::new(seed);
        let mut decks = Decks::shuffled(&mut stream);
        let [land, water, lunar] = &decks.territory;
        assert_eq!([land, water, lunar].map(Clone::clone), ["land", "water", "lunar"].map(|k| ints(&v[k])), "{seed}");
        assert_eq!(decks.command, rounds(&v["command"]), "seed {seed} Command decks");
        let devastated: Vec<i64> = decks.territory[0].drain(..DEVASTATED).collect();
        assert_eq!(devastated, ints(&v["devastated"]), "seed {seed} devastated");
        let (order, rolls) = roll_off_order(&mut stream, &[0, 1, 2, 3], true);
        assert_eq!((rolls, order[0]), (rounds(&v["rolls"]), v["first_seat"].as_i64().unwrap()), "seed {seed}");
        assert_eq!(stream.words_used(), v["words_used"].as_u64().unwrap(), "seed {seed} words used");
    }
}

/// A 2-player start: decks as in a 4-player game, then 16 land, 6 water and 6 lunar neutral territories,
/// the territory decks sorted and shuffled again (land without its four devastated cards), the roll-off.
#[test]
fn a_two_player_start_with_the_neutral_draw() {
    for (seed, c) in cases() {
        let v = &c["setup_2"];
        let mut stream = Stream::new(seed);
        let mut decks = Decks::shuffled(&mut stream);
        assert_eq!(decks.territory[0], ints(&c["setup_4"]["land"]), "seed {seed}: the same shuffles as setup_4");
        let neutral = decks.neutral_order();
        let want: Vec<Vec<i64>> = ["land", "water", "lunar"].iter().map(|k| ints(&v["neutral"][k])).collect();
        assert_eq!(neutral, want.concat(), "seed {seed} neutral territories");
        decks.territory[0].drain(..DEVASTATED);
        decks.reshuffle_territories(&mut stream);
        let [land, water, lunar] = &decks.territory;
        assert_eq!([land, water, lunar].map(Clone::clone), ["land", "water", "lunar"].map(|k| ints(&v[k])), "{seed}");
        let (order, rolls) = roll_off_order(&mut stream, &[0, 1], true);
        assert_eq!((rolls, order[0]), (rounds(&v["rolls"]), v["first_seat"].as_i64().unwrap()), "seed {seed}");
        assert_eq!(stream.words_used(), v["words_used"].as_u64().unwrap(), "seed {seed} words used");
    }
}

const GAMES: [&str; 3] = ["replay_2210_two_player", "replay_2210_three_player", "replay_2210_five_player"];

fn recorded(name: &str) -> (Replay, Vec<Event>) {
    let replay = Replay::parse(&fixture(&format!("{name}.json"))).unwrap();
    (replay, parse_events(&fixture(&format!("{name}.events.jsonl"))).unwrap())
}

fn at(events: &mut [Event], sequence: i64) -> &mut Value {
    &mut events.iter_mut().find(|e| e.sequence == sequence).unwrap().body
}

fn found(replay: &Replay, events: &[Event]) -> Vec<Mismatch> {
    verify(replay, events).unwrap().mismatches
}

#[test]
fn the_events_of_a_2210_replay_are_read_from_their_data_json() {
    let (replay, events) = recorded("replay_2210_two_player");
    assert_eq!((replay.game.as_str(), replay.board.as_str(), replay.seats), ("2210", "2210", 2));
    assert_eq!(replay.seed, 8880083587908122874);
    assert_eq!((events[0].sequence, events[0].kind.as_str(), events[0].seat), (0, "devastated", -1));
    assert_eq!(events[0].body, json!({"territory": 7}));
    assert!(events.windows(2).all(|w| w[0].sequence < w[1].sequence));
    // proto3 JSON leaves out a seat of 0.
    let events = parse_events(r#"{"sequence":"7","kind":"card_rolled","dataJson":"{\"faces\":6,\"roll\":2}"}"#);
    assert_eq!(events.unwrap()[0].seat, 0);
}

/// Every row of the table is met in these three games (as tests/bots/test_dice_walk_2210.py counts).
#[test]
fn the_recorded_2210_games_verify() {
    let mut notes = Vec::new();
    for name in GAMES {
        let (replay, events) = recorded(name);
        let verdict = verify(&replay, &events).unwrap();
        assert_eq!(verdict.mismatches, vec![], "{name}");
        notes.extend(verdict.notes);
    }
    assert!(notes[0].contains("4 devastated, 28 neutral territories"), "{notes:?}");
    assert!(notes[0].contains("67 battle rolls, 1 card rolls, 9 Command cards"), "{notes:?}");
    assert!(notes[1].contains("0 neutral territories") && notes[1].contains("1 territory cards"), "{notes:?}");
    assert!(notes[2].contains("5 bid ties, 180 battle rolls, 2 card rolls, 22 Command cards"), "{notes:?}");
}

#[test]
fn a_changed_battle_die_is_caught_at_its_event() {
    let (replay, mut events) = recorded("replay_2210_three_player");
    at(&mut events, 196)["defender_dice"] = json!([7, 1]);
    let want = Mismatch {
        sequence: "196".into(),
        what: "rolled 36->34 (faces [6, 6, 6] v [8, 8])".into(),
        event: r#"{"attacker":[6,2,2],"defender":[7,1]}"#.into(),
        seed: r#"{"attacker":[6,2,2],"defender":[1,1]}"#.into(),
    };
    assert_eq!(found(&replay, &events), vec![want]);
}

#[test]
fn a_changed_command_card_or_card_roll_is_caught_at_its_event() {
    let (replay, mut events) = recorded("replay_2210_two_player");
    at(&mut events, 252)["cards"] = json!([3, 10, 91, 81]);
    let want = Mismatch {
        sequence: "252".into(),
        what: "cards_drawn (seat 1)".into(),
        event: "[3,10,91,81]".into(),
        seed: "[3,10,90,81]".into(),
    };
    assert_eq!(found(&replay, &events), vec![want]);
    let (replay, mut events) = recorded("replay_2210_two_player");
    at(&mut events, 254)["roll"] = json!(3);
    let got: Vec<(String, String, String)> =
        found(&replay, &events).into_iter().map(|m| (m.sequence, m.what, m.seed)).collect();
    assert_eq!(got, vec![("254".into(), "card_rolled (d8)".into(), "8".into())]);
}

#[test]
fn a_changed_bid_tie_or_first_placer_is_caught_at_its_event() {
    let (replay, mut events) = recorded("replay_2210_five_player");
    at(&mut events, 92)["rolls"] = json!([[5, 1, 2, 2, 6], [0, 0, 6, 6, 0]]);
    let want = Mismatch {
        sequence: "92".into(),
        what: "bid_tie_rolled among seats [0, 1, 2, 3, 4]".into(),
        event: "[[5,1,2,2,6],[0,0,6,6,0]]".into(),
        seed: "[[5,1,2,2,6],[0,0,5,6,0]]".into(),
    };
    assert_eq!(found(&replay, &events), vec![want]);
    let (replay, mut events) = recorded("replay_2210_five_player");
    events.iter_mut().find(|e| e.sequence == 4).unwrap().seat = 3;
    let want = Mismatch {
        sequence: "4".into(),
        what: "first_player_rolled".into(),
        event: r#"{"rolls":[[2,4,2,1,5]],"seat":3}"#.into(),
        seed: r#"{"rolls":[[2,4,2,1,5]],"seat":4}"#.into(),
    };
    assert_eq!(found(&replay, &events), vec![want]);
}

#[test]
fn a_changed_neutral_territory_is_caught_at_its_event() {
    // The 10th and the 28th (after which the territory decks are reshuffled all the same).
    for (sequence, territory, seed) in [(13, 36, "35"), (31, 56, "55")] {
        let (replay, mut events) = recorded("replay_2210_two_player");
        at(&mut events, sequence)["territory"] = json!(territory);
        let got: Vec<(String, String)> = found(&replay, &events).into_iter().map(|m| (m.sequence, m.seed)).collect();
        assert_eq!(got, vec![(sequence.to_string(), seed.to_string())]);
    }
}

#[test]
fn a_changed_territory_card_or_devastation_is_caught() {
    let (replay, mut events) = recorded("replay_2210_three_player");
    let drawn = events.iter().find(|e| e.kind == "territory_card_drawn").unwrap().sequence;
    let territory = at(&mut events, drawn)["territory"].as_i64().unwrap();
    at(&mut events, drawn)["territory"] = json!(territory ^ 1);
    let got: Vec<(String, String)> = found(&replay, &events).into_iter().map(|m| (m.sequence, m.seed)).collect();
    assert_eq!(got, vec![(drawn.to_string(), territory.to_string())]);
    let (replay, mut events) = recorded("replay_2210_three_player");
    at(&mut events, 2)["territory"] = json!(0);
    assert_eq!(found(&replay, &events).iter().map(|m| &m.sequence[..]).collect::<Vec<_>>(), ["2"]);
}

/// A game without its first placer's roll-off, or with fewer than four devastated lands, is a mismatch.
#[test]
fn a_missing_roll_off_or_devastation_is_a_mismatch() {
    let (replay, events) = recorded("replay_2210_three_player");
    let without = |kind: &str, n: usize| {
        let mut left = events.clone();
        let i = left.iter().position(|e| e.kind == kind).unwrap();
        left.drain(i..i + n);
        found(&replay, &left).into_iter().filter(|m| m.sequence == "-").map(|m| (m.what, m.event)).collect::<Vec<_>>()
    };
    assert_eq!(without("first_player_rolled", 1), vec![("first_player_rolled".into(), r#""no such event""#.into())]);
    assert_eq!(without("devastated", 1), vec![("devastated".into(), r#""3 devastated events""#.into())]);
    let (replay, events) = recorded("replay_2210_two_player");
    let left: Vec<Event> = events.into_iter().filter(|e| e.sequence != 31).collect();
    let whole_game: Vec<String> =
        found(&replay, &left).into_iter().filter(|m| m.sequence == "-").map(|m| m.what).collect();
    assert_eq!(whole_game, ["neutral_placed"]);
}

#[test]
fn a_tampered_seed_fails_its_commitment() {
    let (mut replay, events) = recorded("replay_2210_five_player");
    replay.seed += 1;
    let mismatches = found(&replay, &events);
    assert_eq!(mismatches[0].what, "seed commitment");
    assert!(mismatches.len() > 10, "{mismatches:?}");
    let (mut replay, events) = recorded("replay_2210_five_player");
    replay.game_id = "another game".into();
    let mismatches = found(&replay, &events);
    assert_eq!(
        mismatches.iter().map(|m| (&m.sequence[..], &m.what[..])).collect::<Vec<_>>(),
        [("-", "seed commitment")]
    );
}

/// The command line reads either kind of replay: exit 0 all match, 1 a mismatch, 2 unreadable input.
#[test]
fn verify_replay_checks_a_2210_file() {
    let dir = format!("{}/../fixtures", env!("CARGO_MANIFEST_DIR"));
    let run = |replay: &str, events: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_verify-replay")).args([replay, events]).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (replay, events) =
        (format!("{dir}/replay_2210_two_player.json"), format!("{dir}/replay_2210_two_player.events.jsonl"));
    let (code, out) = run(&replay, &events);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("RISK 2210 A.D.") && out.contains("OK "), "{out}");
    let tampered = std::env::temp_dir().join(format!("verify2210-{}.events.jsonl", std::process::id()));
    let text = fixture("replay_2210_two_player.events.jsonl")
        .replace(r#"{\"faces\":8,\"roll\":8}"#, r#"{\"faces\":8,\"roll\":2}"#);
    std::fs::write(&tampered, text).unwrap();
    let (code, out) = run(&replay, tampered.to_str().unwrap());
    std::fs::remove_file(&tampered).unwrap();
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("MISMATCH event 254 card_rolled (d8): the event says 2; the seed gives 8"), "{out}");
    let classic = run(&format!("{dir}/replay_classic_long.json"), &format!("{dir}/replay_classic_long.events.jsonl"));
    assert_eq!(classic.0, Some(0), "{}", classic.1);
    assert_eq!(run(&replay, &format!("{dir}/no such file")).0, Some(2));
}
