"""Generate ``engine/r2210/board_data.py`` and ``cards_data.py`` from the JSON in ``tests/reference/``.

The engine reads no files at run time, so the RISK 2210 A.D. board and Command card facts live in
committed Python modules; this script writes them and ``tests/engine/test_r2210_board.py`` and
``test_r2210_cards.py`` check the committed modules equal what it renders from the JSON now.

    make engine-data                                               # rewrite the modules
    .venv/bin/python tests/reference/make_2210_data.py --check    # exit 1 if a committed module is stale
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(__file__).resolve().parent
SOURCE = REFERENCE / "2210_board.json"
TARGET = ROOT / "engine" / "r2210" / "board_data.py"
CARDS_SOURCE = REFERENCE / "2210_command_cards.json"
CARDS_TARGET = ROOT / "engine" / "r2210" / "cards_data.py"

_HEADER = '''# ruff: noqa: E501
"""RISK 2210 A.D. {what}, generated from tests/reference/{source}: do not edit by hand.

Regenerate with ``make engine-data``; ``tests/engine/{test}`` fails when this
module and the JSON differ. ``engine.r2210.{user}`` builds on these tuples.
"""

# fmt: off
'''


def _alias(text: str) -> str:
    """An alias without the note on where it was seen: "Angkor Wat (spelling used ...)" -> "Angkor Wat"."""
    return re.sub(r"\s*\(.*\)$", "", text).strip()


def rows(data: dict[str, Any]) -> dict[str, Any]:
    """The module's constants, as plain Python values, from the parsed JSON."""
    territories = tuple(
        (
            t["id"],
            t["name"],
            t["kind"],
            t["region"],
            tuple(_alias(a) for a in t.get("aliases", ())),
            t.get("classic_equivalent", ""),
            bool(t.get("landing_site", False)),
        )
        for t in data["territories"]
    )
    regions = tuple(
        (
            r["id"],
            r["name"],
            r["kind"],
            r["board"],
            r["bonus_mods"],
            r["bonus_energy"],
            r["bonus_score_points"],
            tuple(r["members"]),
        )
        for r in data["regions"]
    )
    return {
        "TERRITORIES": territories,
        "REGIONS": regions,
        "EDGES": tuple((e["a"], e["b"], e["kind"]) for e in data["edges"]),
        "DISPUTED_EDGES": tuple(
            (e["a"], e["b"], e["kind"], e["status"], bool(e["in_default_graph"]))
            for e in data["disputed_edges"]
        ),
        "LANDING_SITES": tuple(s["id"] for s in data["landing_sites"]),
        "INCOME_TABLE": tuple(
            (r["territories"], r["mods"], r["energy"]) for r in data["score_chart"]["table"]
        ),
        "DEVASTATION_COUNT": data["devastation"]["count"],
        "LAND_WILD_CARDS": data["territory_card_decks"]["land"]["wild_cards"],
        "TWO_PLAYER_NEUTRALS": (
            data["two_player_neutrals"]["land"],
            data["two_player_neutrals"]["water"],
            data["two_player_neutrals"]["lunar"],
            data["two_player_neutrals"]["mods_each"],
        ),
    }


_DOCS = {
    "TERRITORIES": "(id, name, kind, region id, aliases, classic equivalent, landing site), land then water "
    "then lunar",
    "REGIONS": "(id, name, kind, board, bonus MODs, bonus energy, bonus score points, member ids)",
    "EDGES": "the 133 borders both full board transcriptions agree on: (a, b, kind)",
    "DISPUTED_EDGES": "(a, b, kind, status, in the JSON's default graph)",
    "LANDING_SITES": "the lunar territories an invasion from a Space Station may reach",
    "INCOME_TABLE": "the Score Chart: (territories controlled, MODs, energy) for 1..70",
    "DEVASTATION_COUNT": "land territories devastated at setup",
    "LAND_WILD_CARDS": "wild cards removed from the Land Territory deck in 2210",
    "TWO_PLAYER_NEUTRALS": "two-player setup: (land cards, water cards, lunar cards, neutral MODs each)",
}


DECK_ORDER = ("land", "diplomat", "naval", "space", "nuclear")
"""The five Command decks in ``engine.r2210.actions.Commander`` order."""


def card_rows(data: dict[str, Any]) -> dict[str, Any]:
    """The Command cards module's constants: one row per kind of card, deck by deck."""
    kinds = sorted(data["cards"], key=lambda c: DECK_ORDER.index(c["deck"]))
    return {
        "CARD_KINDS": tuple(
            (c["id"], DECK_ORDER.index(c["deck"]), c["name"], c["copies"], c["power_up_cost"], c["timing"])
            for c in kinds
        ),
        "DECK_SIZES": tuple(data["deck_totals"][d] for d in DECK_ORDER),
    }


# Each tuple's declared type. Without one, mypy infers a fixed-length tuple of every row's own type, and
# mypyc then unrolls each loop over the rows into straight-line C: engine.r2210.board's build() alone
# became 145,000 lines of C (6 MB), compiled at every install for a function run four times at import.
_TYPES = {
    "TERRITORIES": "tuple[tuple[str, str, str, str, tuple[str, ...], str, bool], ...]",
    "REGIONS": "tuple[tuple[str, str, str, str, int, int, int, tuple[str, ...]], ...]",
    "EDGES": "tuple[tuple[str, str, str], ...]",
    "DISPUTED_EDGES": "tuple[tuple[str, str, str, str, bool], ...]",
    "LANDING_SITES": "tuple[str, ...]",
    "INCOME_TABLE": "tuple[tuple[int, int, int], ...]",
    "TWO_PLAYER_NEUTRALS": "tuple[int, int, int, int]",
    "CARD_KINDS": "tuple[tuple[str, int, str, int, int, str], ...]",
    "DECK_SIZES": "tuple[int, ...]",
}

_DOCS["CARD_KINDS"] = "(id, deck in Commander order, name, copies, power-up cost, timing), deck by deck"
_DOCS["DECK_SIZES"] = "cards per deck: Land, Diplomat, Naval, Space, Nuclear"


def render(data: dict[str, Any]) -> str:
    """The board module's text."""
    header = _HEADER.format(
        what="board facts", source="2210_board.json", test="test_r2210_board.py", user="board"
    )
    return _render(header, rows(data))


def render_cards(data: dict[str, Any]) -> str:
    """The Command cards module's text."""
    header = _HEADER.format(
        what="Command card facts", source="2210_command_cards.json", test="test_r2210_cards.py", user="cards"
    )
    return _render(header, card_rows(data))


def _render(header: str, constants: dict[str, Any]) -> str:
    out = [header]
    for name, value in constants.items():
        out.append(f"\n# {_DOCS[name]}\n")
        if isinstance(value, tuple):
            out.append(f"{name}: {_TYPES[name]} = (\n")
            for item in value:
                out.append(f"    {item!r},\n")
            out.append(")\n")
        else:
            out.append(f"{name} = {value!r}\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    stale = 0
    for source, target, renderer in ((SOURCE, TARGET, render), (CARDS_SOURCE, CARDS_TARGET, render_cards)):
        text = renderer(json.loads(source.read_text()))
        if "--check" not in argv:
            target.write_text(text)
        elif target.read_text() != text:
            sys.stderr.write(f"{target} is stale: run 'make engine-data' and commit it\n")
            stale = 1
    return stale


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
