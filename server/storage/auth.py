"""Play's ``Authenticator`` and ``Ratings`` (``server.play.ports``) over the store: registered bots connect
with their token, and the matchmaker reads their ratings and recent games. They speak play's language
through ``server.records`` only; ``server.app`` hands them to the lobby.
"""

from __future__ import annotations

from conquest.v1 import bot_pb2
from server.records import (
    INITIAL,
    LOOK_ALIKE_ADVICE,
    NAME_RULE,
    HelloError,
    Identity,
    Skill,
    bot_identity,
    identity_key,
    practice_identity,
)
from server.storage.database import unavailable
from server.storage.errors import RevokedTokenError, RotatedTokenError, UnknownTokenError
from server.storage.store import Store


class StoreAuthenticator:
    """A Hello with a token plays ranked as its registered bot. With ``allow_practice``, a Hello without
    a token plays unranked under its name, unless that name belongs to a registered bot or looks like one
    (``server.records.name_key``)."""

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
        return bot_identity(bot.id, bot.name)

    def _practice(self, hello: bot_pb2.Hello) -> Identity:
        if not self.allow_practice:
            raise HelloError(
                "token_required",
                "this server plays registered bots only: send Hello.token (the organizer registers your bot "
                "and gives you its token)",
            )
        holder = self.store.look_alike(hello.name)
        if holder is None:
            return practice_identity(hello.name)
        if holder.name == hello.name:
            raise HelloError(
                "name_taken",
                f"{hello.name!r} is a registered bot: connect with its token, or choose another name to play "
                "unranked practice games",
            )
        raise HelloError(
            "name_taken",
            f"{hello.name!r} is too like the registered bot {holder.name!r} ({NAME_RULE}): connect with its "
            f"token if it is yours; to play unranked practice games, {LOOK_ALIKE_ADVICE}",
        )


class StoreRatings:
    """What the matchmaker reads from the store: ratings (cached until the bot's next game ends) and the
    queue's recent tables, so pair caps, seed order and seat rotation carry over a restart."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._skills: dict[tuple[str, int], Skill] = {}

    def skill(self, queue: str, identity: Identity) -> Skill:
        if identity.bot_id is None:
            return INITIAL
        key = (queue, identity.bot_id)
        if key not in self._skills:
            with unavailable(self.store.dialect, "cannot be read"):
                self._skills[key] = self.store.skill(identity.bot_id, queue)
        return self._skills[key]

    def forget(self, queue: str, bot_ids: list[int]) -> None:
        """These bots' ratings in ``queue`` may have changed (a game of theirs was recorded)."""
        for bot_id in bot_ids:
            self._skills.pop((queue, bot_id), None)

    def recent_tables(self, queue: str, limit: int) -> list[list[str]]:
        """The identity keys of the queue's last ``limit`` recorded games, in seat order, oldest first."""
        with unavailable(self.store.dialect, "cannot be read"):
            games = self.store.games(queue=queue, limit=limit)
        return [[identity_key(s.bot_id, s.name) for s in game.seats] for game in reversed(games)]
