"""Every rule set of issue 5 over real gRPC on port 0: "end-to-end tests play each preset over gRPC", and
"Defender chooses dice over the wire: when a queue uses `choose`, the defending seat (or the opponent for
a neutral/allied territory) gets a decision request with its own short deadline; timeouts default to the
maximum dice"."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from live_server import LiveServer, serving
from raw_client import RawBot
from server_support import FAST

from conquest.v1 import bot_pb2, game_pb2
from conquest_bots.aggressive import AggressiveBot
from conquest_bots.random_bot import RandomBot
from conquest_bots.strategist import StrategistBot
from conquest_sdk import Bot, Client
from engine import ChooseDefence, Phase, new_game, preset
from server.ops.config import QueueConfig, default_queues
from server.play.replays import load_replay_file, verify_record

RULE_SET_QUEUES = ("classic-defend-4", "older-4", "capital-4", "mission-4", "allied-2")
DEFEND_MS = 150
DICE = dataclasses.replace(FAST, max_strikes=1000, defend_decision_ms=DEFEND_MS)
"""No timebank, so a defence that is never answered times out after exactly ``DEFEND_MS``."""
FINISHED = {
    bot_pb2.SEAT_OUTCOME_WON,
    bot_pb2.SEAT_OUTCOME_ELIMINATED,
    bot_pb2.SEAT_OUTCOME_TURN_CAP,
    bot_pb2.SEAT_OUTCOME_SURVIVED,
}


def queues() -> tuple[QueueConfig, ...]:
    """The default queues of the new rule sets with a turn cap (games stay short), and a defender-chooses
    queue whose defence deadline is short."""
    chosen = [q for q in default_queues(FAST) if q.name in RULE_SET_QUEUES]
    capped = [dataclasses.replace(q, rules=dataclasses.replace(q.rules, turn_cap=40)) for q in chosen]
    return (*capped, QueueConfig("dice-3", preset("classic", defender_dice="choose", turn_cap=8), 3, DICE))


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    async with serving(queues(), tmp_path / "replays") as live:
        yield live


@pytest.mark.parametrize("queue", RULE_SET_QUEUES)
async def test_each_rule_set_queue_plays_a_full_game_between_sample_bots(
    server: LiveServer, queue: str
) -> None:
    """Issue 5: "end-to-end tests play each preset over gRPC": the sample bots play the queue's game to a
    full ranking, and its replay re-simulates to the same result."""
    seats = 2 if queue == "allied-2" else 4
    bots: list[Bot] = [StrategistBot(), AggressiveBot(), RandomBot(3), StrategistBot()][:seats]
    clients = [
        Client(bot, server.address, name=f"{bot.name}-{i}", queues=[queue], games=1)
        for i, bot in enumerate(bots)
    ]
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    over = results[0][0]
    assert all(r[0] == over for r in results)
    assert {r.name for r in over.results} == {c.name for c in clients}
    assert min(r.place for r in over.results) == 1
    assert all(r.outcome in FINISHED for r in over.results), over
    replay, data = load_replay_file(server.replay_dir / f"{over.game_id}.json")
    state = verify_record(replay, data)
    assert state.rules == next(q.rules for q in queues() if q.name == queue)
    assert [r.place for r in over.results] == list(state.places)
    if over.reason in ("headquarters", "mission"):
        winner = next(r for r in over.results if r.place == 1)
        assert winner.outcome == bot_pb2.SEAT_OUTCOME_WON


async def test_the_defender_is_asked_with_a_short_deadline_and_a_timeout_defends_with_most_dice(
    server: LiveServer,
) -> None:
    """Issue 5: the defending seat "gets a decision request with its own short deadline; timeouts default
    to the maximum dice". Three bots answer every request but never a defence: each PHASE_DEFEND request
    allows defend_decision_ms, and every defence in the replay is the most dice the defender had."""
    bots = [server.bot() for _ in range(3)]
    defend_requests: list[bot_pb2.DecisionRequest] = []
    requests: list[bot_pb2.DecisionRequest] = []

    async def play_but_never_defend(bot: RawBot, rng: random.Random) -> bot_pb2.GameOver:
        while True:
            message = await bot.next(timeout=30)
            kind = message.WhichOneof("message")
            if kind == "game_over":
                return message.game_over
            if kind == "decision_request":
                request = message.decision_request
                requests.append(request)
                if request.observation.phase == game_pb2.PHASE_DEFEND:
                    defend_requests.append(request)  # left to time out
                else:
                    assert request.time_allowed_ms <= DICE.decision_ms
                    bot.answer_randomly(request, rng)

    for i, bot in enumerate(bots):
        await bot.hello(f"defender-{i}")
        await bot.join("dice-3")
    overs = await asyncio.wait_for(
        asyncio.gather(*(play_but_never_defend(b, random.Random(i)) for i, b in enumerate(bots))), 120
    )
    assert defend_requests, "no attack met a defender that may choose"
    for request in defend_requests:
        assert 0 < request.time_allowed_ms <= DEFEND_MS and request.timebank_ms == 0
        obs = request.observation
        assert obs.to_act == obs.owners[obs.pending_target] != obs.turn_seat  # the defending seat is asked
        assert request.legal.defend_max == min(2, obs.armies[obs.pending_target])
    # A timeout is a strike like any other: each request states as many strikes as its seat had
    # defences left unanswered before it (every other request is answered in time).
    unanswered = [0, 0, 0]
    for request in requests:
        seat = request.observation.to_act
        assert request.strikes == unanswered[seat]
        unanswered[seat] += request.observation.phase == game_pb2.PHASE_DEFEND
    assert any(r.strikes for r in requests), "no seat was asked again after a defence timed out"
    replay, data = load_replay_file(server.replay_dir / f"{overs[0].game_id}.json")
    verify_record(replay, data)
    state, _ = new_game(replay.rules, len(replay.seats), replay.seed)
    defences = 0
    for action in replay.actions:
        if state.phase == Phase.DEFEND:
            assert action == ChooseDefence(state.legal_actions().defend_max)
            defences += 1
        state.apply(action)
    assert defences == len(defend_requests)
