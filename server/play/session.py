"""A connected bot: who it is (Hello -> Identity), how many games it plays at once, and its send queue.

Authentication sits behind ``server.play.ports.Authenticator``: practice mode accepts a name and no token;
the ladder plugs in a registry of bot tokens with the same interface (``server.storage.auth``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from conquest.v1 import bot_pb2
from server.play.mailbox import Departure, Mailbox
from server.records import NAME_FORM, NAME_PATTERN, HelloError, Identity, practice_identity, shown

Outgoing = bot_pb2.ConnectResponse | bytes
"""A message for a bot's stream: a ConnectResponse, or one serialized already (by ``server.play.wire``)."""
Queued = Outgoing | Departure
"""What a session's send queue holds: a message, or a DecisionRequest whose departure is to be stamped."""


MAX_CAPACITY = 64


@dataclass(frozen=True, slots=True)
class PracticeAuthenticator:
    """No registered bots yet: a bot plays unranked under the name it sends (if ``allow_names``)."""

    allow_names: bool = True

    def authenticate(self, hello: bot_pb2.Hello) -> Identity:
        if hello.token:
            raise HelloError(
                "unknown_token",
                "this server has no registered bots, so no token is valid; leave Hello.token empty and "
                "send Hello.name to play unranked practice games",
            )
        if not self.allow_names:
            raise HelloError("token_required", "this server plays registered bots only: send Hello.token")
        return practice_identity(hello.name)


def check_hello(hello: bot_pb2.Hello) -> int:
    """The capacity a Hello asks for.

    Raises:
        HelloError: a bad name (when no token is given) or a capacity out of range.
    """
    if not hello.token and not NAME_PATTERN.fullmatch(hello.name):
        raise HelloError(
            "bad_hello",
            f"Hello.name {shown(hello.name)} must be {NAME_FORM} (or send a token)",
        )
    if not 0 <= hello.capacity <= MAX_CAPACITY:
        raise HelloError(
            "bad_hello", f"Hello.capacity {hello.capacity} must be between 1 and {MAX_CAPACITY} (0 means 1)"
        )
    return hello.capacity or 1


@dataclass(eq=False)
class Session:
    """One Connect stream. Game messages are queued, never awaited, so a slow stream stalls no game."""

    identity: Identity
    capacity: int
    live_events: bool = False
    """Hello.live_events: GameEvents as each turn passes, not only inside the next DecisionRequest."""
    session_id: str = field(default_factory=lambda: secrets.token_hex(6))
    games: dict[str, int] = field(default_factory=dict)
    """game id -> the seat this session plays in it."""
    queues: set[str] = field(default_factory=set)
    closed: bool = False
    outbox: Mailbox[Queued | None] = field(default_factory=Mailbox)
    """What the stream has still to write; None ends it (``server.play.mailbox.deliver`` writes it)."""

    def send(self, message: Queued) -> None:
        if not self.closed:
            self.outbox.put(message)

    def error(self, code: str, message: str, fatal: bool = False, game_id: str = "") -> None:
        error = bot_pb2.Error(code=code, message=message, fatal=fatal, game_id=game_id)
        self.send(bot_pb2.ConnectResponse(error=error))

    def close(self) -> None:
        """End the response stream after what is queued."""
        if not self.closed:
            self.outbox.put(None)
            self.closed = True

    def free_slots(self) -> int:
        return self.capacity - len(self.games)
