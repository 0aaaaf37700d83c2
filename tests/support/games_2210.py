"""``random_replay_2210``: a whole RISK 2210 A.D. game of random legal moves, as the replay a server writes
(no server: the engine alone, every asked seat in turn)."""

from __future__ import annotations

import random

from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.replay import Replay2210
from engine.r2210.rules import Rules2210


def random_replay_2210(seats: int, seed: int, years: int = 2) -> Replay2210:
    """The replay of a ``years``-year game of ``seats`` random players ``seat-0``..., seeded by ``seed``."""
    rules = Rules2210(years=years)
    state, _ = new_game_2210(rules, seats, seed)
    replay = Replay2210(rules, seed, [f"seat-{s}" for s in range(seats)], game_id=f"random-2210-{seed}")
    rng = random.Random(seed)
    while not state.is_over():
        seat = state.asked[0]
        action = random_action(legal_actions(state, seat), rng)
        apply(state, action, seat)
        replay.actions.append((seat, action))
    replay.places = list(state.places)
    replay.fingerprint = state.fingerprint()
    return replay
