"""Issue 33, item 7: "Look-alike names pass: with `alice`, `modern`, `oliver`, `william` registered, `aIice`,
`a1ice`, `al1ce`, `rnodern`, `0liver`, `vvilliam` and `wi11iam` were welcomed as practice names and four
were registered (`Alice` and `a_lice` are refused, so the rule exists; it should cover confusable
characters too, as Unicode's confusables data does)."

Registration and practice names against registered bots, and revision 0011, which writes the keys of the
bots already registered in the new form. The key itself is tested in
tests/server/test_server_look_alike_names.py.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

import pytest
from look_alikes import LOOK_ALIKES, REGISTERED
from sqlalchemy import text
from storage_support import ADMIN, at_revision

from conquest.v1 import bot_pb2
from server.records import HelloError
from server.storage import AlreadyExistsError, Store
from server.storage.auth import StoreAuthenticator


def test_a_look_alike_of_a_registered_name_cannot_be_registered(store: Store) -> None:
    """Issue 33, item 7: "with `alice`, `modern`, `oliver`, `william` registered, `aIice`, `a1ice`, `al1ce`,
    `rnodern`, `0liver`, `vvilliam` and `wi11iam` were ... registered": none is, and the refusal names the
    bot it looks like and says how to choose."""
    for name in REGISTERED:
        store.register_bot(name, admin_token=ADMIN)
    for look_alike, original in LOOK_ALIKES.items():
        with pytest.raises(AlreadyExistsError) as refused:
            store.register_bot(look_alike, admin_token=ADMIN)
        message = str(refused.value)
        assert f"bot name {look_alike!r} is too like the registered bot {original!r}" in message
        assert "1, I, i and l; 0, O and o; rn and m; vv and w" in message
        assert message.endswith(
            "choose a name that differs from it by more than case, punctuation and look-alike characters"
        )
    assert [b.name for b in store.bots()] == sorted(REGISTERED)
    assert store.register_bot("willow", admin_token=ADMIN).bot.name == "willow"


def test_practice_bots_cannot_play_under_a_look_alike_of_a_registered_name(store: Store) -> None:
    """Issue 33, item 7: "`aIice`, `a1ice`, `al1ce`, `rnodern`, `0liver`, `vvilliam` and `wi11iam` were
    welcomed as practice names"."""
    for name in REGISTERED:
        store.register_bot(name, admin_token=ADMIN)
    practice = StoreAuthenticator(store, allow_practice=True)
    for look_alike, original in LOOK_ALIKES.items():
        with pytest.raises(HelloError) as refused:
            practice.authenticate(bot_pb2.Hello(name=look_alike))
        assert refused.value.code == "name_taken"
        assert f"{look_alike!r} is too like the registered bot {original!r}" in str(refused.value)
        assert "connect with its token if it is yours" in str(refused.value)
    assert practice.authenticate(bot_pb2.Hello(name="olivia")).name == "olivia"


def _register_at_0010(db_url: str, names: tuple[str, ...]) -> None:
    """Bots registered at revision 0010, each with the key of revision 0004 (case and punctuation)."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    insert = text(
        "INSERT INTO bots (name, name_key, token_hash, created_at) VALUES (:name, :key, :hash, :at)"
    )
    with at_revision(db_url, "0010") as connection:
        for number, name in enumerate(names, start=1):
            key = re.sub(r"[_.\-]", "", name).casefold()
            connection.execute(insert, {"name": name, "key": key, "hash": f"{number:064x}", "at": now})


def _keys(db_url: str, revision: str, *, down: bool = False) -> dict[str, str]:
    with at_revision(db_url, revision, down=down, foreign_keys=True) as connection:
        return dict(connection.execute(text("SELECT name, name_key FROM bots")).all())


def test_bots_registered_before_revision_0011_are_compared_by_their_new_keys(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 33, item 7: "it should cover confusable characters too": a ladder's database written before
    the rule holds its bots' keys in the old form; the upgrade writes them again, so look-alikes of bots
    registered then are refused too. Look-alikes registered before the rule (`a1ice` after `alice`) are
    kept, the later one's key set apart (``<key>#<id>``), and logged for the organiser."""
    _register_at_0010(db_url, ("alice", "modern", "a1ice", "william", "bob"))
    with caplog.at_level(logging.WARNING), Store.open(db_url, admin_token=ADMIN) as store:
        assert [b.name for b in store.bots()] == ["a1ice", "alice", "bob", "modern", "william"]
        for look_alike, original in LOOK_ALIKES.items():
            if original == "oliver":
                continue
            holder = store.look_alike(look_alike)
            assert holder is not None and holder.name == original, look_alike  # the oldest of alice's
            with pytest.raises(AlreadyExistsError, match=f"too like the registered bot {original!r}"):
                store.register_bot(look_alike, admin_token=ADMIN)
        assert store.register_bot("0liver", admin_token=ADMIN).bot.name == "0liver"
    assert "'alice' and 'a1ice' were registered under names that look alike" in caplog.text
    keys = _keys(db_url, "head")
    assert keys["alice"] == "allce" and keys["a1ice"] == "allce#3" and keys["modern"] == "modem"


def test_revision_0011_goes_back_to_the_keys_of_revision_0004(db_url: str) -> None:
    """Downgrading from 0011 writes the keys of revision 0004 again (case and punctuation only), so the
    bots keep what that revision's code looks up."""
    _register_at_0010(db_url, ("alice", "a_1ice", "Modern", "w1ll"))
    assert _keys(db_url, "head") == {"alice": "allce", "a_1ice": "allce#2", "Modern": "modem", "w1ll": "wlll"}
    assert _keys(db_url, "0010", down=True) == {
        "alice": "alice",
        "a_1ice": "a1ice",
        "Modern": "modern",
        "w1ll": "w1ll",
    }
