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
from engine.dice import DICE_VERSION, DICE_VERSIONS
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


def new_game(
    rules: Rules, seats: int, seed: int, board: Board = CLASSIC, dice_version: int = DICE_VERSION
) -> tuple[GameState, list[Event]]:
    """Start a game: roll for the first player and deal (if the setup deals). Returns the state and events.

    ``dice_version`` names how the randomness derives from the seed (``engine.dice``): new games use the
    current one; a replay names the one it was played with.

    Raises:
        RulesConfigError: the rules do not allow ``seats`` players, the seed is not a whole number in
            0..2**64-1, or the dice version does not exist.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 64:
        raise RulesConfigError(f"the seed must be a whole number in 0..2**64-1, not {seed!r}")
    if dice_version not in DICE_VERSIONS:
        raise RulesConfigError(
            f"dice version {dice_version!r} does not exist; versions are {', '.join(map(str, DICE_VERSIONS))}"
        )
    if rules.neutral and board.size % 3:
        raise RulesConfigError(
            f"the neutral game deals 3 equal piles; {board.size} territories do not divide"
        )
    goal = GOALS[rules.objective]
    handlers = APPLY if goal is None else APPLY_THEN_CHECK_GOAL
    state = GameState(rules, seats, seed, board, goal, handlers, dice_version)
    return state, setup.start(state)
