//! Generates the Rust stubs for ../../proto at build time (into OUT_DIR; never committed), with the
//! protoc binary that protoc-bin-vendored brings from crates.io, so cargo is the only prerequisite.
use std::{env, error::Error, path::PathBuf};

fn main() -> Result<(), Box<dyn Error>> {
    let proto_dir = PathBuf::from(env::var("CONQUEST_PROTO_DIR").unwrap_or_else(|_| "../../proto".into()));
    let protos =
        ["conquest/v1/bot.proto", "conquest/v1/game.proto", "conquest/v1/r2210.proto"].map(|p| proto_dir.join(p));
    let mut config = tonic_prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    // The kit tests decode the shared JSON fixtures through this descriptor set (prost-reflect).
    let descriptors = PathBuf::from(env::var("OUT_DIR")?).join("conquest_descriptor.bin");
    tonic_prost_build::configure()
        .build_server(false)
        // No generated `BotServiceClient::connect(address)`: it would clash with the rpc named Connect.
        // The client opens its channel with tonic::transport::Endpoint instead.
        .build_transport(false)
        .file_descriptor_set_path(descriptors)
        .compile_with_config(config, &protos, &[proto_dir])?;
    // Regenerate when a .proto changes: without these lines cargo reran this script only when the
    // variable changed, and kept building against stale stubs.
    for proto in &protos {
        println!("cargo:rerun-if-changed={}", proto.display());
    }
    println!("cargo:rerun-if-env-changed=CONQUEST_PROTO_DIR");
    Ok(())
}
