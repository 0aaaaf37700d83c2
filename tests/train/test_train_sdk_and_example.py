"""Issue 22: "conquest_sdk runs a policy(observation, mask) -> action as a bot", "an action outside the mask
gets a clear error naming the decision and the legal choices", and "An example that learns: a small script
with numpy only ... then plays it against the server in practice mode"."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from conquest.v1 import bot_pb2
from conquest_sdk import Game, Turn
from conquest_sdk.policy import PolicyBot
from engine import new_game, preset
from server.play import offline
from server.train import ConquestEnv, example


def test_policy_bot_names_the_request_and_the_legal_indices_when_the_policy_leaves_the_mask() -> None:
    state, _ = new_game(preset("classic"), 3, 4)
    game = offline.seat_games(state, ["a", "b", "c"], "g")[state.to_act]
    bot = PolicyBot(lambda observation, mask: int(np.flatnonzero(mask == 0)[0]))
    bot.on_game_started(game)
    request = offline.decision_request(state, game, 7)
    expected = (
        r"action 42 \(choose_headquarters 0\) is not legal at request 7 \(phase PHASE_SETUP_CLAIM\); "
        r"masked-in actions start \[0, 1, 2, "
    )
    with pytest.raises(ValueError, match=expected):
        bot.decide(game, Turn(request))


def test_the_example_policy_plays_on_the_server_messages_after_a_short_training() -> None:
    """The example's pieces, small: train one generation, duel, then play through PolicyBot on the
    DecisionRequests the server writes (``offline.play`` checks every action with the engine)."""
    env = ConquestEnv(example.RULES, 2, rules_options={"turn_cap": 30})
    features = example.Features(env.layout)
    weights = example.train(env, features, generations=1, population=2, games=1)
    assert weights.shape == (example.FEATURES,)
    policy = example.linear_policy(features, weights)
    assert example.duel(env, policy, 5) in (True, False)
    result = offline.play([PolicyBot(policy), "random"], example.RULES, 5, turn_cap=30)
    assert result.decisions > 50 and sorted(result.places)[0] == 1


def test_policy_bot_reads_the_layout_from_game_started() -> None:
    state, _ = new_game(preset("secret_mission"), 4, 2)
    game: Game = offline.seat_games(state, ["a", "b", "c", "d"], "g")[0]
    assert isinstance(game.started, bot_pb2.GameStarted)
    bot = PolicyBot(lambda observation, mask: 0)
    bot.on_game_started(game)
    env = ConquestEnv("secret_mission", 4)
    layout = game.notes["layout"]
    assert (layout.actions, layout.observation_size) == (env.layout.actions, env.layout.observation_size)
    assert (
        layout.offsets == env.layout.offsets and layout.observation_offsets == env.layout.observation_offsets
    )


def test_the_server_the_sdk_and_the_sample_bots_load_without_the_training_extra() -> None:
    """Issue 22: "Optional dependencies as an extra (`pip install conquest[train]`); the core server does
    not need them." Imports in a fresh interpreter must not load numpy, gymnasium, pettingzoo or the
    environments."""
    code = (
        "import sys, server.app, server.cli.main, conquest_sdk, conquest_bots.roster\n"
        "loaded = [m for m in ('numpy', 'gymnasium', 'pettingzoo', 'server.train', 'conquest_sdk.encoding',"
        " 'conquest_sdk.encoding_2210')"
        " if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
