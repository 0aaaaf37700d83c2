"""Issue 20, "Metrics and the dashboard see the whole cluster: which replica hosts which game, replicas
alive, lease holder, games handed over", and "a bot never needs to know there is more than one process":
what a bot hears of its queue and what the Arena API lists are the whole cluster's, read at each heartbeat
(real `conquest serve` processes on one PostgreSQL). The dashboard's side: test_dashboard_browser_cluster."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import grpc
import pytest
from raw_client import RawBot
from replicas import (
    NAMES,
    Replicas,
    hosted,
    lease_holder,
    listed_with_host,
    play_trio,
    postgresql_only,
    register,
)

from conquest.v1 import arena_pb2_grpc, bot_pb2
from server.app import build_lobby
from server.arena.api import Arena, UnwatchableError
from server.arena.service import status_code
from server.ops.config import ServerConfig
from server.play.cluster import Cluster
from server.play.cluster_view import ClusterView
from server.play.relay import Relay
from server.records import QueueCount, RunningGame


def test_the_view_counts_the_other_live_replicas_bots_and_finds_a_games_host() -> None:
    """ "QueueStatus counts ... the whole cluster's": the bots waiting on the other live replicas are added
    to this replica's own (counted as they are, so not here), a replica presumed dead counts for nothing;
    a game played elsewhere (or handed over, no host yet) is found with its host, one played here is not."""
    view = ClusterView(
        "r1",
        {"r1": 1, "r2": 0, "r3": 4},
        frozenset({"r1", "r2"}),
        "r2",
        (
            RunningGame("g1", "trio", "r1", 0, (("ann", "k-ann"), ("house", "")), datetime.now(UTC)),
            RunningGame("g2", "trio", "r3", 1, (("ann", "k-ann"), ("bob", "k-bob")), datetime.now(UTC)),
            RunningGame("g3", "trio", "", 2, (("cat", "k-cat"),), datetime.now(UTC)),
        ),
        {
            ("r1", "trio"): QueueCount(5, 5),
            ("r2", "trio"): QueueCount(2, 1),
            ("r2", "duel"): QueueCount(1, 1),
            ("r3", "trio"): QueueCount(7, 7),
        },
    )
    assert view.waiting_elsewhere("trio") == QueueCount(2, 1)
    assert view.waiting_elsewhere("classic-4") == QueueCount(0, 0)
    assert view.hosted_elsewhere("g1") is None, "played here"
    assert [view.hosted_elsewhere(g).host for g in ("g2", "g3")] == ["r3", ""]  # type: ignore[union-attr]
    assert view.games_by_bot() == {
        "k-ann": [("g1", "r1"), ("g2", "r3")],
        "k-bob": [("g2", "r3")],
        "k-cat": [("g3", "")],
    }, "house seats have no key"


async def _waiting(bot: RawBot) -> bot_pb2.QueueStatus:
    """The QueueStatus answering the bot's JoinQueue again (a member may join again: its wait is kept)."""
    message = await bot.join("trio")
    assert message.WhichOneof("message") == "queue_status", message
    return message.queue_status


async def _until(bot: RawBot, waiting: int, timeout: float) -> bot_pb2.QueueStatus:
    deadline = time.monotonic() + timeout
    while (status := await _waiting(bot)).waiting != waiting and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return status


@postgresql_only
async def test_a_bots_queue_status_counts_the_bots_waiting_on_every_replica(
    tmp_path: Path, db_url: str
) -> None:
    """ "A bot connects to any replica ... The bot protocol and the starter kits do not change: a bot never
    needs to know there is more than one process": two bots waiting in one queue on two replicas each hear
    that two bots wait and both are ready (of the three seats), within a heartbeat or so of the other's
    JoinQueue, and one hears the other leave."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    bots: list[RawBot] = []
    try:
        await replicas.serving()
        bots = [RawBot(port) for port in replicas.ports[:2]]
        for bot, name in zip(bots, NAMES, strict=False):
            assert (await bot.hello(name, token=tokens[name])).WhichOneof("message") == "welcome"
        alone = await _waiting(bots[0])
        assert (alone.waiting, alone.ready, alone.seats) == (1, 1, 3), "ann alone: herself"
        joined_at = time.monotonic()
        await _waiting(bots[1])
        seen = [await _until(bot, 2, 5) for bot in bots]
        seen_in = time.monotonic() - joined_at
        bots[1].send(leave_queue=bot_pb2.LeaveQueue(queue="trio"))
        left = await _until(bots[0], 1, 5)
    finally:
        for bot in bots:
            await bot.close()
        replicas.stop()
    assert [(s.waiting, s.ready, s.seats) for s in seen] == [(2, 2, 3)] * 2, "each counts the other replica's"
    assert seen_in < 3, f"seen {seen_in:.1f} s after bob joined (heartbeat 0.2 s)"
    assert (left.waiting, left.ready) == (1, 1), "bob left"


@postgresql_only
async def test_a_game_hosted_on_one_replica_is_listed_with_its_host_by_the_others(
    tmp_path: Path, db_url: str
) -> None:
    """ "Metrics and the dashboard see the whole cluster: which replica hosts which game, replicas alive,
    lease holder": the Arena API of a replica that does not host the game lists it with its host, and the
    replicas (alive, their games, the one lease holder). (WatchGame there streams it:
    test_server_cluster_watch.py.)"""
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        ids = await replicas.serving()
        playing = play_trio(replicas, register(db_url), 0.02)
        game_id, host = await hosted(db_url, actions=10, timeout=60)
        other = next(i for i in range(3) if ids[i] != host)
        holder = ids[await lease_holder(replicas, 10)]
        async with grpc.aio.insecure_channel(replicas.address(other)) as channel:
            arena = arena_pb2_grpc.ArenaServiceStub(channel)
            listed = await listed_with_host(arena, game_id, 5)
        async with grpc.aio.insecure_channel(replicas.address(ids.index(host))) as channel:
            at_host = await listed_with_host(arena_pb2_grpc.ArenaServiceStub(channel), game_id, 5)
        await asyncio.wait_for(playing, 120)
    finally:
        replicas.stop()
    game = next(g for g in listed.games if g.game_id == game_id)
    assert (game.host, game.turn, game.handovers) == (host, -1, 0), "its host; the turn only the host knows"
    assert sorted(p.name for p in game.players) == sorted(NAMES)
    assert listed.replica == ids[other]
    assert {(r.id, r.alive) for r in listed.replicas} == {(i, True) for i in ids}
    assert [r.id for r in listed.replicas if r.lease_holder] == [holder]
    assert sum(r.games for r in listed.replicas) == 1, "one game, published by its host"
    hosted_there = next(g for g in at_host.games if g.game_id == game_id)
    assert hosted_there.host == host and hosted_there.turn >= 0


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("", "was handed over by its draining replica and no replica plays it yet; retry in a few seconds"),
        ("r3", "'s replica r3 stopped answering and the game is being taken over by another; retry in a few"),
        ("r2", "is played on replica r2, whose relay address replica r1 has not read yet; retry in a few"),
    ],
)
async def test_watching_a_game_no_replica_can_stream_yet_says_to_retry(host: str, why: str) -> None:
    """ "a bot never needs to know there is more than one process": WatchGame on any replica streams any
    running game of the cluster, relayed from its host; what cannot be streamed yet (a game handed over and
    not claimed, its host presumed dead, its host's relay address not read yet) is answered
    FAILED_PRECONDITION with what to do."""
    lobby = build_lobby(ServerConfig(database_url=""), None)
    arena = Arena(lobby, None)
    game = RunningGame("g1", "trio", host, 1, (("ann", "k-ann"),), datetime.now(UTC))
    view = ClusterView("r1", {"r1": 0, "r2": 1, "r3": 1}, frozenset({"r1", "r2"}), "r1", (game,))
    arena.cluster = cast(Cluster, SimpleNamespace(view=view, relay=Relay(lobby, "r1", "secret")))
    with pytest.raises(UnwatchableError) as refused:
        arena.watch_mailbox("g1")
    assert why in str(refused.value)
    assert status_code(refused.value) == grpc.StatusCode.FAILED_PRECONDITION
    assert arena.watch_mailbox("g2") is None, "no such game running: WatchGame reads its record"
