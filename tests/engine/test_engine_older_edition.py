"""The older edition (001): where its text differs from the classic one, as rule options (docs/rules.md)."""

from __future__ import annotations

import pytest
from engine_table import CAVALRY, INFANTRY, T, force_dice, position, split_board, start_turn

from engine import (
    Attack,
    GameState,
    IllegalActionError,
    Occupy,
    Phase,
    Place,
    TradeCards,
    default_action,
    new_game,
    preset,
)
from engine.events import Traded

OWNERS = split_board(14, 14, 14)
OWN_INF, OWN_ART = (0, 2, 3), (1, 7, 8)  # sets picturing seat 0's territories
OTHER_INF, OTHER_CAV = (18, 20, 21), (16, 17, 19)


def turn_of_seat_0(hand: tuple[int, ...], rules: str) -> GameState:
    state = position(OWNERS, 3, rules=preset(rules), hands=[hand], phase=Phase.FORTIFY)
    start_turn(state, 0)
    return state


@pytest.mark.parametrize(("rules", "bonuses"), [("older_edition", (0, 1)), ("classic", (0, -1))])
def test_two_extra_armies_for_every_set_picturing_your_territory(
    rules: str, bonuses: tuple[int, int]
) -> None:
    """001: "Also, if any of the three cards in the match depicts a territory the player occupies, s/he
    earns another two armies, which must be placed immediately on that particular territory." — no
    once-per-turn limit in 001 (territory_bonus_mode='per_set'); 000 caps it ("no more than 2 extra
    armies")."""
    state = turn_of_seat_0((*OWN_INF, *OWN_ART), rules)
    events = state.apply(TradeCards(OWN_INF), seat=0) + state.apply(TradeCards(OWN_ART), seat=0)
    assert tuple(e.bonus_territory for e in events if isinstance(e, Traded)) == bonuses


@pytest.mark.parametrize("rules", ["older_edition", "classic"])
def test_five_cards_force_a_trade_at_the_start_of_the_next_turn(rules: str) -> None:
    """001: "As soon as a player accumulates FIVE cards s/he must exchange his/her three-card match for
    armies at the beginning of his/her next turn." — the same threshold as 000's "5 or 6 cards"
    (forced_trade_at=5 in both)."""
    state = turn_of_seat_0((*OTHER_INF, OTHER_CAV[0], OTHER_CAV[1]), rules)
    legal = state.legal_actions()
    assert legal.must_trade and not legal.place_territories
    with pytest.raises(IllegalActionError, match="trade a card set first"):
        state.apply(Place(0, 1), seat=0)


def test_the_deck_has_44_cards() -> None:
    """001: "The deck has 44 cards ... 42 have a single territory on them ... The remaining two cards are
    'wild cards'" — the same deck as 000 without its mission cards."""
    state, _ = new_game(preset("older_edition"), seats=3, seed=1)
    while state.phase in (Phase.SETUP_CLAIM, Phase.SETUP_PLACE):
        state.apply(default_action(state.legal_actions()))
    assert sorted(state.deck) == list(range(44))


# Seat 2 holds only Kamchatka; seat 0 the Americas (ids 0..12), seat 1 the rest.
ELIMINATION_OWNERS = [0] * 13 + [1] * 29
ELIMINATION_OWNERS[T("Kamchatka")] = 2


@pytest.mark.parametrize(("rules", "more_sets"), [("older_edition", True), ("classic", False)])
def test_after_an_elimination_further_sets_may_be_traded(rules: str, more_sets: bool) -> None:
    """001: "If the total number of cards held by the attacker now equals six or more, s/he must turn in
    matched sets ... until s/he has four or fewer Risk cards remaining. ... If s/he can make two or three
    sets, s/he may turn them in" — 000 instead: "once your hand is reduced to 4,3, or 2 cards, you must
    stop trading" (elimination_extra_trades)."""
    infantry = [c for c in INFANTRY if ELIMINATION_OWNERS[c] != 0][:4]  # no +2 armies to place
    cavalry = [c for c in CAVALRY if ELIMINATION_OWNERS[c] != 0][:3]
    armies = [2] * 42
    armies[T("Alaska")], armies[T("Kamchatka")] = 10, 1
    state = position(
        ELIMINATION_OWNERS, armies, rules=preset(rules), hands=[infantry[:3], (), (infantry[3], *cavalry)]
    )
    force_dice(state, ((6, 6, 6), (1,)))
    state.apply(Attack(T("Alaska"), T("Kamchatka"), 3), seat=0)
    if state.phase == Phase.OCCUPY:
        state.apply(Occupy(3), seat=0)
    assert state.phase == Phase.REINFORCE and len(state.hands[0]) == 7
    state.apply(TradeCards(tuple(state.legal_actions().trades[0])), seat=0)
    legal = state.legal_actions()
    assert len(state.hands[0]) == 4 and not legal.must_trade and legal.place_territories
    assert bool(legal.trades) == more_sets
    if more_sets:
        state.apply(TradeCards(legal.trades[0]), seat=0)
        assert len(state.hands[0]) == 1
        state.apply(Place(T("Alaska"), state.reinforcements), seat=0)
        assert state.phase == Phase.ATTACK
