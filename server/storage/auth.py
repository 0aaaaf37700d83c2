"""The server's ``Authenticator`` backed by the store: registered bots connect with their token."""

from __future__ import annotations

from conquest.v1 import bot_pb2
from server.session import HelloError, Identity, PracticeAuthenticator
from server.storage.errors import NotFoundError, RevokedTokenError, RotatedTokenError, UnknownTokenError
from server.storage.store import Store


class StoreAuthenticator:
    """A Hello with a token plays ranked as its registered bot. With ``allow_practice``, a Hello without
    a token plays unranked under its name, unless that name belongs to a registered bot."""

    def __init__(self, store: Store, *, allow_practice: bool = False) -> None:
        self.store = store
        self.allow_practice = allow_practice

    def authenticate(self, hello: bot_pb2.Hello) -> Identity:
        if not hello.token:
            return self._practice(hello)
        try:
            bot = self.store.authenticate(hello.token)
        except UnknownTokenError as refused:
            raise HelloError("unknown_token", str(refused)) from None
        except RotatedTokenError as refused:
            raise HelloError("rotated_token", str(refused)) from None
        except RevokedTokenError as refused:
            raise HelloError("revoked_token", str(refused)) from None
        return Identity(key=f"bot:{bot.id}", name=bot.name, ranked=True, bot_id=bot.id)

    def _practice(self, hello: bot_pb2.Hello) -> Identity:
        if not self.allow_practice:
            raise HelloError(
                "token_required",
                "this server plays registered bots only: send Hello.token (the organizer registers your bot "
                "and gives you its token)",
            )
        try:
            self.store.bot(hello.name)
        except NotFoundError:
            return PracticeAuthenticator(allow_names=True).authenticate(hello)
        raise HelloError(
            "name_taken",
            f"{hello.name!r} is a registered bot: connect with its token, or choose another name to play "
            "unranked practice games",
        )
