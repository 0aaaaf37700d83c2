"""The dashboard's CPU work, apart from the play loop: battle odds and a replay's steps are computed in a
worker process, so they never hold the dashboard's event loop, behind the bounded queue of
``server.ops.bounded``: a request past ``SLOTS`` is refused at once (``BusyError``, answered 503 with
Retry-After).

The worker is started on first use (``spawn``: the server's gRPC threads are not forked) and stopped with
the dashboard. Each job's cost is bounded (``engine.odds.bounded_battle_odds``; a replay's steps cost the
engine's time to replay the game), so a visitor who leaves early wastes at most one job.
"""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from server.ops.bounded import RETRY_AFTER, BoundedPool, BusyError
from server.web.replay_view import attack_odds, viewer_data

__all__ = ["RETRY_AFTER", "BusyError", "HeavyWork", "odds_job", "replay_job"]

WORKERS = 1
"""Worker processes (the server's other cores belong to the games)."""
SLOTS = 4
"""Heavy requests running or waiting at once, over all clients; the next gets 503."""


class HeavyWork(BoundedPool):
    """``slots`` heavy requests at most, computed in ``workers`` worker processes."""

    def __init__(self, workers: int = WORKERS, slots: int = SLOTS) -> None:
        spawn = multiprocessing.get_context("spawn")
        super().__init__(
            lambda: ProcessPoolExecutor(workers, mp_context=spawn), slots, "computing odds and replays"
        )


def odds_job(attackers: int, defenders: int, dice: int, repeat_until: int) -> dict[str, Any]:
    """``attack_odds`` (run in the worker, whose cache it fills)."""
    return attack_odds(attackers, defenders, dice, repeat_until)


def replay_job(replay_json: str) -> bytes:
    """A replay file's viewer data as the JSON the endpoint answers (encoded in the worker too).

    Raises:
        ReplayError: the record is not a replay.
    """
    return json.dumps(viewer_data(json.loads(replay_json)), separators=(",", ":")).encode()
