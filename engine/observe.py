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
    return Observation(
        seat=seat,
        phase=state.phase,
        to_act=state.to_act,
        turn=state.turn,
        turn_seat=state.turn_seat,
        owners=tuple(state.owner),
        armies=tuple(state.armies),
        hand=tuple(sorted(state.hands[seat])) if 0 <= seat < state.seats else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        deck_size=len(state.deck),
        trades_done=state.trades_done,
        next_trade_value=state.next_trade_value(),
        reinforcements=state.reinforcements,
        statuses=tuple(state.status),
        pending_attack=(attack.source, attack.target, attack.dice) if attack else None,
        pending_occupy=occupy[:3] if occupy else None,
        places=state.places,
        headquarters=_headquarters(state, seat),
        mission=state.missions[seat] if 0 <= seat < state.seats else -1,
        missions=tuple(state.missions) if state.is_over() and state.missions[0] >= 0 else (),
    )


def _headquarters(state: GameState, seat: int) -> tuple[int, ...]:
    if state.rules.objective != Objective.HEADQUARTERS:
        return ()
    chosen = state.headquarters
    if -1 not in chosen:
        return tuple(chosen)
    return tuple(t if s == seat else -1 for s, t in enumerate(chosen))
