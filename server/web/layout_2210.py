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
    "the_ivory_reef": (440, 420),
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


LABELS = {
    "south_america": (211, 514),
    "europe": (391, 52),
    "australia": (800, 524),
    "us_pacific": (2, 346),
    "north_atlantic": (330, 374),
    "south_atlantic": (322, 494),
    "indian": (674, 506),
    "asia_pacific": (866, 232),
    "delphot": (306, 100),
    "sajon": (238, 402),
}
"""Where a region's name goes (its text's start, on its baseline) when the top left corner of its members
is taken by a territory, a name, or a territory's commanders or Space Station (Sajon's is in Cresinion);
a continent's box grows to hold its name, an ocean's name goes in open water beside its territories."""

NAME_LINES = {
    "republique_du_quebec": ("Republique", "du Quebec"),
    "australian_testing_ground": ("Australian", "Testing Ground"),
    "ministry_of_djibouti": ("Ministry of", "Djibouti"),
    "northwestern_oil_emirate": ("Northwestern", "Oil Emirate"),
}
"""Territory names written on two lines, by key: on one line they ran into their neighbours' (issue 32:
"2210 board labels overlap ('Canad…/Republique du Quebec', 'North Atlantic +2')")."""


def _classic_positions() -> dict[str, tuple[int, int]]:
    """Each land territory's classic equivalent's place on the classic layout, by 2210 key."""
    classic = {t.name: (t.x, t.y) for t in CLASSIC.territories}
    return {row[0]: classic[row[5]] for row in board_data.TERRITORIES if row[2] == "land"}


def layout_2210() -> dict[str, Any]:
    """The drawing's canvases and every territory's place by id (``Map2210.territories`` order):
    ``{"earth": {"width", "height"}, "moon": {...}, "positions": [[x, y], ...], "labels": [...],
    "names": [...]}``; a lunar territory's place is on the Moon's canvas, the others' on the Earth's;
    ``labels`` has each region's name's place by region index (``Map2210.regions``), or None for the top
    left corner of its members; ``names`` each territory's name as the lines it is written on, below it.
    The places keep every name clear of the others and of the territories (the dashboard's browser test
    ``test_no_two_labels_of_the_2210_board_overlap`` measures them as drawn)."""
    places = {**_classic_positions(), **WATER, **LUNAR}
    return {
        "earth": {"width": EARTH_SIZE[0], "height": EARTH_SIZE[1]},
        "moon": {"width": MOON_SIZE[0], "height": MOON_SIZE[1]},
        "positions": [list(places[row[0]]) for row in board_data.TERRITORIES],
        "labels": [list(LABELS[row[0]]) if row[0] in LABELS else None for row in board_data.REGIONS],
        "names": [list(NAME_LINES.get(row[0], (row[1],))) for row in board_data.TERRITORIES],
    }


LAYOUT_2210 = layout_2210()
"""The layout, computed once."""
