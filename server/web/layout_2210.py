"""Where the dashboard draws each territory of the RISK 2210 A.D. board: a schematic, not the printed map.

The Earth's 42 land territories stand where their classic equivalents (``engine.r2210.board_data``) stand
on the classic board's layout (``engine.classic_map``), on its 1000 x 560 canvas with room below for the
oceans. The 13 water territories are placed by hand in the ocean
beside the coasts they border (``tests/reference/2210_board.json``, ``water_territory_coasts``); the 14 lunar
territories on a disc of their own, the Moon, each colony on its side (Cresinion west, Delphot north-east,
Sajon south), roughly as on the Moon's near side.
"""

from __future__ import annotations

from typing import Any

from engine.classic_map import CLASSIC
from engine.r2210 import board_data

EARTH_SIZE = (1000, 580)
"""Width and height of the Earth's canvas."""
MOON_SIZE = (420, 420)
"""Width and height of the Moon's canvas (the disc fills it)."""

WATER = {
    "poseidon": (50, 200),
    "hawaiian_preserve": (45, 300),
    "new_atlantis": (125, 385),
    "western_ireland": (350, 195),
    "new_york": (318, 258),
    "nova_brasilia": (378, 330),
    "neo_paulo": (360, 450),
    "the_ivory_reef": (435, 410),
    "south_ceylon": (700, 378),
    "microcorp": (705, 462),
    "akara": (770, 540),
    "neo_tokyo": (960, 272),
    "sung_tzu": (890, 322),
}
"""Water territories by key: in the ocean beside their coasts."""

LUNAR = {
    "harpalus": (150, 58),
    "bay_of_dew": (72, 125),
    "sea_of_rains": (172, 132),
    "ocean_of_storms": (115, 215),
    "aristotle": (255, 62),
    "sea_of_serenity": (292, 140),
    "sea_of_crisis": (365, 170),
    "sea_of_nectar": (322, 250),
    "rhaeticus": (218, 208),
    "sea_of_clouds": (168, 290),
    "byrgius": (62, 290),
    "marsh_of_diseases": (112, 362),
    "straight_wall": (262, 318),
    "tycho": (198, 375),
}
"""Lunar territories by key, on the Moon's canvas."""


LABELS = {"sajon": (238, 402)}
"""Where a region's name goes when the top left corner of its members is taken (Sajon's is in Cresinion)."""


def _classic_positions() -> dict[str, tuple[int, int]]:
    """Each land territory's classic equivalent's place on the classic layout, by 2210 key."""
    classic = {t.name: (t.x, t.y) for t in CLASSIC.territories}
    return {row[0]: classic[row[5]] for row in board_data.TERRITORIES if row[2] == "land"}


def layout_2210() -> dict[str, Any]:
    """The drawing's canvases and every territory's place by id (``Map2210.territories`` order):
    ``{"earth": {"width", "height"}, "moon": {...}, "positions": [[x, y], ...], "labels": [...]}``; a
    lunar territory's place is on the Moon's canvas, the others' on the Earth's; ``labels`` has each
    region's name's place by region index (``Map2210.regions``), or None for the top left corner of its
    members."""
    places = {**_classic_positions(), **WATER, **LUNAR}
    return {
        "earth": {"width": EARTH_SIZE[0], "height": EARTH_SIZE[1]},
        "moon": {"width": MOON_SIZE[0], "height": MOON_SIZE[1]},
        "positions": [list(places[row[0]]) for row in board_data.TERRITORIES],
        "labels": [list(LABELS[row[0]]) if row[0] in LABELS else None for row in board_data.REGIONS],
    }


LAYOUT_2210 = layout_2210()
"""The layout, computed once."""
