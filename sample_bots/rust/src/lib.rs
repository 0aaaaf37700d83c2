//! The Conquest starter kit in Rust: the generated protocol (`pb`), action constructors, the client
//! (connection, queues, games, retries, reconnects), the strategy (`strategy.rs`: put yours there), the
//! answer to RISK 2210 A.D. decisions (`r2210.rs`) and the replay verifier (`dice.rs`, `verify.rs`, and
//! `verify2210.rs` for 2210 replays, `reseed.rs` for games taken over; its command line is
//! `src/bin/verify-replay.rs`).

/// The protocol, generated from ../../proto by build.rs.
pub mod pb {
    tonic::include_proto!("conquest.v1");
}

pub mod actions;
pub mod client;
pub mod dice;
pub mod r2210;
pub mod reseed;
pub mod strategy;
pub mod verify;
pub mod verify2210;
