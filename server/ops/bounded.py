"""A bounded queue in front of an executor: work that must not run on the event loop (database reads,
CPU-heavy answers) runs in a thread or process pool, and at most ``slots`` jobs are running or waiting at
once, counted until each job ends even when its caller left; one more is refused at once (``BusyError``).
Play comes first (issue 21): a flood of such requests costs the game server a refusal each, never an
unbounded queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor
from typing import Any, TypeVar

T = TypeVar("T")

RETRY_AFTER = 1
"""Seconds a refused request is told to wait."""


class BusyError(Exception):
    """Every slot is taken, or the pool's worker died (the message says so and what to do)."""


class BoundedPool:
    """``slots`` jobs at most, run in the executor ``make()`` returns (made on first use, made again
    after its worker died). ``doing`` names the work in refusals, e.g. "computing odds and replays"."""

    def __init__(self, make: Callable[[], Executor], slots: int, doing: str) -> None:
        self.make = make
        self.slots = slots
        self.doing = doing
        self.busy = 0
        self._pool: Executor | None = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the pool.

        Raises:
            BusyError: ``slots`` jobs are already running or waiting, or the worker died on this one.
        """
        if self.busy >= self.slots:
            raise BusyError(
                f"the server is {self.doing} already ({self.busy} running or waiting, at most {self.slots} "
                f"at once, so that the games are not slowed); retry in {RETRY_AFTER} s"
            )
        if self._pool is None:
            self._pool = self.make()
        try:
            job = asyncio.get_running_loop().run_in_executor(self._pool, work, *args)
            self.busy += 1
            job.add_done_callback(self._done)  # a caller who leaves frees the slot only when the job ends
            return await asyncio.shield(job)
        except BrokenExecutor:  # the worker died (killed, out of memory): the next request starts one
            self.close()
            raise BusyError(f"the worker {self.doing} stopped; retry in {RETRY_AFTER} s") from None

    def _done(self, job: asyncio.Future[Any]) -> None:
        self.busy -= 1
        if not job.cancelled():
            job.exception()  # retrieved: a caller who left does not leave an unread error behind

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
