"""The classic board as data: 42 territories, 6 continents, 83 borders.

Ids are the order below (continent by continent); every array in the engine is indexed by them.
Reference facts: ``tests/reference/classic_map.json`` (a test checks this module against it).
Layout coordinates are on a 1000 x 560 canvas, roughly where each territory sits on the printed board.
"""

from engine.board import Board, CardDesign, ContinentSpec, TerritorySpec

INF, CAV, ART = CardDesign.INFANTRY, CardDesign.CAVALRY, CardDesign.ARTILLERY

_TERRITORIES = (
    TerritorySpec("Alaska", 0, INF, 55, 75),  # 0
    TerritorySpec("Northwest Territory", 0, ART, 150, 80),  # 1
    TerritorySpec("Alberta", 0, INF, 140, 135),  # 2
    TerritorySpec("Western United States", 0, INF, 145, 200),  # 3
    TerritorySpec("Central America", 0, CAV, 160, 275),  # 4
    TerritorySpec("Greenland", 0, CAV, 330, 45),  # 5
    TerritorySpec("Ontario", 0, CAV, 215, 140),  # 6
    TerritorySpec("Quebec", 0, ART, 285, 140),  # 7
    TerritorySpec("Eastern United States", 0, ART, 230, 215),  # 8
    TerritorySpec("Venezuela", 1, ART, 235, 320),  # 9
    TerritorySpec("Peru", 1, CAV, 240, 390),  # 10
    TerritorySpec("Brazil", 1, ART, 305, 370),  # 11
    TerritorySpec("Argentina", 1, INF, 255, 470),  # 12
    TerritorySpec("Iceland", 2, INF, 420, 95),  # 13
    TerritorySpec("Scandinavia", 2, ART, 500, 85),  # 14
    TerritorySpec("Ukraine", 2, ART, 580, 130),  # 15
    TerritorySpec("Great Britain", 2, CAV, 415, 160),  # 16
    TerritorySpec("Northern Europe", 2, CAV, 495, 160),  # 17
    TerritorySpec("Western Europe", 2, INF, 425, 235),  # 18
    TerritorySpec("Southern Europe", 2, CAV, 515, 220),  # 19
    TerritorySpec("North Africa", 3, INF, 450, 320),  # 20
    TerritorySpec("Egypt", 3, INF, 540, 295),  # 21
    TerritorySpec("Congo", 3, CAV, 530, 400),  # 22
    TerritorySpec("East Africa", 3, ART, 590, 370),  # 23
    TerritorySpec("South Africa", 3, ART, 545, 480),  # 24
    TerritorySpec("Madagascar", 3, INF, 635, 470),  # 25
    TerritorySpec("Siberia", 4, ART, 745, 75),  # 26
    TerritorySpec("Ural", 4, CAV, 680, 110),  # 27
    TerritorySpec("China", 4, CAV, 790, 235),  # 28
    TerritorySpec("Afghanistan", 4, INF, 665, 185),  # 29
    TerritorySpec("Middle East", 4, ART, 615, 265),  # 30
    TerritorySpec("India", 4, INF, 715, 290),  # 31
    TerritorySpec("Siam", 4, ART, 805, 310),  # 32
    TerritorySpec("Yakutsk", 4, CAV, 835, 60),  # 33
    TerritorySpec("Irkutsk", 4, INF, 820, 125),  # 34
    TerritorySpec("Mongolia", 4, ART, 840, 180),  # 35
    TerritorySpec("Japan", 4, INF, 945, 185),  # 36
    TerritorySpec("Kamchatka", 4, CAV, 925, 75),  # 37
    TerritorySpec("Indonesia", 5, CAV, 810, 400),  # 38
    TerritorySpec("New Guinea", 5, CAV, 905, 385),  # 39
    TerritorySpec("Western Australia", 5, ART, 840, 480),  # 40
    TerritorySpec("Eastern Australia", 5, INF, 930, 470),  # 41
)

_CONTINENTS = (
    ContinentSpec("North America", 5),
    ContinentSpec("South America", 2),
    ContinentSpec("Europe", 5),
    ContinentSpec("Africa", 3),
    ContinentSpec("Asia", 7),
    ContinentSpec("Australia", 2),
)

# Borders by name, including the sea lines (Alaska-Kamchatka, Brazil-North Africa, Greenland-Iceland, ...).
_BORDERS = (
    ("Afghanistan", "China"),
    ("Afghanistan", "India"),
    ("Afghanistan", "Middle East"),
    ("Afghanistan", "Ukraine"),
    ("Afghanistan", "Ural"),
    ("Alaska", "Alberta"),
    ("Alaska", "Kamchatka"),
    ("Alaska", "Northwest Territory"),
    ("Alberta", "Northwest Territory"),
    ("Alberta", "Ontario"),
    ("Alberta", "Western United States"),
    ("Argentina", "Brazil"),
    ("Argentina", "Peru"),
    ("Brazil", "North Africa"),
    ("Brazil", "Peru"),
    ("Brazil", "Venezuela"),
    ("Central America", "Eastern United States"),
    ("Central America", "Venezuela"),
    ("Central America", "Western United States"),
    ("China", "India"),
    ("China", "Mongolia"),
    ("China", "Siam"),
    ("China", "Siberia"),
    ("China", "Ural"),
    ("Congo", "East Africa"),
    ("Congo", "North Africa"),
    ("Congo", "South Africa"),
    ("East Africa", "Egypt"),
    ("East Africa", "Madagascar"),
    ("East Africa", "Middle East"),
    ("East Africa", "North Africa"),
    ("East Africa", "South Africa"),
    ("Eastern Australia", "New Guinea"),
    ("Eastern Australia", "Western Australia"),
    ("Eastern United States", "Ontario"),
    ("Eastern United States", "Quebec"),
    ("Eastern United States", "Western United States"),
    ("Egypt", "Middle East"),
    ("Egypt", "North Africa"),
    ("Egypt", "Southern Europe"),
    ("Great Britain", "Iceland"),
    ("Great Britain", "Northern Europe"),
    ("Great Britain", "Scandinavia"),
    ("Great Britain", "Western Europe"),
    ("Greenland", "Iceland"),
    ("Greenland", "Northwest Territory"),
    ("Greenland", "Ontario"),
    ("Greenland", "Quebec"),
    ("Iceland", "Scandinavia"),
    ("India", "Middle East"),
    ("India", "Siam"),
    ("Indonesia", "New Guinea"),
    ("Indonesia", "Siam"),
    ("Indonesia", "Western Australia"),
    ("Irkutsk", "Kamchatka"),
    ("Irkutsk", "Mongolia"),
    ("Irkutsk", "Siberia"),
    ("Irkutsk", "Yakutsk"),
    ("Japan", "Kamchatka"),
    ("Japan", "Mongolia"),
    ("Kamchatka", "Mongolia"),
    ("Kamchatka", "Yakutsk"),
    ("Madagascar", "South Africa"),
    ("Middle East", "Southern Europe"),
    ("Middle East", "Ukraine"),
    ("Mongolia", "Siberia"),
    ("New Guinea", "Western Australia"),
    ("North Africa", "Southern Europe"),
    ("North Africa", "Western Europe"),
    ("Northern Europe", "Scandinavia"),
    ("Northern Europe", "Southern Europe"),
    ("Northern Europe", "Ukraine"),
    ("Northern Europe", "Western Europe"),
    ("Northwest Territory", "Ontario"),
    ("Ontario", "Quebec"),
    ("Ontario", "Western United States"),
    ("Peru", "Venezuela"),
    ("Scandinavia", "Ukraine"),
    ("Siberia", "Ural"),
    ("Siberia", "Yakutsk"),
    ("Southern Europe", "Ukraine"),
    ("Southern Europe", "Western Europe"),
    ("Ukraine", "Ural"),
)

CLASSIC = Board.build("classic", _TERRITORIES, _CONTINENTS, _BORDERS)
