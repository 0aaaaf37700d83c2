"""Building 2210 positions for tests: a fresh game, random play to a phase, or a cleared board mid-turn."""

from __future__ import annotations

import random

from engine.r2210.actions import Commander, Phase
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210


def fresh(seats: int = 3, seed: int = 1, **options: object) -> GameState2210:
    state, _ = new_game_2210(Rules2210(**options), seats, seed)  # type: ignore[arg-type]
    return state


def play_until(state: GameState2210, phase: Phase, seed: int = 0) -> GameState2210:
    """Random legal actions until ``phase`` (raises if the game ends first)."""
    rng = random.Random(seed)
    while state.phase != phase:
        assert not state.is_over(), f"the game ended before {phase.name}"
        seat = state.asked[0]
        apply(state, random_action(legal_actions(state, seat), rng), seat)
    return state


def midturn(seats: int = 3, seat: int = 0, phase: Phase = Phase.INVADE, **options: object) -> GameState2210:
    """Year 1, ``seat``'s turn in ``phase``, on an empty board, nothing devastated, markers in seat order."""
    state = fresh(seats, **options)
    n = state.board.size
    state.owner = [-1] * n
    state.mods = [0] * n
    state.station = [-1] * n
    state.devastated = [False] * n
    state.commander_at = [-1] * (5 * seats)
    state.setup_left = [0] * seats
    state.energy = [0] * seats
    state.year = 1
    state.order = tuple(range(seats))
    state.marker = [s + 1 for s in range(seats)]
    state.bids_revealed = True
    state.turn_index = seat
    state.phase = phase
    state.to_act = seat
    return state


def put(
    state: GameState2210,
    seat: int,
    name: str,
    mods: int,
    commanders: tuple[Commander, ...] = (),
    station: bool = False,
) -> int:
    """Give ``seat`` territory ``name`` with ``mods`` MODs, the commanders and a station; returns its id."""
    t = state.board.territory_id(name)
    state.owner[t] = seat
    state.mods[t] = mods
    for c in commanders:
        state.commander_at[seat * 5 + c] = t
    if station:
        state.station[t] = seat
    return t


class FixedDice:
    """Stands in for the stream: every roll shows these values (highest first) and records the faces."""

    def __init__(self, attacker: list[int], defender: list[int]) -> None:
        self.values = (attacker, defender)
        self.faces: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def battle(self, attacker: tuple[int, ...], defender: tuple[int, ...]) -> tuple[list[int], list[int]]:
        self.faces.append((attacker, defender))
        return self.values[0][: len(attacker)], self.values[1][: len(defender)]
