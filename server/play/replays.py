"""Finished games, written through one ``ReplayWriter`` interface: the database, or a directory of files.

A replay file is ``engine.replay.Replay.to_dict()`` plus what the server adds: the queue, the seed
commitment sent in GameStarted, the end reason, each seat's outcome, whether the game was rated and its
start and end times (ISO 8601, UTC). ``Replay.from_dict`` ignores the additions, so any replay reader can
load the file; the Arena API's GetReplay returns the same format for a game in the database.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, cast

from engine.r2210.replay import GAME as GAME_2210
from engine.r2210.replay import Replay2210, any_replay
from engine.r2210.replay import verify as verify_2210
from engine.r2210.state import GameState2210
from engine.replay import Replay, ReplayError, verify
from engine.state import GameState
from server.ops.metrics import Metrics
from server.play.ports import ResultSink
from server.records import GameResult

_ACTIONS = "@actions@"
"""Stands for the actions in a replay file's JSON until the already encoded ones replace it."""


def seed_commitment(seed: int, game_id: str) -> str:
    """Hex SHA-256 of ``"<seed>:<game_id>"``: published at the start, checkable once the seed is revealed."""
    return hashlib.sha256(f"{seed}:{game_id}".encode()).hexdigest()


def reseed_commitment(seed: int, game_id: str, at: int) -> str:
    """Hex SHA-256 of ``"<seed>:<game_id>:<at>"``: a takeover's fresh seed, stored with its claim before
    the game goes on (``engine.replay.Reseed``)."""
    return hashlib.sha256(f"{seed}:{game_id}:{at}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game as the server stores it: the replay and the result (seats, times, ratedness)."""

    replay: Replay | Replay2210
    result: GameResult
    epoch: int | None = None
    """The epoch its server held in the database's action log (None: not logged there): the result is
    refused if another server has taken the game over since (``GameHandedOver``)."""

    def to_dict(self) -> dict[str, Any]:
        """The replay file's fields: the replay's, then the server's additions."""
        result = self.result
        return {
            **self.replay.to_dict(),
            "queue": result.queue,
            "seed_commitment": result.seed_commitment,
            "reason": result.reason,
            "outcomes": [f"SEAT_OUTCOME_{s.outcome.value.upper()}" for s in result.seats],
            "rated": result.rated,
            "started_at": result.started_at.isoformat(),
            "finished_at": result.finished_at.isoformat(),
        }


class ReplayWriter(Protocol):
    """Where finished games go: a directory of files, or the database."""

    def write(self, record: GameRecord) -> str:
        """Store ``record``; returns where it went (a path or a URL), for the logs."""
        ...


class DirectoryReplayWriter:
    """One ``<game_id>.json`` file per game in ``directory`` (created if missing)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def write(self, record: GameRecord, actions_json: str = "") -> str:
        """``actions_json``: the replay's actions already encoded as their JSON array (the ``Recorder``
        encoded them while the game ran), put in the file as they are; "": encoded here."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{record.replay.game_id}.json"
        partial = path.with_suffix(".json.partial")
        if actions_json:
            empty: Replay | Replay2210 = replace(cast(Any, record.replay), actions=[])  # either kind
            data = GameRecord(empty, record.result).to_dict()
            data["actions"] = _ACTIONS
            text = json.dumps(data, separators=(",", ":")).replace(f'"{_ACTIONS}"', actions_json, 1)
        else:
            text = json.dumps(record.to_dict(), separators=(",", ":"))
        try:
            partial.write_text(text)
            os.replace(partial, path)  # readers never see half a file
        except OSError:
            with contextlib.suppress(OSError):  # a full volume keeps no half file taking its space
                partial.unlink(missing_ok=True)
            raise
        return str(path)


class DatabaseReplayWriter:
    """Each game into the database: result, rating updates and replay in one transaction."""

    def __init__(self, store: ResultSink, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics

    def write(self, record: GameRecord) -> str:
        with self.metrics.database_write.time():
            changes = self.store.record_game(record.result, record.replay, record.epoch)
        if changes:
            self.metrics.rating_updates.labels(record.result.queue).inc(len(changes))
        return f"{self.store.dialect}:games/{record.replay.game_id}"

    def check(self) -> None:
        """Raises DatabaseUnavailable when the database cannot be reached now."""
        self.store.check()


def read_replay_data(path: Path) -> dict[str, Any]:
    """The JSON object in a replay file (server additions included).

    Raises:
        ReplayError: unreadable file, not JSON, or not a JSON object.
    """
    try:
        text = path.read_text()
    except OSError as bad:
        raise ReplayError(f"cannot read {path}: {bad.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as bad:
        raise ReplayError(f"{path} is not valid JSON: {bad}") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{path} does not hold a replay (a JSON object)")
    return data


def load_replay_file(path: Path) -> tuple[Replay, dict[str, Any]]:
    """The classic replay in a file and the file's raw fields (server additions included).

    Raises:
        ReplayError: unreadable file, not JSON, not a replay, or a RISK 2210 A.D. replay.
    """
    data = read_replay_data(path)
    if data.get("game") == GAME_2210:
        raise ReplayError(
            f"{path} is a RISK 2210 A.D. replay: `conquest replay verify` reads it, this does not"
        )
    return Replay.from_dict(data), data


def load_any_replay_file(path: Path) -> tuple[Replay | Replay2210, dict[str, Any]]:
    """The replay in a file, classic or RISK 2210 A.D. (``"game": "2210"``), and the file's raw fields.

    Raises:
        ReplayError: unreadable file, not JSON, or not a replay.
    """
    data = read_replay_data(path)
    return any_replay(data), data


def verify_record(replay: Replay | Replay2210, data: dict[str, Any]) -> GameState | GameState2210:
    """Re-simulate ``replay`` and check its recorded result and, if recorded, its seed commitment and each
    takeover's fresh seed against its commitment.

    Raises:
        ReplayError: the seed does not match the commitment, an action is illegal, or the result differs.
    """
    recorded = data.get("seed_commitment")
    if recorded and recorded != seed_commitment(replay.seed, replay.game_id):
        raise ReplayError(
            f"seed {replay.seed} with game id {replay.game_id!r} does not match the seed commitment "
            f"{recorded} sent when the game started"
        )
    for reseed in replay.reseeds:
        if reseed.commitment != reseed_commitment(reseed.seed, replay.game_id, reseed.at):
            raise ReplayError(
                f"the fresh seed {reseed.seed} from action {reseed.at} does not match its commitment "
                f'{reseed.commitment!r} (sha256 of "{reseed.seed}:{replay.game_id}:{reseed.at}")'
            )
    return verify_2210(replay) if isinstance(replay, Replay2210) else verify(replay)
