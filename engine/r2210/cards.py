"""The 100 Command cards as ids: cards 0..99, deck by deck (Commander order), copies side by side.

Built from ``engine.r2210.cards_data`` (generated from ``shared/rules/2210_command_cards.json``). A card's
id names one physical card; its kind (name, power-up cost, timing) is ``KINDS[KIND_OF[card]]``. Playing
cards comes in a later step; buying them, holding them and the 3-territory bonus card are here.
"""

from __future__ import annotations

from engine.r2210.actions import COMMANDERS
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
