//! The Conquest starter kit in Rust: the generated protocol (`pb`), action constructors, the client
//! (connection, queues, games, retries, reconnects) and the strategy (`strategy.rs`: put yours there).

/// The protocol, generated from ../../proto by build.rs.
pub mod pb {
    tonic::include_proto!("conquest.v1");
}

pub mod actions;
pub mod client;
pub mod strategy;
