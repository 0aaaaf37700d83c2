"""server.mailbox.Mailbox: the hand-off of every Decision to its game, whose wait is the decision's deadline
(issue 3: "On timeout: a deterministic legal default ... and a strike" needs the wait to end at the deadline,
never before it)."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.mailbox import Mailbox


async def test_an_item_put_while_waiting_is_returned_at_once() -> None:
    box: Mailbox[str] = Mailbox()
    asyncio.get_running_loop().call_later(0.01, box.put, "decision")
    started = time.monotonic()
    assert await box.get(started + 5) == "decision"
    assert time.monotonic() - started < 1


async def test_items_come_out_in_order_without_waiting() -> None:
    box: Mailbox[int] = Mailbox()
    for item in (1, 2, 3):
        box.put(item)
    assert [await box.get(0.0) for _ in range(3)] == [1, 2, 3], "items already there beat a past deadline"


async def test_nothing_by_the_deadline_raises_timeout_error_at_the_deadline_not_before() -> None:
    box: Mailbox[str] = Mailbox()
    until = time.monotonic() + 0.05
    with pytest.raises(TimeoutError):
        await box.get(until)
    assert time.monotonic() >= until


async def test_a_kept_alarm_for_an_earlier_deadline_does_not_end_a_later_wait_early() -> None:
    """The alarm of a wait answered early stays set and is reused; when it rings before the next wait's
    deadline, that wait goes on until its own deadline."""
    box: Mailbox[str] = Mailbox()
    first = time.monotonic() + 0.05
    box.put("answered before its deadline")
    assert await box.get(first) == "answered before its deadline"
    waiter = asyncio.get_running_loop().create_task(box.get(first))  # arms the alarm for `first`
    await asyncio.sleep(0)
    box.put("answered")
    assert await waiter == "answered"
    second = first + 0.1
    with pytest.raises(TimeoutError):
        await box.get(second)  # the alarm for `first` rings during this wait
    assert time.monotonic() >= second


async def test_a_sooner_deadline_than_the_kept_alarm_still_ends_the_wait_on_time() -> None:
    box: Mailbox[str] = Mailbox()
    later = asyncio.get_running_loop().create_task(box.get(time.monotonic() + 30))
    await asyncio.sleep(0)
    box.put("answered")
    assert await later == "answered"  # an alarm 30 s away stays set
    sooner = time.monotonic() + 0.05
    with pytest.raises(TimeoutError):
        await box.get(sooner)
    assert sooner <= time.monotonic() < sooner + 5
