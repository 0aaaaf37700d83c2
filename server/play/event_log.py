"""The per-seat event log of one game: every event serialized once, held until each connected seat has
been sent it (in its next DecisionRequest, or in a GameEvents). Compiled: it runs for every decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.events import Event, public_view, secret_holder
from server.play import wire
from server.play.seats import RemoteSeat, Seat

LOG_KEPT: Final = 16
"""Events logged for the seats beyond which sending a request also drops those every seat was sent."""


class EventLog:
    """The events of ``game_id`` its ``seats`` were not all sent yet."""

    def __init__(self, game_id: str, seats: Sequence[Seat]) -> None:
        self.game_id = game_id
        self.seats = seats
        self.sequence = 0
        """Sequence number of the next event."""
        self._log: list[bytes] = []
        """The public view of every event from sequence ``_start`` on, serialized once for every seat it
        goes to: what some seat was not sent yet."""
        self._start = 0
        self._own_views: dict[int, tuple[int, bytes]] = {}
        """sequence -> (seat, its own view) for the logged events that hide something from the others."""

    def record(self, events: list[Event]) -> list[bytes]:
        """Log ``events`` for the seats; returns their public views serialized (a spectator's events)."""
        first = self.sequence
        self.sequence += len(events)
        shared = []
        for sequence, event in enumerate(events, first):
            holder = secret_holder(event)
            if holder is None:
                shared.append(wire.serialized_event(event, sequence))
                continue
            # That seat sees its own cards or choice, the others see blanks.
            shared.append(wire.serialized_event(public_view(event, None), sequence))
            self._own_views[sequence] = (holder, wire.serialized_event(event, sequence))
        self._log.extend(shared)
        return shared

    def unsent(self, index: int, seat: RemoteSeat) -> list[bytes]:
        """The logged events ``seat`` (seat ``index``) was not sent yet, its own cards shown; now counted
        as sent. When the log has grown long (a long turn or setup: the turn's end trims later) and this
        seat held its oldest event, the events every seat was sent are dropped at once."""
        first = max(seat.next_event, self._start)
        held_oldest = seat.next_event <= self._start
        batch = self._log[first - self._start :]
        for sequence, (holder, own) in self._own_views.items():
            if holder == index and sequence >= first:
                batch[sequence - first] = own
        seat.next_event = self.sequence
        if held_oldest and len(self._log) > LOG_KEPT:
            self.forget_sent()
        return batch

    def send(self, but: int = -1, live: bool = False) -> None:
        """Send every connected seat except ``but`` its unsent events as one GameEvents (``live``: only
        the seats whose bots asked for live events; the others get theirs in their next request)."""
        for index, seat in enumerate(self.seats):
            if (
                isinstance(seat, RemoteSeat)
                and seat.connection is not None
                and index != but
                and seat.next_event < self.sequence
                and (seat.connection.live_events or not live)
            ):
                batch = wire.serialized_game_events(self.game_id, self.unsent(index, seat))
                seat.send(wire.serialized_response("game_events", batch))
        self.forget_sent()

    def forget_sent(self) -> None:
        """Drop the logged events every connected seat has been sent."""
        sent = min(
            (s.next_event for s in self.seats if isinstance(s, RemoteSeat) and s.connection is not None),
            default=self.sequence,
        )
        if sent > self._start:
            del self._log[: sent - self._start]
            self._start = sent
            self._own_views = {k: v for k, v in self._own_views.items() if k >= sent}
