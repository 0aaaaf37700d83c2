//! Issue 19: "All four starter kits (TypeScript, Go, Rust, Java) answer every 2210 decision (at least
//! with a legal choice)". The kit's answer to every golden 2210 request (one per phase, made by the
//! server's tests/server/make_golden_2210.py) must be one its own Legal2210 allows.
use std::collections::{BTreeMap, HashSet};

use conquest_bot::pb::{self, Phase2210, action2210::Kind, connect_response::Message, decision_request::Game};
use conquest_bot::r2210::default_2210;
use prost_reflect::{DescriptorPool, DynamicMessage};

/// The protocol's descriptors, as build.rs wrote them.
fn pool() -> DescriptorPool {
    DescriptorPool::decode(&include_bytes!(concat!(env!("OUT_DIR"), "/conquest_descriptor.bin"))[..])
        .expect("descriptors from build.rs")
}

/// Every golden 2210 request by file name, read the proto3 JSON way.
fn golden() -> BTreeMap<String, pb::DecisionRequest> {
    let descriptor = pool().get_message_by_name("conquest.v1.ConnectResponse").expect("ConnectResponse");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/server/golden");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("the golden requests") {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.starts_with("decision_request_2210_") {
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{name}")).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let message = DynamicMessage::deserialize(descriptor.clone(), json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let response: pb::ConnectResponse = message.transcode_to().expect("the same message");
        let Some(Message::DecisionRequest(request)) = response.message else { panic!("{name}: no DecisionRequest") };
        out.insert(name, request);
    }
    assert!(!out.is_empty(), "no golden 2210 requests in {dir}");
    out
}

fn legal_of(request: &pb::DecisionRequest) -> &pb::Legal2210 {
    match &request.game {
        Some(Game::R2210(r)) => r.legal.as_ref().expect("Request2210.legal"),
        None => panic!("not a 2210 request"),
    }
}

/// Distinct members of `of`.
fn subset(xs: &[i32], of: &[i32]) -> bool {
    xs.iter().enumerate().all(|(i, x)| of.contains(x) && !xs[..i].contains(x))
}

/// Why `action` is not allowed by `legal` (docs/protocol.md's table of 2210 phases), or None when it is.
fn legality_problem(legal: &pb::Legal2210, action: &pb::Action2210) -> Option<String> {
    let within = |x: i32, lo: i32, hi: i32| (lo..=hi).contains(&x);
    let t = &legal.territories;
    let phase = legal.phase();
    let ok = match action.kind.as_ref() {
        None => false,
        Some(Kind::EndPhase(_)) => legal.can_end,
        Some(Kind::Claim(c)) => phase == Phase2210::SetupClaim && t.contains(&c.territory),
        Some(Kind::Place(p)) => {
            matches!(phase, Phase2210::SetupPlace | Phase2210::Deploy)
                && t.contains(&p.territory)
                && within(p.mods, 1, legal.place_max)
        }
        Some(Kind::PlaceCommanders(p)) => {
            phase == Phase2210::SetupCommanders && [p.land, p.diplomat, p.station].iter().all(|x| t.contains(x))
        }
        Some(Kind::Bid(b)) => phase == Phase2210::Bid && within(b.energy, 0, legal.bid_max),
        Some(Kind::ChooseMarker(m)) => phase == Phase2210::ChooseMarker && legal.markers.contains(&m.marker),
        Some(Kind::TakeCard(c)) => {
            phase == Phase2210::BonusCard
                && usize::try_from(c.deck).ok().and_then(|d| legal.card_decks.get(d)).is_some_and(|&n| n > 0)
        }
        Some(Kind::Roll(r)) => {
            phase == Phase2210::Roll
                && within(r.dice, 1, legal.dice_max)
                && subset(&r.d8, &legal.d8)
                && r.d8.len() as i32 <= r.dice
        }
        Some(Kind::Defend(d)) => phase == Phase2210::Defend && within(d.dice, 1, legal.defend_max),
        Some(Kind::Lose(l)) => {
            phase == Phase2210::Losses
                && within(l.mods, 0, legal.occupy_mods)
                && subset(&l.commanders, &legal.occupy_commanders)
                && l.mods + l.commanders.len() as i32 == legal.lose
        }
        Some(Kind::Remove(r)) => {
            // Legal2210.lose territories, each named at most its mods_at times.
            let count = |x: i32| r.territories.iter().filter(|&&y| y == x).count() as i32;
            phase == Phase2210::Reduce
                && r.territories.len() as i32 == legal.lose
                && t.len() == legal.mods_at.len()
                && t.iter().zip(&legal.mods_at).all(|(&x, &n)| count(x) <= n)
                && r.territories.iter().all(|x| t.contains(x))
        }
        Some(Kind::Occupy(o)) => {
            let moved = o.mods + o.commanders.len() as i32;
            let there = legal.occupy_mods + legal.occupy_commanders.len() as i32;
            phase == Phase2210::Occupy
                && within(o.mods, 0, legal.occupy_mods)
                && subset(&o.commanders, &legal.occupy_commanders)
                && legal.must_move.iter().all(|m| o.commanders.contains(m))
                && moved >= legal.occupy_min
                && moved < there
        }
        // Hire, build, buy, declare, fortify and play are never the safe choice: each phase that offers
        // them also allows EndPhase.
        Some(_) => false,
    };
    (!ok).then(|| format!("{action:?} is not legal for {legal:?}"))
}

#[test]
fn default_answer_is_legal_for_every_golden_request() {
    let mut phases = HashSet::new();
    for (name, request) in golden() {
        let legal = legal_of(&request);
        phases.insert(legal.phase());
        if let Some(problem) = legality_problem(legal, &default_2210(legal)) {
            panic!("{name}: {problem}");
        }
    }
    // Every phase that asks a seat something (all but unspecified and game over) has a golden request.
    let all = pool().get_enum_by_name("conquest.v1.Phase2210").expect("Phase2210");
    for phase in all.values().map(|v| Phase2210::try_from(v.number()).expect("a generated Phase2210")) {
        if !matches!(phase, Phase2210::Unspecified | Phase2210::GameOver) {
            assert!(phases.contains(&phase), "no golden request of {}", phase.as_str_name());
        }
    }
}

/// 004: commanders that rolled 8-sided dice must move in; MODs make up the rest of the least.
#[test]
fn default_occupies_with_the_commanders_that_must_move() {
    let legal = pb::Legal2210 {
        phase: Phase2210::Occupy.into(),
        occupy_min: 3,
        occupy_mods: 4,
        occupy_commanders: vec![0, 2],
        must_move: vec![2],
        ..Default::default()
    };
    let action = default_2210(&legal);
    assert_eq!(action.kind, Some(Kind::Occupy(pb::MoveUnitsAction { mods: 2, commanders: vec![2] })));
    assert_eq!(legality_problem(&legal, &action), None);
}

/// MOD Reduction: "Each opponent ... removes 4 of their own MODs from anywhere on the boards".
#[test]
fn default_removes_the_first_mods_listed() {
    let legal = pb::Legal2210 {
        phase: Phase2210::Reduce.into(),
        territories: vec![5, 9, 60],
        mods_at: vec![1, 2, 7],
        lose: 4,
        ..Default::default()
    };
    let action = default_2210(&legal);
    assert_eq!(action.kind, Some(Kind::Remove(pb::RemoveModsAction { territories: vec![5, 9, 9, 60] })));
    assert_eq!(legality_problem(&legal, &action), None);
}
