"""A one-reader mailbox: what a game or a stream has not read yet, and the reader's wait for more.

Cheaper per message than ``asyncio.Queue`` (no putters, no task counting, no loop lookup per call) on the
two paths every decision takes: a Decision to its game (``RemoteSeat``), a message to its stream
(``Session``).
"""

from __future__ import annotations

import asyncio
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
        if not self._items:
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            timer = None if until is None else loop.call_at(until, _wake, waiter)
            try:
                await waiter
            finally:
                if timer is not None:
                    timer.cancel()
                self._waiter = None
            if not self._items:
                raise TimeoutError
        return self._items.popleft()


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
