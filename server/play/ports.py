"""What play needs from outside it, as small Protocols: who a Hello speaks for, the bots' ratings, and where
a finished game goes. ``server.app`` wires them to the database (or leaves play to its practice defaults),
so play never imports ``server.storage``.
"""

from __future__ import annotations

from typing import Protocol

from conquest.v1 import bot_pb2
from server.play.replays import GameRecord
from server.play.session import Identity
from server.records import Skill


class Authenticator(Protocol):
    def authenticate(self, hello: bot_pb2.Hello) -> Identity:
        """The bot a Hello speaks for.

        Raises:
            HelloError: unknown token, or no token where one is required.
        """
        ...


class Ratings(Protocol):
    """The ladder's ratings and its recent games, as the matchmaker reads them."""

    def skill(self, queue: str, identity: Identity) -> Skill:
        """The player's rating in ``queue`` (the initial one for a practice player)."""
        ...

    def forget(self, queue: str, bot_ids: list[int]) -> None:
        """These bots' ratings in ``queue`` may have changed (a game of theirs was recorded)."""
        ...

    def recent_tables(self, queue: str, limit: int) -> list[list[str]]:
        """The identity keys of the queue's last ``limit`` recorded games, in seat order, oldest first."""
        ...


class ResultSink(Protocol):
    """Where finished games go: a directory of files, the database, or both."""

    def write(self, record: GameRecord) -> str:
        """Store ``record``; returns where it went (a path or a URL), for the logs."""
        ...
