"""Finished games and databases for the Recorder's tests (tests/server/test_server_faults.py,
tests/server/test_recorder_volumes.py): a short finished game as a runner hands it over, and a database
writer that refuses a number of writes first."""

from __future__ import annotations

from datetime import UTC, datetime

from engine import aggressive_policy, new_game, preset
from engine.replay import Replay
from server.play.replays import GameRecord
from server.records import DatabaseUnavailable, GameResult, SeatOutcome, SeatResult
from server.storage.errors import GameRecordedError


class FlakyDatabase:
    """A database writer that does not take the first ``refusals`` writes, then takes each game once."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.recorded: list[str] = []

    def write(self, record: GameRecord) -> str:
        if self.refusals:
            self.refusals -= 1
            raise DatabaseUnavailable("the database is locked")
        if record.replay.game_id in self.recorded:
            raise GameRecordedError(f"game {record.replay.game_id!r} is already recorded")
        self.recorded.append(record.replay.game_id)
        return "db"

    def check(self) -> None:
        """Reached: the test's refusals are of writes only."""


def finished_record(game_id: str) -> GameRecord:
    """A short finished game of three practice seats, as the runner hands it over."""
    state, _ = new_game(preset("classic", turn_cap=8), 3, 7)
    replay = Replay(state.rules, 7, ["a", "b", "c"], game_id=game_id)
    while not state.is_over():
        replay.actions.append(action := aggressive_policy(state))
        state.apply_unchecked(action)
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    seats = [SeatResult(n, state.places[i], SeatOutcome.TURN_CAP) for i, n in enumerate(replay.seats)]
    now = datetime.now(UTC)
    record = GameRecord(replay, GameResult("q", seats, "c0mm1t", now, now, state.turn, "turn_cap", False))
    return record
