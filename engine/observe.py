"""Per-seat observation: the only view of a game that is sent to a bot.

Hidden information (other hands, the draw pile's order, the seed and RNG, other seats' missions and
headquarters choices before they are revealed) is removed here and nowhere else; tests check that no
observation carries another seat's cards, mission or unrevealed headquarters.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.actions import Phase, PlayerStatus
from engine.rules import Objective
from engine.state import GameState


class Observation(NamedTuple):
    """Immutable; a NamedTuple because one is built for every DecisionRequest, and a frozen dataclass
    sets each of its twenty fields through ``object.__setattr__``."""

    seat: int
    """The seat this view is for (-1: a spectator)."""
    phase: Phase
    to_act: int
    turn: int
    turn_seat: int
    owners: tuple[int, ...]
    """Owner of each territory by id; the neutral army is owner ``seats``."""
    armies: tuple[int, ...]
    hand: tuple[int, ...]
    """This seat's own card ids (empty for a spectator)."""
    hand_sizes: tuple[int, ...]
    deck_size: int
    trades_done: int
    next_trade_value: int
    reinforcements: int
    """Armies still to place this turn (only meaningful to the seat whose turn it is); in ALLIED_REINFORCE
    the Allied Army's armies still to place."""
    statuses: tuple[PlayerStatus, ...]
    pending_attack: tuple[int, int, int] | None
    """(source, target, attacker dice) while a defence choice is owed."""
    pending_occupy: tuple[int, int, int] | None
    """(source, target, minimum armies) while a move-in is owed."""
    places: tuple[int, ...]
    """Final places once the game is over, else empty."""
    headquarters: tuple[int, ...] = ()
    """Capital Risk: each seat's headquarters territory; -1 for one not chosen yet or, until all have
    chosen, chosen by another seat. Empty in other games."""
    mission: int = -1
    """Secret Mission Risk: this seat's mission (index into ``engine.goals.MISSIONS``), else -1."""
    missions: tuple[int, ...] = ()
    """Secret Mission Risk: every seat's mission once the game is over, else empty."""


def observe(state: GameState, seat: int) -> Observation:
    """What ``seat`` may see of ``state`` (pass -1 for a spectator's view)."""
    attack = state.pending_attack
    occupy = state.pending_occupy
    # Built with tuple.__new__: a NamedTuple's own __new__ is generated Python, interpreted even when this
    # module is compiled, and one Observation is built for every DecisionRequest.
    return tuple.__new__(
        Observation,
        (
            seat,
            state.phase,
            state.to_act,
            state.turn,
            state.turn_seat,
            tuple(state.owner),  # owners
            tuple(state.armies),
            tuple(sorted(state.hands[seat])) if 0 <= seat < state.seats else (),  # hand
            tuple(len(h) for h in state.hands),  # hand_sizes
            len(state.deck),  # deck_size
            state.trades_done,
            state.next_trade_value(),
            state.reinforcements,
            tuple(state.status),  # statuses
            (attack.source, attack.target, attack.dice) if attack else None,  # pending_attack
            occupy[:3] if occupy else None,  # pending_occupy
            state.places,
            seen_headquarters(state, seat),
            state.missions[seat] if 0 <= seat < state.seats else -1,  # mission
            tuple(state.missions) if state.is_over() and state.missions[0] >= 0 else (),  # missions
        ),
    )


def seen_headquarters(state: GameState, seat: int) -> tuple[int, ...]:
    """The headquarters ``seat`` sees: every seat's once all are chosen, else only its own (-1 for the rest);
    () when the rules have none."""
    if state.rules.objective != Objective.HEADQUARTERS:
        return ()
    chosen = state.headquarters
    if -1 not in chosen:
        return tuple(chosen)
    return tuple(t if s == seat else -1 for s, t in enumerate(chosen))
