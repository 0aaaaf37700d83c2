"""Who plays a seat: a remote bot over its session (``RemoteSeat``) or an in-process policy (``HouseSeat``).

The runner asks a ``HouseSeat`` synchronously and sends it nothing; a ``RemoteSeat`` gets every game
message through whatever ``Connection`` currently holds it (none while its bot is disconnected).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from conquest.v1 import bot_pb2
from engine import Policy, aggressive_policy, random_policy
from server.ops.config import TimeControl
from server.ops.histogram import bucket
from server.play.clock import SeatClock
from server.play.mailbox import Departure
from server.play.session import Outgoing, Session
from server.records import ROUND_TRIP_BUCKETS, Identity

_monotonic: Final = time.monotonic


class Connection(Protocol):
    """The session side of a remote seat: where its messages go."""

    live_events: bool
    """The bot asked for GameEvents as each turn passes (Hello.live_events)."""

    def send(self, message: Outgoing) -> None: ...


@dataclass(eq=False)
class HouseSeat:
    """A built-in opponent: an engine policy played in the server process."""

    name: str
    policy: Policy


HOUSE_POLICIES: dict[str, Callable[[], Policy]] = {
    "aggressive": lambda: aggressive_policy,
    "random": lambda: random_policy(random.Random()),
}
"""The built-in opponents by name; each game gets fresh policies (a random one has its own generator)."""


def house_seats(kinds: Sequence[str]) -> list[HouseSeat]:
    """A fresh HouseSeat per kind, named ``house-<kind>`` (numbered when a kind repeats)."""
    names = numbered([f"house-{kind}" for kind in kinds])
    return [HouseSeat(name, HOUSE_POLICIES[kind]()) for name, kind in zip(names, kinds, strict=True)]


def numbered(names: Sequence[str]) -> list[str]:
    """``names`` made distinct: a repeated name gets ``-2``, ``-3``, ... from its second use on."""
    seen: Counter[str] = Counter()
    distinct = []
    for name in names:
        seen[name] += 1
        distinct.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return distinct


@dataclass(eq=False)
class RemoteSeat:
    """A bot's seat: its identity, its connection (None while disconnected), clock and strikes."""

    identity: str
    """Stable key of the bot (a reconnect with the same identity takes the seat back)."""
    name: str
    connection: Connection | None
    clock: SeatClock
    strikes: int = 0
    forfeit: bot_pb2.SeatOutcome.ValueType | None = None
    """FORFEIT_TIMEOUT or FORFEIT_DISCONNECT once forfeited; the seat then plays on with defaults."""
    disconnected_at: float | None = None
    """``time.monotonic()`` of the disconnect while the bot is away."""
    open_request: int = 0
    """Id of the DecisionRequest this seat may answer now, 0 for none."""
    last_latency_ms: int = 0
    bot_id: int | None = None
    """The registered bot's database id; None for a practice player (the game is then unrated)."""
    timeouts: int = 0
    """Decisions that timed out, disconnected or not (strikes count only the connected ones)."""
    rejections: int = 0
    """Decisions rejected (malformed, illegal, late or stale)."""
    crashes: int = 0
    """Times the bot's stream dropped while it held this seat in the running game."""
    round_trips: dict[str, list[int]] = field(default_factory=dict)
    """Answered decisions by phase: how many fell in each ``ROUND_TRIP_BUCKETS`` bucket, the last count
    for those above the last bound."""
    next_event: int = 0
    """Sequence number of the first game event this seat has not been sent."""
    resumed: bool = False
    """The bot reconnected since its open request was sent, so that request must be sent again."""

    @staticmethod
    def for_bot(identity: Identity, connection: Connection, control: TimeControl) -> RemoteSeat:
        return RemoteSeat(
            identity.key, identity.name, connection, SeatClock.start(control), bot_id=identity.bot_id
        )

    def send(self, message: Outgoing) -> None:
        if self.connection is not None:
            self.connection.send(message)

    def send_request(self, message: bytes) -> Departure:
        """Send a DecisionRequest, its departure stamped: by its stream's writer as it hands it to the
        transport for a local session (``mailbox.deliver``), now for any other connection (the relay to
        another replica) or none (a disconnected seat)."""
        connection = self.connection
        if isinstance(connection, Session):
            departure = Departure(message, connection.outbox)
            connection.send(departure)
            return departure
        departure = Departure(message, None)
        departure.sent_at = _monotonic()
        if connection is not None:
            connection.send(message)
        return departure

    def record_round_trip(self, phase: str, seconds: float) -> None:
        """Count an answered decision of ``phase`` (lower-case Phase name) that took ``seconds``."""
        counts = self.round_trips.get(phase)
        if counts is None:
            counts = self.round_trips[phase] = [0] * (len(ROUND_TRIP_BUCKETS) + 1)
        counts[bucket(ROUND_TRIP_BUCKETS, seconds)] += 1  # as Prometheus counts it


Seat = RemoteSeat | HouseSeat
