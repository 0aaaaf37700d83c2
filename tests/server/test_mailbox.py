"""server.play.mailbox: a stream's send queue (``Mailbox``) and a game's wake-up (``Alarm``), whose wait ends
at a decision's deadline (issue 3: "On timeout: a deterministic legal default ... and a strike" needs the
wait to end at the deadline, never after it); the send queue's bound and ``deliver``, which ends a stream
whose reader stopped (issue 21, item 10)."""

from __future__ import annotations

import asyncio
import time

import pytest

from conquest.v1 import arena_pb2
from server.play.mailbox import Alarm, Mailbox, Overflowed, deliver
from server.play.spectators import Spectators


async def test_an_item_put_while_waiting_is_returned_at_once() -> None:
    box: Mailbox[str] = Mailbox()
    asyncio.get_running_loop().call_later(0.01, box.put, "decision request")
    started = time.monotonic()
    assert await asyncio.wait_for(box.get(), 5) == "decision request"
    assert time.monotonic() - started < 1


async def test_items_come_out_in_order() -> None:
    box: Mailbox[int] = Mailbox()
    for item in (1, 2, 3):
        box.put(item)
    assert [await box.get() for _ in range(3)] == [1, 2, 3]


async def test_a_wake_ends_the_wait_at_once() -> None:
    alarm = Alarm()
    asyncio.get_running_loop().call_later(0.01, alarm.wake)
    started = time.monotonic()
    await alarm.wait(started + 5)
    assert time.monotonic() - started < 1


async def test_a_wake_while_nobody_waits_ends_the_next_wait_only() -> None:
    alarm = Alarm()
    alarm.wake()
    started = time.monotonic()
    await alarm.wait(started + 5)
    assert time.monotonic() - started < 1
    until = time.monotonic() + 0.05
    await alarm.wait(until)
    assert time.monotonic() >= until, "the wake was used up by the first wait"


async def test_a_wait_ends_at_its_time_not_before() -> None:
    alarm = Alarm()
    until = time.monotonic() + 0.05
    await alarm.wait(until)
    assert until <= time.monotonic() < until + 1


async def test_a_kept_timer_for_an_earlier_time_only_ends_a_later_wait_early() -> None:
    """The timer of a wait woken early stays set and is reused: when it rings during a later wait, that
    wait ends early (the waiter re-checks and waits again), and the later time still ends the next wait."""
    alarm = Alarm()
    first = time.monotonic() + 0.05
    waiter = asyncio.get_running_loop().create_task(alarm.wait(first))  # sets the timer for `first`
    await asyncio.sleep(0)
    alarm.wake()
    await waiter
    second = first + 0.1
    await alarm.wait(second)  # the timer for `first` rings during this wait
    assert first <= time.monotonic() < second
    await alarm.wait(second)
    assert time.monotonic() >= second


async def test_a_sooner_time_than_the_kept_timer_still_ends_the_wait_on_time() -> None:
    alarm = Alarm()
    later = asyncio.get_running_loop().create_task(alarm.wait(time.monotonic() + 30))
    await asyncio.sleep(0)
    alarm.wake()
    await later  # a timer 30 s away stays set
    sooner = time.monotonic() + 0.05
    await alarm.wait(sooner)
    assert sooner <= time.monotonic() < sooner + 5


async def test_wake_by_ends_a_wait_in_progress_by_the_sooner_time() -> None:
    """A game waiting for one seat's deadline that asks another seat with a sooner deadline (a defence's
    short allowance) must wake by the sooner one."""
    alarm = Alarm()
    waiter = asyncio.get_running_loop().create_task(alarm.wait(time.monotonic() + 30))
    await asyncio.sleep(0)
    sooner = time.monotonic() + 0.05
    alarm.wake_by(sooner)
    await asyncio.wait_for(waiter, 5)
    assert time.monotonic() >= sooner


async def test_a_mailbox_whose_reader_falls_its_limit_behind_overflows_once_and_holds_nothing() -> None:
    """Issue 21 item 10: "every stream, bot or spectator, has a bounded outbound queue (a reader that stops
    is disconnected with a reason)"."""
    told: list[str] = []
    box: Mailbox[int] = Mailbox(limit=3)
    box.on_overflow = lambda: told.append("overflow")
    for item in range(10):
        box.put(item)
    assert box.overflowed and len(box) == 0 and told == ["overflow"]


async def test_deliver_ends_when_the_reader_stops_reading() -> None:
    """Issue 21 item 10: a write that never completes (a client that never reads) and a mailbox that fills
    up end the delivery (False), and the stuck write is cancelled."""
    box: Mailbox[int | None] = Mailbox(limit=5)
    never = asyncio.get_running_loop().create_future()

    async def write(item: int) -> None:
        await never

    delivering = asyncio.ensure_future(deliver(box, write))
    for item in range(20):
        box.put(item)
        await asyncio.sleep(0)
    assert await asyncio.wait_for(delivering, 5) is False


async def test_deliver_writes_everything_to_a_reader_that_reads() -> None:
    box: Mailbox[int | None] = Mailbox(limit=5)
    written: list[int] = []

    async def write(item: int) -> None:
        written.append(item)

    delivering = asyncio.ensure_future(deliver(box, write))
    for item in range(20):
        box.put(item)
        await asyncio.sleep(0)
    box.put(None)
    assert await asyncio.wait_for(delivering, 5) is True
    assert written == list(range(20))


async def test_a_spectator_that_stops_reading_is_cut_off_and_dropped() -> None:
    """Issue 21 item 9: "1,000 `WatchGame` spectators that never read were never closed while the game's
    events piled up for them"."""
    spectators = Spectators("g")
    spectator = spectators.add(arena_pb2.GameSnapshot(game_id="g"), limit=4)
    cut: list[bool] = []
    spectator.on_overflow = lambda: cut.append(True)
    for _ in range(10):
        spectators.send_events([])
    assert cut == [True] and len(spectator) == 0


async def test_a_reader_waiting_on_a_mailbox_that_overflows_learns_it_was_cut_off() -> None:
    """Issue 21 item 10: a spectator stream read by the web dashboard ends when it overflowed, rather than
    waiting for an end that the overflow dropped."""
    box: Mailbox[int] = Mailbox(limit=2)
    box.put(1)
    assert await box.get() == 1
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    for item in range(3):  # before the woken reader runs, the items pile up past the limit
        box.put(item)
    with pytest.raises(Overflowed):
        await asyncio.wait_for(waiting, 5)
