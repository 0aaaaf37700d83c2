//! One-line constructors for every action, and the plainest legal action.
use crate::pb::{self, action::Kind};

fn action(kind: Kind) -> pb::Action {
    pb::Action { kind: Some(kind) }
}

pub fn claim(territory: i32) -> pb::Action {
    action(Kind::Claim(pb::ClaimAction { territory }))
}

pub fn choose_headquarters(territory: i32) -> pb::Action {
    action(Kind::ChooseHeadquarters(pb::ChooseHeadquartersAction { territory }))
}

pub fn place(territory: i32, armies: i32) -> pb::Action {
    action(Kind::Place(pb::PlaceAction { territory, armies }))
}

/// Trade a set; `bonus_territory` None leaves the +2 to the server's choice.
pub fn trade(set: &pb::CardSet, bonus_territory: Option<i32>) -> pb::Action {
    action(Kind::TradeCards(pb::TradeCardsAction { cards: set.cards.clone(), bonus_territory }))
}

pub fn attack(source: i32, target: i32, dice: i32, repeat_until: i32) -> pb::Action {
    action(Kind::Attack(pb::AttackAction { source, target, dice, repeat_until }))
}

pub fn defend(dice: i32) -> pb::Action {
    action(Kind::ChooseDefence(pb::ChooseDefenceAction { dice }))
}

pub fn occupy(armies: i32) -> pb::Action {
    action(Kind::Occupy(pb::OccupyAction { armies }))
}

pub fn fortify(source: i32, target: i32, armies: i32) -> pb::Action {
    action(Kind::Fortify(pb::FortifyAction { source, target, armies }))
}

pub fn end_phase() -> pb::Action {
    action(Kind::EndPhase(pb::EndPhaseAction {}))
}

/// The plainest legal action, read off the legal actions alone (no board needed): the retry after a
/// rejection, and the answer for a game whose board we do not know.
pub fn safe_action(legal: &pb::LegalActions) -> pb::Action {
    if let Some(&t) = legal.claim.first() {
        return claim(t);
    }
    if let Some(&t) = legal.headquarters.first() {
        return choose_headquarters(t);
    }
    if let Some(set) = legal.trades.first()
        && (legal.must_trade || legal.place_territories.is_empty())
    {
        return trade(set, None);
    }
    if let Some(&t) = legal.place_territories.first() {
        return place(t, legal.place_max);
    }
    if legal.defend_max > 0 {
        return defend(legal.defend_max);
    }
    if legal.occupy_max > 0 {
        return occupy(legal.occupy_min);
    }
    end_phase()
}
