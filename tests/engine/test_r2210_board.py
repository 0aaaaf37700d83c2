"""The RISK 2210 A.D. board as engine data, checked against tests/reference/2210_board.json (issue 19: "Earth
and Moon boards, regions and bonuses, 133 borders, landing sites, income table, decks")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.r2210 import board_data
from engine.r2210.board import BOARDS, Kind, build
from tests.reference.make_2210_data import SOURCE, TARGET, render

DEFAULT = build()


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SOURCE.read_text())
    return data


def test_generated_module_equals_what_the_json_renders(reference: dict[str, Any]) -> None:
    """The engine may not read files at run time: the committed module is the JSON, rendered."""
    assert Path(TARGET).read_text() == render(reference), "run 'make engine-data' and commit"


def test_counts_42_land_13_water_14_lunar_in_14_regions(reference: dict[str, Any]) -> None:
    """004: "The Earth gameboard is a map of 6 continents divided into 42 territories. ... There are also 13
    Water territories divided into 5 colonies. ... a Moon gameboard is included showing 3 Lunar colonies.\""""
    kinds = [DEFAULT.kinds.count(k) for k in Kind]
    assert kinds == [42, 13, 14] == [reference["counts"][k] for k in ("land", "water", "lunar")]
    by_kind = [r.kind for r in DEFAULT.regions]
    assert (by_kind.count("continent"), by_kind.count("water_colony"), by_kind.count("lunar_colony")) == (
        6,
        5,
        3,
    )
    # "Each colony is a different color and each contains either 4 or 6 territories."
    assert sorted(len(r.members) for r in DEFAULT.regions if r.kind == "lunar_colony") == [4, 4, 6]
    for region in DEFAULT.regions:
        assert {DEFAULT.region_of[t] for t in region.members} == {DEFAULT.regions.index(region)}


def test_133_agreed_borders_symmetric_plus_the_disputed_options(reference: dict[str, Any]) -> None:
    """2210_NOTES: "133 edges agreed edge-for-edge"; the rulebook's Exiled States-Canada is an option,
    on by default, and Middle East-Ministry of Djibouti an option, off by default."""
    agreed = build(edge_exiled_canada=False, edge_mideast_djibouti=False)
    assert len(agreed.borders) == 133 == reference["counts"]["edges_two_source_agreed"]
    assert len(DEFAULT.borders) == 134 == reference["counts"]["edges_default_graph"]
    assert len(build(True, True).borders) == 135
    for board in BOARDS.values():
        for a, b in board.borders:
            assert b in board.neighbours[a] and a in board.neighbours[b]
        assert sum(len(n) for n in board.neighbours) == 2 * len(board.borders)
    kinds = {(e[0], e[1]): e[2] for e in board_data.EDGES}
    counts: dict[str, int] = {}
    for kind in kinds.values():
        counts[kind] = counts.get(kind, 0) + 1
    assert counts == reference["counts"]["edges_by_kind"]
    canada, exiled = DEFAULT.territory_id("Canada"), DEFAULT.territory_id("Exiled States of America")
    assert canada in DEFAULT.neighbours[exiled] and canada not in agreed.neighbours[exiled]
    djibouti, mideast = DEFAULT.territory_id("Ministry of Djibouti"), DEFAULT.territory_id("Middle East")
    assert djibouti not in DEFAULT.neighbours[mideast] and djibouti in build(True, True).neighbours[mideast]


def _names(ids: tuple[int, ...]) -> set[str]:
    return {DEFAULT.names[t] for t in ids}


def test_the_rulebooks_adjacency_examples() -> None:
    """004: "Exiled States of America may attack Nunavut, Canada, Republique du Quebec and Iceland GRC.
    Saharan Empire may attack Egypt, Andorra and Amazon Desert. ... Northwestern Oil Emirate is considered
    adjacent to, and may attack, Pevek.\""""
    land = Kind.LAND

    def land_neighbours(name: str) -> set[str]:
        t = DEFAULT.territory_id(name)
        return _names(tuple(n for n in DEFAULT.neighbours[t] if DEFAULT.kinds[n] == land))

    assert land_neighbours("Exiled States of America") == {
        "Nunavut",
        "Canada",
        "Republique du Quebec",
        "Iceland GRC",
    }
    assert land_neighbours("Saharan Empire") >= {"Egypt", "Andorra", "Amazon Desert"}
    assert "Pevek" in land_neighbours("Northwestern Oil Emirate")


def test_water_touches_only_its_coasts_and_the_moon_only_itself(reference: dict[str, Any]) -> None:
    """004: "The only way to move units from Earth to a Lunar territory is through a Space Station"; water
    borders only the coasts in water_territory_coasts."""
    for key, coasts in reference["water_territory_coasts"].items():
        t = DEFAULT.territory_id(key)
        land = {n for n in DEFAULT.neighbours[t] if DEFAULT.kinds[n] == Kind.LAND}
        assert land == {DEFAULT.territory_id(c) for c in coasts}
    for t in DEFAULT.of_kind(Kind.LUNAR):
        assert all(DEFAULT.kinds[n] == Kind.LUNAR for n in DEFAULT.neighbours[t])
    assert _names(DEFAULT.landing_sites) == {"Sea of Crisis", "Bay of Dew", "Tycho"}


def test_region_bonuses() -> None:
    """README facts: "North America 5, South America 2, Europe 5, Africa 3, Asia 7, Australia 2"; 2210_NOTES:
    water colonies 2/2/1/2/1 and lunar colonies Cresinion 2, Delphot 2, Sajon 4."""
    bonus = {r.name: (r.bonus_mods, r.bonus_energy, r.bonus_points) for r in DEFAULT.regions}
    expected = {"North America": 5, "South America": 2, "Europe": 5, "Africa": 3, "Asia": 7, "Australia": 2}
    expected |= {"US Pacific": 2, "North Atlantic": 2, "South Atlantic": 1, "Indian": 2, "Asia Pacific": 1}
    expected |= {"Cresinion": 2, "Delphot": 2, "Sajon": 4}
    assert bonus == {name: (b, b, b) for name, b in expected.items()}


def test_income_table_is_max_3_or_a_third() -> None:
    """2210_NOTES (inferred): "MODs = energy = max(3, floor(territories / 3)), table for 1-70"."""
    assert [DEFAULT.income_for(t) for t in range(1, 71)] == [(max(3, t // 3),) * 2 for t in range(1, 71)]
    assert DEFAULT.income_for(0) == (0, 0)


def test_rulebook_spellings_resolve_as_aliases() -> None:
    """2210_NOTES point 19: "board-transcription spellings as names, rulebook spellings as aliases so
    rulebook examples (Angkor Wat, Pevet) still resolve"."""
    assert DEFAULT.names[DEFAULT.territory_id("Angkor Wat")] == "Angkhor Wat"
    assert DEFAULT.names[DEFAULT.territory_id("Pevet")] == "Pevek"
    with pytest.raises(KeyError, match="no territory named 'Atlantis'"):
        DEFAULT.territory_id("Atlantis")


def test_decks_and_devastation_facts(reference: dict[str, Any]) -> None:
    """004: "Remove the 2 Wild Cards ... until four Land territories have been marked"; two players: "Turn
    over 16 Land Territory Cards, 6 Water Territory cards, and 6 Moon Territory cards. Place 3 neutral"."""
    assert board_data.LAND_WILD_CARDS == 2 and board_data.DEVASTATION_COUNT == 4
    assert board_data.TWO_PLAYER_NEUTRALS == (16, 6, 6, 3)
    assert len(reference["devastation"]["candidates"]) == 42
