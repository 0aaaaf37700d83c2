"""Rules presets: each a frozen set of options named after what it is.

Where the rulebooks leave a point open, the option names the choice; ``docs/rules.md`` says why.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from engine.errors import RulesConfigError


class SetupMode(enum.StrEnum):
    CLAIM = "claim"
    """As written: claim empty territories one at a time, then place one army at a time."""
    DEALT = "dealt"
    """Territories dealt at random (one army each), then armies placed one at a time."""
    NEUTRAL_PILES = "neutral_piles"
    """Two-player game: 3 piles of 14 cards, one for a neutral army; place 2 own + 1 neutral per turn."""
    ALLIED_CLAIM = "allied_claim"
    """Two-player game of 001: claim in turn until each holds a third of the board, the rest go to the
    Allied Army with 2 armies each, then place one army at a time."""


class FortifyMode(enum.StrEnum):
    ADJACENT = "adjacent"
    """Classic: one move between two adjacent territories."""
    CONNECTED = "connected"
    """Later editions: one move along a chain of your own territories."""


class DefenderDice(enum.StrEnum):
    MAX = "max"
    """The defender always rolls as many dice as allowed (fast: no extra decision)."""
    CHOOSE = "choose"
    """The defending seat decides (the opponent decides for a neutral territory)."""


class Objective(enum.StrEnum):
    """How the game is won (eliminating everyone else always wins too)."""

    CONQUEST = "conquest"
    """World domination: eliminate every other player."""
    HEADQUARTERS = "headquarters"
    """Capital Risk (000): hold every opposing headquarters (or the shortened goal) and your own."""
    MISSIONS = "missions"
    """Secret Mission Risk: complete the mission card dealt to you."""


class CapitalGoal(enum.StrEnum):
    ALL = "all"
    """000: "To capture all opposing Headquarters-while still controlling your own territory.\""""
    SHORTENED = "shortened"
    """000: "4 players: Capture any 2 opposing Headquarters ... 5 or 6 players: ... any 3"."""


class TerritoryBonus(enum.StrEnum):
    ONCE_PER_TURN = "once_per_turn"
    """Classic text: no more than 2 extra armies on a single turn."""
    PER_SET = "per_set"
    """Older text: +2 for each traded set that pictures a territory you hold."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of one rule set. Build from a preset with ``preset(name, **overrides)``."""

    name: str
    setup: SetupMode = SetupMode.CLAIM
    neutral: bool = False
    """A third army (owner index ``seats``) owns territories in a two-player game: the neutral army, which
    defends and never acts, or with ``allied_army`` the Allied Army of 001."""
    allied_army: bool = False
    """The third army is 001's Allied Army: each turn it gets half the active player's armies, placed and
    commanded (attacks on the active player only) by the opponent; no cards, no free move."""
    starting_armies: tuple[tuple[int, int], ...] = ((3, 35), (4, 30), (5, 25), (6, 20))
    """(players, armies each) pairs; the two-player neutral game gives 40 to each of the three."""
    trade_values: tuple[int, ...] = (4, 6, 8, 10, 12, 15)
    trade_increment: int = 5
    """Each set after those in ``trade_values`` is worth this much more than the one before."""
    forced_trade_at: int = 5
    """Holding this many cards at the start of a turn forces a trade."""
    elimination_trade_at: int = 6
    """Holding this many after taking an eliminated player's cards forces trading at once..."""
    elimination_trade_down_to: int = 4
    """...until the hand is this size or smaller."""
    elimination_extra_trades: bool = False
    """001: further sets may still be traded once the hand is down to that size (000: "you must stop")."""
    territory_bonus: int = 2
    territory_bonus_mode: TerritoryBonus = TerritoryBonus.ONCE_PER_TURN
    fortify: FortifyMode = FortifyMode.ADJACENT
    defender_dice: DefenderDice = DefenderDice.MAX
    turn_cap: int = 500
    """The game ends after this many turns (all seats' turns counted); 0 means no cap."""
    objective: Objective = Objective.CONQUEST
    capital_goal: CapitalGoal = CapitalGoal.ALL
    """Capital Risk: every opposing headquarters, or the shortened goal (4 players: 2; 5-6: 3)."""
    three_continent_missions: bool = False
    """Secret Mission Risk: add the two three-continent missions of the 14-card editions."""

    def starting_armies_for(self, players: int) -> int:
        for count, armies in self.starting_armies:
            if count == players:
                return armies
        allowed = ", ".join(str(c) for c, _ in self.starting_armies)
        raise RulesConfigError(f"rules {self.name!r} are for {allowed} players, not {players}")

    def player_counts(self) -> tuple[int, ...]:
        return tuple(c for c, _ in self.starting_armies)

    def trade_value(self, trades_done: int) -> int:
        """Armies for the next set when ``trades_done`` sets were traded before it, by anyone."""
        if trades_done < len(self.trade_values):
            return self.trade_values[trades_done]
        return self.trade_values[-1] + self.trade_increment * (trades_done - len(self.trade_values) + 1)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = [list(p) for p in value] if f.name == "starting_armies" else value
        out["trade_values"] = list(self.trade_values)
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules:
        """Rebuild rules from ``to_dict`` output (as stored in a replay).

        Raises:
            RulesConfigError: an unknown option or a value of the wrong kind.
        """
        name = data.get("name")
        if not isinstance(name, str):
            raise RulesConfigError("rules need a 'name' (a preset name such as 'classic')")
        overrides = {k: v for k, v in data.items() if k != "name"}
        base = PRESETS.get(name, Rules(name=name))
        return _with_options(dataclasses.replace(base, name=name), overrides)


_ENUM_OPTIONS: dict[str, type[enum.StrEnum]] = {
    "setup": SetupMode,
    "fortify": FortifyMode,
    "defender_dice": DefenderDice,
    "territory_bonus_mode": TerritoryBonus,
    "objective": Objective,
    "capital_goal": CapitalGoal,
}
_BOOL_OPTIONS = frozenset(
    f.name
    for f in dataclasses.fields(Rules)
    if f.type in ("bool", bool)  # compiled (mypyc): the type itself
)


def _with_options(rules: Rules, options: dict[str, Any]) -> Rules:
    known = {f.name: f for f in dataclasses.fields(Rules)}
    converted: dict[str, Any] = {}
    for key, value in options.items():
        if key not in known or key == "name":
            raise RulesConfigError(
                f"unknown rules option {key!r}; options are: {', '.join(sorted(set(known) - {'name'}))}"
            )
        if key in _ENUM_OPTIONS:
            kind = _ENUM_OPTIONS[key]
            try:
                value = kind(value)
            except ValueError:
                allowed = ", ".join(m.value for m in kind)
                raise RulesConfigError(f"rules option {key}={value!r} is not one of: {allowed}") from None
        elif key == "starting_armies":
            value = tuple((int(c), int(a)) for c, a in value)
        elif key == "trade_values":
            value = tuple(int(v) for v in value)
        elif key in _BOOL_OPTIONS:
            if not isinstance(value, bool):
                raise RulesConfigError(f"rules option {key}={value!r} must be true or false")
        elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RulesConfigError(f"rules option {key}={value!r} must be a whole number >= 0")
        converted[key] = value
    result = dataclasses.replace(rules, **converted)
    if result.neutral != (result.setup in (SetupMode.NEUTRAL_PILES, SetupMode.ALLIED_CLAIM)):
        raise RulesConfigError(
            "a neutral army goes with setup='neutral_piles' or 'allied_claim' and only with them"
        )
    if result.allied_army != (result.setup == SetupMode.ALLIED_CLAIM):
        raise RulesConfigError("the Allied Army goes with setup='allied_claim' and only with it")
    if result.neutral and result.objective != Objective.CONQUEST:
        raise RulesConfigError(
            f"objective={result.objective.value!r} is for 3-6 players; "
            "the two-player games are won by conquest"
        )
    return result


CLASSIC = Rules(name="classic")
CLASSIC_DEALT = Rules(name="classic_dealt", setup=SetupMode.DEALT)
CLASSIC_TWO_PLAYER = Rules(
    name="classic_two_player",
    setup=SetupMode.NEUTRAL_PILES,
    neutral=True,
    starting_armies=((2, 40),),
)

OLDER_EDITION = Rules(
    name="older_edition",
    territory_bonus_mode=TerritoryBonus.PER_SET,
    elimination_extra_trades=True,
)
"""001's wording of the same game (docs/rules.md lists the differences)."""
CAPITAL = Rules(name="capital", objective=Objective.HEADQUARTERS)
SECRET_MISSION = Rules(name="secret_mission", setup=SetupMode.DEALT, objective=Objective.MISSIONS)
ALLIED_TWO_PLAYER = Rules(
    name="allied_two_player",
    setup=SetupMode.ALLIED_CLAIM,
    neutral=True,
    allied_army=True,
    starting_armies=((2, 40),),
    territory_bonus_mode=TerritoryBonus.PER_SET,
    elimination_extra_trades=True,
)
"""001's two-player game, played "according to the traditional rules" of 001."""

PRESETS: dict[str, Rules] = {
    r.name: r
    for r in (
        CLASSIC,
        CLASSIC_DEALT,
        CLASSIC_TWO_PLAYER,
        OLDER_EDITION,
        CAPITAL,
        SECRET_MISSION,
        ALLIED_TWO_PLAYER,
    )
}


def preset(name: str, **options: Any) -> Rules:
    """A named preset, with options changed.

    Raises:
        RulesConfigError: no such preset, or an option that does not exist or has a bad value.
    """
    if name not in PRESETS:
        raise RulesConfigError(f"no rules preset {name!r}; presets are: {', '.join(sorted(PRESETS))}")
    return _with_options(PRESETS[name], options)
