"""Starting a 2210 game, what a seat may do, and applying a seat's action."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engine.errors import IllegalActionError, MalformedActionError, NotYourTurnError, RulesConfigError
from engine.r2210 import cardflow, invade, setup, year
from engine.r2210.actions import (
    Action2210,
    Bid,
    BuildStation,
    BuyCards,
    ChooseMarker,
    Claim,
    Declare,
    Defend,
    EndPhase,
    Fortify,
    Hire,
    Lose,
    Occupy,
    Phase,
    Place,
    PlaceCommanders,
    PlayCard,
    Remove,
    Roll,
    TakeCard,
)
from engine.r2210.board import BOARDS
from engine.r2210.events import Event2210
from engine.r2210.legal import Legal2210, legal_for
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210

Handler = Callable[[GameState2210, Any, list[Event2210]], None]


def _place(state: GameState2210, action: Place, events: list[Event2210]) -> None:
    if state.phase == Phase.DEPLOY:
        year.deploy(state, action, events)
    else:
        setup.place(state, action, events)


def _fortify(state: GameState2210, action: Fortify, events: list[Event2210]) -> None:
    if state.phase == Phase.DECOYS:
        cardflow.move_decoys(state, action, events)
    else:
        year.fortify(state, action, events)


APPLY: dict[type, Handler] = {
    Claim: setup.claim,
    Place: _place,
    PlaceCommanders: setup.place_commanders,
    ChooseMarker: year.choose_marker,
    Hire: year.hire,
    BuildStation: year.build_station,
    BuyCards: year.buy_cards,
    TakeCard: year.take_card,
    Declare: invade.declare,
    Roll: invade.roll,
    Defend: invade.defend,
    Lose: cardflow.lose,
    Occupy: invade.occupy,
    Remove: cardflow.remove,
    Fortify: _fortify,
    PlayCard: cardflow.play_card,
    EndPhase: cardflow.pass_window,
}
"""How each kind of action changes a state (a Bid is applied with its seat: several seats bid at once)."""


def new_game_2210(rules: Rules2210, seats: int, seed: int) -> tuple[GameState2210, list[Event2210]]:
    """Start a game: decks shuffled, lands devastated, neutrals placed (2 players), first placer rolled.

    Raises:
        RulesConfigError: not 2 to 5 seats, or the seed is not a whole number.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RulesConfigError(f"the seed must be a whole number, not {seed!r}")
    rules.starting_mods(seats)
    board = BOARDS[(rules.edge_exiled_canada, rules.edge_mideast_djibouti)]
    state = GameState2210(rules, seats, seed, board)
    return state, setup.start(state)


def legal_actions(state: GameState2210, seat: int) -> Legal2210:
    return legal_for(state, seat)


def apply(state: GameState2210, action: Action2210, seat: int) -> list[Event2210]:
    """Check ``action`` by ``seat`` against the rules and apply it; returns the events.

    Raises:
        NotYourTurnError: ``seat`` is not asked now.
        MalformedActionError: not a 2210 action, or fields of the wrong type.
        IllegalActionError: breaks the rules now; the message says what would have been legal.
    """
    if seat not in state.asked:
        raise NotYourTurnError(
            f"seat {seat} tried to act in {state.phase.name}, but the seats asked are {list(state.asked)}"
        )
    if type(action) not in APPLY and not isinstance(action, Bid):
        raise MalformedActionError(f"not a RISK 2210 A.D. action: {action!r}")
    fields: tuple[object, ...] = tuple(cast("tuple[object, ...]", action))
    if not all(_well_formed(v) for v in fields):
        raise MalformedActionError(f"fields must be whole numbers or tuples of them: {action!r}")
    legal = legal_for(state, seat)
    problem = legal.problem(action)
    if problem:
        raise IllegalActionError(f"{problem}; legal now: {legal.describe()}")
    return apply_unchecked(state, action, seat)


def _well_formed(value: object) -> bool:
    if isinstance(value, tuple):
        return all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return isinstance(value, int) and not isinstance(value, bool)


def apply_unchecked(state: GameState2210, action: Action2210, seat: int) -> list[Event2210]:
    """Apply a legal action without checking it. Wrong input corrupts the state."""
    events: list[Event2210] = []
    if isinstance(action, Bid):
        year.bid(state, seat, action, events)
    else:
        APPLY[type(action)](state, action, events)
    return events
