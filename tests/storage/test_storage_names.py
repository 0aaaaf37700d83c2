"""Issue 21, item 7: "Look-alike names: with `alice` registered, practice bots are welcomed as `Alice`,
`ALICE`, `alice.` and `alice_`, and appear beside the real one on the dashboard." To reach: "Names are
unique after case folding and punctuation (no `Alice` beside `alice`)"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from storage_support import ADMIN, at_revision

from conquest.v1 import bot_pb2
from server.records import HelloError, name_key
from server.storage import AlreadyExistsError, Store
from server.storage.auth import StoreAuthenticator

LOOK_ALIKES = ("Alice", "ALICE", "alice.", "alice_", "a-lice", "A.l_i-c.E")


def test_the_name_key_folds_case_and_punctuation() -> None:
    assert {name_key(n) for n in ("alice", *LOOK_ALIKES)} == {name_key("alice")}
    assert name_key("alice2") != name_key("alice") and name_key("bob") == "bob"


def test_a_look_alike_of_a_registered_name_cannot_be_registered(store: Store) -> None:
    store.register_bot("alice", admin_token=ADMIN)
    for name in LOOK_ALIKES:
        with pytest.raises(AlreadyExistsError, match=f"'{name}' is too like the registered bot 'alice'"):
            store.register_bot(name, admin_token=ADMIN)
    assert [b.name for b in store.bots()] == ["alice"]
    assert store.register_bot("alice2", admin_token=ADMIN).bot.name == "alice2"


def test_practice_bots_cannot_play_under_a_look_alike_of_a_registered_name(store: Store) -> None:
    store.register_bot("alice", admin_token=ADMIN)
    practice = StoreAuthenticator(store, allow_practice=True)
    for name in LOOK_ALIKES:
        with pytest.raises(HelloError, match=f"'{name}' is too like the registered bot 'alice'") as refused:
            practice.authenticate(bot_pb2.Hello(name=name))
        assert refused.value.code == "name_taken"
        assert "ignoring case and the punctuation" in str(refused.value)
    assert practice.authenticate(bot_pb2.Hello(name="bob")).name == "bob"


def test_look_alikes_registered_before_the_rule_are_kept_and_no_new_one_is_added(db_url: str) -> None:
    """Existing databases: bots registered under look-alike names before revision 0004 keep their names
    (grandfathered; the oldest keeps the name key), and no further look-alike can be registered."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with at_revision(db_url, "0003") as connection:
        for number, name in enumerate(("alice", "Alice", "bob", "ALICE"), start=1):
            connection.execute(
                text("INSERT INTO bots (name, token_hash, created_at) VALUES (:name, :hash, :at)"),
                {"name": name, "hash": f"{number:064x}", "at": now},
            )
    with Store.open(db_url, admin_token=ADMIN) as store:
        assert [b.name for b in store.bots()] == ["ALICE", "Alice", "alice", "bob"]
        look_alike = store.look_alike("alice.")
        assert look_alike is not None and look_alike.name == "alice"  # the oldest
        with pytest.raises(AlreadyExistsError, match="too like the registered bot 'alice'"):
            store.register_bot("aLiCe", admin_token=ADMIN)
        assert store.register_bot("carol", admin_token=ADMIN).bot.name == "carol"


def test_a_database_with_rated_bots_upgrades_past_revision_0004(db_url: str) -> None:
    """Revision 0004 copies the bots table (SQLite changes a constraint so); the ratings, tokens and seats
    that refer to the bots must neither stop the upgrade (a foreign key refusing the old table's drop) nor
    go with it. The server opens a ladder database of the revision before as it was."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with at_revision(db_url, "0003") as connection:
        connection.execute(
            text("INSERT INTO bots (name, token_hash, created_at) VALUES ('alice', :hash, :at)"),
            {"hash": "0" * 64, "at": now},
        )
        connection.execute(
            text(
                "INSERT INTO ratings (bot_id, queue, mu, sigma, games, wins, place_sum, timeouts, forfeits, "
                "updated_at) VALUES (1, 'classic-4', 27.5, 6.0, 3, 2, 4, 0, 0, :at)"
            ),
            {"at": now},
        )
    with Store.open(db_url, admin_token=ADMIN) as store:
        assert [b.name for b in store.bots()] == ["alice"]
        assert [(s.bot, s.games, s.wins) for s in store.leaderboard("classic-4")] == [("alice", 3, 2)]
