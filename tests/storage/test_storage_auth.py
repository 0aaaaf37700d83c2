"""StoreAuthenticator: the server's Authenticator over registered bots (issue 4, "Bots and access")."""

from __future__ import annotations

import pytest
from storage_support import ADMIN

from conquest.v1 import bot_pb2
from server.records import HelloError, Identity
from server.storage import Store
from server.storage.auth import StoreAuthenticator


def test_a_registered_token_plays_ranked_under_its_bot(store: Store) -> None:
    """Issue 3: Hello carries the "bot token"; Welcome.ranked is "True for a registered bot"."""
    registration = store.register_bot("alice", admin_token=ADMIN)
    identity = StoreAuthenticator(store).authenticate(bot_pb2.Hello(token=registration.token, name="ignored"))
    assert identity == Identity(
        key=f"bot:{registration.bot.id}", name="alice", ranked=True, bot_id=registration.bot.id
    )


@pytest.mark.parametrize(
    ("case", "code", "message"),
    [
        ("unknown", "unknown_token", "unknown bot token"),
        ("rotated", "rotated_token", "was replaced on"),
        ("revoked", "revoked_token", "was revoked on"),
    ],
)
def test_refused_tokens_get_a_code_and_message(store: Store, case: str, code: str, message: str) -> None:
    """Issue 4 test list: "an unknown or revoked token is refused with a clear message"."""
    token = store.register_bot("alice", admin_token=ADMIN).token
    if case == "unknown":
        token = token[::-1]
    elif case == "rotated":
        store.rotate_token("alice", admin_token=ADMIN)
    else:
        store.revoke_bot("alice", admin_token=ADMIN)
    with pytest.raises(HelloError, match=message) as refused:
        StoreAuthenticator(store).authenticate(bot_pb2.Hello(token=token))
    assert refused.value.code == code
    assert token not in str(refused.value)


def test_practice_play_is_opt_in_and_cannot_borrow_a_registered_name(store: Store) -> None:
    """Issue 4: "An open practice mode may let unregistered bots play unranked"."""
    store.register_bot("alice", admin_token=ADMIN)
    with pytest.raises(HelloError, match=r"registered bots only: send Hello\.token") as refused:
        StoreAuthenticator(store).authenticate(bot_pb2.Hello(name="bob"))
    assert refused.value.code == "token_required"
    practice = StoreAuthenticator(store, allow_practice=True)
    assert practice.authenticate(bot_pb2.Hello(name="bob")) == Identity("practice:bob", "bob", ranked=False)
    with pytest.raises(HelloError, match="'alice' is a registered bot: connect with its token") as refused:
        practice.authenticate(bot_pb2.Hello(name="alice"))
    assert refused.value.code == "name_taken"
