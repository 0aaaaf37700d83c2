"""Who a lobby seats: the games appointed between named bots, the bots of other replicas besides its own
sessions, and the cluster's side of a lobby (Protocols the lobby, ``server.play.lobby``, speaks to;
``server.play.relay`` and ``server.play.cluster`` implement them).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from conquest.v1 import bot_pb2
from server.ops.config import QueueConfig
from server.play.runner_2210 import AnyRunner
from server.play.session import Outgoing, Session
from server.records import Identity


class BotPlayer(Protocol):
    """A bot a new game seats: a session of this server, or one of another replica played through the
    relay (``server.play.relay.RelayedSeat``)."""

    identity: Identity
    live_events: bool
    games: dict[str, int]
    """game id -> the seat it plays there."""

    def send(self, message: Outgoing) -> None: ...


class Shared(Protocol):
    """The cluster's side of the lobby (``server.play.cluster``, with ``server.cluster``): the queues are
    shared with the other replicas, whose matchmaker seats the games, and some seats are relayed."""

    def connected(self, name: str) -> bool:
        """A bot of that name has an open session on another replica (as of the last heartbeat)."""
        ...

    def elsewhere(self, key: str) -> list[tuple[str, str]]:
        """The running games of the bot with identity ``key`` hosted by other replicas: (game id, host)."""
        ...

    def opened(self, session: Session, elsewhere: list[tuple[str, str]]) -> None:
        """A session opened (after it took back its seats of games hosted here); it asks for its seats
        of the games ``elsewhere``."""
        ...

    def closed(self, session: Session) -> None:
        """A session closed."""
        ...

    def joined(self, queue: str, session: Session, games: int) -> None:
        """A session joined ``queue`` (at most ``games`` games; 0: no limit)."""
        ...

    def left(self, queue: str, session: Session) -> None:
        """A session left ``queue``."""
        ...

    def forward(self, session: Session, decision: bot_pb2.Decision) -> int:
        """A Decision for a game hosted by another replica, sent there: ``stream.TAKEN`` if it answers a
        request relayed to the bot, ``stream.NOT_TAKEN`` if not, ``stream.NO_SEAT`` if it is for no such
        game."""
        ...

    def ended(self, runner: AnyRunner) -> None:
        """A game hosted here ended (its players were told)."""
        ...

    def appointed(self, appointment: Appointment) -> None:
        """An appointment was made here: the cluster's matchmaker seats its bots, on any replica."""
        ...

    def withdrawn(self, appointment: Appointment) -> None:
        """An appointment made here was withdrawn before its game started."""
        ...


@dataclass(eq=False)
class Appointment:
    """A game between named bots (a challenge or a tournament table), started as soon as every one of them
    is connected with a free game slot; until then their free slots are kept for it."""

    queue: QueueConfig
    bots: tuple[str, ...]
    """Bot names in seat order."""
    on_over: Callable[[AnyRunner], None] = lambda runner: None
    """Told once the game is over and recorded."""
    on_started: Callable[[AnyRunner], None] = lambda runner: None
    """Told as its game starts."""
    owner: str = ""
    """The bot that asked for it (a challenge made with a bot's token), if any: the appointment is
    withdrawn when that bot has no open session left, so an absent bot keeps no one's slots."""
    on_withdrawn: Callable[[str], None] = lambda why: None
    """Told once if the appointment is withdrawn before its game started (why, in words)."""
    key: str = field(default_factory=lambda: secrets.token_hex(8))
    """Its id in the cluster's shared store (``server.cluster``)."""
