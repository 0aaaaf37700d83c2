"""Nothing finished is lost: each finished game to its replay file and to the database, kept (on disk, or in
memory while ``replay_dir`` takes no file) until both have it; the running games' records are
``server.play.live_records``'s.

Beside each ``<game_id>.json`` replay file (``server.play.replays``), ``replay_dir`` holds
``<game_id>.pending`` while the database has not taken the game: its result (seats, bot ids, timeouts,
round trips) as JSON, written before the replay file and removed once the database has the game. While the
server runs, ``Recorder.run`` retries what is owed with backoff; at start every marker left is pending
again. ``record_game`` refuses a game id it has (``GameAlreadyRecorded``), so a retry never rates a game
twice. ``Recorder.run``'s task also flushes the running games' ``.live`` records (``LiveRecords``), and
``Recorder.recover`` makes the games a crash left live into aborted games, recorded as finished ones are.

Two things can stop taking what a finished game needs, and either stops the seating of new games
(``on_down`` at once, then ``run``'s ``on_change``: health) until it takes it again:

- The database (``DatabaseUnavailable``: stopped, locked, its file removed, its volume full): later games
  skip it and go straight to pending, and ``conquest_database_up`` is 0. While no result is pending the
  database is also reached every ``PROBE_S`` (one trivial read), so a database that stops between games is
  reported down too, and up again once it is back.
- ``replay_dir`` (any ``OSError`` writing a replay file, a marker or a ``.live`` record: its volume full,
  read-only or failing): the game goes to the database alone, and its replay file is held in memory and
  written once the directory takes files again; a game neither can take is held in memory whole, so a
  single full volume, or one volume holding both, loses nothing while the process lives.
  ``conquest_replay_dir_up`` is 0 meanwhile; a probe file of ``PROBE_BYTES`` says when space is back.

What is held in memory is bounded: only the games already running when the volume filled can finish while
seating is paused.
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
"""What is owed is retried after RETRY_FIRST_S, doubling up to RETRY_MAX_S while it is not taken."""
PROBE_BYTES = 256 * 1024
"""The probe file written to ``replay_dir`` while it takes no file: room for it is room for a replay file
(a long classic game's is ~100 KiB) before seating resumes."""
_PROBE_NAME = ".space-probe"


class ResultDatabase(Protocol):
    """Where the Recorder writes each finished game beside its replay file (``DatabaseReplayWriter``)."""

    def write(self, record: GameRecord) -> str:
        """Record the game; where it went. Raises DatabaseUnavailable when it did not take it now."""
        ...

    def check(self) -> None:
        """Raises DatabaseUnavailable when the database cannot be reached now."""
        ...


@dataclasses.dataclass(eq=False)
class _Owed:
    """A finished game not yet everywhere it goes."""

    game_id: str
    record: GameRecord | None
    """The game, while its replay file is not written; None once it is (read back from it to retry the
    database: memory holds only what no disk has)."""
    actions_json: str = ""
    """Its actions already encoded as the replay file's JSON array ("": encoded when the file is written)."""
    filed: bool = False
    """Its replay file (and its marker, while ``recorded`` is not) is in ``replay_dir``."""
    recorded: bool = False
    """The database has it (or there is none)."""

    def let_go_once_filed(self) -> None:
        """Drop the record from memory once its replay file holds it (the database's retries read it back)."""
        if self.filed:
            self.record, self.actions_json = None, ""


class Recorder:
    """The server's ``ReplayWriter``: each finished game to a replay file and to ``database`` (None: files
    only), owed (``pending``) while either does not take it; ``live`` keeps the records of running games.
    ``write`` runs in a worker thread (a runner calls it through ``asyncio.to_thread``)."""

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
            directory,
            action_log,
            replica,
            self._database_failed,
            self._handed_over,
            self.metrics.cluster_counts,
            self._files_failed,
        )
        self.files = DirectoryReplayWriter(directory)
        self.database = database
        self.database_up = True
        """False from a write the database did not take until a retried one it did."""
        self.files_up = True
        """False from a write ``replay_dir`` did not take until the probe and every held file went in."""
        self._owed: dict[str, _Owed] = {}
        """The finished games not yet everywhere they go, oldest first."""
        self._state = threading.Lock()
        """Guards the two flags and ``_owed`` (worker threads and the event loop share them)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self.on_handed_over: Callable[[str], None] = lambda game_id: None
        """Told on the event loop when the action log refused a game's actions: another server took it
        over (the lobby abandons it)."""
        self.on_down: Callable[[str], None] = lambda why: None
        """Told at once, in the writing thread, why finished games cannot all be kept now (the lobby stops
        seating before the game that met it frees its bots); ``run``'s ``on_change`` follows on the loop."""

    @property
    def up(self) -> bool:
        """Whether every finished game is written where it goes as it ends: the seating goes on."""
        return self.database_up and self.files_up

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
        """The replay file (with the pending marker before it when there is a database), then the database;
        what either does not take now is owed and retried. Raises what the database refused for good (a
        result contradicting its replay); its marker stays for the next start."""
        game_id = record.replay.game_id
        finished = self.live.finish(game_id)
        pieces = finished.encoded
        rest = record.replay.actions[finished.encoded_count :]
        if rest:
            pieces.append(encode_actions(record.replay, rest)[1:-1])
        if finished.epoch is not None:  # the action log has it: its result carries the epoch held
            record = dataclasses.replace(record, epoch=finished.epoch)
        owed = _Owed(
            game_id, record, "[" + ",".join(p for p in pieces if p) + "]", recorded=self.database is None
        )
        path = self._file(owed) or "held in memory: replay_dir takes no file now"
        if not owed.recorded:
            with self._state:
                database_down = not self.database_up
            if database_down:
                path += " (pending: the database is unavailable)"
            else:
                where = self._record(record)
                owed.recorded = where is not None
                path = f"{where or 'pending: the database did not take it'}, {path}"
        if not (owed.filed and owed.recorded):
            self._owe(owed)
        return path

    def _file(self, owed: _Owed) -> str | None:
        """Write ``owed``'s replay file (its marker first while the database lacks it) and return its path;
        on ``OSError`` leave no part of either behind, go down and return None."""
        assert owed.record is not None
        try:
            if not owed.recorded:
                _write_atomically(self._marker(owed.game_id), json.dumps(_pending(owed.record)))
            path = self.files.write(owed.record, owed.actions_json)
        except OSError as failed:
            _remove(self._marker(owed.game_id))
            self._files_failed(failed)
            return None
        owed.filed = True
        self.live.remove(owed.game_id)
        return path

    def _owe(self, owed: _Owed) -> None:
        """Keep ``owed`` for the retries (its record in memory only while no file holds it)."""
        owed.let_go_once_filed()
        with self._state:
            self._owed[owed.game_id] = owed
        self._changed()

    def _record(self, record: GameRecord) -> str | None:
        """Write one game to the database and return where it went; on ``DatabaseUnavailable`` go down and
        return None."""
        assert self.database is not None
        game_id = record.replay.game_id
        try:
            where = self.database.write(record)
        except GameAlreadyRecorded:
            where = f"database (already recorded: {game_id})"
        except GameHandedOver as moved:  # the server that took it over records it: this one keeps nothing
            log.warning("game_handed_over", game_id=game_id, error=str(moved))
            _remove(self.directory / f"{game_id}.json")
            where = f"nowhere: handed over ({moved})"
        except DatabaseUnavailable as down:
            self._database_failed(down)
            return None
        _remove(self._marker(game_id))  # one left (a failing volume) is found recorded at the next start
        self.live.remove(game_id)  # the database has it (file or not): a crash must not make it aborted
        return where

    def _database_failed(self, down: DatabaseUnavailable) -> None:
        with self._state:
            was_up, self.database_up = self.database_up, False
        if was_up:
            self.on_down(
                f"the database does not take results ({down}); they are kept in replay_dir and retried"
            )
            log.warning(
                "database_unavailable",
                error=str(down),
                effect="results are kept in replay_dir and retried; no new games are seated",
            )
        self._changed()

    def _files_failed(self, failed: OSError) -> None:
        """Writing to ``replay_dir`` failed (any thread): seating stops until it takes files again."""
        with self._state:
            was_up, self.files_up = self.files_up, False
        if was_up:
            error = f"{failed.strerror or failed} ({self.directory})"
            self.on_down(
                f"replay_dir takes no file: {error}; finished games go to the database and are held in "
                "memory until it does"
            )
            log.warning(
                "replay_dir_unwritable",
                error=error,
                effect="finished games go to the database and their replay files are held in memory and "
                "written once there is space; no new games are seated",
                fix=f"free space on the volume of {self.directory} (or make it writable): seating resumes",
            )
        self._changed()

    def _probe(self) -> None:
        """Reach the database with no result waiting (worker thread): down if it cannot be reached, up
        again once it can."""
        assert self.database is not None
        try:
            self.database.check()
        except DatabaseUnavailable as down:
            self._database_failed(down)
            return
        with self._state:
            self.database_up = True

    def _room_for_files(self) -> bool:
        """Whether ``replay_dir`` takes a file of ``PROBE_BYTES`` now (worker thread)."""
        probe = self.directory / _PROBE_NAME
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with probe.open("wb") as file:
                file.write(bytes(PROBE_BYTES))
                file.flush()
                os.fsync(file.fileno())
        except OSError:
            return False
        finally:
            _remove(probe)
        return True

    def _retry(self) -> None:
        """Write what is owed, oldest first (worker thread): each game to the database while it takes them,
        each held replay file while ``replay_dir`` does; up again once a whole pass is taken."""
        with self._state:
            owed = list(self._owed.values())
            files_tried = self.files_up
        database_tried = any(not game.recorded for game in owed)  # else ``_probe`` tells
        files_tried = files_tried or self._room_for_files()
        database_ok, files_ok = database_tried, files_tried
        for game in owed:
            if not game.recorded and database_ok:
                database_ok, game.recorded = self._retry_record(game)
            if not game.filed and files_ok:
                files_ok = self._file(game) is not None
            if game.filed and game.recorded:
                if game.record is not None:
                    log.info("held_replay_written", game_id=game.game_id)
                with self._state:
                    self._owed.pop(game.game_id, None)
            else:
                game.let_go_once_filed()
        with self._state:
            if database_tried and database_ok:
                self.database_up = True
            if files_tried and files_ok and not self.files_up:
                self.files_up = True
                log.info("replay_dir_writable", effect="held replay files written")

    def _retry_record(self, game: _Owed) -> tuple[bool, bool]:
        """Retry one game's database write: (whether the database still takes writes, whether the game is
        settled there: recorded, or dropped as unreadable or refused for good)."""
        try:
            record = game.record or self._load_pending(game.game_id)
        except (ReplayError, OSError, ValueError, KeyError, TypeError) as bad:
            log.error(
                "pending_result_unreadable",
                game_id=game.game_id,
                error=str(bad),
                fix=f"restore {game.game_id}.json and {game.game_id}.pending in replay_dir, then restart",
            )
            return True, True
        try:
            where = self._record(record)
        except Exception as refused:
            log.error("pending_result_refused", game_id=game.game_id, error=str(refused))
            return True, True
        if where is None:
            return False, False
        log.info("pending_result_recorded", game_id=game.game_id, where=where)
        return True, True

    def _load_pending(self, game_id: str) -> GameRecord:
        replay, _ = load_replay_file(self.directory / f"{game_id}.json")
        pending = json.loads(self._marker(game_id).read_text())
        return GameRecord(replay, result_from_dict(pending), pending.get("epoch"))

    def _unrecorded(self) -> bool:
        """Whether a finished game waits for the database (its retries then tell whether it is up)."""
        with self._state:
            return any(not game.recorded for game in self._owed.values())

    def pending(self) -> list[str]:
        """The game ids not yet everywhere they go (the database, a replay file), oldest first."""
        with self._state:
            return list(self._owed)

    def _changed(self) -> None:
        """Wake the task (from any thread): the state or what is owed changed."""
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
                    self._owed.setdefault(marker.stem, _Owed(marker.stem, None, filed=True))
        return aborted

    def _keep_aborted(self, record: GameRecord) -> bool:
        """An aborted game's replay file, its result marked pending first when there is a database; held in
        memory when ``replay_dir`` takes no file. Whether the file is written."""
        owed = _Owed(record.replay.game_id, record, recorded=self.database is None)
        self._file(owed)
        if not owed.filed:
            self._owe(owed)
        return owed.filed

    async def run(self, on_change: Callable[[bool], Awaitable[None]]) -> None:
        """Until cancelled: append the running games' actions to their ``.live`` records (the action log's
        games go with the heartbeat: ``server.play.takeover``), retry what is owed (at once while all is up,
        with backoff while not) and tell ``on_change``, ``conquest_database_up`` and
        ``conquest_replay_dir_up`` whenever finished games stop being kept as they end or start again."""
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
            if self.database is not None and not self._unrecorded() and time.monotonic() >= probe_at:
                await asyncio.to_thread(self._probe)
                probe_at = time.monotonic() + PROBE_S
            owing = bool(self.pending()) or not self.files_up
            if owing and time.monotonic() >= retry_at:
                await asyncio.to_thread(self._retry)
                if self.up:
                    delay = RETRY_FIRST_S
                else:
                    retry_at = time.monotonic() + delay
                    delay = min(delay * 2, RETRY_MAX_S)
            self.metrics.database_up.set(1 if self.database_up else 0)
            self.metrics.replay_dir_up.set(1 if self.files_up else 0)
            if self.up != reported:
                reported = self.up
                if reported:
                    log.info("results_durable", effect="everything owed is written; seating resumed")
                await on_change(reported)
            self.metrics.results_pending.set(len(self.pending()))
            timeout = LIVE_FLUSH_S  # shorter than PROBE_S: a probe is at most one flush late
            if owing:
                timeout = max(0.0, min(timeout, retry_at - time.monotonic()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)


def _pending(record: GameRecord) -> dict[str, Any]:
    """A pending marker's content: the result, and the epoch its write must carry."""
    return {**result_to_dict(record.result), "epoch": record.epoch}


def _write_atomically(path: Path, text: str) -> None:
    """``text`` in ``path``, whole or not at all (a failed write leaves no partial file taking space)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text)
        os.replace(partial, path)
    except OSError:
        _remove(partial)
        raise


def _remove(path: Path) -> None:
    """``path`` gone if the volume lets it go: on a failing one, what is left is found again at start."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
