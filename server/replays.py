"""Finished games, written through one ``ReplayWriter`` interface (a directory of JSON files for now).

A replay file is ``engine.replay.Replay.to_dict()`` plus what the server adds: the queue, the seed
commitment sent in GameStarted, the end reason and each seat's outcome. ``Replay.from_dict`` ignores
the additions, so any replay reader can load the file.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.replay import Replay, ReplayError, verify
from engine.state import GameState


def seed_commitment(seed: int, game_id: str) -> str:
    """Hex SHA-256 of ``"<seed>:<game_id>"``: published at the start, checkable once the seed is revealed."""
    return hashlib.sha256(f"{seed}:{game_id}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game as the server stores it."""

    replay: Replay
    queue: str
    seed_commitment: str
    reason: str
    """Why the game ended: "conquest", "turn_cap", "server_shutdown" or "all_forfeited"."""
    outcomes: tuple[str, ...]
    """Each seat's SeatOutcome name, in seat order."""
    started_at: float
    finished_at: float
    """Wall-clock times (seconds since the epoch)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.replay.to_dict(),
            "queue": self.queue,
            "seed_commitment": self.seed_commitment,
            "reason": self.reason,
            "outcomes": list(self.outcomes),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


class ReplayWriter(Protocol):
    """Where finished games go. The ladder's database writer implements the same method."""

    def write(self, record: GameRecord) -> str:
        """Store ``record``; returns where it went (a path or a URL), for the logs."""
        ...


class DirectoryReplayWriter:
    """One ``<game_id>.json`` file per game in ``directory`` (created if missing)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def write(self, record: GameRecord) -> str:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{record.replay.game_id}.json"
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(record.to_dict(), separators=(",", ":")))
        os.replace(partial, path)  # readers never see half a file
        return str(path)


def load_replay_file(path: Path) -> tuple[Replay, dict[str, Any]]:
    """The replay in a file and the file's raw fields (server additions included).

    Raises:
        ReplayError: unreadable file, not JSON, or not a replay.
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
    return Replay.from_dict(data), data


def verify_record(replay: Replay, data: dict[str, Any]) -> GameState:
    """Re-simulate ``replay`` and check its recorded result and, if recorded, its seed commitment.

    Raises:
        ReplayError: the seed does not match the commitment, an action is illegal, or the result differs.
    """
    recorded = data.get("seed_commitment")
    if recorded and recorded != seed_commitment(replay.seed, replay.game_id):
        raise ReplayError(
            f"seed {replay.seed} with game id {replay.game_id!r} does not match the seed commitment "
            f"{recorded} sent when the game started"
        )
    return verify(replay)
