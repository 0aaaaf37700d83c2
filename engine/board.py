"""Maps as data: territories indexed by small integers, continents with bonuses, borders as adjacency."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

Territory = int
"""A territory id: an index into every per-territory array of a board."""


class CardDesign(enum.IntEnum):
    """The picture on a territory card; a wild card shows all three."""

    INFANTRY = 0
    CAVALRY = 1
    ARTILLERY = 2
    WILD = 3


class TerritorySpec(NamedTuple):
    name: str
    continent: int
    design: CardDesign
    x: int
    y: int


class ContinentSpec(NamedTuple):
    name: str
    bonus: int


@dataclass(frozen=True, slots=True)
class Board:
    """The fixed facts of a map. Card ids 0..n-1 show territory n; the last ``wild_cards`` ids are wild."""

    name: str
    territories: tuple[TerritorySpec, ...]
    continents: tuple[ContinentSpec, ...]
    borders: tuple[tuple[Territory, Territory], ...]
    neighbours: tuple[tuple[Territory, ...], ...]
    continent_members: tuple[tuple[Territory, ...], ...]
    wild_cards: int = 2

    @staticmethod
    def build(
        name: str,
        territories: tuple[TerritorySpec, ...],
        continents: tuple[ContinentSpec, ...],
        borders_by_name: tuple[tuple[str, str], ...],
        wild_cards: int = 2,
    ) -> Board:
        ids = {t.name: i for i, t in enumerate(territories)}
        borders = tuple(sorted((min(ids[a], ids[b]), max(ids[a], ids[b])) for a, b in borders_by_name))
        adjacent: list[set[int]] = [set() for _ in territories]
        for a, b in borders:
            adjacent[a].add(b)
            adjacent[b].add(a)
        members = tuple(
            tuple(i for i, t in enumerate(territories) if t.continent == c) for c in range(len(continents))
        )
        return Board(
            name=name,
            territories=territories,
            continents=continents,
            borders=borders,
            neighbours=tuple(tuple(sorted(a)) for a in adjacent),
            continent_members=members,
            wild_cards=wild_cards,
        )

    @property
    def size(self) -> int:
        """Number of territories."""
        return len(self.territories)

    @property
    def card_count(self) -> int:
        """Territory cards plus wild cards (44 on the classic board)."""
        return len(self.territories) + self.wild_cards

    def card_design(self, card: int) -> CardDesign:
        return self.territories[card].design if card < len(self.territories) else CardDesign.WILD

    def card_territory(self, card: int) -> Territory | None:
        """The territory a card shows, or None for a wild card."""
        return card if card < len(self.territories) else None

    def territory_id(self, name: str) -> Territory:
        """The id of a territory by its name (case-insensitive).

        Raises:
            KeyError: no territory has that name.
        """
        lowered = name.lower()
        for i, t in enumerate(self.territories):
            if t.name.lower() == lowered:
                return i
        raise KeyError(f"no territory named {name!r} on the {self.name} board")

    def are_adjacent(self, a: Territory, b: Territory) -> bool:
        return b in self.neighbours[a]
