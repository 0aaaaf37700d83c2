"""The RISK 2210 A.D. board: Earth (42 land, 13 water), the Moon (14 lunar), regions, borders, decks.

Built from ``engine.r2210.board_data`` (generated from ``tests/reference/2210_board.json``). Ids: land
territories 0..41, water 42..54, lunar 55..68, in the JSON's order. The two disputed borders are rules
options (``docs/rules.md``, RISK 2210 A.D., points 1 and 2), so a board is built for a set of options.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.r2210 import board_data

Territory = int


class Kind(enum.IntEnum):
    """What a territory is: it decides which commander may invade it and rolls d8 there."""

    LAND = 0
    WATER = 1
    LUNAR = 2


_KINDS = {"land": Kind.LAND, "water": Kind.WATER, "lunar": Kind.LUNAR}


@dataclass(frozen=True, slots=True)
class Region:
    """A continent, water colony or lunar colony with the bonus for controlling all of it."""

    key: str
    name: str
    kind: str
    bonus_mods: int
    bonus_energy: int
    bonus_points: int
    members: tuple[Territory, ...]


@dataclass(frozen=True, slots=True)
class Board2210:
    """The fixed facts of a 2210 game (one per combination of the border options)."""

    keys: tuple[str, ...]
    """Snake-case id of each territory (the JSON's ``id``)."""
    names: tuple[str, ...]
    aliases: tuple[tuple[str, ...], ...]
    kinds: tuple[Kind, ...]
    region_of: tuple[int, ...]
    regions: tuple[Region, ...]
    borders: tuple[tuple[Territory, Territory], ...]
    neighbours: tuple[tuple[Territory, ...], ...]
    landing_sites: tuple[Territory, ...]
    lands: tuple[Territory, ...]
    """The land territories, ascending."""
    income: tuple[tuple[int, int], ...]
    """(MODs, energy) by territories controlled: index 0 is 0 territories, then the Score Chart 1..70."""

    @property
    def size(self) -> int:
        return len(self.keys)

    def of_kind(self, kind: Kind) -> tuple[Territory, ...]:
        return tuple([t for t in range(self.size) if self.kinds[t] == kind])

    def territory_id(self, name: str) -> Territory:
        """A territory by id, name or alias (case-insensitive): "Angkor Wat" finds Angkhor Wat.

        Raises:
            KeyError: no territory has that name.
        """
        lowered = name.lower()
        for t in range(self.size):
            names = [self.keys[t], self.names[t].lower()] + [a.lower() for a in self.aliases[t]]
            if lowered in names:
                return t
        raise KeyError(f"no territory named {name!r} on the RISK 2210 A.D. board")

    def income_for(self, territories: int) -> tuple[int, int]:
        """(MODs, energy) from the Score Chart for ``territories`` controlled (the chart ends at 70)."""
        return self.income[min(territories, len(self.income) - 1)]


def build(edge_exiled_canada: bool = True, edge_mideast_djibouti: bool = False) -> Board2210:
    """The board with the agreed 133 borders plus the disputed ones the options switch on."""
    rows = board_data.TERRITORIES
    ids = {row[0]: i for i, row in enumerate(rows)}
    region_ids = {row[0]: i for i, row in enumerate(board_data.REGIONS)}
    pairs = [(a, b) for a, b, _ in board_data.EDGES]
    wanted = {("canada", "exiled_states_of_america"): edge_exiled_canada}
    wanted[("middle_east", "ministry_of_djibouti")] = edge_mideast_djibouti
    for a, b, _, _, _ in board_data.DISPUTED_EDGES:
        if wanted.get((a, b), False):
            pairs.append((a, b))
    borders = tuple(sorted((min(ids[a], ids[b]), max(ids[a], ids[b])) for a, b in pairs))
    adjacent: list[set[int]] = [set() for _ in rows]
    for x, y in borders:
        adjacent[x].add(y)
        adjacent[y].add(x)
    income = ((0, 0), *((mods, energy) for _, mods, energy in board_data.INCOME_TABLE))
    return Board2210(
        keys=tuple(row[0] for row in rows),
        names=tuple(row[1] for row in rows),
        aliases=tuple(row[4] for row in rows),
        kinds=tuple(_KINDS[row[2]] for row in rows),
        region_of=tuple(region_ids[row[3]] for row in rows),
        regions=tuple(
            Region(key, name, kind, mods, energy, points, tuple(ids[m] for m in members))
            for key, name, kind, _, mods, energy, points, members in board_data.REGIONS
        ),
        borders=borders,
        neighbours=tuple(tuple(sorted(a)) for a in adjacent),
        landing_sites=tuple(sorted(ids[s] for s in board_data.LANDING_SITES)),
        lands=tuple([t for t, row in enumerate(rows) if _KINDS[row[2]] == Kind.LAND]),
        income=income,
    )


BOARDS = {(c, d): build(c, d) for c in (True, False) for d in (True, False)}
"""Every board the border options allow, built once."""
