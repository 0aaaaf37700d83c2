"""A database that does not take a write: ``record_game`` says so with play's ``DatabaseUnavailable`` (the
server keeps the result and retries) and a retry of a recorded game is harmless (``GameAlreadyRecorded``).

Issue 21, item 17: "A SQLite database locked by another process for 40 s stalled the ladder and lost 2
finished games for good (`database is locked` on `BEGIN IMMEDIATE`)"; decided: "the games table's primary
key and `record_game` must make a second write harmless"."""

from __future__ import annotations

import pytest
from db_lock import locked
from storage_support import ADMIN, QUEUE, play

from server.records import DatabaseUnavailable, GameAlreadyRecorded
from server.storage import Store


def test_a_locked_database_raises_database_unavailable_and_a_retry_records_the_game_once(
    store: Store, db_url: str
) -> None:
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    result, replay = play("g1", bots)
    with locked(db_url), pytest.raises(DatabaseUnavailable, match="did not record game 'g1'"):
        store.record_game(result, replay)
    assert store.games() == [], "nothing was written"
    assert len(store.record_game(result, replay)) == 3, "the retry once the lock is gone rates the game"
    with pytest.raises(GameAlreadyRecorded, match="game 'g1' is already recorded"):
        store.record_game(result, replay)
    assert [s.games for s in store.leaderboard(QUEUE)] == [1, 1, 1], "rated once"
