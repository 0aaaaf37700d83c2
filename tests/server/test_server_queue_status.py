"""A bot waiting in a queue learns why it waits: QueueStatus says how many seats are filled and how long it
has waited, when it joins and then every QUEUE_STATUS_INTERVAL_S while it waits.

Issue 23: "a bot waiting in a queue should learn why it waits (how many seats are filled, how long it has
waited)".
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from raw_client import RawBot

from conquest.v1 import bot_pb2
from server.play import waiting

INTERVAL_S = 0.2


async def _next_status(bot: RawBot) -> bot_pb2.QueueStatus:
    return (await bot.expect("queue_status", timeout=5)).queue_status


async def test_a_waiting_bot_is_told_the_seats_filled_and_its_wait_until_seated(
    start_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bot.proto QueueStatus: sent "every 10 s while you wait in the queue for a game ...: how many seats
    are filled and how long you have waited" (`seats`, `ready`, `waited_ms`); no more once seated."""
    monkeypatch.setattr(waiting, "QUEUE_STATUS_INTERVAL_S", INTERVAL_S)
    server = await start_server()
    first = server.bot()
    await first.hello("first-waiter")
    joined = (await first.join("classic-3")).queue_status
    assert (joined.joined, joined.seats, joined.ready, joined.waiting) == (True, 3, 1, 1)
    assert joined.waited_ms < 100

    later = await _next_status(first)
    assert (later.queue, later.joined, later.seats, later.ready) == ("classic-3", True, 3, 1)
    assert later.waited_ms >= 1000 * INTERVAL_S / 2
    again = await _next_status(first)
    assert again.waited_ms >= later.waited_ms + 1000 * INTERVAL_S * 0.9

    second = server.bot()
    await second.hello("second-waiter")
    assert (await second.join("classic-3")).queue_status.ready == 2
    both = await _next_status(first)
    assert (both.ready, both.waiting) == (2, 2)

    third = server.bot()
    await third.hello("third-waiter")
    await third.join("classic-3")  # the table is full: a game starts
    await first.expect("game_started", timeout=5)
    seen = []
    deadline = asyncio.get_running_loop().time() + 3 * INTERVAL_S
    with contextlib.suppress(TimeoutError):
        while (left := deadline - asyncio.get_running_loop().time()) > 0:
            seen.append((await first.next(left)).WhichOneof("message"))
    assert "queue_status" not in seen, "a seated bot with no free slot is not waiting"
