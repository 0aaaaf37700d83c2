"""What happened: every change to the board is told by an event, in order.

``Drew`` and ``CardsTaken`` name cards, ``MissionDealt`` a mission and ``HeadquartersChosen`` a territory;
``public_view`` blanks those for everyone but the seat concerned.
"""

from __future__ import annotations

from typing import Final, NamedTuple, cast

from engine.board import Territory


class FirstPlayerRolled(NamedTuple):
    rolls: tuple[tuple[int, ...], ...]
    """Each roll-off round: one die per seat still tied (0 for seats out of that round)."""
    seat: int


class Dealt(NamedTuple):
    owners: tuple[int, ...]
    """Owner of each territory after the deal (one army each)."""


class Claimed(NamedTuple):
    seat: int
    territory: Territory


class Placed(NamedTuple):
    seat: int
    territory: Territory
    armies: int


class TurnStarted(NamedTuple):
    seat: int
    turn: int
    territory_armies: int
    continent_armies: int


class Traded(NamedTuple):
    seat: int
    cards: tuple[int, int, int]
    armies: int
    bonus_territory: Territory
    """Where the +2 went (already placed), or -1 when no bonus applied."""


class Rolled(NamedTuple):
    source: Territory
    target: Territory
    attacker_dice: tuple[int, ...]
    defender_dice: tuple[int, ...]
    attacker_losses: int
    defender_losses: int


class Captured(NamedTuple):
    seat: int
    source: Territory
    target: Territory
    previous_owner: int


class Occupied(NamedTuple):
    source: Territory
    target: Territory
    armies: int


class Eliminated(NamedTuple):
    seat: int
    by: int
    cards_taken: int


class CardsTaken(NamedTuple):
    seat: int
    cards: tuple[int, ...]
    """The cards' ids; hidden (-1 each) from every seat but ``seat``."""


class Drew(NamedTuple):
    seat: int
    card: int
    """The card's id; hidden (-1) from every seat but ``seat``. No card (no event) when the pile is empty."""


class Fortified(NamedTuple):
    source: Territory
    target: Territory
    armies: int


class TurnEnded(NamedTuple):
    seat: int


class GameEnded(NamedTuple):
    places: tuple[int, ...]
    """Place of each seat, 1 = best; tied seats share a place."""
    reason: str
    """'conquest' (one player left), 'turn_cap', 'headquarters' or 'mission' (``Termination``)."""


class MissionDealt(NamedTuple):
    seat: int
    mission: int
    """Index into ``engine.goals.MISSIONS``; hidden (-1) from every seat but ``seat`` until the end."""


class MissionsRevealed(NamedTuple):
    missions: tuple[int, ...]
    """Every seat's mission (index into ``engine.goals.MISSIONS``), told when the game ends."""


class HeadquartersChosen(NamedTuple):
    seat: int
    territory: int
    """Hidden (-1) from every seat but ``seat``; ``HeadquartersRevealed`` tells all once all have chosen."""


class HeadquartersRevealed(NamedTuple):
    territories: tuple[int, ...]
    """Each seat's headquarters territory, in seat order."""


Event = (
    FirstPlayerRolled
    | Dealt
    | Claimed
    | Placed
    | TurnStarted
    | Traded
    | Rolled
    | Captured
    | Occupied
    | Eliminated
    | CardsTaken
    | Drew
    | Fortified
    | TurnEnded
    | GameEnded
    | MissionDealt
    | MissionsRevealed
    | HeadquartersChosen
    | HeadquartersRevealed
)


def public_view(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it (``None``: a spectator): other seats' cards, missions and
    headquarters choices are blanked."""
    holder = secret_holder(event)
    if holder is None or holder == seat:
        return event
    if isinstance(event, Drew):
        return event._replace(card=-1)
    if isinstance(event, CardsTaken):
        return event._replace(cards=tuple(-1 for _ in event.cards))
    if isinstance(event, MissionDealt):
        return event._replace(mission=-1)
    assert isinstance(event, HeadquartersChosen)
    return event._replace(territory=-1)


_Secret = Drew | CardsTaken | MissionDealt | HeadquartersChosen
_SECRET: Final = frozenset({Drew, CardsTaken, MissionDealt, HeadquartersChosen})


def secret_holder(event: Event) -> int | None:
    """The one seat that sees ``event`` in full when ``public_view`` blanks it for everyone else."""
    # Its exact type looked up in a set made once: this runs for every event, and ``isinstance`` against
    # a tuple of NamedTuple types cost ~1,000 instructions (each NamedTuple type named here is a lookup of
    # the module's globals, compiled or not).
    if type(event) in _SECRET:
        return cast(_Secret, event).seat
    return None
