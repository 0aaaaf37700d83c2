//! conquest-bot, the Rust starter kit for Conquest: connects to a server and plays.
use std::process::ExitCode;

use conquest_bot::client::{Client, Config, log};

const USAGE: &str = "usage: conquest-bot [options]
  --server host:port   server address (default localhost:50051)
  --token TOKEN        bot token for ranked play (default $CONQUEST_TOKEN)
  --name NAME          bot name for practice play without a token (default rust-aggressive)
  --queue Q1,Q2        queues to join (default: the server's first queue)
  --capacity N         games to play at the same time, 1-64 (default 4)
  --games N            stop after this many games (default 0: until interrupted)";

/// Reads the options (`--flag value` or `--flag=value`); the error says which one was wrong.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Config, String> {
    let mut config = Config {
        server: "localhost:50051".into(),
        token: std::env::var("CONQUEST_TOKEN").unwrap_or_default(),
        name: "rust-aggressive".into(),
        capacity: 4,
        queues: Vec::new(),
        games: 0,
    };
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
            None => (arg, None),
        };
        if flag == "--help" || flag == "-h" {
            return Err(String::new());
        }
        let value = inline.or_else(|| args.next()).ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse().map_err(|_| format!("{flag} takes a whole number, not {v:?}"));
        match flag.as_str() {
            "--server" => config.server = value,
            "--token" => config.token = value,
            "--name" => config.name = value,
            "--queue" => config.queues.extend(value.split(',').map(String::from)),
            "--capacity" => config.capacity = number(&value)?,
            "--games" => config.games = number(&value)? as usize,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(config)
}

/// Ctrl-C, or SIGTERM on Unix.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let config = match parse_args(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(problem) if problem.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("{problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut client = Client::new(config);
    tokio::select! {
        result = client.run() => match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(refused) => {
                log(&format!("the server refused the bot: {refused}"));
                ExitCode::FAILURE
            }
        },
        _ = interrupted() => ExitCode::SUCCESS,
    }
}
