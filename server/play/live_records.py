"""The record of running games, so that a crash loses none of them: ``.live`` files, or the database's
action log, and the aborted games rebuilt from what a crash left.

Beside each ``<game_id>.json`` replay file (``server.play.replays``), ``replay_dir`` holds a
``<game_id>.live`` record while a game runs: JSON lines, first a header with what rebuilds the game (queue,
rules, board, seed, dice version, seats, bot ids, seed commitment, start time), then the actions played so
far, one line per batch. The header is written as the game starts and the actions are appended every
``LIVE_FLUSH_S``, both by ``server.play.recorder.Recorder.run``'s task in a worker thread: nothing is
written per decision on the event loop. The file is removed once the game's replay file is written. One
left at start is a game that was live at a crash: ``LiveRecords.recover`` replays it to where it got, ends
it there as at a turn cap reached then, and hands it on unrated with the reason ``aborted``.

With ``server.takeover`` the running games go to the database's action log instead of ``.live`` files
(``LiveRecords.log``, through ``server.play.ports.ActionLog``), so that another server can take them over
(``server.play.takeover``): every heartbeat, the batches of all the games this server hosts go in ONE
transaction with the heartbeat itself. A game's record goes ahead of them, as it starts: written in a
worker thread before its first request (``LiveRecords.open``; the games starting meanwhile in the same
transaction), so a game killed at any moment after its start is taken over; one the database did not take
then goes with the next heartbeat. The results of the games that may have reached it carry the epoch this
server holds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from engine import Rules, default_action
from engine.codec import decode_action, encode_action
from engine.r2210.replay import GAME as GAME_2210
from engine.r2210.replay import Replay2210, rules_to_dict
from engine.replay import Replay, ReplayError
from server.play.aborted_2210 import aborted_record_2210
from server.play.ports import ActionLog
from server.play.replays import GameRecord
from server.play.results import aborted_result, seat_outcome
from server.play.runner_2210 import AnyRunner
from server.play.seats import HOUSE_POLICIES, RemoteSeat
from server.records import ActionBatch, ClusterCounts, DatabaseUnavailable, Heartbeat, LiveGame, LiveSeat

log = structlog.get_logger("conquest.recorder")

LIVE_FLUSH_S = 1.0
"""How often the actions of running games are appended to their ``.live`` records."""


@dataclasses.dataclass(eq=False)
class _Live:
    runner: AnyRunner
    flushed: int = 0
    """Actions handed to a batch so far (on the event loop)."""
    header_sent: bool = False
    """Its ``.live`` header was appended, or its action log record handed to ``unsent`` (``started``)."""
    encoded: list[str] = dataclasses.field(default_factory=list)
    """The JSON of the actions appended so far, one piece per batch (``[...]`` without its brackets): the
    replay file reuses them, so an action is encoded once whether or not it was appended."""
    encoded_count: int = 0
    """Actions in ``encoded`` (in the worker thread, under ``LiveRecords._files``)."""
    epoch: int = 1
    """The epoch this server holds the game at in the action log (``server.play.takeover``)."""
    unsent: list[ActionBatch] = dataclasses.field(default_factory=list)
    """Batches the action log did not take yet (the database was down), sent again first."""


Batch = tuple[_Live, dict[str, Any] | None, list[Any]]
"""What one game's record is sent at a flush: its ``.live`` header (a new game's, else None: an action log
record goes ahead, ``LiveRecords.open``) and its new actions."""


@dataclasses.dataclass(frozen=True)
class Finished:
    """What the record of a game that just finished gives its replay file (``LiveRecords.finish``)."""

    encoded: list[str]
    """The JSON of the actions recorded so far, in pieces (``[...]`` without the brackets)."""
    encoded_count: int
    """Actions in ``encoded``: the replay's later ones are not encoded yet."""
    epoch: int | None
    """The epoch its result must carry (its record may be in the action log), else None."""


class LiveRecords:
    """The ``.live`` records (or action log entries) of the running games in ``directory``. ``batches`` runs
    on the event loop, ``flush`` and ``log`` in a worker thread; ``on_unavailable``, ``on_handed_over`` and
    ``on_unwritable`` are told in that thread (the database did not take a heartbeat; another server took a
    game over, now dropped here; the directory did not take an append)."""

    def __init__(
        self,
        directory: Path,
        action_log: ActionLog | None,
        replica: str,
        on_unavailable: Callable[[DatabaseUnavailable], None],
        on_handed_over: Callable[[str], None],
        counts: Callable[[], ClusterCounts],
        on_unwritable: Callable[[OSError], None],
    ) -> None:
        self.directory = directory
        self.action_log = action_log
        self.replica = replica
        self.on_unavailable = on_unavailable
        self.on_handed_over = on_handed_over
        self.counts = counts
        """This process's ``ClusterCounts`` so far, which each heartbeat writes."""
        self.on_unwritable = on_unwritable
        """Told in the flushing thread when ``directory`` did not take a ``.live`` append."""
        self._live: dict[str, _Live] = {}
        self._state = threading.Lock()
        """Guards ``_live`` (worker threads and the event loop share it)."""
        self._files = threading.Lock()
        """Held while a ``.live`` record is appended to or removed, or the action log written."""

    def started(self, runner: AnyRunner) -> None:
        """A game starts (on the event loop): its ``.live`` header goes with the next batch; a game of the
        action log has its record made ready for ``open`` (and for the next heartbeat until it is sent)."""
        live = _Live(runner)
        if self.logging:
            game = _live_game(live_header(runner), runner)
            live.unsent.append(ActionBatch(runner.game_id, live.epoch, 0, 0, "[]", game))
            live.header_sent = True
        with self._state:
            self._live[runner.game_id] = live

    def open(self) -> None:
        """Write the records of the starting games in the action log (worker thread; ``ActionLog.open_games``,
        all the games waiting in ONE transaction, so a burst of starts costs one): a game started here waits
        for this before its first request. Batches the database did not take (it is down: ``on_unavailable``
        is told) stay for the next heartbeat; a game refused is dropped, as in ``log``."""
        assert self.action_log is not None
        with self._files:
            with self._state:
                lives = list(self._live.values())
            sending = [(live, batch) for live in lives for batch in live.unsent]
            if not sending:  # a heartbeat or an earlier call sent them
                return
            try:
                refused = self.action_log.open_games(self.replica, [batch for _, batch in sending])
            except DatabaseUnavailable as down:
                self.on_unavailable(down)
                return
            self._sent(sending, refused)

    def adopted(self, runner: AnyRunner, epoch: int, batches: list[str], count: int) -> None:
        """A game taken over from a dead server (on the event loop), its ``count`` actions logged in
        ``batches`` (JSON arrays) already: its later actions are logged at ``epoch``."""
        pieces = [b[1:-1] for b in batches]
        with self._state:
            self._live[runner.game_id] = _Live(runner, count, True, pieces, count, epoch)

    @property
    def logging(self) -> bool:
        """Whether the running games go to the action log rather than ``.live`` records (with
        ``server.takeover``: every game, classic or RISK 2210 A.D.)."""
        return self.action_log is not None

    def batches(self, logged: bool) -> list[Batch]:
        """What to append to the running games' records in the action log (``logged``) or in ``.live`` files
        (none when this server keeps the other kind): a new game's ``.live`` header, and the actions since the
        last batch (a slice of the replay's list, taken on the event loop); a game with batches the action log
        has not taken yet (its record among them, if ``open`` did not reach the database) is sent even with
        no new action."""
        if self.logging != logged:
            return []
        with self._state:
            lives = list(self._live.values())
        batches: list[Batch] = []
        for live in lives:
            actions = live.runner.replay.actions[live.flushed :]
            if not actions and live.header_sent and not live.unsent:
                continue
            header = None if live.header_sent else live_header(live.runner)
            live.header_sent = True
            live.flushed += len(actions)
            batches.append((live, header, actions))
        return batches

    def log(self, batches: list[Batch], leaving: bool = False) -> Heartbeat:
        """Beat in the action log with these batches (worker thread; ``ActionLog.beat``): a game whose
        batch was refused was taken over by another server, and is dropped here and ``on_handed_over``
        told. Batches the database did not take are kept to be sent again first, and ``on_unavailable``
        told before DatabaseUnavailable is raised. ``leaving``: the last beat of a draining replica,
        whose games (stopped here) are released to the others: they are dropped here too."""
        assert self.action_log is not None
        with self._files:
            sending: list[tuple[_Live, ActionBatch]] = []
            for live, _, actions in batches:
                runner = live.runner
                if runner.game_id not in self._live:  # finished meanwhile: its replay file has it all
                    continue
                if actions:
                    first = live.flushed - len(actions)
                    encoded = encode_actions(runner.replay, actions)
                    live.unsent.append(ActionBatch(runner.game_id, live.epoch, first, len(actions), encoded))
                sending.extend((live, batch) for batch in live.unsent)
            try:
                heartbeat = self.action_log.beat(
                    self.replica, [batch for _, batch in sending], leaving, self.counts()
                )
            except DatabaseUnavailable as down:
                self.on_unavailable(down)
                raise
            self._sent(sending, heartbeat.refused)
            with self._state:
                for game_id in heartbeat.released:
                    self._live.pop(game_id, None)
            return heartbeat

    def _sent(self, sending: list[tuple[_Live, ActionBatch]], refused: dict[str, str]) -> None:
        """The action log took ``sending`` but for the games ``refused`` (under ``_files``): those were
        taken over by another server, and are dropped here and ``on_handed_over`` told; the others' batches
        are kept as encoded and no longer unsent."""
        for live, batch in sending:
            game_id = batch.game_id
            why = refused.get(game_id)
            if why is not None:
                if game_id in self._live:
                    log.warning("game_handed_over", game_id=game_id, error=why)
                    with self._state:
                        self._live.pop(game_id, None)
                    self.on_handed_over(game_id)
                continue
            if batch.count:
                live.encoded.append(batch.data[1:-1])
                live.encoded_count += batch.count
            live.unsent.clear()

    def flush(self, batches: list[Batch]) -> None:
        """Each batch appended to its game's ``.live`` record (worker thread). When the directory does not
        take one (its volume full or failing), that batch and the ones after it are taken back whole, to be
        appended with the next flush, and ``on_unwritable`` is told: no record has a gap or half a line."""
        with self._files:
            for index, (live, header, actions) in enumerate(batches):
                game_id = live.runner.game_id
                if game_id not in self._live:  # its replay file is written: no record of it running
                    continue
                lines = [json.dumps(header, separators=(",", ":"))] if header is not None else []
                if actions:
                    lines.append(encode_actions(live.runner.replay, actions))
                try:
                    self._append(game_id, "".join(line + "\n" for line in lines).encode())
                except OSError as failed:
                    for unwritten, unwritten_header, _ in batches[index:]:
                        unwritten.flushed = unwritten.encoded_count
                        unwritten.header_sent = unwritten.header_sent and unwritten_header is None
                    self.on_unwritable(failed)
                    return
                if actions:
                    live.encoded.append(lines[-1][1:-1])
                    live.encoded_count += len(actions)

    def _append(self, game_id: str, data: bytes) -> None:
        """``data`` at the end of the game's ``.live`` record, or nothing (the record cut back to its length
        before, so a write the volume took only in part leaves no half line)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        # os.open, not open(): no buffered text stack built per game and batch, just one append
        fd = os.open(self._path(game_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            length = os.fstat(fd).st_size
            try:
                if os.write(fd, data) != len(data):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError:
                os.ftruncate(fd, length)
                raise
        finally:
            os.close(fd)

    def finish(self, game_id: str) -> Finished:
        """The game is over (worker thread): no batch of it is being appended now, and none will be; what
        was recorded of it goes to its replay file (call ``remove`` once that is written)."""
        with self._files:
            with self._state:
                live = self._live.pop(game_id, None)
            if live is None:
                return Finished([], 0, None)
            return Finished(live.encoded, live.encoded_count, live.epoch if self.logging else None)

    def remove(self, game_id: str) -> None:
        """The game's replay file is written (or the database has it): its ``.live`` record goes, if the
        volume lets it (one left is found finished, or recorded, at the next start)."""
        with self._files, contextlib.suppress(OSError):
            self._path(game_id).unlink(missing_ok=True)

    def _path(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.live"

    def recover(self, keep: Callable[[GameRecord], bool]) -> list[str]:
        """At start, before any game: each ``.live`` record left by a crash becomes an aborted game, handed
        to ``keep`` (which writes its replay file, else holds it and says so) before the record is removed
        (a record whose replay file is held stays until the file, or the database, has it). Returns their
        game ids."""
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
            if keep(record):
                live.unlink(missing_ok=True)
            aborted.append(game_id)
            log.warning("game_aborted", game_id=game_id, queue=record.result.queue, turns=record.result.turns)
        return aborted


def _live_game(header: dict[str, Any], runner: AnyRunner) -> LiveGame:
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
        rated=runner.queue.rated,
    )


def _house_kind(name: str) -> str:
    """The ``HOUSE_POLICIES`` name of a house seat, from its name (``house-random``, ``house-random-2``)."""
    return next(k for k in HOUSE_POLICIES if name == f"house-{k}" or name.startswith(f"house-{k}-"))


def encode_actions(replay: Replay | Replay2210, actions: list[Any]) -> str:
    """``actions`` of ``replay`` as their JSON array (a 2210 action with its seat)."""
    if isinstance(replay, Replay2210):
        return json.dumps(Replay2210.encoded(actions), separators=(",", ":"))
    return json.dumps([encode_action(a) for a in actions], separators=(",", ":"))


def live_header(runner: AnyRunner) -> dict[str, Any]:
    """The first line of a game's ``.live`` record: what rebuilds the game."""
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
    outcomes = [seat_outcome(state, i, None) for i in range(len(seats))]
    finished_at = datetime.fromtimestamp(live.stat().st_mtime, UTC)
    result = aborted_result(header, state.places, outcomes, state.turn, finished_at)
    return GameRecord(replay, result)
