"""Fortifying, the end of a turn, and how a game ends and ranks every seat."""

from __future__ import annotations

import pytest
from engine_table import T, position, split_board

from engine import EndPhase, Fortify, GameState, IllegalActionError, Phase, default_action, new_game, preset
from engine.events import Fortified, GameEnded, TurnStarted

OWNERS = split_board(14, 14, 14)  # seat 0: ids 0..13 (the Americas and Iceland)
ALASKA, ALBERTA, ONTARIO, ARGENTINA = T("Alaska"), T("Alberta"), T("Ontario"), T("Argentina")


def fortify_position(**rules: str) -> GameState:
    armies = [1] * 42
    armies[ALASKA] = 6
    return position(OWNERS, armies, rules=preset("classic", **rules), phase=Phase.FORTIFY)


def test_fortify_one_move_to_an_adjacent_territory_leaving_one() -> None:
    """000: "move as many armies as you'd like from one (and only one) of your territories into one (and
    only one) of your adjacent territories. ... you must leave at least one army behind.\""""
    state = fortify_position()
    (option,) = state.legal_actions().fortify
    assert option.source == ALASKA and option.max_armies == 5
    assert set(option.targets) == {T("Northwest Territory"), ALBERTA}  # not Kamchatka: seat 2's
    with pytest.raises(IllegalActionError, match="move between 1 and 5 armies, not 6"):
        state.apply(Fortify(ALASKA, ALBERTA, 6))
    with pytest.raises(IllegalActionError, match="no free move from 0 to 6"):
        state.apply(Fortify(ALASKA, ONTARIO, 1))  # own, but not adjacent
    events = state.apply(Fortify(ALASKA, ALBERTA, 5), seat=0)
    assert events[0] == Fortified(ALASKA, ALBERTA, 5)
    assert (state.armies[ALASKA], state.armies[ALBERTA]) == (1, 6)
    assert state.turn_seat == 1 and state.phase == Phase.REINFORCE  # one move ends the turn


def test_fortify_is_optional() -> None:
    """000: "No matter what you've done on your turn, you may, if you wish, end your turn by fortifying
    your position.\""""
    state = fortify_position()
    state.apply(EndPhase(), seat=0)
    assert state.turn_seat == 1


def test_connected_fortify_option_moves_along_own_territories() -> None:
    """README "Points the rulebooks leave open": "Fortify: one move between adjacent territories (classic),
    along a connected chain (2210 and later editions), never between any two territories.\""""
    state = fortify_position(fortify="connected")
    (option,) = state.legal_actions().fortify
    assert set(option.targets) == set(range(1, 14))  # the Americas and Iceland are one chain
    state.apply(Fortify(ALASKA, ARGENTINA, 5))
    assert state.armies[ARGENTINA] == 6
    cut = fortify_position(fortify="connected")
    cut.owner[T("Central America")] = 1  # South America is cut off from North America
    (option,) = cut.legal_actions().fortify
    assert ARGENTINA not in option.targets and ONTARIO in option.targets


def test_turn_cap_default_is_500() -> None:
    """docs/rules.md: "no rulebook caps it": the engine's default cap is 500 turns."""
    assert preset("classic").turn_cap == preset("classic_two_player").turn_cap == 500


def test_turn_cap_ends_the_game_after_that_many_turns() -> None:
    """README "Points the rulebooks leave open": "Game length: no rulebook caps it; a ladder needs a turn
    cap and a tie-break or passive bots stall it.\""""
    state, events = new_game(preset("classic", turn_cap=7), seats=3, seed=2)
    while not state.is_over():
        events += state.apply(default_action(state.legal_actions()), seat=state.to_act)
    assert sum(isinstance(e, TurnStarted) for e in events) == 7
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "turn_cap"
    assert sorted(state.places) == sorted(events[-1].places) and len(state.places) == 3


@pytest.mark.parametrize(
    ("counts", "extra", "eliminated", "places"),
    [
        # seat 0..3 territory counts; extra armies on seat 0's first territory; elimination order
        ((12, 11, 10, 9), 0, (), (1, 2, 3, 4)),
        ((11, 11, 10, 10), 5, (), (1, 2, 3, 3)),  # equal territories: more armies ahead; full tie shares
        ((11, 11, 10, 10), 0, (), (1, 1, 3, 3)),
        ((21, 21, 0, 0), 0, (3, 2), (1, 1, 3, 4)),  # the seat out last is placed ahead
        ((21, 21, 0, 0), 0, (2, 3), (1, 1, 4, 3)),
    ],
)
def test_turn_cap_ranking(
    counts: tuple[int, ...], extra: int, eliminated: tuple[int, ...], places: tuple[int, ...]
) -> None:
    """Issue 2: "every game produces a full ranking of all seats (elimination order; at the cap by
    territories, then armies; ties stated)"."""
    armies = [1] * 42
    armies[0] += extra
    state = position(
        split_board(*counts),
        armies,
        rules=preset("classic", turn_cap=10),
        seats=4,
        phase=Phase.FORTIFY,
        seat=1,
        turn=10,
        eliminated=eliminated,
    )
    events = state.apply(EndPhase(), seat=1)
    assert events[-1] == GameEnded(places, "turn_cap")
    assert state.places == places and state.is_over()
    assert state.legal_actions().is_empty()
