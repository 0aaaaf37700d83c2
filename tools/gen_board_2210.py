"""Generate ``engine/r2210/board_data.py`` from ``../shared/rules/2210_board.json``.

The engine reads no files at run time, so the RISK 2210 A.D. board facts live in a committed Python
module; this script writes it and ``tests/engine/test_r2210_board.py`` checks the committed module equals
what it renders from the JSON now.

    .venv/bin/python -m tools.gen_board_2210            # rewrite the module
    .venv/bin/python -m tools.gen_board_2210 --check    # exit 1 if the committed module is stale
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / ".." / "shared" / "rules" / "2210_board.json"
TARGET = ROOT / "engine" / "r2210" / "board_data.py"

_HEADER = '''# ruff: noqa: E501
"""RISK 2210 A.D. board facts, generated from shared/rules/2210_board.json: do not edit by hand.

Regenerate with ``python -m tools.gen_board_2210``; ``tests/engine/test_r2210_board.py`` fails when this
module and the JSON differ. ``engine.r2210.board`` builds the board from these tuples.
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


def render(data: dict[str, Any]) -> str:
    """The module's text."""
    out = [_HEADER]
    for name, value in rows(data).items():
        out.append(f"\n# {_DOCS[name]}\n")
        if isinstance(value, tuple):
            out.append(f"{name} = (\n")
            for item in value:
                out.append(f"    {item!r},\n")
            out.append(")\n")
        else:
            out.append(f"{name} = {value!r}\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    text = render(json.loads(SOURCE.read_text()))
    if "--check" in argv:
        if TARGET.read_text() != text:
            sys.stderr.write(f"{TARGET} is stale: run 'python -m tools.gen_board_2210' and commit it\n")
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
