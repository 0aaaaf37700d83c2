"""A friendly view of LegalActions: the packed parallel arrays as small named tuples.

The SDK does not import the server's engine (bot authors copy this package on its own), so the safe
default below restates the server's timeout default from the protocol's point of view.
"""

from __future__ import annotations

from typing import NamedTuple

from conquest.v1 import game_pb2 as pb
from conquest_sdk import actions


class AttackOption(NamedTuple):
    source: int
    target: int
    max_dice: int
    """1..max_dice dice may be rolled."""
    source_armies: int
    """Armies on the source now; repeat_until must be below it."""


class FortifyOption(NamedTuple):
    source: int
    target: int
    max_armies: int
    """1..max_armies may move."""


class TradeOption(NamedTuple):
    cards: tuple[int, ...]
    """Three card ids, ascending."""
    bonus_territories: tuple[int, ...]
    """Your pictured territories that may get the +2 (empty: no bonus)."""


class Legal:
    """What the asked seat may do, read from a ``LegalActions`` message."""

    __slots__ = ("attacks", "fortifies", "message", "trades")

    def __init__(self, message: pb.LegalActions) -> None:
        self.message = message
        self.attacks = [
            AttackOption(*option)
            for option in zip(
                message.attack_sources,
                message.attack_targets,
                message.attack_max_dice,
                message.attack_source_armies,
                strict=True,
            )
        ]
        self.fortifies = [
            FortifyOption(*option)
            for option in zip(
                message.fortify_sources, message.fortify_targets, message.fortify_max_armies, strict=True
            )
        ]
        self.trades = [TradeOption(tuple(s.cards), tuple(s.bonus_territories)) for s in message.trades]

    @property
    def claim(self) -> list[int]:
        return list(self.message.claim)

    @property
    def place_territories(self) -> list[int]:
        return list(self.message.place_territories)

    @property
    def place_min(self) -> int:
        return self.message.place_min

    @property
    def place_max(self) -> int:
        return self.message.place_max

    @property
    def place_neutral(self) -> bool:
        """True when the placement asked for is the third army's: a neutral army (two-player setup) or
        the Allied Army's reinforcements (PHASE_ALLIED_REINFORCE); place_territories are then its
        territories."""
        return self.message.place_neutral

    @property
    def headquarters(self) -> list[int]:
        """PHASE_CHOOSE_HEADQUARTERS: the territories you may choose as headquarters."""
        return list(self.message.headquarters)

    @property
    def army(self) -> int:
        """Whose armies this decision commands: your seat, or the neutral/Allied Army's owner number
        (``Game.neutral``) when you place, attack, move in or defend for it."""
        return self.message.army

    @property
    def must_trade(self) -> bool:
        return self.message.must_trade

    @property
    def defend_max(self) -> int:
        return self.message.defend_max

    @property
    def occupy_min(self) -> int:
        return self.message.occupy_min

    @property
    def occupy_max(self) -> int:
        return self.message.occupy_max

    @property
    def can_end(self) -> bool:
        return self.message.can_end

    def default(self) -> pb.Action:
        """A safe legal action, the same one the server takes on a timeout: claim, choose headquarters or
        place on the first listed territory (all armies at once), trade the first set only when forced,
        end attacking, defend with the most dice, move in the minimum, no free move.

        Raises:
            ValueError: nothing is legal (no request should carry such legal actions).
        """
        m = self.message
        if m.claim:
            return actions.claim(m.claim[0])
        if m.headquarters:
            return actions.choose_headquarters(m.headquarters[0])
        if m.must_trade and self.trades:
            return actions.trade(self.trades[0].cards)
        if m.place_territories:
            return actions.place(m.place_territories[0], m.place_max)
        if m.defend_max:
            return actions.defend(m.defend_max)
        if m.occupy_max:
            return actions.occupy(m.occupy_min)
        if m.can_end:
            return actions.end_phase()
        raise ValueError(f"no action is legal: {m}")
