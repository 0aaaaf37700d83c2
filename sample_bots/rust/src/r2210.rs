//! RISK 2210 A.D. games (docs/protocol.md, "RISK 2210 A.D. games"): the kit answers every 2210 decision
//! with the safe legal choice read from the request's `Legal2210` alone, the same answer the server gives
//! on a timeout. A 2210 strategy of your own goes in `default_2210`'s place.
use crate::pb::{self, Phase2210, action2210::Kind};

fn action(kind: Kind) -> pb::Action2210 {
    pb::Action2210 { kind: Some(kind) }
}

/// Stops where stopping is allowed (passes a card window or the nuclear exchange, moves no decoys), bids
/// nothing, rolls and defends with every die, moves in the least, and otherwise takes the first choice
/// offered (MOD Reduction: the first MODs listed). Panics on a phase that asks nothing.
pub fn default_2210(legal: &pb::Legal2210) -> pb::Action2210 {
    if legal.can_end {
        return action(Kind::EndPhase(pb::EndPhaseAction {}));
    }
    let first = || legal.territories[0];
    match legal.phase() {
        Phase2210::SetupClaim => return action(Kind::Claim(pb::ClaimAction { territory: first() })),
        Phase2210::SetupPlace | Phase2210::Deploy => {
            return action(Kind::Place(pb::PlaceModsAction { territory: first(), mods: legal.place_max }));
        }
        Phase2210::SetupCommanders => {
            let (land, diplomat, station) = (first(), first(), first());
            return action(Kind::PlaceCommanders(pb::PlaceCommandersAction { land, diplomat, station }));
        }
        Phase2210::Bid => return action(Kind::Bid(pb::BidAction { energy: 0 })),
        Phase2210::ChooseMarker => {
            return action(Kind::ChooseMarker(pb::ChooseMarkerAction { marker: legal.markers[0] }));
        }
        Phase2210::BonusCard => {
            if let Some(deck) = legal.card_decks.iter().position(|&n| n > 0) {
                return action(Kind::TakeCard(pb::TakeCardAction { deck: deck as i32 }));
            }
        }
        Phase2210::Roll => return action(Kind::Roll(pb::RollAction { dice: legal.dice_max, d8: vec![] })),
        Phase2210::Defend => return action(Kind::Defend(pb::ChooseDefenceAction { dice: legal.defend_max })),
        Phase2210::Losses => {
            // MODs first, then commanders in the order offered.
            let mods = legal.lose.min(legal.occupy_mods);
            let commanders = legal.occupy_commanders[..(legal.lose - mods) as usize].to_vec();
            return action(Kind::Lose(pb::ChooseLossesAction { mods, commanders }));
        }
        Phase2210::Reduce => {
            // One territory per MOD, the territories in the order offered, each at most mods_at[i] times.
            let territories = legal
                .territories
                .iter()
                .zip(&legal.mods_at)
                .flat_map(|(&t, &n)| std::iter::repeat_n(t, n.max(0) as usize))
                .take(legal.lose.max(0) as usize)
                .collect();
            return action(Kind::Remove(pb::RemoveModsAction { territories }));
        }
        Phase2210::Occupy => {
            // The commanders that must move, more commanders only when the MODs cannot make up the least.
            let mut commanders = legal.must_move.clone();
            for &c in &legal.occupy_commanders {
                if legal.occupy_mods + commanders.len() as i32 >= legal.occupy_min {
                    break;
                }
                if !commanders.contains(&c) {
                    commanders.push(c);
                }
            }
            let mods = (legal.occupy_min - commanders.len() as i32).max(0);
            return action(Kind::Occupy(pb::MoveUnitsAction { mods, commanders }));
        }
        _ => {}
    }
    panic!("no 2210 decision in phase {}", legal.phase().as_str_name())
}
