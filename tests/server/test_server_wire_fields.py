"""Wire fields the starter kits asked for (issue 7: "Anything a kit found unclear or awkward in the protocol
is fixed in the protocol and its comments, not worked around in the kit")."""

from __future__ import annotations

import random

from engine import Attack, Phase, new_game, observe, preset, random_policy
from server.play import wire


def test_occupy_observation_names_the_source_of_the_move_in() -> None:
    """game.proto: pending_source is "the attacking territory id (the source of the move-in)" in OCCUPY."""
    rng = random.Random(5)
    for seed in range(30):
        state, _ = new_game(preset("classic"), 3, seed)
        policy = random_policy(rng)
        while not state.is_over():
            action = policy(state)
            if state.phase == Phase.ATTACK and isinstance(action, Attack):
                action = action._replace(dice=1, repeat_until=1)  # one die: a capture leaves armies to move
            state.apply(action)
            if state.phase == Phase.OCCUPY:
                source, target, minimum, _ = state.pending_occupy or (0, 0, 0, False)
                message = wire.observation(observe(state, state.to_act))
                assert (message.pending_source, message.pending_target) == (source, target)
                assert message.pending_count == minimum
                return
    raise AssertionError("no game reached a move-in decision")


def test_neutral_placement_is_flagged() -> None:
    """game.proto: place_neutral is "True when the Place asked for puts down a neutral army"."""
    state, _ = new_game(preset("classic_two_player"), 2, 11)
    flags = []
    while state.phase == Phase.SETUP_PLACE:
        legal = state.legal_actions()
        message = wire.legal_actions(legal)
        owners = {state.owner[t] for t in legal.place_territories}
        assert message.place_neutral == (owners == {state.neutral})
        assert owners in ({state.neutral}, {state.to_act})
        flags.append(message.place_neutral)
        state.apply(random_policy(random.Random(len(flags)))(state))
    assert True in flags and False in flags
