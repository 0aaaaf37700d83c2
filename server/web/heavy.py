"""The dashboard's CPU work, apart from the play loop: battle odds and a replay's steps are computed in a
worker process, so they never hold the dashboard's event loop, behind the bounded queue of
``server.ops.bounded``: a request past ``SLOTS`` is refused at once (``BusyError``, answered 503 with
Retry-After).

The worker is started on first use (``spawn``: the server's gRPC threads are not forked) and stopped with
the dashboard, busy or not: ``close`` ends it mid-job, and on Linux it is killed when its parent dies
(``die_with_parent``), so a stopped or killed server leaves no worker holding memory and its output
pipes. Each job's cost is bounded (``engine.odds.bounded_battle_odds``; a replay's steps cost the
engine's time to replay the game), so a visitor who leaves early wastes at most one job.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from server.ops.bounded import RETRY_AFTER, BoundedPool, BusyError
from server.web.replay_view import attack_odds, viewer_data

__all__ = ["RETRY_AFTER", "BusyError", "HeavyWork", "odds_job", "replay_job"]

WORKERS = 1
"""Worker processes (the server's other cores belong to the games)."""
SLOTS = 4
"""Heavy requests running or waiting at once, over all clients; the next gets 503."""


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when the thread that started it ends."""


class HeavyWork(BoundedPool):
    """``slots`` heavy requests at most, computed in ``workers`` worker processes."""

    def __init__(self, workers: int = WORKERS, slots: int = SLOTS) -> None:
        spawn = multiprocessing.get_context("spawn")
        super().__init__(
            lambda: ProcessPoolExecutor(
                workers, mp_context=spawn, initializer=die_with_parent, initargs=(os.getpid(),)
            ),
            slots,
            "computing odds and replays",
        )

    def close(self) -> None:
        """Stop the workers now, a job in hand or not (``shutdown`` alone lets a running job finish, which
        outlives the dashboard by as long as the job takes)."""
        pool = self._pool
        workers = list(getattr(pool, "_processes", None) or {}) if pool is not None else []
        super().close()
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):  # it had already exited
                os.kill(pid, signal.SIGKILL)


def die_with_parent(parent: int) -> None:
    """A worker's initializer: on Linux, ask to be killed when the process that started it dies (a server
    killed with SIGKILL runs no cleanup); exit at once if it already has."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


def odds_job(attackers: int, defenders: int, dice: int, repeat_until: int) -> dict[str, Any]:
    """``attack_odds`` (run in the worker, whose cache it fills)."""
    return attack_odds(attackers, defenders, dice, repeat_until)


def replay_job(replay_json: str) -> bytes:
    """A replay file's viewer data as the JSON the endpoint answers (encoded in the worker too).

    Raises:
        ReplayError: the record is not a replay.
    """
    return json.dumps(viewer_data(json.loads(replay_json)), separators=(",", ":")).encode()
