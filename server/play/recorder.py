"""Nothing finished is lost: each finished game to its replay file, then to the database, its result kept
on disk until the database has it; the running games' records are ``server.play.live_records``'s.

Beside each ``<game_id>.json`` replay file (``server.play.replays``), ``replay_dir`` holds
``<game_id>.pending`` while the database has not taken the game: its result (seats, bot ids, timeouts,
round trips) as JSON, written before the replay file and removed once the database has the game. While the
server runs, ``Recorder.run`` retries pending results with backoff; at start every marker left is pending
again. ``record_game`` refuses a game id it has (``GameAlreadyRecorded``), so a retry never rates a game
twice. ``Recorder.run``'s task also flushes the running games' ``.live`` records (``LiveRecords``), and
``Recorder.recover`` makes the games a crash left live into aborted games, recorded as finished ones are.

While a write fails with ``DatabaseUnavailable`` the database is down: later games skip it and go straight
to pending, the server is told (``run``'s ``on_change``: health, seating) and ``conquest_database_up`` is 0.
The first retry that succeeds brings it back up and the rest of the pending results follow. While no
result is pending the database is also reached every ``PROBE_S`` (one trivial read), so a database that
stops (or whose SQLite file is removed) between games is reported down too, and up again once it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import structlog

from engine.replay import ReplayError
from server.ops.metrics import Metrics
from server.play.live_records import LIVE_FLUSH_S, LiveRecords, encode_actions
from server.play.ports import ActionLog
from server.play.replays import DirectoryReplayWriter, GameRecord, load_replay_file
from server.play.results import result_from_dict, result_to_dict
from server.play.runner_2210 import AnyRunner
from server.records import DatabaseUnavailable, GameAlreadyRecorded, GameHandedOver

log = structlog.get_logger("conquest.recorder")

PROBE_S = 2.0
"""How often the database is reached while no result waits for it: one that is gone (stopped, its file
removed) is reported within this, games or not, and one that is back is too."""
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 10.0
"""Pending results are retried after RETRY_FIRST_S, doubling up to RETRY_MAX_S while the database is down."""


class ResultDatabase(Protocol):
    """Where the Recorder writes each finished game after its replay file (``DatabaseReplayWriter``)."""

    def write(self, record: GameRecord) -> str:
        """Record the game; where it went. Raises DatabaseUnavailable when it did not take it now."""
        ...

    def check(self) -> None:
        """Raises DatabaseUnavailable when the database cannot be reached now."""
        ...


class Recorder:
    """The server's ``ReplayWriter``: each finished game to a replay file, then to ``database`` (None: files
    only), kept pending on disk while the database does not take it; ``live`` keeps the records of running
    games. ``write`` runs in a worker thread (a runner calls it through ``asyncio.to_thread``)."""

    def __init__(
        self,
        directory: Path,
        database: ResultDatabase | None = None,
        metrics: Metrics | None = None,
        action_log: ActionLog | None = None,
        replica: str = "",
    ) -> None:
        self.directory = directory
        self.action_log = action_log
        """Where running games are kept instead of ``.live`` files (``server.takeover``), as replica
        ``replica``: another server can then take them over."""
        self.replica = replica
        self.metrics = metrics or Metrics()
        self.live = LiveRecords(
            directory, action_log, replica, self._went_down, self._handed_over, self.metrics.cluster_counts
        )
        self.files = DirectoryReplayWriter(directory)
        self.database = database
        self.up = True
        """False from a write the database did not take until a retried one it did."""
        self._pending: dict[str, None] = {}
        """Game ids whose result waits for the database, oldest first (a dict: an ordered set)."""
        self._state = threading.Lock()
        """Guards ``up`` and ``_pending`` (worker threads and the event loop share them)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self.on_handed_over: Callable[[str], None] = lambda game_id: None
        """Told on the event loop when the action log refused a game's actions: another server took it
        over (the lobby abandons it)."""
        self.on_down: Callable[[str], None] = lambda why: None
        """Told at once, in the writing thread, when the database stops taking results (the lobby stops
        seating before the game that met it frees its bots); ``run``'s ``on_change`` follows on the loop."""

    # ------------------------------------------------------------------ running games

    async def started(self, runner: AnyRunner) -> None:
        """A game starts (in its task, before its first request): its ``.live`` header is written by the
        Recorder's task, at once; a game of the action log has its record written there now, in a worker
        thread, and this waits for it (``LiveRecords.open``), so that once the game is under way another
        server can take it over (``server.play.takeover``)."""
        self.live.started(runner)
        if self.live.logging:
            await asyncio.to_thread(self.live.open)
        else:
            self._wake.set()

    def adopted(self, runner: AnyRunner, epoch: int, batches: list[str], count: int) -> None:
        """A game taken over from a dead server (``LiveRecords.adopted``), on the event loop."""
        self.live.adopted(runner, epoch, batches, count)

    def _handed_over(self, game_id: str) -> None:
        """The action log refused a game's actions (worker thread): ``on_handed_over``, on the loop."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.on_handed_over, game_id)

    def _marker(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.pending"

    # ------------------------------------------------------------------ finished games

    def write(self, record: GameRecord) -> str:
        """The replay file first (with the pending marker before it when there is a database), then the
        database: a result it does not take now stays pending and is retried. Raises what the database
        refused for good (a result contradicting its replay); its marker stays for the next start."""
        game_id = record.replay.game_id
        finished = self.live.finish(game_id)
        pieces = finished.encoded
        rest = record.replay.actions[finished.encoded_count :]
        if rest:
            pieces.append(encode_actions(record.replay, rest)[1:-1])
        if finished.epoch is not None:  # the action log has it: its result carries the epoch held
            record = dataclasses.replace(record, epoch=finished.epoch)
        if self.database is not None:
            _write_atomically(self._marker(game_id), json.dumps(_pending(record)))
        path = self.files.write(record, "[" + ",".join(p for p in pieces if p) + "]")
        self.live.remove(game_id)
        if self.database is None:
            return path
        with self._state:
            down = not self.up
            if down:
                self._pending[game_id] = None
        if down:
            self._changed()
            return f"{path} (pending: the database is unavailable)"
        where = self._record(record)
        return f"{where or 'pending: the database did not take it'}, {path}"

    def _record(self, record: GameRecord) -> str | None:
        """Write one game to the database and return where it went; on ``DatabaseUnavailable`` keep it
        pending, go down and return None."""
        assert self.database is not None
        game_id = record.replay.game_id
        try:
            where = self.database.write(record)
        except GameAlreadyRecorded:
            where = f"database (already recorded: {game_id})"
        except GameHandedOver as moved:  # the server that took it over records it: this one keeps nothing
            log.warning("game_handed_over", game_id=game_id, error=str(moved))
            (self.directory / f"{game_id}.json").unlink(missing_ok=True)
            where = f"nowhere: handed over ({moved})"
        except DatabaseUnavailable as down:
            with self._state:
                self._pending[game_id] = None
            self._went_down(down)
            return None
        self._marker(game_id).unlink(missing_ok=True)
        return where

    def _went_down(self, down: DatabaseUnavailable) -> None:
        with self._state:
            was_up, self.up = self.up, False
        if was_up:
            self.on_down(str(down))
            log.warning(
                "database_unavailable",
                error=str(down),
                effect="results are kept in replay_dir and retried; no new games are seated",
            )
        self._changed()

    def _probe(self) -> None:
        """Reach the database with no result waiting (worker thread): down if it cannot be reached, up
        again once it can."""
        assert self.database is not None
        try:
            self.database.check()
        except DatabaseUnavailable as down:
            self._went_down(down)
            return
        with self._state:
            self.up = True

    def _retry_pending(self) -> None:
        """Write the pending results, oldest first, until one is not taken (worker thread)."""
        with self._state:
            waiting = list(self._pending)
        for game_id in waiting:
            try:
                record = self._load_pending(game_id)
            except (ReplayError, OSError, ValueError, KeyError, TypeError) as bad:
                log.error(
                    "pending_result_unreadable",
                    game_id=game_id,
                    error=str(bad),
                    fix=f"restore {game_id}.json and {game_id}.pending in replay_dir, then restart",
                )
                with self._state:
                    self._pending.pop(game_id, None)
                continue
            try:
                where = self._record(record)
            except Exception as refused:
                log.error("pending_result_refused", game_id=game_id, error=str(refused))
                with self._state:
                    self._pending.pop(game_id, None)
                continue
            if where is None:
                return  # still down: the rest waits for the next retry
            with self._state:
                self._pending.pop(game_id, None)
            log.info("pending_result_recorded", game_id=game_id, where=where)
        with self._state:
            self.up = True

    def _load_pending(self, game_id: str) -> GameRecord:
        replay, _ = load_replay_file(self.directory / f"{game_id}.json")
        pending = json.loads(self._marker(game_id).read_text())
        return GameRecord(replay, result_from_dict(pending), pending.get("epoch"))

    def pending(self) -> list[str]:
        """The game ids waiting for the database, oldest first."""
        with self._state:
            return list(self._pending)

    def _changed(self) -> None:
        """Wake the task (from any thread): the state or the pending list changed."""
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._wake.set)

    # ------------------------------------------------------------------ start and task

    def recover(self) -> list[str]:
        """At start, before any game: each ``.live`` record left by a crash becomes an aborted game's
        replay file (and result, pending for the database: ``LiveRecords.recover``); every ``.pending``
        marker is pending again. Returns the aborted game ids."""
        aborted = self.live.recover(self._keep_aborted)
        if self.database is not None:
            with self._state:
                for marker in sorted(self.directory.glob("*.pending"), key=lambda p: p.stat().st_mtime):
                    self._pending[marker.stem] = None
        return aborted

    def _keep_aborted(self, record: GameRecord) -> None:
        """An aborted game's replay file, its result marked pending first when there is a database."""
        if self.database is not None:
            _write_atomically(self._marker(record.replay.game_id), json.dumps(_pending(record)))
        self.files.write(record)

    async def run(self, on_change: Callable[[bool], Awaitable[None]]) -> None:
        """Until cancelled: append the running games' actions to their ``.live`` records (the action log's
        games go with the heartbeat: ``server.play.takeover``), retry pending results (at once while the
        database is up, with backoff while it is down) and tell ``on_change`` and ``conquest_database_up``
        whenever the database goes down or comes back."""
        self._loop = asyncio.get_running_loop()
        reported = True
        delay = RETRY_FIRST_S
        retry_at = 0.0
        probe_at = time.monotonic() + PROBE_S
        while True:
            self._wake.clear()
            batches = self.live.batches(logged=False)
            if batches:
                await asyncio.to_thread(self.live.flush, batches)
            if self.database is not None and not self.pending() and time.monotonic() >= probe_at:
                await asyncio.to_thread(self._probe)
                probe_at = time.monotonic() + PROBE_S
            if self.pending() and time.monotonic() >= retry_at:
                await asyncio.to_thread(self._retry_pending)
                if self.up:
                    delay = RETRY_FIRST_S
                else:
                    retry_at = time.monotonic() + delay
                    delay = min(delay * 2, RETRY_MAX_S)
            if self.up != reported:
                reported = self.up
                self.metrics.database_up.set(1 if reported else 0)
                if reported:
                    log.info("database_available", effect="pending results written; seating resumed")
                await on_change(reported)
            self.metrics.results_pending.set(len(self.pending()))
            timeout = LIVE_FLUSH_S  # shorter than PROBE_S: a probe is at most one flush late
            if self.pending():
                timeout = max(0.0, min(timeout, retry_at - time.monotonic()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)


def _pending(record: GameRecord) -> dict[str, Any]:
    """A pending marker's content: the result, and the epoch its write must carry."""
    return {**result_to_dict(record.result), "epoch": record.epoch}


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)
