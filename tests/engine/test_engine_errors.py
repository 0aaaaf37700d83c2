"""Typed errors: what was asked, in which phase, and what would have been legal."""

from __future__ import annotations

import pytest
from engine_table import T, position, split_board

from engine import (
    ActionError,
    Attack,
    Claim,
    EndPhase,
    Fortify,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    Occupy,
    Phase,
    Place,
    TradeCards,
    new_game,
    preset,
)
from engine.codec import decode_action

OWNERS = split_board(14, 14, 14)
ICELAND, BRITAIN = T("Iceland"), T("Great Britain")


def test_errors_are_typed_value_errors() -> None:
    """Issue 2: "`apply` with validation that raises typed errors"."""
    assert issubclass(NotYourTurnError, IllegalActionError)
    for kind in (IllegalActionError, MalformedActionError):
        assert issubclass(kind, ActionError) and issubclass(kind, ValueError)


def test_not_your_turn_names_the_seat_the_phase_and_who_is_to_act() -> None:
    """Issue 2: "raises typed errors saying what was asked, in which phase, and what would have been
    legal"."""
    state = position(OWNERS, 3)
    with pytest.raises(NotYourTurnError, match=r"seat 2 tried to act in ATTACK, but seat 0 is to act"):
        state.apply(EndPhase(), seat=2)


def test_acting_after_the_game_is_over() -> None:
    """Issue 2: typed errors "saying what was asked, in which phase"."""
    state = position(OWNERS, 3, rules=preset("classic", turn_cap=1), phase=Phase.FORTIFY)
    state.apply(EndPhase(), seat=0)
    assert state.is_over()
    with pytest.raises(
        NotYourTurnError, match=r"seat 0 tried to act in GAME_OVER, but nobody \(the game is over\)"
    ):
        state.apply(EndPhase(), seat=0)
    with pytest.raises(IllegalActionError, match="nothing"):
        state.apply(EndPhase())


@pytest.mark.parametrize(
    ("phase", "action", "message"),
    [
        (
            Phase.ATTACK,
            Place(ICELAND, 1),
            r"Place\(13, 1\) is illegal in ATTACK: placing is not possible now; legal now: attack .*13->16",
        ),
        (
            Phase.ATTACK,
            Attack(ICELAND, BRITAIN, 3),
            r"Attack\(13, 16, 3, 0\) is illegal in ATTACK: dice must be between 1 and 2, not 3",
        ),
        (
            Phase.ATTACK,
            Attack(ICELAND, BRITAIN, 2, repeat_until=3),
            r"repeat_until must be 0 \(one roll\) or 1..2 .*not 3",
        ),
        (
            Phase.ATTACK,
            Attack(ICELAND, T("Ukraine"), 1),
            r"no attack from 13 to 15; attacks: .*13->14 \(1..2 dice\), 13->16 \(1..2 dice\)",
        ),
        (
            Phase.ATTACK,
            Claim(ICELAND),
            r"Claim\(13\) is illegal in ATTACK: claiming is not possible now; legal",
        ),
        (
            Phase.ATTACK,
            Occupy(1),
            r"in ATTACK: there is no captured territory to move into; legal now: attack",
        ),
        (
            Phase.ATTACK,
            Fortify(0, 1, 1),
            r"in ATTACK: no free move is possible now; legal now: .*end the phase",
        ),
        (Phase.FORTIFY, Fortify(0, 1, 5), r"in FORTIFY: move between 1 and 2 armies, not 5"),
        (
            Phase.FORTIFY,
            TradeCards((18, 20, 21)),
            r"in FORTIFY: no card set may be traded now; legal now: fortify",
        ),
    ],
)
def test_illegal_actions_say_what_was_asked_the_phase_and_what_is_legal(
    phase: Phase, action: object, message: str
) -> None:
    """Issue 2: "`apply` with validation that raises typed errors saying what was asked, in which phase,
    and what would have been legal"."""
    state = position(OWNERS, 3, phase=phase)
    before = state.fingerprint()
    with pytest.raises(IllegalActionError, match=message):
        state.apply(action)  # type: ignore[arg-type]
    assert state.fingerprint() == before, "a rejected action must not change the state"


def test_illegal_in_setup_names_the_legal_territories() -> None:
    """Issue 2: errors say "what would have been legal"."""
    state, _ = new_game(preset("classic"), seats=3, seed=1)
    state.apply(Claim(5))
    with pytest.raises(
        IllegalActionError, match=r"territory 5 is not an unclaimed territory \(\[0, 1, 2, 3, 4, 6"
    ):
        state.apply(Claim(5))


@pytest.mark.parametrize(
    "action",
    [
        "end_phase",
        ("place", 0, 1),
        Place("Alaska", 1),  # type: ignore[arg-type]
        Place(True, 1),  # type: ignore[arg-type]
        Attack(ICELAND, BRITAIN, 1.0),  # type: ignore[arg-type]
    ],
    ids=["a string", "a plain tuple", "a name for an id", "a bool for an id", "a float for dice"],
)
def test_malformed_actions(action: object) -> None:
    """errors.py: "The action is not well formed (unknown kind, wrong field types, out-of-range ids)."."""
    state = position(OWNERS, 3)
    with pytest.raises(MalformedActionError):
        state.apply(action)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action",
    [Attack(ICELAND, 42, 1), Attack(-1, BRITAIN, 1), Fortify(ICELAND, 99, 1), Place(42, 1)],
    ids=["target 42", "source -1", "target 99", "place on 42"],
)
def test_out_of_range_territory_ids_are_malformed(action: object) -> None:
    """errors.py: MalformedActionError is "The action is not well formed (unknown kind, wrong field types,
    out-of-range ids)." — the classic board has territory ids 0..41."""
    state = position(OWNERS, 3)
    with pytest.raises(MalformedActionError, match=r"0\.\.41"):
        state.apply(action)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "cards", [(18, 20), ("a", "b", "c"), (18, 20, 99)], ids=["two cards", "names", "card id 99"]
)
def test_card_sets_that_are_not_three_card_ids_are_malformed(cards: tuple[object, ...]) -> None:
    """errors.py: MalformedActionError covers "wrong field types, out-of-range ids" — a set is three card
    ids 0..43."""
    state = position(OWNERS, 3, hands=[(18, 20, 21)], phase=Phase.REINFORCE)
    state.reinforcements = 3
    with pytest.raises(MalformedActionError):
        state.apply(TradeCards(cards))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "data",
    [["fly", 1], [], "attack", ["attack", 1, 2], ["attack", 1, 2, "3"], ["trade_cards", [1, 2]]],
)
def test_codec_rejects_malformed_actions(data: object) -> None:
    """Issue 2: "A compact serialisable form of state, actions and events" — bad input gets a clear
    error."""
    with pytest.raises(MalformedActionError):
        decode_action(data)
