"""Issue 22: "the SDK builds the identical arrays and mask from a DecisionRequest, so a policy trained in
the environment plays `conquest practice` and the ladder unchanged ... A test proves it: for recorded
games, the environment's observation and mask equal those built from the server's requests, decision by
decision."

The games are recorded on the server's own message builders (``server.play.offline`` sends each bot the
DecisionRequest ``server.play.wire`` writes), played by ``PolicyBot``s choosing seeded random masked-in
indices; the environment then replays the same seed and the same indices.
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt
import pytest

from conquest_env import ConquestEnv
from conquest_sdk.policy import PolicyBot
from server.play import offline

GAMES = [
    ("classic", 4, {}),
    ("classic_dealt", 3, {}),
    ("classic_two_player", 2, {"defender_dice": "choose"}),
    ("allied_two_player", 2, {"defender_dice": "choose"}),
    ("capital", 4, {"capital_goal": "shortened"}),
    ("secret_mission", 4, {"three_continent_missions": True}),
    ("older_edition", 5, {"fortify": "connected"}),
]

Record = list[tuple[int, npt.NDArray[np.float32], npt.NDArray[np.int8], int]]


def _recording_policy(seat: int, seed: int, record: Record):  # type: ignore[no-untyped-def]
    rng = random.Random(seed * 100 + seat)

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        legal = np.flatnonzero(mask)
        index = int(legal[rng.randrange(len(legal))])
        record.append((seat, observation, mask, index))
        return index

    return policy


@pytest.mark.parametrize(("preset", "seats", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_env_arrays_equal_the_ones_built_from_server_requests(preset: str, seats: int, options: dict) -> None:
    seed = 11
    options = {"turn_cap": 40, **options}
    record: Record = []
    bots = [PolicyBot(_recording_policy(s, seed, record), name=f"p{s}") for s in range(seats)]
    offline.play(bots, preset, seed, **options)
    assert len(record) > 100

    env = ConquestEnv(preset, seats, rules_options=options)
    env.reset(seed=seed)
    for n, (seat, observation, mask, index) in enumerate(record):
        agent = env.agent_selection
        while env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            agent = env.agent_selection
        assert agent == f"seat_{seat}", f"decision {n}"
        mine = env.observe(agent)
        assert np.array_equal(mine["observation"], observation), f"decision {n}: observation differs"
        assert np.array_equal(mine["action_mask"], mask), f"decision {n}: mask differs"
        env.step(index)
    assert env.game is not None and env.game.is_over()
