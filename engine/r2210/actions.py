"""The decisions of a RISK 2210 A.D. game: phases, commanders, and one NamedTuple per kind of action."""

from __future__ import annotations

import enum
from typing import NamedTuple

from engine.r2210.board import Territory


class Phase(enum.IntEnum):
    """Where a 2210 game stands; ``GameState2210.asked`` says which seats decide in it."""

    SETUP_CLAIM = 0
    """004: "place one 1.0-MOD into any unoccupied Land territory that does not contain a Devastation
    Marker", one at a time, in turn."""
    SETUP_PLACE = 1
    """004: "Then place MODs, three at a time, into any territory under your control"."""
    SETUP_COMMANDERS = 2
    """004: "place, in turn order, your Land and Diplomat Commanders and a Space Station (at one time)"."""
    BID = 3
    """Every living seat at once: a secret bid of energy for turn order."""
    CHOOSE_MARKER = 4
    """In bid order, a seat picks a Turn Order marker."""
    DEPLOY = 5
    """Place this turn's recruited MODs."""
    BUY = 6
    """Hire Commanders, then build Space Stations, then buy Command cards (all at once, which ends it)."""
    INVADE = 7
    """Declare an invasion, or stop invading."""
    ROLL = 8
    """The declared invasion: how many dice, and which commanders roll 8-sided dice."""
    DEFEND = 9
    """The defender chooses its dice (rules option ``defender_dice="choose"``): asked of a seat that is
    not the one whose turn it is."""
    OCCUPY = 10
    """Move into the captured territory."""
    FORTIFY = 11
    """One move along a path of your territories, or end the turn."""
    GAME_OVER = 12
    BONUS_CARD = 13
    """The 3-territory bonus: take the top card of a deck whose Commander you have in play."""
    LOSSES = 14
    """Rules option ``choose_losses``: a side that lost units with a commander among them picks which
    (the attacker first, then the defender: a seat other than the one whose turn it is)."""
    REACT = 15
    """Between a ``Declare`` and its ``Roll``: a seat other than the attacker that can legally answer the
    invasion with a Command card (the defender first, then the others in turn order from the attacker's
    left) plays cards or passes (``EndPhase``); skipped when nobody can answer."""
    TURN_END = 16
    """After FORTIFY, when the turn seat holds an end-of-turn card it may play (Redeployment)."""
    GAME_END = 17
    """After year 5, before scoring: in turn order, each seat holding an end-of-game card it may play."""
    EXCHANGE = 18
    """Armageddon's nuclear exchange: in marker order, each seat that may play a Nuclear card plays them
    free (``PlayCard``) or passes (``EndPhase``); asked of seats other than the one whose turn it is."""
    REDUCE = 19
    """MOD Reduction: a seat chooses which of its MODs to remove (``Remove``); the opponents in turn order
    from the card's player's left, then the card's player."""
    DECOYS = 20
    """Decoys Revealed: the turn seat moves its commanders to territories it controls (``Fortify`` with no
    MODs), each commander once, until ``EndPhase``."""


class Commander(enum.IntEnum):
    LAND = 0
    DIPLOMAT = 1
    NAVAL = 2
    SPACE = 3
    NUCLEAR = 4


COMMANDERS = tuple(Commander)


class Claim(NamedTuple):
    territory: Territory


class Place(NamedTuple):
    territory: Territory
    mods: int


class PlaceCommanders(NamedTuple):
    """Setup: the Land Commander, the Diplomat and the Space Station, at one time."""

    land: Territory
    diplomat: Territory
    station: Territory


class Bid(NamedTuple):
    energy: int


class ChooseMarker(NamedTuple):
    marker: int
    """1 moves first."""


class Hire(NamedTuple):
    commander: Commander
    territory: Territory


class BuildStation(NamedTuple):
    territory: Territory


class BuyCards(NamedTuple):
    """Step 3 of a turn: how many cards to buy from each deck (Land, Diplomat, Naval, Space, Nuclear),
    chosen before looking at any of them."""

    counts: tuple[int, ...]


class TakeCard(NamedTuple):
    """The 3-territory bonus card: the top card of this deck (a ``Commander`` value)."""

    deck: Commander


class Declare(NamedTuple):
    """Declare an invasion of ``target`` from ``source`` (an empty target is taken without dice)."""

    source: Territory
    target: Territory


class Roll(NamedTuple):
    dice: int
    d8: tuple[Commander, ...] = ()
    """Commanders in the source that roll an 8-sided die (each replaces one of the ``dice``)."""


class Defend(NamedTuple):
    dice: int


class Lose(NamedTuple):
    """Which units a roll's losses remove: ``mods`` MODs and these commanders."""

    mods: int
    commanders: tuple[Commander, ...] = ()


class Remove(NamedTuple):
    """MOD Reduction: the MODs to remove, one territory per MOD (a territory named twice loses two)."""

    territories: tuple[Territory, ...]


class Occupy(NamedTuple):
    mods: int
    commanders: tuple[Commander, ...] = ()


class Fortify(NamedTuple):
    """A Fortify Position move; in DECOYS (Decoys Revealed) ``mods`` is 0 and the commanders move alone."""

    source: Territory
    target: Territory
    mods: int
    commanders: tuple[Commander, ...] = ()


class PlayCard(NamedTuple):
    """Play Command card ``card`` (an id in the seat's hand) on ``targets``: territories, a seat (Frequency
    Jam) or ``seat * 5 + commander`` (Assassin Bomb), as many as ``Legal2210.plays`` says."""

    card: int
    targets: tuple[int, ...] = ()


class EndPhase(NamedTuple):
    """End buying (BUY), invading (INVADE) or the turn without a move (FORTIFY); in REACT, TURN_END,
    GAME_END and EXCHANGE: play no (more) card; in DECOYS: move no more commanders."""


Action2210 = (
    Claim
    | Place
    | PlaceCommanders
    | Bid
    | ChooseMarker
    | Hire
    | BuildStation
    | BuyCards
    | TakeCard
    | Declare
    | Roll
    | Defend
    | Lose
    | Remove
    | Occupy
    | Fortify
    | PlayCard
    | EndPhase
)

ACTION_KINDS_2210: dict[str, type[Action2210]] = {
    "claim": Claim,
    "place": Place,
    "place_commanders": PlaceCommanders,
    "bid": Bid,
    "choose_marker": ChooseMarker,
    "hire": Hire,
    "build_station": BuildStation,
    "buy_cards": BuyCards,
    "take_card": TakeCard,
    "declare": Declare,
    "roll": Roll,
    "defend": Defend,
    "lose": Lose,
    "remove": Remove,
    "occupy": Occupy,
    "fortify": Fortify,
    "play_card": PlayCard,
    "end_phase": EndPhase,
}
