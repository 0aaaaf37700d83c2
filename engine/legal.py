"""Legal actions: compact ranges, never one entry per army count; the one source of truth for legality.

``GameState.legal_actions()`` builds a ``LegalActions``; ``LegalActions.check(action)`` is what validation,
the protocol's rejection messages, the timeout default and the sample bots all rely on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.board import Territory
from engine.errors import IllegalActionError, MalformedActionError


class AttackOption(NamedTuple):
    source: Territory
    target: Territory
    max_dice: int
    """1..max_dice dice may be rolled (source armies - 1, at most 3)."""
    source_armies: int
    """Armies on the source now; ``repeat_until`` must be below it."""


class FortifyOption(NamedTuple):
    source: Territory
    targets: tuple[Territory, ...]
    max_armies: int
    """1..max_armies may move (source armies - 1)."""


_ACTION_TYPES = (
    Claim,
    Place,
    TradeCards,
    Attack,
    ChooseDefence,
    Occupy,
    Fortify,
    EndPhase,
    ChooseHeadquarters,
)
"""Every action type, built once: ``Claim | Place | ...`` in the check would build a union per decision."""


@dataclass(slots=True)
class LegalActions:
    """What ``seat`` may do now. Fields that do not apply to ``phase`` stay empty. Treat it as read-only:
    it is not frozen because one is built for every decision, and a frozen dataclass sets each of its
    twenty fields through ``object.__setattr__`` (2.9 us a build against 1.0 us)."""

    phase: Phase
    seat: int
    claim: tuple[Territory, ...] = ()
    place_territories: tuple[Territory, ...] = ()
    place_min: int = 0
    place_max: int = 0
    place_neutral: bool = False
    """The armies placed are the third army's: the neutral's (two-player setup) or the Allied Army's."""
    trades: tuple[tuple[int, int, int], ...] = ()
    """Every set of three card ids in hand that may be traded now."""
    bonus_territories: tuple[tuple[Territory, ...], ...] = ()
    """For each entry of ``trades``: the pictured territories that would get the +2 (empty: none)."""
    must_trade: bool = False
    attacks: tuple[AttackOption, ...] = ()
    defend_max: int = 0
    occupy_min: int = 0
    occupy_max: int = 0
    fortify: tuple[FortifyOption, ...] = ()
    can_end: bool = False
    """EndPhase is legal (end attacking, or end the turn without a free move)."""
    headquarters: tuple[Territory, ...] = ()
    """Capital Risk: the territories that may be chosen as headquarters."""
    army: int = -1
    """Whose armies the action commands when they are not ``seat``'s own: the third army's owner number
    (neutral placements in the two-player setup; the Allied Army's placement, attacks and move-ins; the
    defence of a neutral or Allied territory). -1: the seat's own."""

    def __contains__(self, action: object) -> bool:
        try:
            self.check(action)
        except (IllegalActionError, MalformedActionError):
            return False
        return True

    def is_empty(self) -> bool:
        return not (
            self.claim
            or self.place_territories
            or self.trades
            or self.attacks
            or self.defend_max
            or self.occupy_max
            or self.fortify
            or self.can_end
            or self.headquarters
        )

    def check(self, action: object) -> None:
        """Raise unless ``action`` is legal here.

        Raises:
            MalformedActionError: not an action, or fields of the wrong type.
            IllegalActionError: an action that breaks the rules now; the message says what is legal.
        """
        self.check_legal(self.check_form(action))

    def check_form(self, action: object) -> Action:
        """``action``, checked to be an action whose fields are whole numbers (or tuples of them): before
        anything reads a field, since the compiled engine (mypyc) reads each as the type it declares.

        Raises:
            MalformedActionError: not an action, or fields of the wrong type.
        """
        if not isinstance(action, _ACTION_TYPES):
            raise MalformedActionError(f"{action!r} is not an action; legal now: {self.describe()}")
        fields = tuple(action)  # plain values: mypyc cannot iterate the union of NamedTuples
        for value in fields:
            if not _is_whole(value) and not (isinstance(value, tuple) and all(_is_whole(v) for v in value)):
                raise MalformedActionError(f"{_name(action)} has a field that is not a whole number")
        if isinstance(action, TradeCards) and not (isinstance(fields[0], tuple) and len(fields[0]) == 3):
            raise MalformedActionError(f"{_name(action)}: a card set is three card ids")
        return action

    def check_legal(self, action: Action) -> None:
        """Raise unless the well-formed ``action`` (see ``check_form``) is legal here.

        Raises:
            IllegalActionError: an action that breaks the rules now; the message says what is legal.
        """
        problem = self._problem(action)
        if problem:
            raise IllegalActionError(f"{_name(action)} is illegal in {self.phase.name}: {problem}")

    def _problem(self, action: Action) -> str:
        if isinstance(action, Claim):
            if not self.claim:
                return f"claiming is not possible now; legal now: {self.describe()}"
            if action.territory not in self.claim:
                return f"territory {action.territory} is not an unclaimed territory ({_ids(self.claim)})"
            return ""
        if isinstance(action, ChooseHeadquarters):
            if not self.headquarters:
                return f"choosing headquarters is not possible now; legal now: {self.describe()}"
            if action.territory not in self.headquarters:
                return f"territory {action.territory} is not one of yours ({_ids(self.headquarters)})"
            return ""
        if isinstance(action, Place):
            if not self.place_territories:
                why = "trade a card set first (you hold too many cards)" if self.must_trade else ""
                return why or f"placing is not possible now; legal now: {self.describe()}"
            if action.territory not in self.place_territories:
                allowed = _ids(self.place_territories)
                return f"territory {action.territory} is not one you may place on ({allowed})"
            if not self.place_min <= action.armies <= self.place_max:
                return f"armies must be between {self.place_min} and {self.place_max}, not {action.armies}"
            return ""
        if isinstance(action, TradeCards):
            if not self.trades:
                return f"no card set may be traded now; legal now: {self.describe()}"
            cards = tuple(sorted(action.cards))
            if len(action.cards) != 3 or cards not in self.trades:
                return f"cards {list(action.cards)} are not a set you may trade; sets: {list(self.trades)}"
            bonus = self.bonus_territories[self.trades.index(cards)]
            if action.bonus_territory != -1 and action.bonus_territory not in bonus:
                return f"bonus territory {action.bonus_territory} must be -1 or one of {list(bonus)}"
            return ""
        if isinstance(action, Attack):
            for option in self.attacks:
                if option.source == action.source and option.target == action.target:
                    if not 1 <= action.dice <= option.max_dice:
                        return f"dice must be between 1 and {option.max_dice}, not {action.dice}"
                    if not 0 <= action.repeat_until < option.source_armies:
                        most = option.source_armies - 1
                        return (
                            f"repeat_until must be 0 (one roll) or 1..{most} (roll on until the source "
                            f"is down to that many armies), not {action.repeat_until}"
                        )
                    return ""
            if not self.attacks:
                return f"attacking is not possible now; legal now: {self.describe()}"
            return f"no attack from {action.source} to {action.target}; attacks: {_attacks(self.attacks)}"
        if isinstance(action, ChooseDefence):
            if not self.defend_max:
                return f"there is no attack to defend; legal now: {self.describe()}"
            if not 1 <= action.dice <= self.defend_max:
                return f"defence dice must be between 1 and {self.defend_max}, not {action.dice}"
            return ""
        if isinstance(action, Occupy):
            if not self.occupy_max:
                return f"there is no captured territory to move into; legal now: {self.describe()}"
            if not self.occupy_min <= action.armies <= self.occupy_max:
                return f"move in between {self.occupy_min} and {self.occupy_max} armies, not {action.armies}"
            return ""
        if isinstance(action, Fortify):
            for f in self.fortify:
                if f.source == action.source and action.target in f.targets:
                    if not 1 <= action.armies <= f.max_armies:
                        return f"move between 1 and {f.max_armies} armies, not {action.armies}"
                    return ""
            if not self.fortify:
                return f"no free move is possible now; legal now: {self.describe()}"
            return f"no free move from {action.source} to {action.target}; moves: {_fortifies(self.fortify)}"
        if not self.can_end:
            return f"there is no optional phase to end in {self.phase.name}; legal now: {self.describe()}"
        return ""

    def describe(self) -> str:
        """A short plain-words summary of what is legal, for error messages."""
        parts: list[str] = []
        if self.claim:
            parts.append(f"claim one of {_ids(self.claim)}")
        if self.headquarters:
            parts.append(f"choose headquarters among {_ids(self.headquarters)}")
        if self.trades:
            shown = ", ".join(str(list(t)) for t in self.trades[:6])
            more = f" and {len(self.trades) - 6} more" if len(self.trades) > 6 else ""
            parts.append(("must trade" if self.must_trade else "trade") + f" one of {shown}{more}")
        if self.place_territories:
            parts.append(f"place {self.place_min}..{self.place_max} on one of {_ids(self.place_territories)}")
        if self.attacks:
            parts.append(f"attack {_attacks(self.attacks)}")
        if self.defend_max:
            parts.append(f"defend with 1..{self.defend_max} dice")
        if self.occupy_max:
            parts.append(f"occupy with {self.occupy_min}..{self.occupy_max} armies")
        if self.fortify:
            parts.append(f"fortify {_fortifies(self.fortify)}")
        if self.can_end:
            parts.append("end the phase")
        return "; ".join(parts) or "nothing (the game is over or another seat is to act)"


def check_well_formed(action: Action, territories: int, cards: int) -> None:
    """Raise unless every id in ``action`` exists on a board of ``territories`` and ``cards``.

    Raises:
        MalformedActionError: a territory id outside 0..territories-1, or a card set that is not three
            card ids in 0..cards-1; the message gives the valid range.
    """
    ids: tuple[int, ...] = ()
    if isinstance(action, _ONE_TERRITORY):
        ids = (action.territory,)
    elif isinstance(action, _TWO_TERRITORIES):
        ids = (action.source, action.target)
    elif isinstance(action, TradeCards):
        if action.bonus_territory != -1:
            ids = (action.bonus_territory,)
        if len(action.cards) != 3 or not all(_is_whole(c) and 0 <= c < cards for c in action.cards):
            raise MalformedActionError(
                f"{_name(action)}: a card set is three card ids in 0..{cards - 1}, got {list(action.cards)}"
            )
    for t in ids:
        if not _is_whole(t) or not 0 <= t < territories:
            raise MalformedActionError(f"{_name(action)}: territory ids are 0..{territories - 1}, got {t!r}")


_ONE_TERRITORY = (Claim, Place, ChooseHeadquarters)
_TWO_TERRITORIES = (Attack, Fortify)
"""Tuples, not unions (``A | B`` builds a union object per call, and this runs for every decision)."""


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(action: Action) -> str:
    return f"{type(action).__name__}({', '.join(str(v) for v in tuple(action))})"


def _ids(ids: tuple[int, ...]) -> str:
    shown = ", ".join(str(i) for i in ids[:12])
    return f"[{shown}{', ...' if len(ids) > 12 else ''}]"


def _attacks(options: tuple[AttackOption, ...]) -> str:
    shown = ", ".join(f"{o.source}->{o.target} (1..{o.max_dice} dice)" for o in options[:8])
    return shown + (f" and {len(options) - 8} more" if len(options) > 8 else "")


def _fortifies(options: tuple[FortifyOption, ...]) -> str:
    shown = ", ".join(f"{o.source}->{list(o.targets)} (1..{o.max_armies})" for o in options[:6])
    return shown + (f" and {len(options) - 6} more" if len(options) > 6 else "")


def default_action(legal: LegalActions) -> Action:
    """The deterministic legal action taken for a seat that timed out or forfeited.

    Passive and minimal: claim, choose headquarters or place on the lowest listed territory (all armies at
    once), trade the first set only when forced, end attacking, defend with the most dice, move in the
    minimum, no free move.

    Raises:
        IllegalActionError: nothing is legal (the game is over).
    """
    if legal.claim:
        return Claim(legal.claim[0])
    if legal.headquarters:
        return ChooseHeadquarters(legal.headquarters[0])
    if legal.must_trade and legal.trades:
        return TradeCards(legal.trades[0])
    if legal.place_territories:
        return Place(legal.place_territories[0], legal.place_max)
    if legal.defend_max:
        return ChooseDefence(legal.defend_max)
    if legal.occupy_max:
        return Occupy(legal.occupy_min)
    if legal.can_end:
        return EndPhase()
    raise IllegalActionError(f"no action is legal in {legal.phase.name}")
