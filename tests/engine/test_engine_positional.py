"""The engine's positional constructions pinned against the same values built by keyword.

``observe`` and the attack options are built with ``tuple.__new__`` (a NamedTuple's own ``__new__`` is
interpreted Python, even in compiled code), so nothing but the order of the values says which field each
one fills. A field added, removed or moved in ``Observation`` or ``AttackOption`` fails here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from engine import GameState, Objective, new_game, preset, random_policy
from engine.legal import AttackOption
from engine.observe import Observation, observe

PRESETS = ["classic", "capital", "secret_mission", "allied_two_player"]


def states(rules: str, steps: int = 600) -> Iterator[GameState]:
    """Every state of a random game of ``rules``, for its first ``steps`` actions and its end."""
    state, _ = new_game(preset(rules), 2 if rules.endswith("two_player") else 4, 5)
    policy = random_policy(random.Random(5))
    for _ in range(steps):
        yield state
        if state.is_over():
            return
        state.apply(policy(state))
    yield state


def observation_by_keyword(state: GameState, seat: int) -> Observation:
    """What ``seat`` may see of ``state``, each value named by the field it belongs in."""
    attack, occupy = state.pending_attack, state.pending_occupy
    own = 0 <= seat < state.seats
    chosen = tuple(state.headquarters)
    if -1 in chosen:  # unrevealed: each seat sees its own choice only
        chosen = tuple(t if s == seat else -1 for s, t in enumerate(chosen))
    return Observation(
        seat=seat,
        phase=state.phase,
        to_act=state.to_act,
        turn=state.turn,
        turn_seat=state.turn_seat,
        owners=tuple(state.owner),
        armies=tuple(state.armies),
        hand=tuple(sorted(state.hands[seat])) if own else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        deck_size=len(state.deck),
        trades_done=state.trades_done,
        next_trade_value=state.next_trade_value(),
        reinforcements=state.reinforcements,
        statuses=tuple(state.status),
        pending_attack=(attack.source, attack.target, attack.dice) if attack else None,
        pending_occupy=tuple(occupy[:3]) if occupy else None,
        places=tuple(state.places),
        headquarters=chosen if state.rules.objective == Objective.HEADQUARTERS else (),
        mission=state.missions[seat] if own else -1,
        missions=tuple(state.missions) if state.is_over() and state.missions[0] >= 0 else (),
    )


@pytest.mark.parametrize("rules", PRESETS)
def test_an_observation_fills_every_field_as_keywords_do(rules):
    for state in states(rules):
        for seat in range(-1, state.seats):
            assert observe(state, seat) == observation_by_keyword(state, seat)


@pytest.mark.parametrize("rules", PRESETS)
def test_an_attack_option_fills_every_field_as_keywords_do(rules):
    seen = 0
    for state in states(rules):
        legal = state.legal_actions()
        army = legal.army if legal.army >= 0 else legal.seat
        for option in legal.attacks:
            source, target = option.source, option.target
            assert state.owner[source] == army and state.owner[target] != army
            assert target in state.board.neighbours[source]
            armies = state.armies[source]
            assert option == AttackOption(
                source=source, target=target, max_dice=min(3, armies - 1), source_armies=armies
            )
            seen += 1
    assert seen > 0
