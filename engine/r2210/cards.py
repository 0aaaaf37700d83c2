"""The 100 Command cards as ids: cards 0..99, deck by deck (Commander order), copies side by side.

Built from ``engine.r2210.cards_data`` (generated from ``tests/reference/2210_command_cards.json``). A card's
id names one physical card; its kind (name, power-up cost, timing) is ``KINDS[KIND_OF[card]]``. Playing
them is ``engine.r2210.cardplay`` (when and on what) and ``engine.r2210.effects`` (what they do).
"""

from __future__ import annotations

from engine.r2210.actions import COMMANDERS
from engine.r2210.board import Kind
from engine.r2210.cards_data import CARD_KINDS, DECK_SIZES

KINDS = CARD_KINDS
KIND_OF: tuple[int, ...] = tuple(k for k, row in enumerate(CARD_KINDS) for _ in range(row[3]))
"""The kind of each card id."""
DECK_OF: tuple[int, ...] = tuple(CARD_KINDS[k][1] for k in KIND_OF)
"""The deck (a ``Commander`` value) of each card id."""
DECK_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c, d in enumerate(DECK_OF) if d == deck) for deck in COMMANDERS
)
"""Each deck's card ids, ascending (the order a deck is shuffled from)."""
MOST_BOUGHT = 4
"""004: "On each turn you may purchase up to four Command cards"."""

assert tuple(len(cards) for cards in DECK_CARDS) == DECK_SIZES, "the generated card counts disagree"


def card_name(card: int) -> str:
    return KINDS[KIND_OF[card]][2]


_DECK_PREFIX = ("land_", "diplomat_", "naval_", "space_", "nuclear_")
_SAME_EFFECT = {
    "land_death_trap": "death_trap",
    "water_death_trap": "death_trap",
    "orbital_mines": "death_trap",
    "the_mother": "zone_bomb",
    "aqua_brother": "zone_bomb",
    "nicky_boy": "zone_bomb",
}
_TERRAIN_SUFFIX = {"_land": Kind.LAND, "_water": Kind.WATER, "_moon": Kind.LUNAR}
_DECK_TERRAIN = {0: Kind.LAND, 2: Kind.WATER, 3: Kind.LUNAR}
_ZONE_TERRAIN = {"the_mother": Kind.LAND, "aqua_brother": Kind.WATER, "nicky_boy": Kind.LUNAR}


def _effect(key: str, deck: int) -> str:
    name = key.removeprefix(_DECK_PREFIX[deck])
    for suffix in _TERRAIN_SUFFIX:
        if deck == 4 and name.endswith(suffix):
            name = name.removesuffix(suffix)
    return _SAME_EFFECT.get(name, name)


def _terrain(key: str, deck: int) -> int:
    name = key.removeprefix(_DECK_PREFIX[deck])
    if deck == 4:
        for suffix, kind in _TERRAIN_SUFFIX.items():
            if name.endswith(suffix):
                return kind
        return _ZONE_TERRAIN.get(name, -1)
    return _DECK_TERRAIN.get(deck, -1)


EFFECT: tuple[str, ...] = tuple(_effect(row[0], row[1]) for row in KINDS)
"""Each kind's effect ("assemble_mods", "death_trap", "rocket_strike", ...): copies across decks share one."""
TERRAIN: tuple[int, ...] = tuple(_terrain(row[0], row[1]) for row in KINDS)
"""The territory kind (a ``Kind``) each card kind works on: its deck's for Land, Naval and Space cards,
its name's for Nuclear ones (-1: any, Diplomat cards, Armageddon, Assassin Bomb)."""
