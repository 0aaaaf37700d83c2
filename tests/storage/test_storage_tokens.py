"""Bots and tokens: shown once, stored only as a hash, rotated, revoked, refused with a clear message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from storage_support import ADMIN

from server.records import NAME_FORM
from server.storage import (
    AdminTokenError,
    AlreadyExistsError,
    InvalidInputError,
    NotFoundError,
    RevokedTokenError,
    RotatedTokenError,
    Store,
    UnknownTokenError,
)
from server.storage.models import Base


def test_registered_token_authenticates_its_bot(store: Store) -> None:
    """Issue 4: "Bots are registered by an organizer: the token is shown once"."""
    registration = store.register_bot("alice", admin_token=ADMIN)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", registration.token)  # secrets.token_urlsafe(32)
    assert store.authenticate(registration.token) == registration.bot
    assert store.register_bot("bob", admin_token=ADMIN).token != registration.token


def test_tokens_are_never_stored_in_clear(store: Store, db_url: str) -> None:
    """Issue 4: "the token is ... stored only as a hash". Every column of every table is scanned, and on
    SQLite the database files' raw bytes too."""
    tokens = [store.register_bot(name, admin_token=ADMIN).token for name in ("alice", "bob")]
    tokens.append(store.rotate_token("alice", admin_token=ADMIN).token)
    store.revoke_bot("bob", admin_token=ADMIN)
    engine = create_engine(db_url)
    with engine.connect() as connection:
        cells = [
            str(value)
            for table in Base.metadata.sorted_tables
            for row in connection.execute(select(table))
            for value in row
        ]
    engine.dispose()
    assert any(len(cell) == 64 for cell in cells)  # the hashes are there
    for token in tokens:
        assert not any(token in cell for cell in cells)
    if db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///"))
        raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
        for token in tokens:
            assert token.encode() not in raw


def test_unknown_token_is_refused_with_a_clear_message(store: Store) -> None:
    """Issue 4 test list: "an unknown ... token is refused with a clear message" (never echoing it)."""
    store.register_bot("alice", admin_token=ADMIN)
    wrong = "x" * 43
    with pytest.raises(UnknownTokenError, match="unknown bot token") as refused:
        store.authenticate(wrong)
    assert "register" in str(refused.value)
    assert wrong not in str(refused.value)


def test_revoked_token_is_refused_with_a_clear_message(store: Store) -> None:
    """Issue 4: tokens "can be rotated and revoked"; test list: "a ... revoked token is refused"."""
    token = store.register_bot("alice", admin_token=ADMIN).token
    assert store.revoke_bot("alice", admin_token=ADMIN).revoked
    with pytest.raises(RevokedTokenError, match=r"bot 'alice' was revoked on .*register") as refused:
        store.authenticate(token)
    assert token not in str(refused.value)
    with pytest.raises(RevokedTokenError, match="cannot get a new token"):
        store.rotate_token("alice", admin_token=ADMIN)


def test_rotation_replaces_the_token_at_once(store: Store) -> None:
    """Issue 4: the token "can be rotated": the new one works, the old one is refused and says why."""
    old = store.register_bot("alice", admin_token=ADMIN).token
    rotated = store.rotate_token("alice", admin_token=ADMIN)
    assert rotated.token != old
    assert store.authenticate(rotated.token).name == "alice"
    assert store.authenticate(rotated.token).rotated_at is not None
    with pytest.raises(RotatedTokenError, match=r"bot 'alice' was replaced on .*new token") as refused:
        store.authenticate(old)
    assert old not in str(refused.value)


def test_admin_operations_need_the_admin_token(store: Store, db_url: str) -> None:
    """Issue 4: "Admin calls need an admin token"."""
    with pytest.raises(AdminTokenError, match="wrong admin token"):
        store.register_bot("alice", admin_token="guess")
    token = store.register_bot("alice", admin_token=ADMIN).token
    with pytest.raises(AdminTokenError):
        store.rotate_token("alice", admin_token=token)  # a bot token is not an admin token
    with pytest.raises(AdminTokenError):
        store.revoke_bot("alice", admin_token="")
    with Store.open(db_url) as no_admin, pytest.raises(AdminTokenError, match="no admin token configured"):
        no_admin.register_bot("bob", admin_token=ADMIN)
    assert [b.name for b in store.bots()] == ["alice"]


def test_bad_or_taken_names_are_refused(store: Store) -> None:
    """House rule: bad input gets a clear error saying what was wrong and what would be right."""
    store.register_bot("alice", admin_token=ADMIN)
    with pytest.raises(AlreadyExistsError, match="'alice' is already registered; choose another"):
        store.register_bot("alice", admin_token=ADMIN)
    # Issue 33, item 8: "A name with no letter or digit (`..`) registers (its comparison key is empty;
    # `/api/bots/..` turns into `/api/` in a browser)".
    for bad in ("", "has space", "ünïcode", "x" * 33, "..", "_-_", "."):
        with pytest.raises(InvalidInputError, match=re.escape(f"is not allowed: use {NAME_FORM}")):
            store.register_bot(bad, admin_token=ADMIN)
    with pytest.raises(NotFoundError, match="no bot named 'nobody'"):
        store.revoke_bot("nobody", admin_token=ADMIN)
