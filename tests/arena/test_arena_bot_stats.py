"""GetBotStats end to end (issue 8, the Bot page: "decision-latency histogram by phase, timeouts, rejections
and crashes"): registered bots play real games over gRPC; what the server recorded per seat is what the
bots did, and the Arena sums it per bot."""

from __future__ import annotations

import asyncio
from collections import Counter

import grpc
import pytest
from arena_support import ADMIN, QUEUE, Player
from live_server import LiveServer

from conquest.v1 import arena_pb2, bot_pb2, game_pb2
from server.play.seats import RemoteSeat
from server.records import ROUND_TRIP_BUCKETS


def answered(player: Player) -> Counter[str]:
    """The decisions ``player`` answered, by phase as the server names it (lower case): every
    DecisionRequest it received, since Player.play answers each with a legal action in time."""
    return Counter(
        game_pb2.Phase.Name(m.decision_request.observation.phase).removeprefix("PHASE_").lower()
        for m in player.log
        if m.WhichOneof("message") == "decision_request"
    )


async def connect(server: LiveServer, token: str, seed: int) -> Player:
    player = Player(server.port, token=token, seed=seed)
    assert (await player.connect()).WhichOneof("message") == "welcome"
    return player


async def crash_once(server: LiveServer, player: Player, token: str, started: bot_pb2.GameStarted) -> Player:
    """``player`` holds a seat of the started game and waits for its first DecisionRequest; its stream
    drops before it answers, then its bot reconnects and takes the seat back."""
    while (await player.next()).WhichOneof("message") != "decision_request":
        pass
    assert server.lobby is not None
    seat = server.lobby.runners[started.game_id].seats[started.seat]
    assert isinstance(seat, RemoteSeat)
    await player.close()
    while seat.connection is not None:  # the server notices the dropped stream
        await asyncio.sleep(0.01)
    back = await connect(server, token, seed=8)
    assert list(back.log[0].welcome.resumed_game_ids) == [started.game_id]
    return back


async def test_recorded_round_trips_match_the_decisions_and_a_dropped_stream_is_one_crash(
    start_arena,
) -> None:
    """Issue 8: the Bot page shows a "decision-latency histogram by phase, timeouts, rejections and
    crashes". Per game, each seat's histogram counts exactly the decisions its bot answered, phase by
    phase; a stream that drops while the bot holds a seat counts one crash; a stale decision counts one
    rejection; GetBotStats sums both games and gives the bucket bounds in milliseconds."""
    server = await start_arena()
    arena = server.arena()
    tokens = []
    for name in ("alice", "bob"):
        reply = await arena.RegisterBot(
            arena_pb2.RegisterBotRequest(name=name), metadata=(("authorization", f"Bearer {ADMIN}"),)
        )
        tokens.append(reply.token)

    # Game 1: both play it out; alice also sends a decision for a request that does not exist.
    alice, bob = [await connect(server, t, seed=i) for i, t in enumerate(tokens)]
    started = await asyncio.gather(alice.join_one_game(), bob.join_one_game())
    stale = bot_pb2.Decision(game_id=started[0].game_id, request_id=999_999, action=game_pb2.Action())
    alice.send(decision=stale)
    first = (await asyncio.gather(alice.play(), bob.play()))[0]
    made = {"alice": [answered(alice)], "bob": [answered(bob)]}
    await alice.close()
    await bob.close()

    # Game 2: alice's stream drops once while she holds her seat; she reconnects and plays on.
    alice, bob = [await connect(server, t, seed=i + 2) for i, t in enumerate(tokens)]
    started = await asyncio.gather(alice.join_one_game(), bob.join_one_game())
    bob_playing = asyncio.create_task(bob.play())
    back = await crash_once(server, alice, tokens[0], started[0])
    second = await back.play()
    assert await bob_playing == second
    made["alice"].append(answered(back))
    made["bob"].append(answered(bob))
    await back.close()
    await bob.close()

    for over, game in ((first, 0), (second, 1)):
        recorded = (await arena.GetGame(arena_pb2.GetGameRequest(game_id=over.game_id))).game
        assert server.store is not None
        for seat in server.store.game(over.game_id).seats:
            per_phase = {phase: sum(counts) for phase, counts in seat.round_trips.items()}
            assert per_phase == dict(made[seat.name][game]), f"{seat.name}, game {game + 1}"
        crashes = {s.name: s.crashes for s in recorded.seats}
        assert crashes == ({"alice": 0, "bob": 0} if game == 0 else {"alice": 1, "bob": 0})

    stats = await arena.GetBotStats(arena_pb2.GetBotStatsRequest(bot="alice", queue=QUEUE))
    assert (stats.games, stats.crashes, stats.rejections, stats.timeouts) == (2, 1, 1, 0)
    assert list(stats.bucket_bounds_ms) == [b * 1000 for b in ROUND_TRIP_BUCKETS]
    total = made["alice"][0] + made["alice"][1]
    assert {p.phase: p.decisions for p in stats.phases} == dict(total)
    assert all(
        len(p.counts) == len(ROUND_TRIP_BUCKETS) + 1 and sum(p.counts) == p.decisions for p in stats.phases
    )
    order = [game_pb2.Phase.Value(f"PHASE_{p.phase.upper()}") for p in stats.phases]
    assert len(order) > 2 and order == sorted(order), "phases in the engine's order"
    assert stats.decisions == sum(total.values())
    everywhere = await arena.GetBotStats(arena_pb2.GetBotStatsRequest(bot="alice"))
    assert (everywhere.queue, everywhere.games, everywhere.decisions) == ("", 2, stats.decisions)
    bob_stats = await arena.GetBotStats(arena_pb2.GetBotStatsRequest(bot="bob", queue=QUEUE))
    assert (bob_stats.crashes, bob_stats.rejections) == (0, 0)

    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await arena.GetBotStats(arena_pb2.GetBotStatsRequest(bot="zed"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await arena.GetBotStats(arena_pb2.GetBotStatsRequest(bot="alice", queue="chess"))
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND and "no queue 'chess'" in unknown.value.details()
