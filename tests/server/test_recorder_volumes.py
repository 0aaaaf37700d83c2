"""The Recorder when ``replay_dir`` takes no file (issue 33, item 1), in process: the finished game goes to
the database, or is held in memory, seating stops saying why, and everything is written once the directory
takes files again. tests/chaos/test_chaos_disk.py fills a real small volume under ``conquest serve``.

Here the directory's volume "fills" by a file standing where a folder of its path should be: every write
under it fails with an ``OSError``, as on a full or failing volume, until the file goes.

Issue 33: "A finished game must survive any single full or failing volume: the result reaches the
database (or a journal it is rebuilt from) even when the replay file cannot be written, the file is written
later, and while results cannot be made durable the server stops seating new games, says why (health, a
metric, a log line), and resumes by itself when space returns."
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import structlog.testing
from recorded_games import FlakyDatabase, finished_record

from server.play.recorder import Recorder
from server.play.replays import load_replay_file


class Watched:
    """A Recorder's ``run`` task, with what it told: ``on_change`` values and ``on_down`` reasons."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.changes: list[bool] = []
        self.downs: list[str] = []
        recorder.on_down = self.downs.append

    async def changed(self, up: bool) -> None:
        self.changes.append(up)

    async def told(self, *changes: bool) -> None:
        """Wait (up to ~15 s: the retries back off 0.5, 1, 2, 4 s) until ``on_change`` was told these."""
        for _ in range(300):
            if self.changes == list(changes):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"on_change was told {self.changes}, not {list(changes)}")

    def gauge(self, name: str) -> float | None:
        return self.recorder.metrics.registry.get_sample_value(name)


@asynccontextmanager
async def running(recorder: Recorder) -> AsyncIterator[Watched]:
    watched = Watched(recorder)
    task = asyncio.create_task(recorder.run(watched.changed))
    try:
        yield watched
    finally:
        task.cancel()


def full_volume(tmp_path: Path) -> tuple[Path, Path]:
    """(the replay directory, the file whose removal frees its volume)."""
    blocker = tmp_path / "volume"
    blocker.write_text("stands where the replay directory's folder should be")
    return blocker / "replays", blocker


async def test_a_replay_dir_that_takes_no_file_sends_the_result_to_the_database_and_the_file_later(
    tmp_path: Path,
):
    """Issue 33, item 1: "the result reaches the database ... even when the replay file cannot be written,
    the file is written later"."""
    replays, blocker = full_volume(tmp_path)
    database = FlakyDatabase(refusals=0)
    record = finished_record("g1")
    with structlog.testing.capture_logs() as logged:
        async with running(Recorder(replays, database)) as watched:
            where = await asyncio.to_thread(watched.recorder.write, record)
            assert database.recorded == ["g1"], "the result reached the database at once"
            assert "held in memory" in where
            assert watched.recorder.pending() == ["g1"] and not watched.recorder.up
            assert len(watched.downs) == 1 and "replay_dir takes no file" in watched.downs[0]
            await watched.told(False)
            assert watched.gauge("conquest_replay_dir_up") == 0
            assert watched.gauge("conquest_results_pending") == 1
            blocker.unlink()  # space returns
            await watched.told(False, True)
            assert watched.gauge("conquest_replay_dir_up") == 1
    replay, _ = load_replay_file(replays / "g1.json")
    assert replay.actions == record.replay.actions, "the file written later is the whole game"
    assert sorted(p.name for p in replays.iterdir()) == ["g1.json"], "no marker, probe or partial file left"
    assert database.recorded == ["g1"], "recorded once"
    events = [e["event"] for e in logged]
    assert "replay_dir_unwritable" in events and "held_replay_written" in events
    assert events.index("replay_dir_unwritable") < events.index("replay_dir_writable")


async def test_a_game_neither_the_database_nor_replay_dir_takes_is_held_and_written_to_both_later(
    tmp_path: Path,
):
    """Issue 33, item 1: "With SQLite on the same full volume one run lost 73 of 106 games": a game that
    neither takes is held whole until both do."""
    replays, blocker = full_volume(tmp_path)
    database = FlakyDatabase(refusals=2)
    async with running(Recorder(replays, database)) as watched:
        where = await asyncio.to_thread(watched.recorder.write, finished_record("g1"))
        assert "pending" in where and "held in memory" in where
        assert database.recorded == [] and watched.recorder.pending() == ["g1"]
        await watched.told(False)
        assert watched.gauge("conquest_database_up") == 0 and watched.gauge("conquest_replay_dir_up") == 0
        blocker.unlink()
        await watched.told(False, True)
        assert watched.recorder.pending() == [] and watched.gauge("conquest_database_up") == 1
    assert database.recorded == ["g1"]
    assert sorted(p.name for p in replays.iterdir()) == ["g1.json"], (
        "its marker went once the database had it"
    )


async def test_without_a_database_a_game_is_held_until_replay_dir_takes_its_file(tmp_path: Path):
    """Issue 33, item 1: a practice server's one record is its replay file: "the file is written later"."""
    replays, blocker = full_volume(tmp_path)
    async with running(Recorder(replays)) as watched:
        where = await asyncio.to_thread(watched.recorder.write, finished_record("g1"))
        assert "held in memory" in where and watched.recorder.pending() == ["g1"]
        await watched.told(False)
        blocker.unlink()
        await watched.told(False, True)
    assert (replays / "g1.json").exists() and watched.recorder.pending() == []
