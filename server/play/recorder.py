"""Nothing finished is lost: results kept on disk until the database has them, and the games live at a
crash found afterwards.

Beside each ``<game_id>.json`` replay file (``server.play.replays``), ``replay_dir`` holds two records:

- ``<game_id>.live`` while a game runs: JSON lines, first a header with what rebuilds the game (queue,
  rules, board, seed, dice version, seats, bot ids, seed commitment, start time), then the actions played
  so far, one line per batch. The header is written as the game starts and the actions are appended every
  ``LIVE_FLUSH_S``, both by ``Recorder.run``'s task in a worker thread: nothing is written per decision on
  the event loop. The file is removed once the game's replay file is written. One left at start is a game
  that was live at a crash: ``Recorder.recover`` replays it to where it got, ends it there as at a turn cap
  reached then, and records it unrated with the reason ``aborted``.
- ``<game_id>.pending`` while the database has not taken the game: its result (seats, bot ids, timeouts,
  round trips) as JSON, written before the replay file and removed once the database has the game. While
  the server runs, ``Recorder.run`` retries pending results with backoff; at start every marker left is
  pending again. ``record_game`` refuses a game id it has (``GameAlreadyRecorded``), so a retry never
  rates a game twice.

With ``server.takeover`` the running games go to the database's action log instead of ``.live`` files,
in the same batches (``_log``, through ``server.play.ports.ActionLog``), so that another server can take
them over (``server.play.takeover``); their results then carry the epoch this server holds.

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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import structlog

from engine import Rules, default_action
from engine.codec import decode_action, encode_action
from engine.r2210.replay import GAME as GAME_2210
from engine.r2210.replay import Replay2210, rules_to_dict
from engine.replay import Replay, ReplayError
from server.ops.metrics import Metrics
from server.play.aborted_2210 import aborted_record_2210
from server.play.ports import ActionLog
from server.play.replays import DirectoryReplayWriter, GameRecord, load_replay_file
from server.play.results import Outcome, result_from_dict, result_to_dict, seat_outcome
from server.play.runner import GameRunner
from server.play.runner_2210 import AnyRunner
from server.play.seats import HOUSE_POLICIES, RemoteSeat
from server.records import (
    ABORTED,
    DatabaseUnavailable,
    GameAlreadyRecorded,
    GameHandedOver,
    GameResult,
    LiveGame,
    LiveSeat,
    SeatOutcome,
    SeatResult,
)

log = structlog.get_logger("conquest.recorder")

LIVE_FLUSH_S = 1.0
"""How often the actions of running games are appended to their ``.live`` records."""
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


@dataclasses.dataclass(eq=False)
class _Live:
    runner: AnyRunner
    flushed: int = 0
    """Actions handed to a batch so far (on the event loop)."""
    header_sent: bool = False
    encoded: list[str] = dataclasses.field(default_factory=list)
    """The JSON of the actions appended so far, one piece per batch (``[...]`` without its brackets): the
    replay file reuses them, so an action is encoded once whether or not it was appended."""
    encoded_count: int = 0
    """Actions in ``encoded`` (in the worker thread, under ``Recorder._files``)."""
    epoch: int = 1
    """The epoch this server holds the game at in the action log (``server.play.takeover``)."""
    logged: bool = False
    """Its header is in the action log: its result must carry ``epoch``."""


class Recorder:
    """The server's ``ReplayWriter``: each finished game to a replay file, then to ``database`` (None: files
    only), kept pending on disk while the database does not take it; and the ``.live`` records of running
    games. ``write`` runs in a worker thread (``GameRunner`` calls it through ``asyncio.to_thread``)."""

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
        self.files = DirectoryReplayWriter(directory)
        self.database = database
        self.metrics = metrics or Metrics()
        self.up = True
        """False from a write the database did not take until a retried one it did."""
        self._pending: dict[str, None] = {}
        """Game ids whose result waits for the database, oldest first (a dict: an ordered set)."""
        self._state = threading.Lock()
        """Guards ``up``, ``_pending`` and ``_live`` (worker threads and the event loop share them)."""
        self._files = threading.Lock()
        """Held while a ``.live`` record is appended to or removed."""
        self._live: dict[str, _Live] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self.on_handed_over: Callable[[str], None] = lambda game_id: None
        """Told on the event loop when the action log refused a game's actions: another server took it
        over (the lobby abandons it)."""
        self.on_down: Callable[[str], None] = lambda why: None
        """Told at once, in the writing thread, when the database stops taking results (the lobby stops
        seating before the game that met it frees its bots); ``run``'s ``on_change`` follows on the loop."""

    # ------------------------------------------------------------------ running games

    def started(self, runner: AnyRunner) -> None:
        """A game started (on the event loop): its ``.live`` header is written by the task, at once."""
        with self._state:
            self._live[runner.game_id] = _Live(runner)
        self._wake.set()

    def adopted(self, runner: GameRunner, epoch: int, batches: list[str], count: int) -> None:
        """A game taken over from a dead server (on the event loop), its ``count`` actions logged in
        ``batches`` (JSON arrays) already: its later actions are logged at ``epoch``."""
        pieces = [b[1:-1] for b in batches]
        with self._state:
            self._live[runner.game_id] = _Live(runner, count, True, pieces, count, epoch, True)
        self._wake.set()

    def _batches(self) -> list[tuple[_Live, dict[str, Any] | None, list[Any]]]:
        """What to append to each ``.live`` record: a new game's header, and the actions since the last
        batch (a slice of the replay's list, taken on the event loop)."""
        with self._state:
            lives = list(self._live.items())
        batches: list[tuple[_Live, dict[str, Any] | None, list[Any]]] = []
        for _, live in lives:
            actions = live.runner.replay.actions[live.flushed :]
            if live.header_sent and not actions:
                continue
            header = None if live.header_sent else _header(live.runner)
            live.header_sent = True
            live.flushed += len(actions)
            batches.append((live, header, actions))
        return batches

    def _flush(self, batches: list[tuple[_Live, dict[str, Any] | None, list[Any]]]) -> None:
        """Each batch to the action log when there is one, else (and for RISK 2210 A.D. games, which are
        not taken over yet) to the ``.live`` records (worker thread)."""
        if self.action_log is None:
            self._append(batches)
            return
        self._log([b for b in batches if isinstance(b[0].runner, GameRunner)])
        self._append([b for b in batches if not isinstance(b[0].runner, GameRunner)])

    def _log(self, batches: list[tuple[_Live, dict[str, Any] | None, list[Any]]]) -> None:
        """``_append``'s work in the action log (worker thread): a batch the database does not take now
        is rewound to be sent again (``_went_down``); a game another server took over is dropped and the
        lobby told."""
        assert self.action_log is not None
        with self._files:
            for live, header, actions in batches:
                game_id = live.runner.game_id
                if game_id not in self._live:
                    continue
                assert isinstance(live.runner, GameRunner)  # _flush sends only classic games here
                first = live.encoded_count
                try:
                    if header is not None:
                        self.action_log.open_live_game(_live_game(header, live.runner), self.replica)
                        live.logged = True
                    if actions:
                        encoded = _encode(live.runner.replay, actions)
                        self.action_log.append_actions(game_id, live.epoch, first, len(actions), encoded)
                        live.encoded.append(encoded[1:-1])
                        live.encoded_count += len(actions)
                except DatabaseUnavailable as down:
                    live.flushed = first  # read on the loop only once this batch is done
                    live.header_sent = live.logged
                    self._went_down(down)
                except GameHandedOver as moved:
                    log.warning("game_handed_over", game_id=game_id, error=str(moved))
                    with self._state:
                        self._live.pop(game_id, None)
                    if self._loop is not None:
                        self._loop.call_soon_threadsafe(self.on_handed_over, game_id)

    def _append(self, batches: list[tuple[_Live, dict[str, Any] | None, list[Any]]]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._files:
            for live, header, actions in batches:
                game_id = live.runner.game_id
                if game_id not in self._live:  # its replay file is written: no record of it running
                    continue
                lines = [json.dumps(header, separators=(",", ":"))] if header is not None else []
                if actions:
                    lines.append(_encode(live.runner.replay, actions))
                # os.open, not open(): no buffered text stack built per game and batch, just one append
                fd = os.open(self._live_path(game_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, "".join(line + "\n" for line in lines).encode())
                finally:
                    os.close(fd)
                if actions:
                    live.encoded.append(lines[-1][1:-1])
                    live.encoded_count += len(actions)

    def _live_path(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.live"

    def _marker(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.pending"

    # ------------------------------------------------------------------ finished games

    def write(self, record: GameRecord) -> str:
        """The replay file first (with the pending marker before it when there is a database), then the
        database: a result it does not take now stays pending and is retried. Raises what the database
        refused for good (a result contradicting its replay); its marker stays for the next start."""
        game_id = record.replay.game_id
        with self._files:  # no batch of this game is being appended now, and none will be
            with self._state:
                live = self._live.pop(game_id, None)
            pieces = live.encoded if live is not None else []
            rest = record.replay.actions[live.encoded_count if live is not None else 0 :]
        if rest:
            pieces.append(_encode(record.replay, rest)[1:-1])
        if live is not None and live.logged:  # the action log has it: its result carries the epoch held
            record = dataclasses.replace(record, epoch=live.epoch)
        if self.database is not None:
            _write_atomically(self._marker(game_id), json.dumps(_pending(record)))
        path = self.files.write(record, "[" + ",".join(p for p in pieces if p) + "]")
        with self._files:
            self._live_path(game_id).unlink(missing_ok=True)
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
        replay file (and result, pending for the database); every ``.pending`` marker is pending again.
        Returns the aborted game ids."""
        aborted: list[str] = []
        if not self.directory.is_dir():
            return aborted
        for live in sorted(self.directory.glob("*.live")):
            game_id = live.stem
            if (self.directory / f"{game_id}.json").exists():  # finished: only removing this was lost
                live.unlink()
                continue
            try:
                record = aborted_record(live)
            except (ReplayError, OSError, ValueError, KeyError, TypeError, IndexError) as bad:
                log.error(
                    "live_record_unreadable",
                    path=str(live),
                    error=str(bad),
                    fix="the game cannot be rebuilt; move the file out of replay_dir to silence this",
                )
                continue
            if self.database is not None:
                _write_atomically(self._marker(game_id), json.dumps(_pending(record)))
            self.files.write(record)
            live.unlink()
            aborted.append(game_id)
            log.warning("game_aborted", game_id=game_id, queue=record.result.queue, turns=record.result.turns)
        if self.database is not None:
            with self._state:
                for marker in sorted(self.directory.glob("*.pending"), key=lambda p: p.stat().st_mtime):
                    self._pending[marker.stem] = None
        return aborted

    async def run(self, on_change: Callable[[bool], Awaitable[None]]) -> None:
        """Until cancelled: append the running games' actions to their ``.live`` records, retry pending
        results (at once while the database is up, with backoff while it is down) and tell ``on_change``
        and ``conquest_database_up`` whenever the database goes down or comes back."""
        self._loop = asyncio.get_running_loop()
        reported = True
        delay = RETRY_FIRST_S
        retry_at = 0.0
        probe_at = time.monotonic() + PROBE_S
        while True:
            self._wake.clear()
            batches = self._batches()
            if batches:
                await asyncio.to_thread(self._flush, batches)
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


def _live_game(header: dict[str, Any], runner: GameRunner) -> LiveGame:
    """The action log's record of a starting game: its ``.live`` header, and who holds each seat."""
    return LiveGame(
        game_id=runner.game_id,
        queue=header["queue"],
        rules=header["rules"],
        board=header["board"],
        seed=header["seed"],
        dice_version=header["dice_version"],
        seats=tuple(
            LiveSeat(s.name, s.identity, s.bot_id, s.bot_id is not None)
            if isinstance(s, RemoteSeat)
            else LiveSeat(s.name, house=_house_kind(s.name))
            for s in runner.seats
        ),
        seed_commitment=runner.commitment,
        started_at=runner.started_at,
    )


def _house_kind(name: str) -> str:
    """The ``HOUSE_POLICIES`` name of a house seat, from its name (``house-random``, ``house-random-2``)."""
    return next(k for k in HOUSE_POLICIES if name == f"house-{k}" or name.startswith(f"house-{k}-"))


def _encode(replay: Replay | Replay2210, actions: list[Any]) -> str:
    """``actions`` of ``replay`` as their JSON array (a 2210 action with its seat)."""
    if isinstance(replay, Replay2210):
        return json.dumps(Replay2210.encoded(actions), separators=(",", ":"))
    return json.dumps([encode_action(a) for a in actions], separators=(",", ":"))


def _header(runner: AnyRunner) -> dict[str, Any]:
    replay = runner.replay
    return {
        "game_id": runner.game_id,
        "queue": runner.queue.name,
        **(
            {"game": GAME_2210, "rules": rules_to_dict(replay.rules)}
            if isinstance(replay, Replay2210)
            else {"rules": replay.rules.to_dict()}
        ),
        "board": replay.board,
        "seed": replay.seed,
        "dice_version": replay.dice_version,
        "seats": list(replay.seats),
        "bot_ids": [s.bot_id if isinstance(s, RemoteSeat) else None for s in runner.seats],
        "seed_commitment": runner.commitment,
        "started_at": runner.started_at.isoformat(),
    }


def aborted_record(live: Path) -> GameRecord:
    """The game in a ``.live`` record, replayed to its last whole batch of actions and ended there as at a
    turn cap reached then (the rest of that turn played with default actions, as a shutdown ends a game),
    unrated with the reason ``aborted``; ``finished_at`` is the record's last write.

    Raises:
        OSError, ValueError, KeyError, TypeError, ReplayError: not a readable ``.live`` record.
    """
    lines = live.read_text().splitlines()
    header = json.loads(lines[0])
    if header.get("game") == GAME_2210:
        return aborted_record_2210(header, lines[1:], datetime.fromtimestamp(live.stat().st_mtime, UTC))
    seats = [str(s) for s in header["seats"]]
    replay = Replay(
        Rules.from_dict(header["rules"]),
        int(header["seed"]),
        seats,
        board=str(header["board"]),
        game_id=str(header["game_id"]),
        dice_version=int(header.get("dice_version", 1)),  # a record written before version 2: 1
    )
    state, _ = replay.start()
    for line in lines[1:]:
        try:
            batch = [decode_action(a) for a in json.loads(line)]
        except (json.JSONDecodeError, ValueError, TypeError):
            break  # the batch the crash cut short
        for action in batch:
            if state.is_over():
                break
            state.apply(action)  # checked: a record that does not replay fails here, not in verify
            replay.actions.append(action)
    if not state.is_over():
        replay.rules = state.rules = dataclasses.replace(state.rules, turn_cap=max(state.turn, 1))
        while not state.is_over():
            action = default_action(state.legal_actions())
            state.apply_unchecked(action)
            replay.actions.append(action)
    replay.places = list(state.places)
    replay.fingerprint = state.fingerprint()
    bot_ids = header.get("bot_ids") or [None] * len(seats)
    results = [
        SeatResult(
            name=name,
            place=state.places[i],
            outcome=_outcome(seat_outcome(state, i, None)),
            bot_id=bot_ids[i],
        )
        for i, name in enumerate(seats)
    ]
    result = GameResult(
        queue=str(header["queue"]),
        seats=results,
        seed_commitment=str(header["seed_commitment"]),
        started_at=datetime.fromisoformat(header["started_at"]),
        finished_at=datetime.fromtimestamp(live.stat().st_mtime, UTC),
        turns=state.turn,
        reason=ABORTED,
        rated=False,
    )
    return GameRecord(replay, result)


def _outcome(outcome: Outcome.ValueType) -> SeatOutcome:
    return SeatOutcome(Outcome.Name(outcome).removeprefix("SEAT_OUTCOME_").lower())


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)
