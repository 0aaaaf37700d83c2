"""Starting a game, and the table that applies each kind of action to a state.

``new_game`` picks the goal the rules name (``engine.goals``) and the apply table to match, so that a
classic game, which has no goal, never pays for checking one.
"""

from __future__ import annotations

from engine import combat, setup, turns
from engine.actions import (
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.board import Board
from engine.classic_map import CLASSIC
from engine.errors import RulesConfigError
from engine.events import Event
from engine.goals import GOALS
from engine.rules import Rules
from engine.state import GameState, Handler

_REINFORCE, _ALLIED_REINFORCE = Phase.REINFORCE, Phase.ALLIED_REINFORCE


def _place(state: GameState, p: Place, events: list[Event]) -> None:
    phase = state.phase
    if phase == _REINFORCE:
        turns.place_reinforcements(state, p, events)
    elif phase == _ALLIED_REINFORCE:
        turns.place_allied(state, p, events)
    else:
        setup.place_starting_armies(state, p, events)


APPLY: dict[type, Handler] = {
    Claim: setup.claim,
    Place: _place,
    TradeCards: turns.trade,
    Attack: combat.attack,
    ChooseDefence: combat.defend,
    Occupy: combat.occupy,
    Fortify: turns.fortify,
    EndPhase: turns.end_phase,
    ChooseHeadquarters: setup.choose_headquarters,
}
"""How ``GameState.apply_unchecked`` applies each kind of action (one entry per ``ACTION_KINDS``)."""


def _then_check_goal(handler: Handler) -> Handler:
    def apply(state: GameState, action: object, events: list[Event]) -> None:
        handler(state, action, events)
        turns.check_goal(state, events)

    return apply


APPLY_THEN_CHECK_GOAL: dict[type, Handler] = {kind: _then_check_goal(h) for kind, h in APPLY.items()}
"""The same with the goal checked after each action (Capital and Secret Mission games only)."""


def new_game(rules: Rules, seats: int, seed: int, board: Board = CLASSIC) -> tuple[GameState, list[Event]]:
    """Start a game: roll for the first player and deal (if the setup deals). Returns the state and events.

    Raises:
        RulesConfigError: the rules do not allow ``seats`` players, or the seed is not a whole number.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RulesConfigError(f"the seed must be a whole number, not {seed!r}")
    if rules.neutral and board.size % 3:
        raise RulesConfigError(
            f"the neutral game deals 3 equal piles; {board.size} territories do not divide"
        )
    goal = GOALS[rules.objective]
    state = GameState(rules, seats, seed, board, goal, APPLY if goal is None else APPLY_THEN_CHECK_GOAL)
    return state, setup.start(state)
