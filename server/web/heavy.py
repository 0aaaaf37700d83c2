"""The dashboard's CPU work, apart from the play loop: battle odds and a replay's steps are computed in a
worker process, so they never hold the game server's GIL, and at most ``slots`` requests wait for it at
once, counted until each job ends even when its visitor left; one more is refused at once (``BusyError``,
answered 503 with Retry-After).

The worker is started on first use (``spawn``: the server's gRPC threads are not forked) and stopped with
the dashboard. Each job's cost is bounded (``engine.odds.bounded_battle_odds``; a replay's steps cost the
engine's time to replay the game), so a visitor who leaves early wastes at most one job.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from server.web.replay_view import attack_odds, viewer_data

T = TypeVar("T")

WORKERS = 1
"""Worker processes (the server's other cores belong to the games)."""
SLOTS = 4
"""Heavy requests running or waiting at once, over all clients; the next gets 503."""
RETRY_AFTER = 1
"""Seconds a refused heavy request is told to wait."""


class BusyError(Exception):
    """Every slot for heavy work is taken (the message says so and what to do)."""


class HeavyWork:
    """A bounded queue in front of a worker process pool."""

    def __init__(self, workers: int = WORKERS, slots: int = SLOTS) -> None:
        self.workers = workers
        self.slots = slots
        self.busy = 0
        self._pool: ProcessPoolExecutor | None = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the worker process.

        Raises:
            BusyError: ``slots`` heavy requests are already running or waiting.
        """
        if self.busy >= self.slots:
            raise BusyError(
                f"the server is computing {self.busy} odds or replays already (at most {self.slots} at "
                f"once, so that the games are not slowed); retry in {RETRY_AFTER} s"
            )
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        try:
            job = asyncio.get_running_loop().run_in_executor(self._pool, work, *args)
            self.busy += 1
            job.add_done_callback(self._done)  # a visitor who leaves frees the slot only when the job ends
            return await asyncio.shield(job)
        except BrokenProcessPool:  # the worker died (killed, out of memory): the next request starts one
            self.close()
            raise BusyError(
                f"the worker computing odds and replays stopped; retry in {RETRY_AFTER} s"
            ) from None

    def _done(self, job: asyncio.Future[Any]) -> None:
        self.busy -= 1
        if not job.cancelled():
            job.exception()  # retrieved: a visitor who left does not leave an unread error behind

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def odds_job(attackers: int, defenders: int, dice: int, repeat_until: int) -> dict[str, Any]:
    """``attack_odds`` (run in the worker, whose cache it fills)."""
    return attack_odds(attackers, defenders, dice, repeat_until)


def replay_job(replay_json: str) -> bytes:
    """A replay file's viewer data as the JSON the endpoint answers (encoded in the worker too).

    Raises:
        ReplayError: the record is not a replay.
    """
    return json.dumps(viewer_data(json.loads(replay_json)), separators=(",", ":")).encode()
