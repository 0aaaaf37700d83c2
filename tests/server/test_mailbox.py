"""server.play.mailbox: a stream's send queue (``Mailbox``) and a game's wake-up (``Alarm``), whose wait ends
at a decision's deadline (issue 3: "On timeout: a deterministic legal default ... and a strike" needs the
wait to end at the deadline, never after it)."""

from __future__ import annotations

import asyncio
import time

from server.play.mailbox import Alarm, Mailbox


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
