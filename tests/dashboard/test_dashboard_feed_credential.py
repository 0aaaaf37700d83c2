"""The dashboard process's feed of live games, counted under limits of its own (issue 33, item 2): "One
address can take all 200 live-view slots of the dashboard ... and those streams count against the same
address's limit on the game server, so 10 of 60 local bots were refused `too_many_streams`". The dashboard
process follows the live games from the play process's host, whose address local bots share; it shows the
secret the play process handed it, and is counted as itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import grpc
import pytest
from live_server import LiveServer, no_timebank, serving
from raw_client import RawBot

from conquest.v1 import arena_pb2
from engine import preset
from server.arena.service import BURST
from server.ops.calls import DASHBOARD_METADATA
from server.ops.config import QueueConfig
from server.web.live import FEED_STREAMS, MAX_WATCHERS, LiveFeed
from server.web.process import DashboardProcess, Settings

QUEUES = (
    QueueConfig("duel", preset("classic_two_player", turn_cap=200), 2, no_timebank(30_000), rated=False),
)
SECRET = "the-play-process-made-this-secret"
STREAMS = 4
"""The local address's stream limit in these tests (server.client_stream_limit)."""


async def _bots(server: LiveServer, count: int, prefix: str) -> list[RawBot]:
    """``count`` practice bots connected to ``server`` from this host, each welcomed or refused."""
    bots = [server.bot() for _ in range(count)]
    for index, bot in enumerate(bots):
        await bot.hello(f"{prefix}-{index}")
    return bots


def _welcomed(bot: RawBot) -> bool:
    return bot.log[0].WhichOneof("message") == "welcome"


async def _live_game(server: LiveServer) -> tuple[list[RawBot], str]:
    """Two of this host's bots seated in a duel (two of its streams), and the game's id."""
    bots = await _bots(server, 2, "player")
    for bot in bots:
        await bot.join("duel", games=1)
    started = [(await bot.expect("game_started", timeout=30)).game_started.game_id for bot in bots]
    return bots, started[0]


async def _exhaust_arena_bucket(server: LiveServer) -> None:
    """Spend this host's address's Arena tokens (its next calls are refused)."""
    arena = server.arena()
    calls = [arena.GetGame(arena_pb2.GetGameRequest(game_id="none")) for _ in range(BURST + 20)]
    answers = await asyncio.gather(*calls, return_exceptions=True)
    refused = [a for a in answers if isinstance(a, grpc.aio.AioRpcError)]
    assert any(a.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for a in refused), "the bucket is empty"


async def test_the_feeds_streams_and_calls_are_not_its_addresss(tmp_path: Path) -> None:
    """Issue 33, item 2: the feed's WatchGame streams count against its own budget (``FEED_STREAMS``, sized
    for ``MAX_WATCHERS``), not its address's ``client_stream_limit``: with three followed games' streams
    open, this host's bots still open all their streams; and with this host's Arena bucket spent, the feed
    still lists and follows the live games."""
    assert FEED_STREAMS >= MAX_WATCHERS
    async with serving(
        QUEUES, tmp_path / "replays", dashboard_token=SECRET, client_stream_limit=STREAMS
    ) as server:
        players, game_id = await _live_game(server)
        feed = LiveFeed(server.address, token=SECRET)
        watching: list[AsyncGenerator[arena_pb2.WatchGameResponse]] = []
        try:
            for _ in range(3):
                stream = await feed.watch(game_id)
                assert stream is not None
                watching.append(stream)
                assert (await anext(stream)).HasField("snapshot")
            more = await _bots(server, STREAMS - len(players) + 1, "local")
            welcomed = sum(_welcomed(b) for b in more)
            assert welcomed == STREAMS - len(players), "this host's own limit of streams, all of it"
            await _exhaust_arena_bucket(server)
            assert game_id in {g.game_id for g in (await feed.games(max_age=0)).games}
            stream = await feed.watch(game_id)
            assert stream is not None
            watching.append(stream)
            assert (await anext(stream)).HasField("snapshot")
        finally:
            for stream in watching:
                await stream.aclose()
            await feed.close()


async def test_a_wrong_dashboard_secret_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    """A call showing a secret that is not the dashboard's (or showing one to a server without a
    dashboard) is refused UNAUTHENTICATED, saying whose secret it is and what to send instead."""
    for token in (SECRET, ""):
        async with serving(QUEUES, tmp_path / "replays", dashboard_token=token) as server:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await server.arena().ListLiveGames(
                    arena_pb2.ListLiveGamesRequest(), metadata=((DASHBOARD_METADATA, "guess"),)
                )
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            details = refused.value.details() or ""
            assert DASHBOARD_METADATA in details and "send the call without that metadata" in details


async def _first_event(port: int, game_id: str) -> tuple[str, dict[str, Any]]:
    """The first server-sent event of the dashboard's stream of ``game_id`` (its kind and data)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/games/{game_id}/watch HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    kind = ""
    try:
        while line := (await asyncio.wait_for(reader.readline(), 30)).decode():
            if line.startswith("event: "):
                kind = line[7:].strip()
            elif line.startswith("data: "):
                return kind, json.loads(line[6:])
        return "ended", {}
    finally:
        writer.close()


async def test_the_dashboard_process_is_handed_its_secret_with_its_settings(tmp_path: Path) -> None:
    """The play process hands the dashboard process its secret with the settings it passes (through
    multiprocessing's pipe): not on its command line (tokens on command lines were issue 21's item 8), nor
    in its environment. With it, a visitor follows a live game while this host's address holds all the
    streams it may."""
    async with serving(
        QUEUES, tmp_path / "replays", dashboard_token=SECRET, client_stream_limit=STREAMS
    ) as server:
        settings = Settings(port=0, play_address=server.address, play_token=SECRET, queues=("duel",))
        assert SECRET not in repr(settings)
        web = DashboardProcess(settings)
        await web.start()
        try:
            assert web.process is not None and web.process.pid is not None
            proc = Path(f"/proc/{web.process.pid}")
            assert SECRET.encode() not in (proc / "cmdline").read_bytes()
            assert SECRET.encode() not in (proc / "environ").read_bytes()
            _, game_id = await _live_game(server)
            more = await _bots(server, STREAMS - 2, "local")
            assert all(_welcomed(b) for b in more), "this host's address holds all its streams"
            kind, snapshot = await _first_event(web.port, game_id)
            assert (kind, snapshot.get("game_id")) == ("snapshot", game_id)
        finally:
            await web.stop()
