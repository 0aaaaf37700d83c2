//! Games taken over by another server (docs/protocol.md, "Games taken over"): a format 2 replay lists each
//! takeover's fresh seed in `reseeds`, and `conquest replay events` marks each with a `reseeded` event.
//! `verify.rs` and `verify2210.rs` check each such event here, then go on with the fresh stream and shuffle
//! the undrawn cards again with it.
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::dice::Stream;
use crate::verify::{Replay, Verdict};

/// One takeover: from action `at` on, every draw comes from a new stream of `seed`, committed to as
/// sha256("<seed>:<game_id>:<at>") in hex.
#[derive(Clone, Debug, PartialEq)]
pub struct Reseed {
    pub at: u64,
    pub seed: u64,
    pub commitment: String,
}

impl Reseed {
    /// A `reseeds` entry of a replay file (64-bit integers read exactly, never through a double).
    pub fn parse(entry: &Value) -> Option<Reseed> {
        Some(Reseed {
            at: entry["at"].as_u64()?,
            seed: entry["seed"].as_u64()?,
            commitment: entry["commitment"].as_str()?.to_string(),
        })
    }

    /// A `reseeded` event's facts: at and seed are JSON strings in a classic GameEvent (proto3 JSON's
    /// 64-bit integers), at a number in a 2210 event's dataJson.
    fn from_event(body: &Value) -> Option<Reseed> {
        let integer = |v: &Value| v.as_u64().or_else(|| v.as_str()?.parse().ok());
        Some(Reseed {
            at: integer(&body["at"])?,
            seed: integer(&body["seed"])?,
            commitment: body["commitment"].as_str()?.to_string(),
        })
    }
}

/// Compares the replay's `index`-th reseed's commitment with sha256 of "<seed>:<game_id>:<at>".
pub(crate) fn check_commitment(replay: &Replay, index: usize, sequence: &str, verdict: &mut Verdict) {
    let reseed = &replay.reseeds[index];
    let commitment = format!("{:x}", Sha256::digest(format!("{}:{}:{}", reseed.seed, replay.game_id, reseed.at)));
    if commitment != reseed.commitment {
        let what = format!(
            "reseed {} of {} (at {}): the replay's commitment, against sha256 of \"seed:game_id:at\"",
            index + 1,
            replay.reseeds.len(),
            reseed.at
        );
        verdict.mismatch(sequence, &what, json!(reseed.commitment), json!(commitment));
    }
}

/// Follows a replay's takeovers through its events: the k-th `reseeded` event must be the replay's k-th
/// reseed, whose commitment must hold.
pub(crate) struct Reseeds<'a> {
    replay: &'a Replay,
    seen: usize,
}

impl<'a> Reseeds<'a> {
    pub(crate) fn new(replay: &'a Replay) -> Self {
        Reseeds { replay, seen: 0 }
    }

    /// Checks the `reseeded` event at `sequence`; the stream the game goes on with: the replay's fresh
    /// seed's (none when the replay lists no further reseed: the game then keeps its stream).
    pub(crate) fn at(&mut self, sequence: &str, body: &Value, verdict: &mut Verdict) -> Option<Stream> {
        let listed = self.replay.reseeds.get(self.seen).cloned();
        let Some(listed) = listed else {
            let what = format!("reseeded (an event beyond the replay's {} reseeds)", self.replay.reseeds.len());
            verdict.mismatch(sequence, &what, body.clone(), json!("no reseed"));
            return None;
        };
        let index = self.seen;
        self.seen += 1;
        if Reseed::from_event(body).as_ref() != Some(&listed) {
            let what = format!("reseeded, against the replay's reseed {} of {}", index + 1, self.replay.reseeds.len());
            let entry = json!({"at": listed.at, "seed": listed.seed, "commitment": listed.commitment});
            verdict.mismatch(sequence, &what, body.clone(), entry);
        }
        check_commitment(self.replay, index, sequence, verdict);
        Some(Stream::new(listed.seed))
    }

    /// After the last event: a mismatch if fewer `reseeded` events came than the replay lists reseeds, and
    /// a note of how many were checked (none for a game played on one server).
    pub(crate) fn finish(&self, verdict: &mut Verdict) {
        let listed = self.replay.reseeds.len();
        if self.seen < listed {
            let said = format!("{} reseeded events", self.seen);
            verdict.mismatch("-", "reseeded", json!(said), json!(format!("{listed}: one per reseed the replay lists")));
        }
        if listed > 0 {
            verdict.notes.push(format!(
                "{} reseeds checked (commitment, a new stream, the undrawn cards shuffled again)",
                self.seen
            ));
        }
    }
}
