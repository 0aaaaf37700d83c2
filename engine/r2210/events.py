"""What happened in a 2210 game, in order.

A private event (a bid before the reveal) is seen only by its seat.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Event2210(NamedTuple):
    kind: str
    """e.g. "devastated", "claimed", "bid", "bids_revealed", "rolled", "captured", "game_ended"."""
    seat: int
    """The seat it is about (-1: none)."""
    data: dict[str, Any]
    private: bool = False
    """Only ``seat`` may see it (``visible_to``)."""


def visible_to(events: list[Event2210], seat: int) -> list[Event2210]:
    """The events ``seat`` may see (-1: a spectator sees only public ones)."""
    return [e for e in events if not e.private or e.seat == seat]
