"""What play needs from outside it, as small Protocols: who a Hello speaks for, the bots' ratings, and where
a finished game's result is kept. ``server.app`` wires them to the database (``server.storage``), or leaves
play to its practice defaults; play never imports ``server.storage``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from conquest.v1 import bot_pb2
from engine.r2210.replay import Replay2210
from engine.replay import Replay
from server.records import GameResult, Identity, Skill


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
    """Where finished games are kept with their results and rating updates (the database)."""

    @property
    def dialect(self) -> str:
        """What kind of database it is ("sqlite", "postgresql"), for the logs."""
        ...

    def record_game(self, result: GameResult, replay: Replay | Replay2210) -> Sequence[object]:
        """Keep the game: result, rating updates and replay at once. Returns its rating changes (none for
        an unrated game)."""
        ...

    def check(self) -> None:
        """Reach the database now; raises DatabaseUnavailable when it cannot be reached."""
        ...
