"""Hand-offs between tasks: a stream's send queue (``Mailbox``) and a game's wake-up (``Alarm``).

``deliver`` writes a mailbox to a stream and ends it when its reader stops reading. Both hand-offs are
cheaper per message than their asyncio counterparts (``asyncio.Queue``, ``asyncio.Event`` plus
``asyncio.wait_for``): no putters, no task counting, no loop lookup per call, and no timer per wait. They
sit on the paths every decision takes.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Final, Generic, TypeVar

T = TypeVar("T")
_monotonic: Final = time.monotonic


class Overflowed(Exception):
    """A mailbox's reader fell ``limit`` items behind and was cut off."""


class Mailbox(Generic[T]):
    """What one reader has not read yet, and its wait for more; at most ``limit`` items (0: no limit).

    A reader that falls ``limit`` items behind has stopped reading: the mailbox overflows once, drops what
    it holds and takes nothing more, and tells ``on_overflow`` (``deliver`` ends the stream then).
    """

    def __init__(self, limit: int = 0) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The reader's loop, looked up once: ``asyncio.get_running_loop()`` costs a getpid() system call
        on every call (CPython 3.11 checks for a fork)."""
        self._room = limit if limit > 0 else 2**62
        """Items it takes; -1 once it overflowed (one comparison per ``put`` covers both)."""
        self.on_overflow: Callable[[], object] | None = None
        self.writing = False
        """``deliver`` is writing an item (a write that does not end: the stream's reader is not reading)."""

    @property
    def overflowed(self) -> bool:
        return self._room < 0

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: T) -> None:
        if len(self._items) >= self._room:
            self._overflow()
            return
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        """The oldest item, waiting for one as long as it takes.

        Raises:
            Overflowed: the mailbox overflowed (nothing more will come).
        """
        while not self._items:
            if self._room < 0:
                raise Overflowed("the reader fell behind by the mailbox's limit: it was cut off")
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def _overflow(self) -> None:
        if self._room < 0:
            return
        self._room = -1
        self._items.clear()
        waiter = self._waiter
        if waiter is not None and not waiter.done():  # a reader waiting now learns it was cut off
            waiter.set_result(None)
        if self.on_overflow is not None:
            self.on_overflow()


class Departure:
    """A message whose departure counts: a DecisionRequest, whose bot's clock starts when it leaves.

    Put in a stream's mailbox in place of its bytes; ``deliver`` stamps ``sent_at`` (``time.monotonic()``)
    right before it hands the bytes to the transport, so the time the message waited behind the server's
    own work (the event loop's other callbacks, the messages queued before it) is not the bot's. A
    plain class, compiled: one is made per decision."""

    def __init__(self, data: bytes, mailbox: Mailbox[Any] | None) -> None:
        self.data = data
        self.mailbox = mailbox
        """The mailbox it waits in (None: sent already, ``sent_at`` set)."""
        self.sent_at = 0.0
        """When its bytes were handed to the transport; 0.0 while it waits in ``mailbox``."""

    def held_by_reader(self) -> bool:
        """Not sent, behind a write the stream's reader has not taken yet (it is not reading): the wait is
        the reader's, not the server's."""
        mailbox = self.mailbox
        return self.sent_at == 0.0 and mailbox is not None and mailbox.writing


async def _pump(mailbox: Mailbox[Any], write: Callable[[Any], Awaitable[None]]) -> None:
    while (item := await mailbox.get()) is not None:
        mailbox.writing = True
        if isinstance(item, Departure):
            item.sent_at = _monotonic()
            await write(item.data)
        else:
            await write(item)
        mailbox.writing = False


async def deliver(
    mailbox: Mailbox[Any],
    write: Callable[[Any], Awaitable[None]],
    reading: asyncio.Future[None] | None = None,
    flush_s: float = 5.0,
) -> bool:
    """Write what ``mailbox`` receives with ``write``, in order, until None. False when the stream's reader
    stopped reading: the mailbox overflowed, or the stream's own reading (``reading``, if given) ended and
    what was left did not go out within ``flush_s``; the caller ends the stream then."""
    writer = asyncio.ensure_future(_pump(mailbox, write))
    mailbox.on_overflow = writer.cancel
    try:
        waited: set[asyncio.Future[None]] = {writer} if reading is None else {writer, reading}
        done, _ = await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        if writer not in done:
            done, _ = await asyncio.wait({writer}, timeout=flush_s)
        if writer not in done or writer.cancelled() or mailbox.overflowed:
            return False
        writer.result()  # a failed write raises here
        return True
    finally:
        writer.cancel()


class Alarm:
    """One task's sleep until it is woken (``wake``) or a time comes, whichever is first.

    The waiter re-checks what it waits for after every wait: a wait may end early (a wake for something
    else, or the ring of a timer kept for an earlier time), never late.
    """

    def __init__(self) -> None:
        self._waiter: asyncio.Future[None] | None = None
        self._woken = False
        """``wake`` came while nobody waited: the next wait returns at once."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        """Rings at ``_timer_at``. Kept when a wait ends first: the next wait reuses it if it rings no later
        than that wait's ``until``, so a game sets a timer every few seconds, not per decision (a timer
        costs ~3 us on uvloop)."""
        self._timer_at = 0.0

    def wake(self) -> None:
        waiter = self._waiter
        if waiter is None:
            self._woken = True
        elif not waiter.done():
            waiter.set_result(None)

    def wake_by(self, until: float) -> None:
        """Make a wait in progress end by ``until`` (``time.monotonic()``) at the latest."""
        if self._waiter is not None and (self._timer is None or self._timer_at > until):
            self._set_timer(until)

    async def wait(self, until: float) -> None:
        """Return when woken, or at ``until`` (``time.monotonic()``, the event loop's clock)."""
        if self._woken:
            self._woken = False
            return
        if time.monotonic() >= until:
            return
        if self._timer is None or self._timer_at > until:
            self._set_timer(until)
        self._waiter = waiter = self._running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiter = None

    def _set_timer(self, until: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._running_loop().call_at(until, self._ring)
        self._timer_at = until

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The waiter's loop, looked up once (see ``Mailbox._loop``)."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def _ring(self) -> None:
        if time.monotonic() < self._timer_at:  # the loop's clock is coarser (uvloop: milliseconds)
            self._set_timer(self._timer_at)
            return
        self._timer = None
        self.wake()
