//! The strategy must answer every recorded request (each decision kind of the protocol, from real
//! engine games; see ../fixtures/make_decisions.py) with an action its own LegalActions allow.
use std::sync::LazyLock;

use conquest_bot::actions::safe_action;
use conquest_bot::pb::{self, action::Kind};
use conquest_bot::strategy::{Game, decide};
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::Value;

struct Fixture {
    kind: String,
    game: Game,
    request: pb::DecisionRequest,
    decision: pb::Action,
}

/// The recorded JSON read the proto3 JSON way, through the descriptors build.rs wrote.
fn decode<T: prost::Message + Default>(pool: &DescriptorPool, name: &str, json: &Value) -> T {
    let descriptor = pool.get_message_by_name(name).unwrap_or_else(|| panic!("no message {name}"));
    let message = DynamicMessage::deserialize(descriptor, json.clone()).expect("a valid recorded message");
    message.transcode_to().expect("the same message")
}

static FIXTURES: LazyLock<Vec<Fixture>> = LazyLock::new(|| {
    let pool = DescriptorPool::decode(&include_bytes!(concat!(env!("OUT_DIR"), "/conquest_descriptor.bin"))[..])
        .expect("descriptors from build.rs");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/decisions.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the fixtures")).unwrap();
    let mut out = Vec::new();
    for g in file["games"].as_array().unwrap() {
        let started: pb::GameStarted = decode(&pool, "conquest.v1.GameStarted", &g["game_started"]);
        for d in g["decisions"].as_array().unwrap() {
            let request: pb::DecisionRequest = decode(&pool, "conquest.v1.DecisionRequest", &d["request"]);
            let seat = request.observation.as_ref().unwrap().to_act;
            let game = Game {
                id: started.game_id.clone(),
                seat,
                players: started.players.clone(),
                map: started.map.clone().unwrap(),
                rules: started.rules.clone().unwrap(),
            };
            let decision = decide(&game, &request);
            out.push(Fixture { kind: d["kind"].as_str().unwrap().into(), game, request, decision });
        }
    }
    out
});

/// Why `action` is not allowed by `legal`, or None when it is.
fn legality_problem(legal: &pb::LegalActions, action: &pb::Action) -> Option<String> {
    let within = |x: i32, lo: i32, hi: i32| (lo..=hi).contains(&x);
    let problem = match action.kind.as_ref()? {
        Kind::Claim(c) => (!legal.claim.contains(&c.territory)).then_some("claim of a territory not in legal.claim"),
        Kind::ChooseHeadquarters(h) => {
            (!legal.headquarters.contains(&h.territory)).then_some("headquarters not in legal.headquarters")
        }
        Kind::Place(p) if legal.must_trade || !legal.place_territories.contains(&p.territory) => {
            Some("place on a territory not in legal.place_territories")
        }
        Kind::Place(p) => (!within(p.armies, legal.place_min, legal.place_max)).then_some("place armies out of range"),
        Kind::TradeCards(t) => match legal.trades.iter().find(|s| s.cards == t.cards) {
            None => Some("trade of a set not in legal.trades"),
            Some(set) => t
                .bonus_territory
                .is_some_and(|b| !set.bonus_territories.contains(&b))
                .then_some("bonus territory not in the set's bonus_territories"),
        },
        Kind::Attack(a) => {
            let found = (0..legal.attack_sources.len())
                .find(|&i| legal.attack_sources[i] == a.source && legal.attack_targets[i] == a.target);
            match found {
                None => Some("attack not in the legal attack options"),
                Some(i) if !within(a.dice, 1, legal.attack_max_dice[i]) => Some("attack dice out of range"),
                Some(i) => (!within(a.repeat_until, 0, legal.attack_source_armies[i] - 1))
                    .then_some("repeat_until out of range"),
            }
        }
        Kind::ChooseDefence(d) => (!within(d.dice, 1, legal.defend_max)).then_some("defence dice out of range"),
        Kind::Occupy(o) => (legal.occupy_max == 0 || !within(o.armies, legal.occupy_min, legal.occupy_max))
            .then_some("occupy armies out of range"),
        Kind::Fortify(f) => {
            let found = (0..legal.fortify_sources.len())
                .find(|&i| legal.fortify_sources[i] == f.source && legal.fortify_targets[i] == f.target);
            match found {
                None => Some("fortify move not in the legal options"),
                Some(i) => (!within(f.armies, 1, legal.fortify_max_armies[i])).then_some("fortify armies out of range"),
            }
        }
        Kind::EndPhase(_) => (!legal.can_end).then_some("end_phase while can_end is false"),
    };
    problem.map(String::from)
}

const KINDS: [&str; 16] = [
    "setup_claim",
    "setup_place",
    "setup_place_neutral",
    "reinforce",
    "reinforce_may_trade",
    "reinforce_must_trade",
    "reinforce_trade_down_after_elimination",
    "attack",
    "defend",
    "occupy",
    "fortify",
    "choose_headquarters",
    "allied_reinforce",
    "allied_attack",
    "defend_allied",
    "occupy_allied",
];

#[test]
fn strategy_answers_every_recorded_request_legally() {
    for f in FIXTURES.iter() {
        let legal = f.request.legal.as_ref().unwrap();
        let problem = if f.decision.kind.is_none() {
            Some("no action kind set".into())
        } else {
            legality_problem(legal, &f.decision)
        };
        assert_eq!(problem, None, "{} request {}: {:?}", f.kind, f.request.request_id, f.decision);
    }
    for kind in KINDS {
        assert!(FIXTURES.iter().any(|f| f.kind == kind), "no recorded request of kind {kind}");
    }
}

#[test]
fn safe_action_is_legal_for_every_recorded_request() {
    for f in FIXTURES.iter() {
        let legal = f.request.legal.as_ref().unwrap();
        assert_eq!(legality_problem(legal, &safe_action(legal)), None, "{} request {}", f.kind, f.request.request_id);
    }
}

/// Issue 7: "plays the aggressive strategy (not just random legal moves)".
#[test]
fn strategy_is_aggressive() {
    for f in FIXTURES.iter() {
        let (legal, obs) = (f.request.legal.as_ref().unwrap(), f.request.observation.as_ref().unwrap());
        let owner = |t: i32| obs.owners[t as usize];
        let neighbours = |t: i32| &f.game.map.territories[t as usize].neighbours;
        match (f.kind.as_str(), f.decision.kind.as_ref().unwrap()) {
            (k, decision) if k.starts_with("reinforce_") => {
                assert!(matches!(decision, Kind::TradeCards(_)), "{k}: holds a tradeable set but played {decision:?}")
            }
            ("reinforce", Kind::Place(p)) => {
                assert_eq!(p.armies, legal.place_max, "reinforce: places all its armies at once")
            }
            ("setup_place_neutral", Kind::Place(p)) => {
                assert_ne!(owner(p.territory), obs.to_act, "a neutral army goes on a neutral territory")
            }
            ("choose_headquarters", Kind::ChooseHeadquarters(h)) => {
                // The territory whose armies outnumber its enemy neighbours' the most.
                let margin = |t: i32| {
                    let enemies = neighbours(t).iter().filter(|&&n| owner(n) != obs.to_act);
                    obs.armies[t as usize] - enemies.map(|&n| obs.armies[n as usize]).sum::<i32>()
                };
                for &t in &legal.headquarters {
                    assert!(margin(t) <= margin(h.territory), "chose {} over the safer {t}", h.territory);
                }
            }
            ("allied_reinforce", Kind::Place(p)) => {
                // All the Allied Army's armies at once, next to our opponent when an Allied territory is.
                assert_eq!(p.armies, legal.place_max, "places all the Allied armies at once");
                assert_eq!(owner(p.territory), legal.army, "on an Allied territory");
                let borders_opponent =
                    |t: i32| neighbours(t).iter().any(|&n| owner(n) != obs.to_act && owner(n) != legal.army);
                if legal.place_territories.iter().any(|&t| borders_opponent(t)) {
                    assert!(borders_opponent(p.territory), "allied_reinforce: placed away from the opponent");
                }
            }
            ("attack" | "allied_attack", decision) => {
                let outnumbers = (0..legal.attack_targets.len())
                    .any(|i| legal.attack_source_armies[i] - 1 > obs.armies[legal.attack_targets[i] as usize]);
                match decision {
                    Kind::Attack(a) => assert_eq!(a.repeat_until, 1, "{}: rolls on to the end", f.kind),
                    _ => assert!(!outnumbers, "{}: ended attacking although a source outnumbers its target", f.kind),
                }
            }
            ("defend" | "defend_allied", Kind::ChooseDefence(d)) => {
                assert_eq!(d.dice, legal.defend_max, "defends with the most dice")
            }
            ("occupy", Kind::Occupy(o)) => {
                // Everything forward, unless the captured territory is safe and the source (named by
                // Observation.pending_source) still faces an enemy.
                let borders_enemy =
                    |t: i32| f.game.map.territories[t as usize].neighbours.iter().any(|&n| owner(n) != obs.to_act);
                let hold_back = !borders_enemy(obs.pending_target) && borders_enemy(obs.pending_source);
                let expected = if hold_back { legal.occupy_min } else { legal.occupy_max };
                assert_eq!(o.armies, expected, "occupy from {} into {}", obs.pending_source, obs.pending_target);
            }
            ("reinforce" | "setup_place_neutral" | "defend" | "defend_allied" | "occupy", d)
            | ("choose_headquarters" | "allied_reinforce", d) => {
                panic!("{}: unexpected action {d:?}", f.kind)
            }
            _ => {}
        }
    }
}

/// The move-in source comes from Observation.pending_source (kit feedback, commit 1833bdf): with the
/// captured territory made safe and the source facing an enemy, the strategy moves in the minimum.
#[test]
fn occupy_holds_back_at_the_source_it_is_told() {
    let f = FIXTURES.iter().find(|f| f.kind == "occupy").expect("an occupy request");
    let mut request = f.request.clone();
    let obs = request.observation.as_mut().unwrap();
    let (me, source, target) = (obs.to_act, obs.pending_source, obs.pending_target);
    let neighbours = |t: i32| f.game.map.territories[t as usize].neighbours.clone();
    let enemy = (0..f.game.players.len() as i32).find(|&s| s != me).unwrap();
    for n in neighbours(target) {
        obs.owners[n as usize] = me;
    }
    let behind = neighbours(source).into_iter().find(|&n| n != target && !neighbours(target).contains(&n));
    obs.owners[behind.expect("a neighbour of the source away from the target") as usize] = enemy;
    let legal = request.legal.as_ref().unwrap();
    assert_eq!(decide(&f.game, &request), conquest_bot::actions::occupy(legal.occupy_min));
    // With no enemy left next to the source either, everything moves forward.
    let obs = request.observation.as_mut().unwrap();
    for n in neighbours(source) {
        obs.owners[n as usize] = me;
    }
    assert_eq!(decide(&f.game, &request), conquest_bot::actions::occupy(legal.occupy_max));
}
