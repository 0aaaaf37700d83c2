"""Small value types: the actions a seat can take and the phases it takes them in.

Every action is a NamedTuple: cheap to build, hashable, and serialised by ``engine.codec``.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from engine.board import Territory


class Phase(enum.IntEnum):
    """Where a game stands; each phase accepts its own kinds of action."""

    SETUP_CLAIM = 0
    """Claim one empty territory with one army."""
    SETUP_PLACE = 1
    """Place starting armies on your own territories (and neutral ones in the two-player game)."""
    REINFORCE = 2
    """Trade card sets, then place this turn's armies; also the forced trade-down after an elimination."""
    ATTACK = 3
    """Attack, or end attacking."""
    DEFEND = 4
    """Choose how many dice defend (only when the rules let the defender choose)."""
    OCCUPY = 5
    """Move armies into the territory just captured."""
    FORTIFY = 6
    """One free move, or end the turn."""
    GAME_OVER = 7


class Claim(NamedTuple):
    territory: Territory


class Place(NamedTuple):
    territory: Territory
    armies: int


class TradeCards(NamedTuple):
    cards: tuple[int, int, int]
    bonus_territory: Territory = -1
    """Which pictured territory of yours gets the +2; -1 lets the engine take the first one."""


class Attack(NamedTuple):
    source: Territory
    target: Territory
    dice: int
    repeat_until: int = 0
    """0: roll once. N >= 1: roll on until the target falls or the source is down to N armies."""


class ChooseDefence(NamedTuple):
    dice: int


class Occupy(NamedTuple):
    armies: int


class Fortify(NamedTuple):
    source: Territory
    target: Territory
    armies: int


class EndPhase(NamedTuple):
    """End attacking (ATTACK) or end the turn without a free move (FORTIFY)."""


Action = Claim | Place | TradeCards | Attack | ChooseDefence | Occupy | Fortify | EndPhase
