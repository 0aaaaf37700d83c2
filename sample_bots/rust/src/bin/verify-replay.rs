//! verify-replay: re-derives every roll and shuffle of a recorded game from its revealed seed and compares
//! them with the game's events (docs/protocol.md, "Randomness").
//!
//!     target/debug/verify-replay REPLAY.json EVENTS.jsonl
//!
//! EVENTS.jsonl is `conquest replay events REPLAY.json`. Exit status: 0 all match, 1 a mismatch (each
//! printed), 2 unreadable input.
use std::process::ExitCode;

use conquest_bot::verify::{Replay, Verdict, parse_events, verify};

fn check(replay_path: &str, events_path: &str) -> Result<Verdict, String> {
    let read = |path: &str| std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"));
    let replay = Replay::parse(&read(replay_path)?)?;
    let events = parse_events(&read(events_path)?)?;
    verify(&replay, &events)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: verify-replay REPLAY.json EVENTS.jsonl   (EVENTS: `conquest replay events REPLAY.json`)");
        return ExitCode::from(2);
    }
    let verdict = match check(&args[0], &args[1]) {
        Ok(verdict) => verdict,
        Err(error) => {
            eprintln!("{}: {error}", args[0]);
            return ExitCode::from(2);
        }
    };
    for note in &verdict.notes {
        println!("{}: {note}", args[0]);
    }
    for mismatch in &verdict.mismatches {
        println!("{mismatch}");
    }
    if verdict.mismatches.is_empty() {
        println!("OK   {}", args[0]);
        ExitCode::SUCCESS
    } else {
        println!("FAIL {}: {} mismatch(es)", args[0], verdict.mismatches.len());
        ExitCode::from(1)
    }
}
