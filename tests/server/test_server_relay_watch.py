"""Spectators relayed between replicas (server.play.relay_watch), two relays in one process over real TCP:
issue 20's "a bot never needs to know there is more than one process", here for a spectator watching
through a replica that does not host the game. The whole servers' side (WatchGame, takeover, drain):
tests/server/test_server_cluster_watch.py."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from relay_pair import linked, play, relayed_game

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import arena_pb2, bot_pb2
from server.ops.config import ServerConfig
from server.play.mailbox import deliver
from server.play.relay import Relay
from server.play.relay_watch import CUT
from server.play.spectators import Spectator

LIMIT = 64
"""server.send_queue_limit here: a spectator this many messages behind is dropped."""


async def _read(spectator: Spectator) -> list[arena_pb2.WatchGameResponse]:
    got = []
    while (message := await spectator.get()) is not None:
        got.append(message)
    return got


async def _never_read(message: arena_pb2.WatchGameResponse) -> None:
    """A spectator's stream that takes nothing: its first write waits for ever."""
    await asyncio.Event().wait()


async def _until(condition: object, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        await asyncio.sleep(0.002)
    assert condition(), "in time"  # type: ignore[operator]


def _gauge(relay: Relay, side: str) -> float:
    value: float = relay.lobby.metrics.relayed_spectators.labels(side)._value.get()
    return value


async def _played(host: Relay, bots: Relay, game_id: str, tmp_path: Path) -> float:
    """Play the game ``game_id`` to its end once its spectators are in place: its seconds."""
    runner, sessions, _ = relayed_game(host, bots, game_id, 30, tmp_path)
    over: list[bot_pb2.GameOver] = []
    started = time.monotonic()
    await asyncio.wait_for(asyncio.gather(runner.run(), *(play(bots, s, over) for s in sessions)), 60)
    host.ended(runner)
    assert len(over) == 2
    return time.monotonic() - started


async def test_a_relayed_spectator_gets_the_hosts_stream_and_one_that_never_reads_does_not_slow_the_game(
    tmp_path: Path,
) -> None:
    """ "a bot never needs to know there is more than one process": a spectator on replica b of a game
    hosted on a gets exactly what a spectator on a gets, snapshot to GameOver; one on b that never reads
    falls ``send_queue_limit`` messages behind, is dropped there (its stream says it stopped reading, as a
    local one's) and a stops streaming to it; the game takes about as long as the same game (same seed,
    same bots) played with no spectator."""
    host, bots, listening = await linked(
        ServerConfig(database_url="", replay_dir=tmp_path, send_queue_limit=LIMIT)
    )
    try:
        alone_s = await _played(host, bots, "g0", tmp_path)
        runner, sessions, _ = relayed_game(host, bots, "g1", 30, tmp_path)
        reading, stalled = bots.watches.watch(host.replica, "g1"), bots.watches.watch(host.replica, "g1")
        assert reading is not None and stalled is not None
        await _until(lambda: len(host.watches.streaming) == 2)  # both relayed spectators are in
        local = runner.watch(10_000)  # and one on the host, from the same moment
        watched = (_gauge(host, "hosted"), _gauge(bots, "elsewhere"))
        relayed, local_read = asyncio.create_task(_read(reading.spectator)), asyncio.create_task(_read(local))
        dropped = asyncio.create_task(deliver(stalled.spectator, _never_read))
        over: list[bot_pb2.GameOver] = []
        started = time.monotonic()
        game = asyncio.gather(runner.run(), *(play(bots, s, over) for s in sessions))
        delivered = await asyncio.wait_for(dropped, 30)
        stalled.unwatch()  # as WatchGame does when its stream ends
        await _until(lambda: len(host.watches.streaming) == 1)  # a heard it left
        await asyncio.wait_for(game, 60)
        watched_s = time.monotonic() - started
        host.ended(runner)
        got, expected = await asyncio.wait_for(relayed, 5), await asyncio.wait_for(local_read, 5)
        await _until(lambda: not host.watches.streaming and not bots.watches.watching)
        gauges = (_gauge(host, "hosted"), _gauge(bots, "elsewhere"))
    finally:
        host.stop()
        bots.stop()
        for server in listening:
            server.close()
    assert got == expected, "the same snapshot, event batches and GameOver, message for message"
    assert [got[0].WhichOneof("message"), got[-1].WhichOneof("message")] == ["snapshot", "game_over"]
    assert len(got) > 3 * LIMIT, (
        "the game sent far more than the dropped spectator was allowed to fall behind"
    )
    assert reading.complete and not stalled.complete
    assert delivered is False, "the spectator that never read was dropped"
    assert watched == (2, 2) and gauges == (0, 0), "conquest_relayed_spectators counts them while they watch"
    assert watched_s < 1.5 * alone_s + 0.1, f"{watched_s:.2f} s with spectators, {alone_s:.2f} s without"


async def test_a_relayed_spectator_whose_relay_connection_is_cut_is_told_at_once(tmp_path: Path) -> None:
    """ "When the host replica dies ... or the relay connection is cut mid-stream, the spectator's stream
    ends ... rather than hanging": the spectator's replica ends the stream as the connection drops (WatchGame
    then says where the game went), and the host stops streaming to it."""
    host, bots, listening = await linked(ServerConfig(database_url="", replay_dir=tmp_path))
    runner, sessions, _ = relayed_game(host, bots, "g1", 30, tmp_path)
    try:
        watch = bots.watches.watch(host.replica, "g1")
        assert watch is not None
        await _until(lambda: len(host.watches.streaming) == 1)
        got = asyncio.create_task(_read(watch.spectator))
        over: list[bot_pb2.GameOver] = []
        game = asyncio.gather(runner.run(), *(play(bots, s, over) for s in sessions))
        await _until(lambda: len(runner.replay.actions) >= 20)
        transport = watch.link.transport  # b's connection to a (b dialled it, or a did: one or two)
        assert transport is not None
        transport.abort()  # as a network failure, or the host's death, would
        messages = await asyncio.wait_for(got, 5)
        streaming = dict(host.watches.streaming)
        runner.stop()
        await asyncio.wait_for(game, 30)
    finally:
        host.stop()
        bots.stop()
        for server in listening:
            server.close()
    assert messages[0].WhichOneof("message") == "snapshot" and len(messages) > 1
    assert (watch.end, watch.why, watch.complete) == (relay_pb2.WATCH_END_STOPPED, CUT, False)
    assert streaming == {}, "the host stopped streaming over the connection that dropped"
