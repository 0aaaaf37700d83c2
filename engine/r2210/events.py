"""What happened in a 2210 game, in order.

A private event (a bid before the reveal, the Command cards drawn, a Scout Forces card kept face down) is
seen in full only by its seat; every other seat and spectator gets it with its secret blanked
(``seen_by``), so that everyone is told every event and their numbers run without gaps.
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
    """Only ``seat`` may see its secret (``SECRETS``); the others see it blanked (``seen_by``)."""


SECRETS = {"bid": "energy", "cards_drawn": "cards", "territory_card_drawn": "territory"}
"""The field a private event of each kind keeps from the other seats: blanked to -1 (each entry of a list)."""


def seen_by(event: Event2210, seat: int) -> Event2210:
    """``event`` as ``seat`` may see it (-1: a spectator): another seat's private event with its secret
    blanked, e.g. a bid of -1 energy, drawn cards [-1, -1]."""
    if not event.private or event.seat == seat:
        return event
    secret = SECRETS[event.kind]
    value = event.data[secret]
    blank = [-1] * len(value) if isinstance(value, list) else -1
    return event._replace(data={**event.data, secret: blank})
