"""Every Alembic revision goes back as well as forward, on both databases, with rows in the tables: from
head down to base one revision at a time, then up to head again."""

from __future__ import annotations

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text
from storage_support import ADMIN, QUEUE, at_revision, play

from server.storage import Store
from server.storage.database import MIGRATIONS

KEPT = ("bots", "games", "game_seats", "replays", "ratings", "rating_history")
"""The tables of revision 0001, whose rows every later revision keeps on its way down."""


def _revisions() -> list[str]:
    """Every revision, head first."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return [script.revision for script in ScriptDirectory.from_config(config).walk_revisions()]


def test_every_revision_downgrades_step_by_step_to_base_with_foreign_keys_on(db_url: str) -> None:
    """The brief: "Alembic migration downgrade 0004 -> 0003 fails when foreign keys are on (SQLite with
    PRAGMA foreign_keys=ON, and check PostgreSQL)": with bots, games and ratings recorded at head, each
    downgrade runs with foreign keys enforced and keeps every row of the tables it does not drop; at
    base only Alembic's own table is left, and ``Store.open`` builds head again from there."""
    with Store.open(db_url, admin_token=ADMIN) as store:
        bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
        store.record_game(*play("g1", bots))
        store.record_game(*play("g2", bots[::-1], seed=2))
    with at_revision(db_url, "head") as connection:
        counts = _counts(connection)
    assert counts == {
        "bots": 3,
        "games": 2,
        "game_seats": 6,
        "replays": 2,
        "ratings": 3,
        "rating_history": 6,
    }

    revisions = _revisions()
    for below in [*revisions[1:], "base"]:
        with at_revision(db_url, below, down=True, foreign_keys=True) as connection:
            tables = set(inspect(connection).get_table_names())
            if below != "base":
                assert _counts(connection) == counts, f"downgraded to {below}"
    assert tables == {"alembic_version"}

    with Store.open(db_url, admin_token=ADMIN) as store:
        assert store.games() == [] and store.leaderboard(QUEUE) == []


def _counts(connection: Connection) -> dict[str, int]:
    return {t: connection.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in KEPT}
