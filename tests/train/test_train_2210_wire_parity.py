"""Issue 22, for RISK 2210 A.D.: "The same encoding on the wire: the SDK builds the identical arrays and mask
from a DecisionRequest, so a policy trained in the environment plays `conquest practice` and the ladder
unchanged ... A test proves it: for recorded games, the environment's observation and mask equal those
built from the server's requests, decision by decision."

Two recordings. Offline: ``PolicyBot``s choosing seeded random masked-in indices answer the
DecisionRequests the server's own builder (``server.play.convert_2210.decision_request_2210``) makes, with
every bidder asked when the bids open, as the server asks them. Live: the same bots play a 2210 queue on a
real server over gRPC, and the environment replays the game's replay file. Either way, the environment
must show each seat, at each of its decisions, the arrays its PolicyBot built from the request it got.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from itertools import groupby
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from live_server import no_timebank, serving

from conquest.v1 import bot_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_sdk import Client, Game, Turn2210
from conquest_sdk.policy import PolicyBot
from engine.r2210.actions import Action2210, Bid
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.observe import observe_2210
from engine.r2210.replay import Replay2210
from engine.r2210.rules import Rules2210
from engine.r2210.state import CONQUEST
from server.ops.config import queue_2210
from server.play import messages
from server.play.convert_2210 import (
    action_from_pb_2210,
    decision_request_2210,
    map_2210,
    observation_2210,
    rules_info_2210,
)
from server.play.replays import load_any_replay_file
from server.train import Conquest2210Env

Record = list[tuple[int, npt.NDArray[np.float32], npt.NDArray[np.int8], int]]


def _recording_policy(seat: int, seed: int, record: Record):  # type: ignore[no-untyped-def]
    rng = random.Random(seed * 100 + seat)

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        legal = np.flatnonzero(mask)
        index = int(legal[rng.randrange(len(legal))])
        record.append((seat, observation, mask, index))
        return index

    return policy


def _replay_in_env(env: Conquest2210Env, record: Record) -> None:
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


@pytest.mark.parametrize(
    ("seats", "options"),
    [(2, {}), (3, {"defender_dice": "choose"}), (4, {"choose_losses": True}), (5, {"years": 3})],
)
def test_2210_env_arrays_equal_the_ones_built_from_server_requests(
    seats: int, options: dict[str, object]
) -> None:
    seed = 11
    env = Conquest2210Env(seats, rules_options=options)
    rules = env.rules
    state, _ = new_game_2210(rules, seats, seed)
    names = [f"p{s}" for s in range(seats)]
    games = []
    for s in range(seats):
        start = pb.Start2210(
            rules=rules_info_2210(rules, seats),
            map=map_2210(state.board, rules),
            observation=observation_2210(observe_2210(state, s)),
        )
        games.append(
            Game(bot_pb2.GameStarted(game_id="g", seat=s, players=messages.players(names), r2210=start))
        )
    record: Record = []
    bots = [PolicyBot(_recording_policy(s, seed, record), name=names[s]) for s in range(seats)]
    for bot, game in zip(bots, games, strict=True):
        bot.on_game_started(game)
    requests = 0
    while not state.is_over():
        # Every seat asked now gets its request at once (all the bidders when the bids open).
        asked = state.asked
        sent = []
        for seat in asked:
            requests += 1
            legal = legal_actions(state, seat)
            sent.append((seat, decision_request_2210("g", requests, state, seat, legal, [], 5000, 0)))
        for seat, request in sent:
            answer = bots[seat].decide_2210(games[seat], Turn2210(request))
            apply(state, action_from_pb_2210(answer), seat)
    assert len(record) > 150

    env.reset(seed=seed)
    _replay_in_env(env, record)
    assert env.game is not None and env.game.is_over() and env.game.places == state.places


class RecordingPolicyBot(PolicyBot):
    """A PolicyBot choosing seeded random masked-in indices, recording what it was shown, for one game."""

    def __init__(self, seed: int) -> None:
        self.record: Record = []
        self.seat = -1
        super().__init__(_recording_policy(0, seed, self.record), name=f"recorder-{seed}")

    def on_game_started(self, game: Game) -> None:
        super().on_game_started(game)
        self.seat = game.seat


@pytest.mark.parametrize("seats", [2, 4])
async def test_2210_env_arrays_equal_the_ones_a_live_server_sent(tmp_path: Path, seats: int) -> None:
    """The same over real gRPC: PolicyBots play a 2210 queue on a server in this process; the environment
    replays the game's replay file (seed and every action; bids, answered at once on the server, in seat
    order: a bid's order changes nothing) and must show each seat, at each of its decisions, the arrays its
    PolicyBot built from the DecisionRequest it received."""
    control = dataclasses.replace(no_timebank(5000), max_strikes=1000)
    bots = [RecordingPolicyBot(seed) for seed in range(seats)]
    async with serving([queue_2210(seats, control, Rules2210(years=2))], tmp_path) as server:
        clients = [Client(b, server.address, name=b.name, queues=[f"2210-{seats}"], games=1) for b in bots]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 240)
    replay, _ = load_any_replay_file(tmp_path / f"{results[0][0].game_id}.json")
    assert isinstance(replay, Replay2210)
    actions: list[tuple[int, Action2210]] = []
    for bids, run in groupby(replay.actions, key=lambda a: isinstance(a[1], Bid)):
        group = list(run)
        actions += sorted(group, key=lambda a: a[0]) if bids else group  # bids in seat order, as the env asks
    shown = {b.seat: iter(b.record) for b in bots}
    env = Conquest2210Env(seats, rules=replay.rules)
    env.reset(seed=replay.seed)
    for n, (seat, action) in enumerate(actions):
        agent = env.agent_selection
        assert agent == f"seat_{seat}", f"action {n}"
        _, observation, mask, index = next(shown[seat])
        mine = env.observe(agent)
        assert np.array_equal(mine["observation"], observation), f"action {n}: observation differs"
        assert np.array_equal(mine["action_mask"], mask), f"action {n}: mask differs"
        assert action_from_pb_2210(env.layout.decode(index, env.legal_message(agent))) == action, (
            f"action {n}"
        )
        env.step_action(action)
    assert all(next(rest, None) is None for rest in shown.values())
    # The whole game was compared, setup and every year (a year opens with the bids), not a short prefix;
    # how many actions that takes depends on the server's seed.
    assert env.game is not None and env.game.is_over()
    assert env.game.year == replay.rules.years or env.game.end_reason == CONQUEST
    assert sum(bids for bids, _ in groupby(actions, key=lambda a: isinstance(a[1], Bid))) == env.game.year


def test_policy_bot_names_the_2210_request_and_the_legal_indices_when_the_policy_leaves_the_mask() -> None:
    """Issue 22: "an action outside the mask gets a clear error naming the decision and the legal choices"
    (the SDK's client logs it and sends the safe default)."""
    rules = Rules2210()
    state, _ = new_game_2210(rules, 3, 4)
    seat = state.asked[0]
    start = pb.Start2210(rules=rules_info_2210(rules, 3), map=map_2210(state.board, rules))
    names = messages.players(["a", "b", "c"])
    game = Game(bot_pb2.GameStarted(game_id="g", seat=seat, players=names, r2210=start))
    bot = PolicyBot(lambda observation, mask: int(np.flatnonzero(mask == 0)[-1]))
    bot.on_game_started(game)
    request = decision_request_2210("g", 7, state, seat, legal_actions(state, seat), [], 5000, 0)
    end = game.notes["layout"].offsets["end_phase"]
    expected = (
        rf"action {end} \(end_phase 0\) is not legal at request 7 \(phase PHASE2210_SETUP_CLAIM\); "
        r"masked-in actions start \[\d+, "
    )
    with pytest.raises(ValueError, match=expected):
        bot.decide_2210(game, Turn2210(request))
