"""Issue 22: "the SDK builds the identical arrays and mask from a DecisionRequest, so a policy trained in
the environment plays `conquest practice` and the ladder unchanged ... A test proves it: for recorded
games, the environment's observation and mask equal those built from the server's requests, decision by
decision."

The games are played by ``PolicyBot``s choosing seeded random masked-in indices, on the server's own
message builders (``server.play.offline`` sends each bot the DecisionRequest ``server.play.wire`` writes:
every ruleset) and on a real server over gRPC; the environment then replays the same seed and actions.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from live_server import no_timebank, serving

from conquest_sdk import Client, Game
from conquest_sdk.policy import PolicyBot
from engine import preset
from engine.replay import Replay
from server.ops.config import QueueConfig
from server.play import offline
from server.train import ConquestEnv
from server.train.inputs import choices_of

CONTROL = no_timebank(5000)

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


class RecordingPolicyBot(PolicyBot):
    """A PolicyBot choosing seeded random masked-in indices, recording what it was shown, for one game."""

    def __init__(self, seed: int) -> None:
        self.record: Record = []
        self.seat = -1
        super().__init__(_recording_policy(0, seed, self.record), name=f"recorder-{seed}")

    def on_game_started(self, game: Game) -> None:
        super().on_game_started(game)
        self.seat = game.seat


LIVE_QUEUES = (
    QueueConfig("defend-2", preset("classic_two_player", turn_cap=12, defender_dice="choose"), 2, CONTROL),
    QueueConfig("capital-3", preset("capital", turn_cap=8), 3, CONTROL),
)


@pytest.mark.parametrize(("queue", "seats"), [("defend-2", 2), ("capital-3", 3)])
async def test_env_arrays_equal_the_ones_a_live_server_sent(tmp_path: Path, queue: str, seats: int) -> None:
    """The same over real gRPC: PolicyBots play a game on a server in this process; the environment
    replays the game's replay file (seed and every action) and must show each seat, at each of its
    decisions, the arrays its PolicyBot built from the DecisionRequest it received."""
    bots = [RecordingPolicyBot(seed) for seed in range(seats)]
    async with serving(LIVE_QUEUES, tmp_path) as server:
        clients = [Client(b, server.address, name=b.name, queues=[queue], games=1) for b in bots]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    game_id = results[0][0].game_id
    replay = Replay.from_json((tmp_path / f"{game_id}.json").read_text())
    shown = {b.seat: iter(b.record) for b in bots}
    env = ConquestEnv(replay.rules, seats)
    env.reset(seed=replay.seed)
    for n, action in enumerate(replay.actions):
        agent = env.agent_selection
        while env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            agent = env.agent_selection
        _, observation, mask, index = next(shown[int(agent.removeprefix("seat_"))])
        mine = env.observe(agent)
        assert np.array_equal(mine["observation"], observation), f"action {n}: observation differs"
        assert np.array_equal(mine["action_mask"], mask), f"action {n}: mask differs"
        assert env.layout.decode(index, choices_of(env.legal_actions()))[1] == tuple(action), f"action {n}"
        env.step_action(action)
    assert all(next(rest, None) is None for rest in shown.values())
    assert env.game is not None and env.game.is_over() and len(replay.actions) > 50
