"""Issue 4: "Restarting the server on the same database keeps bots, tokens, ratings, games, replays"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine
from storage_support import ADMIN, QUEUE, play

from server.storage import Store
from server.storage.models import Base


def test_restart_keeps_everything(db_url: str) -> None:
    """Issue 4 test list: "Both databases: restart keeps everything" — close the store, open it again."""
    with Store.open(db_url, admin_token=ADMIN) as store:
        alice, bob, carol = (store.register_bot(n, admin_token=ADMIN) for n in ("alice", "bob", "carol"))
        bob = store.rotate_token("bob", admin_token=ADMIN)
        store.record_game(*play("g1", [alice.bot, bob.bot, carol.bot]))
        store.record_game(*play("g2", [carol.bot, alice.bot, bob.bot], seed=2))
        store.revoke_bot("carol", admin_token=ADMIN)
        before = (
            store.bots(),
            store.leaderboard(QUEUE),
            store.games(),
            [store.replay(g) for g in ("g1", "g2")],
            [store.rating_history(n, QUEUE) for n in ("alice", "bob", "carol")],
        )

    with Store.open(db_url, admin_token=ADMIN) as reopened:
        after = (
            reopened.bots(),
            reopened.leaderboard(QUEUE),
            reopened.games(),
            [reopened.replay(g) for g in ("g1", "g2")],
            [reopened.rating_history(n, QUEUE) for n in ("alice", "bob", "carol")],
        )
        assert after == before
        assert len(after[2]) == 2 and len(after[1]) == 2
        assert reopened.authenticate(alice.token) == alice.bot
        assert reopened.authenticate(bob.token).name == "bob"
        assert [b.name for b in reopened.bots() if b.revoked] == ["carol"]
        # and the ladder goes on from the stored ratings
        changes = reopened.record_game(*play("g3", [bob.bot, alice.bot], seed=1))
        assert {c.bot: c.before for c in changes} == {h[-1].bot: h[-1].after for h in before[4][:2]}


def test_migrations_build_the_schema_the_models_describe(store: Store, db_url: str) -> None:
    """Issue 4: "SQLAlchemy 2 with Alembic migrations": ``Store.open`` upgrades to head, and head is the
    schema of the models (a model changed without a revision fails here)."""
    engine = create_engine(db_url)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert MigrationContext.configure(connection).get_current_revision() == "0011"
    engine.dispose()
    assert differences == []


def test_sqlite_database_runs_in_wal_mode(tmp_path: Path) -> None:
    """Issue 4: "The embedded default is a SQLite file (WAL mode)"."""
    path = tmp_path / "conquest.sqlite3"
    with Store.open(f"sqlite:///{path}") as store:
        assert store.dialect == "sqlite"
        with sqlite3.connect(path) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
