"""Issue 20, "a bot never needs to know there is more than one process" and "Metrics and the dashboard see
the whole cluster": WatchGame on any replica streams any running game of the cluster, relayed from its host
(real `conquest serve` processes on one PostgreSQL). The relay's side in one process:
tests/server/test_server_relay_watch.py; the dashboard's: test_dashboard_browser_cluster."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from replicas import (
    Replicas,
    hosted,
    kill_and_restart,
    listed_with_host,
    metric,
    mid_game,
    play_trio,
    postgresql_only,
    register,
)

from conquest.v1 import arena_pb2, arena_pb2_grpc


async def _rest(stream: Any) -> list[arena_pb2.WatchGameResponse]:
    """The stream's messages from here to its end."""
    got = []
    while (message := await stream.read()) is not grpc.aio.EOF:
        got.append(message)
    return got


@postgresql_only
@pytest.mark.parametrize("queue", ["trio", "trio-2210"])
async def test_a_game_hosted_on_one_replica_is_watched_through_another_as_on_its_host(
    tmp_path: Path, db_url: str, queue: str
) -> None:
    """ "a bot never needs to know there is more than one process" (nor a spectator): a game hosted on
    replica A (two of its three bots connected there) watched through replica B's WatchGame gives B's
    spectator exactly the messages A's own spectator gets, snapshot, event batches (a RISK 2210 A.D. game's
    with the board after each) and GameOver; "Metrics ... see the whole cluster": each replica counts the
    relayed spectator meanwhile (conquest_relayed_spectators). The bots are slow to answer their first
    request, so both spectators start from the same board."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 2)
    try:
        ids = await replicas.serving()
        await replicas.seeing_each_other()
        playing = play_trio(replicas, tokens, 0.005, queue, first_delay_s=4.0, on=(0, 0, 1))
        game_id, host = await hosted(db_url, actions=0, timeout=60)
        request = arena_pb2.WatchGameRequest(game_id=game_id)
        async with (
            grpc.aio.insecure_channel(replicas.address(0)) as to_a,
            grpc.aio.insecure_channel(replicas.address(1)) as to_b,
        ):
            through_b = arena_pb2_grpc.ArenaServiceStub(to_b)
            await listed_with_host(through_b, game_id, 5)
            streams = [arena_pb2_grpc.ArenaServiceStub(to_a).WatchGame(request), through_b.WatchGame(request)]
            snapshots = [cast(arena_pb2.WatchGameResponse, await stream.read()) for stream in streams]
            scraped = [await asyncio.to_thread(replicas.scrape, i) for i in (0, 1)]
            at_a, at_b = await asyncio.wait_for(asyncio.gather(*(_rest(s) for s in streams)), 120)
        results = await asyncio.wait_for(playing, 120)
    finally:
        replicas.stop()
    assert host == ids[0], "placed where most of its seats are"
    assert snapshots[0] == snapshots[1], "both from the board before the first action"
    assert snapshots[1].snapshot.game_id == game_id and snapshots[1].snapshot.live
    assert at_b == at_a, "message for message what the host's own spectator got"
    assert at_b[-1].WhichOneof("message") == "game_over" and at_b[-1].game_over.game_id == game_id
    kind = "events_2210" if queue == "trio-2210" else "events"
    assert len(at_b) > 20 and all(m.WhichOneof("message") == kind for m in at_b[:-1])
    assert all([over.game_id for over in overs] == [game_id] for overs in results)
    assert metric(scraped[0], 'conquest_relayed_spectators{side="hosted"}') == 1
    assert metric(scraped[1], 'conquest_relayed_spectators{side="elsewhere"}') == 1


@postgresql_only
@pytest.mark.parametrize("fault", ["kill", "drain"])
async def test_a_spectator_watching_through_another_replica_is_told_where_its_game_moved(
    tmp_path: Path, db_url: str, fault: str
) -> None:
    """ "a bot never needs to know there is more than one process": the host of a game watched through
    another replica is killed (SIGKILL) or drained (SIGTERM) mid-game; the spectator's stream ends within
    seconds, with ABORTED naming the replica that plays the game now (taken over, or handed over), instead
    of hanging; WatchGame called again (on the same replica) streams the game from there to its GameOver."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        game = await mid_game(replicas, tokens)
        request = arena_pb2.WatchGameRequest(game_id=game.game_id)
        async with grpc.aio.insecure_channel(replicas.address(game.other)) as channel:
            arena = arena_pb2_grpc.ArenaServiceStub(channel)
            stream = arena.WatchGame(request)
            first = cast(arena_pb2.WatchGameResponse, await stream.read())
            struck_at = time.monotonic()
            if fault == "kill":
                await kill_and_restart(replicas, game.host_index)
                stopped = 0
            else:
                stopped = await asyncio.to_thread(replicas.servers[game.host_index].stop, 30)
                # its bot reconnects there
                replicas.servers.append(replicas.start(game.host_index, "restarted"))
            with pytest.raises(grpc.aio.AioRpcError) as moved:
                await asyncio.wait_for(_rest(stream), 30)
            told_s = time.monotonic() - struck_at
            again = await asyncio.wait_for(_rest(arena.WatchGame(request)), 120)
        await asyncio.wait_for(game.playing, 120)
    finally:
        replicas.stop()
    assert first.WhichOneof("message") == "snapshot" and stopped == 0
    how = "taken over" if fault == "kill" else "handed over by its draining replica"
    details = moved.value.details() or ""
    assert moved.value.code() == grpc.StatusCode.ABORTED, details
    assert f"game {game.game_id} moved from replica {game.host} to replica " in details
    assert f"({how})" in details
    assert "call WatchGame again" in details
    assert told_s < 10, f"told {told_s:.1f} s after its host went"
    assert again[0].WhichOneof("message") == "snapshot" and again[0].snapshot.game_id == game.game_id
    assert again[-1].WhichOneof("message") == "game_over" and again[-1].game_over.game_id == game.game_id
