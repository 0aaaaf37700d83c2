"""RISK 2210 A.D. games for spectators over the Arena API, what the dashboard's live view of them reads
(issue 19: "Dashboard: the live view and replay viewer draw the 2210 Earth board and the Moon, devastated
territories, Space Stations, commanders on the board, energy and card counts, bids and the year"):
WatchGame streams a 2210 game as one WatchEvents2210 per action, its public events and the board after
them, live and from its record alike; GetReplay answers the stored 2210 replay."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from live_server import LiveServer, no_timebank, serving

from conquest.v1 import arena_pb2
from engine.r2210.events import seen_by
from engine.r2210.observe import observe_2210
from engine.r2210.replay import Replay2210, replayed
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from server.ops.config import queue_2210
from server.play.convert_2210 import event_2210, observation_2210

QUEUE = queue_2210(2, no_timebank(30_000), Rules2210(years=2))
"""Two-year games of two bots: the neutral army, bids twice, cards and stations in reach."""


@pytest.fixture
async def server(db_url: str, tmp_path: Path) -> AsyncIterator[LiveServer]:
    async with serving([QUEUE], tmp_path / "replays", database_url=db_url) as live:
        yield live


def seen(state: GameState2210) -> arena_pb2.WatchEvents2210:
    """What a spectator is shown of ``state``: the board only (the events are compared apart)."""
    return arena_pb2.WatchEvents2210(observation=observation_2210(observe_2210(state, -1)))


async def read_all(stream: grpc.aio.UnaryStreamCall) -> list[arena_pb2.WatchGameResponse]:  # type: ignore[type-arg]
    messages = []
    while (message := await stream.read()) is not grpc.aio.EOF:
        messages.append(message)
    return messages


async def test_a_live_2210_game_streams_each_action_with_the_board_after_it(server: LiveServer) -> None:
    """A spectator who subscribes before the first decision gets the board as the setup left it, one
    WatchEvents2210 per action whose board is the engine's after that action, GameOver last; nothing
    private (a bid before the reveal, the cards drawn) reaches it but blanked."""
    bots = [server.bot(), server.bot()]
    for index, bot in enumerate(bots):
        await bot.hello(f"watched-{index}")
        await bot.join(QUEUE.name, games=1)
    started = [(await bot.expect("game_started")).game_started for bot in bots]
    game_id = started[0].game_id
    stream = server.arena().WatchGame(arena_pb2.WatchGameRequest(game_id=game_id))
    snapshot = (await stream.read()).snapshot  # subscribed before any decision is answered
    assert snapshot.live and len(snapshot.r2210.map.territories) == 69
    watching = asyncio.ensure_future(read_all(stream))
    overs = await asyncio.gather(*(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots)))
    messages = await asyncio.wait_for(watching, 30)

    replay = Replay2210.from_dict(json.loads((server.replay_dir / f"{game_id}.json").read_text()))
    steps = replayed(replay)
    state, setup = next(steps)
    assert snapshot.r2210.observation == seen(state).observation
    assert snapshot.next_sequence == len(setup)
    assert messages[-1].game_over == overs[0]
    updates = [m.events_2210 for m in messages[:-1]]
    assert [m.WhichOneof("message") for m in messages[:-1]] == ["events_2210"] * len(replay.actions)
    sequence = len(setup)
    for update, (state, events) in zip(updates, steps, strict=True):
        assert update.game_id == game_id
        assert update.observation == seen(state).observation
        public = [event_2210(seen_by(e, -1), p) for p, e in enumerate(events, sequence)]
        assert list(update.events) == public
        sequence += len(events)
    kinds = {e.kind for u in updates for e in u.events}
    assert {"commanders_placed", "bids_revealed", "turn_started"} <= kinds
    secrets = [json.loads(e.data_json) for u in updates for e in u.events if e.kind in ("bid", "cards_drawn")]
    assert secrets and all({d.get("energy", -1), *d.get("cards", [])} == {-1} for d in secrets), (
        "a private event reaches a spectator blanked (issue 34, item 9: no gaps in the sequence numbers)"
    )


async def test_a_finished_2210_game_streams_from_its_record_and_its_replay_is_served(
    server: LiveServer,
) -> None:
    """WatchGame of a recorded 2210 game: the board as the setup left it, the setup's events from sequence
    0 with that board, one WatchEvents2210 per action as the live stream's, GameOver; GetReplay answers
    the same replay the server wrote (the stored record is read as a 2210 replay)."""
    bots = [server.bot(), server.bot()]
    for index, bot in enumerate(bots):
        await bot.hello(f"recorded-{index}")
        await bot.join(QUEUE.name, games=1)
    overs = await asyncio.gather(*(bot.play_until_over(random.Random(7 + i)) for i, bot in enumerate(bots)))
    game_id = overs[0].game_id
    written = json.loads((server.replay_dir / f"{game_id}.json").read_text())
    arena = server.arena()
    served = await arena.GetReplay(arena_pb2.GetReplayRequest(game_id=game_id))
    assert json.loads(served.replay_json)["game"] == "2210"
    assert json.loads(served.replay_json)["actions"] == written["actions"]

    messages = await read_all(arena.WatchGame(arena_pb2.WatchGameRequest(game_id=game_id)))
    snapshot = messages[0].snapshot
    assert not snapshot.live and snapshot.next_sequence == 0 and snapshot.r2210.rules.years == 2
    assert messages[-1].game_over == overs[0]
    replay = Replay2210.from_dict(written)
    updates = [m.events_2210 for m in messages[1:-1]]
    assert len(updates) == 1 + len(replay.actions), "the setup's events, then one batch per action"
    sequence = 0
    for update, (state, events) in zip(updates, replayed(replay), strict=True):
        assert update.observation == seen(state).observation
        assert list(update.events) == [event_2210(seen_by(e, -1), p) for p, e in enumerate(events, sequence)]
        sequence += len(events)
    assert updates[0].events[0].kind == "devastated", "the setup's devastation comes first"
