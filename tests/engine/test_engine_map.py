"""The classic board as data, checked against the reference facts in tests/reference/classic_map.json."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import CLASSIC, CardDesign

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "classic_map.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text())
    return data


def _names(ids: tuple[int, ...] | list[int]) -> set[str]:
    return {CLASSIC.territories[t].name for t in ids}


def test_every_territory_has_its_continent_and_card_design(reference: dict[str, Any]) -> None:
    """Issue 2: "the classic board — 42 territories with ids, names, continent, card design"."""
    expected = {t["name"]: (t["continent"], t["card_design"].upper()) for t in reference["territories"]}
    actual = {
        t.name: (CLASSIC.continents[t.continent].name, CardDesign(t.design).name) for t in CLASSIC.territories
    }
    assert len(CLASSIC.territories) == reference["counts"]["territories"] == 42
    assert actual == expected


def test_continents_bonuses_and_members(reference: dict[str, Any]) -> None:
    """README of the rulebooks: "continent bonuses North America 5, South America 2, Europe 5, Africa 3,
    Asia 7, Australia 2"."""
    expected = {c["name"]: (c["bonus"], set(c["territories"])) for c in reference["continents"]}
    actual = {
        c.name: (c.bonus, _names(CLASSIC.continent_members[i])) for i, c in enumerate(CLASSIC.continents)
    }
    assert actual == expected
    assert {n: b for n, (b, _) in actual.items()} == {
        "North America": 5,
        "South America": 2,
        "Europe": 5,
        "Africa": 3,
        "Asia": 7,
        "Australia": 2,
    }


def test_every_border_both_ways_and_nothing_extra(reference: dict[str, Any]) -> None:
    """Issue 2: "83 borders including the sea lines (Alaska–Kamchatka, Brazil–North Africa,
    Greenland–Iceland, …)"."""
    expected = {frozenset(edge) for edge in reference["edges"]}
    assert len(expected) == reference["counts"]["edges"] == 83
    for a, b in reference["edges"]:
        ta, tb = CLASSIC.territory_id(a), CLASSIC.territory_id(b)
        assert CLASSIC.are_adjacent(ta, tb), f"{a} should border {b}"
        assert CLASSIC.are_adjacent(tb, ta), f"{b} should border {a}"
    actual = {
        frozenset((CLASSIC.territories[t].name, CLASSIC.territories[n].name))
        for t in range(CLASSIC.size)
        for n in CLASSIC.neighbours[t]
    }
    assert actual - expected == set(), "borders the reference does not have"
    assert expected - actual == set(), "reference borders the board lacks"
    assert len(CLASSIC.borders) == 83


def test_rulebook_adjacency_examples() -> None:
    """000: "Greenland may attack the Northwest Territory, Ontario, Quebec and Iceland. North Africa may
    attack Egypt, Western Europe and Brazil. ... Alaska is considered adjacent to, and may attack,
    Kamchatka.\""""
    greenland = CLASSIC.neighbours[CLASSIC.territory_id("Greenland")]
    assert _names(greenland) == {"Northwest Territory", "Ontario", "Quebec", "Iceland"}
    north_africa = _names(CLASSIC.neighbours[CLASSIC.territory_id("North Africa")])
    assert {"Egypt", "Western Europe", "Brazil"} <= north_africa
    assert "Kamchatka" in _names(CLASSIC.neighbours[CLASSIC.territory_id("Alaska")])


def test_deck_has_14_of_each_design_and_2_wild(reference: dict[str, Any]) -> None:
    """004: "44 RISK Land territory cards ... 42 cards are marked with a Land territory and a picture
    ... There are 2 "Wild" cards marked with all three of these units, but with no Land territory."""
    designs = Counter(CLASSIC.card_design(c).name for c in range(CLASSIC.card_count))
    expected = {d.upper(): n for d, n in reference["counts"]["card_designs"].items()}
    expected["WILD"] = reference["counts"]["wild_cards"]
    assert CLASSIC.card_count == 44
    assert dict(designs) == expected == {"INFANTRY": 14, "CAVALRY": 14, "ARTILLERY": 14, "WILD": 2}
    assert [CLASSIC.card_territory(c) for c in (42, 43)] == [None, None]
    assert all(CLASSIC.card_territory(c) == c for c in range(42))
