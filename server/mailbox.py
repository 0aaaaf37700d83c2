"""A one-reader mailbox: what a game or a stream has not read yet, and the reader's wait for more.

Cheaper per message than ``asyncio.Queue`` (no putters, no task counting, no loop lookup per call) on the
two paths every decision takes: a Decision to its game (``RemoteSeat``), a message to its stream
(``Session``).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The reader's loop, looked up once: ``asyncio.get_running_loop()`` costs a getpid() system call
        on every call (CPython 3.11 checks for a fork), and a reader waits once or twice per decision."""
        self._alarm: asyncio.TimerHandle | None = None
        """Wakes the reader at ``_alarm_at``. Kept when an item comes first: the next wait reuses it if it
        rings no later than that wait's ``until`` (an early ring only makes the reader wait again), so a
        game's seat sets a timer every few seconds, not per decision (a timer costs ~3 us on uvloop)."""
        self._alarm_at = 0.0

    def put(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self, until: float | None = None) -> T:
        """The oldest item, waiting for one until ``until`` (``time.monotonic()``, the event loop's clock)
        at the latest, or for as long as it takes (None).

        Raises:
            TimeoutError: nothing came by ``until``.
        """
        while not self._items:
            if until is not None and time.monotonic() >= until:
                raise TimeoutError
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            if until is not None and (self._alarm is None or self._alarm_at > until):
                if self._alarm is not None:
                    self._alarm.cancel()
                self._alarm = loop.call_at(until, self._ring)
                self._alarm_at = until
            self._waiter = waiter = loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def _ring(self) -> None:
        self._alarm = None
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
