"""JoinQueue.games and Error.game_id (kit feedback, issue 7: "Anything a kit found unclear or awkward in the
protocol is fixed in the protocol and its comments, not worked around in the kit")."""

from __future__ import annotations

import asyncio
import random

from raw_client import seat_three

from conquest.v1 import bot_pb2


async def test_join_with_a_game_limit_leaves_the_queue_after_that_many_games(start_server) -> None:
    """bot.proto JoinQueue.games: "Seat this bot in at most this many more games of the queue, then leave
    it"; QueueStatus.joined is false "by reaching JoinQueue.games"."""
    server = await start_server()
    bots = [server.bot() for _ in range(3)]
    for i, bot in enumerate(bots):
        await bot.hello(f"limited-{i}")
        status = (await bot.join("classic-3", games=1)).queue_status
        assert status.joined
    overs = await asyncio.gather(*(b.play_until_over(random.Random(i)) for i, b in enumerate(bots)))
    assert len({o.game_id for o in overs}) == 1
    for bot in bots:
        left = [m.queue_status for m in bot.log if m.WhichOneof("message") == "queue_status"]
        assert [s.joined for s in left] == [True, False]
        assert [m for m in bot.log if m.WhichOneof("message") == "game_started"].__len__() == 1
    assert server.lobby.matchmaker.waiting_count("classic-3") == 0
    await asyncio.sleep(0.2)
    assert not server.lobby.runners  # nobody was seated in a second game


async def test_unknown_game_error_names_the_game(start_server) -> None:
    """bot.proto Error.game_id: "The game the problem concerns (e.g. with "seat_forfeited" or
    "unknown_game")"."""
    server = await start_server()
    bots, _ = await seat_three(server)
    bots[0].send(decision=bot_pb2.Decision(game_id="not-a-game", request_id=1))
    error = (await bots[0].expect("error")).error
    assert (error.code, error.game_id, error.fatal) == ("unknown_game", "not-a-game", False)


async def test_leaving_a_queue_never_joined_answers_not_joined(start_server) -> None:
    """docs/protocol.md: "`LeaveQueue` of a queue you had not joined is not an error: it answers
    `QueueStatus{joined: false}`" (issue 23: "`LeaveQueue` of a queue never joined answers
    `QueueStatus{joined: false}`: undocumented")."""
    server = await start_server()
    bot = server.bot()
    await bot.hello("never-joined")
    bot.send(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
    reply = await bot.expect("queue_status", "error")
    assert reply.WhichOneof("message") == "queue_status"
    assert reply.queue_status.queue == "classic-3"
    assert not reply.queue_status.joined
