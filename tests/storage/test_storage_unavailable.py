"""A database that does not take a write: ``record_game`` says so with play's ``DatabaseUnavailable`` (the
server keeps the result and retries) and a retry of a recorded game is harmless (``GameAlreadyRecorded``).

Issue 21, item 17: "A SQLite database locked by another process for 40 s stalled the ladder and lost 2
finished games for good (`database is locked` on `BEGIN IMMEDIATE`)"; decided: "the games table's primary
key and `record_game` must make a second write harmless"."""

from __future__ import annotations

from pathlib import Path

import pytest
from db_lock import locked
from storage_support import ADMIN, QUEUE, play

from server.records import DatabaseUnavailable, GameAlreadyRecorded, Identity, identity_key
from server.storage import Store
from server.storage.auth import StoreRatings


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


def test_a_sqlite_file_removed_under_the_store_is_unavailable_never_recreated_and_back_once_restored(
    tmp_path: Path,
) -> None:
    """Issue 21: the chaos suite "locks and removes the database"; decided: the server reports a removed
    database unavailable and "never writes into a new empty file at the path" (an open connection would go
    on writing to the removed file, a new one would create an empty database there), and uses the file
    again once it is put back."""
    database = tmp_path / "conquest.sqlite3"
    aside = tmp_path / "aside"
    aside.mkdir()
    with Store.open(f"sqlite:///{database}", admin_token=ADMIN) as store:
        bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
        store.check()
        files = list(tmp_path.glob("conquest.sqlite3*"))  # the file, its -wal and -shm
        for path in files:
            path.rename(aside / path.name)
        with pytest.raises(DatabaseUnavailable, match=f"the SQLite database file {database} is missing"):
            store.check()
        result, replay = play("g1", bots)
        with pytest.raises(DatabaseUnavailable, match="put it back or restore it from a backup"):
            store.record_game(result, replay)
        assert not database.exists(), "no empty database made in its place"
        for path in files:
            (aside / path.name).rename(path)
        store.check()
        assert len(store.record_game(result, replay)) == 3, "recorded in the file put back"
    with Store.open(f"sqlite:///{database}") as store:
        assert [g.id for g in store.games()] == ["g1"]


def test_the_matchmakers_reads_of_a_database_gone_raise_database_unavailable(tmp_path: Path) -> None:
    """Issue 20: "a replica that loses the database stops taking games and says why". A cluster's
    matchmaker reads ratings and recent tables in its loop, which takes ``DatabaseUnavailable`` as the
    database gone (it logs ``cluster_database_down`` and gives up the lease); the driver's own error there
    ended the loop instead, with the lease still held. So ``StoreRatings`` raises play's error."""
    database = tmp_path / "conquest.sqlite3"
    aside = tmp_path / "aside"
    aside.mkdir()
    with Store.open(f"sqlite:///{database}", admin_token=ADMIN) as store:
        bot = store.register_bot("alice", admin_token=ADMIN).bot
        ratings = StoreRatings(store)
        assert ratings.recent_tables(QUEUE, 10) == []
        for path in tmp_path.glob("conquest.sqlite3*"):
            path.rename(aside / path.name)
        with pytest.raises(DatabaseUnavailable, match=r"the sqlite database cannot be read: .* is missing"):
            ratings.recent_tables(QUEUE, 10)
        with pytest.raises(DatabaseUnavailable, match="cannot be read"):
            ratings.skill(QUEUE, Identity(identity_key(bot.id, bot.name), bot.name, True, bot.id))
