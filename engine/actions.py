"""Small value types: the actions a seat can take and the phases it takes them in.

Every action is a NamedTuple: cheap to build, hashable, and serialised by ``engine.codec``.
``ACTION_KINDS`` at the end is the one list of them, and the place to start when adding one.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

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
    # Later members keep the numbers above (the wire format numbers phases).
    CHOOSE_HEADQUARTERS = 8
    """Capital Risk: every seat in turn secretly picks one of its territories as headquarters."""
    ALLIED_REINFORCE = 9
    """Allied Army game: the opponent of the seat whose turn it is places the Allied Army's armies."""
    ALLIED_ATTACK = 10
    """Allied Army game: that opponent may attack the seat whose turn it is with the Allied Army."""


class PlayerStatus(enum.IntEnum):
    ALIVE = 0
    ELIMINATED = 1
    NEUTRAL = 2
    """The two-player games' third army (neutral, or the Allied Army)."""


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


class ChooseHeadquarters(NamedTuple):
    territory: Territory


class EndPhase(NamedTuple):
    """End attacking (ATTACK, ALLIED_ATTACK) or end the turn without a free move (FORTIFY)."""


Action = (
    Claim | Place | TradeCards | Attack | ChooseDefence | Occupy | Fortify | EndPhase | ChooseHeadquarters
)

ACTION_KINDS: dict[str, type[Any]] = {
    "claim": Claim,
    "place": Place,
    "trade_cards": TradeCards,
    "attack": Attack,
    "choose_defence": ChooseDefence,
    "occupy": Occupy,
    "fortify": Fortify,
    "end_phase": EndPhase,
    "choose_headquarters": ChooseHeadquarters,
}
"""Every kind of action, by the name replays (``engine.codec``) and the wire's ``Action`` oneof give it.

Adding a kind: its NamedTuple above, an entry here and in ``Action``, then its entry in each place keyed
by kind: ``engine.game.APPLY`` (how it changes the state), ``LegalActions._problem`` in ``engine.legal``
(when it is legal), ``engine.policies._RANDOM_DRAWS`` (how a random bot draws one) and
``server.play.convert.ACTION_FIELDS`` (its field of the protobuf ``Action``).
``tests/engine/test_engine_action_kinds.py`` and ``tests/server/test_server_wire_action_kinds.py`` fail
until every one of them handles it; ``docs/rules.md`` ("Adding an action kind") has the whole list.
"""
