"""A finished game as the replay viewer shows it: every step's board computed by the engine, as JSON.

The dashboard's replay page (``/api/games/<id>/replay``) and ``conquest replay render`` (one
self-contained HTML page) both show this data, so the browser never re-implements a rule: step 0 is the
board after the setup events, step k the board after action k-1, each with the events it caused, the
seat that acted, the bot's annotation and, for an attack, its exact odds (``engine.odds``). A finished
game hides nothing: hands are shown with their card ids.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
from fractions import Fraction
from importlib import resources
from typing import Any

from google.protobuf.json_format import MessageToDict

from engine.actions import Attack
from engine.codec import encode_action, encode_event
from engine.events import TurnStarted
from engine.odds import bounded_battle_odds, roll_outcomes
from engine.replay import Replay
from engine.state import GameState
from server.play import convert
from server.web.replay_2210 import GAME_2210, viewer_data_2210

STATIC = resources.files("server.web") / "static"
STANDALONE_SCRIPTS = ("board.js", "board2210.js", "replay.js")
"""The scripts the standalone page inlines (the dashboard serves the same files)."""


def map_json(state: GameState) -> dict[str, Any]:
    """The board's layout as the dashboard draws it: ``MapInfo`` (the live stream's shape) as JSON."""
    return MessageToDict(
        convert.map_info(state.board),
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


def _exact(value: Fraction | float) -> dict[str, Any]:
    """A probability or expectation as a float, and as a fraction when it is exact and short enough to
    read."""
    shown: dict[str, Any] = {"value": float(value)}
    if isinstance(value, Fraction) and value.denominator < 10**12:
        shown["exact"] = f"{value.numerator}/{value.denominator}"
    return shown


@functools.lru_cache(maxsize=4096)  # games repeat armies a lot
def attack_odds(attackers: int, defenders: int, dice: int = 3, repeat_until: int = 1) -> dict[str, Any]:
    """Odds of an attack from ``attackers`` armies against ``defenders``: with ``repeat_until`` >= 1 the
    whole battle (the attacker rolls its most dice each time, the defender its most) at a bounded cost
    (``engine.odds.bounded_battle_odds``: ``method`` says "exact", "table" or "estimate"), with 0 one
    roll of ``dice`` (capped by the armies) against the most defending dice, always exact.

    Raises:
        ValueError: armies or dice that no attack can have (the message says which).
    """
    if repeat_until:
        odds = bounded_battle_odds(attackers, defenders, stop_at=repeat_until)
        capture, lost_a, lost_d = odds.capture, odds.attacker_losses, odds.defender_losses
        method = odds.method
    else:
        if attackers < 2 or defenders < 1:
            raise ValueError(f"an attack needs 2+ armies against 1+; got {attackers} against {defenders}")
        outcomes = roll_outcomes(min(dice, 3, attackers - 1), min(2, defenders))
        capture = sum((p for (_, ld), p in outcomes.items() if ld >= defenders), Fraction(0))
        lost_a = sum((p * la for (la, _), p in outcomes.items()), Fraction(0))
        lost_d = sum((p * ld for (_, ld), p in outcomes.items()), Fraction(0))
        method = "exact"
    return {
        "attackers": attackers,
        "defenders": defenders,
        "repeat_until": repeat_until,
        "capture": _exact(capture),
        "attacker_losses": _exact(lost_a),
        "defender_losses": _exact(lost_d),
        "method": method,
    }


def _board(state: GameState) -> dict[str, Any]:
    return {
        "owners": list(state.owner),
        "armies": list(state.armies),
        "hands": [sorted(h) for h in state.hands],
        "phase": state.phase.name.lower(),
        "turn": state.turn,
        "turn_seat": state.turn_seat,
        "to_act": state.to_act,
    }


def viewer_data(record: dict[str, Any]) -> dict[str, Any]:
    """The viewer's data for a replay file's fields (``GameRecord.to_dict()`` or a replay file).

    A RISK 2210 A.D. record (``"game": "2210"``) gets ``server.web.replay_2210``'s data, for the same
    viewer.

    Raises:
        ReplayError: the record is not a replay (the message names the field).
    """
    if record.get("game") == GAME_2210:
        return viewer_data_2210(record)
    replay = Replay.from_dict(record)
    state, setup = replay.start()
    steps: list[dict[str, Any]] = [
        {"action": None, "seat": -1, "events": [encode_event(e) for e in setup], **_board(state)}
    ]
    series: list[dict[str, Any]] = []
    for index, action in enumerate(replay.actions):
        seat = state.to_act
        odds = None
        if isinstance(action, Attack):
            odds = attack_odds(
                state.armies[action.source], state.armies[action.target], action.dice, action.repeat_until
            )
        events = state.apply(action)
        step = {"action": encode_action(action), "seat": seat, "events": [encode_event(e) for e in events]}
        if index in replay.annotations:
            step["note"] = replay.annotations[index]
        if odds is not None:
            step["odds"] = odds
        steps.append({**step, **_board(state)})
        if any(isinstance(e, TurnStarted) for e in events):
            series.append({"step": index + 1, "turn": state.turn, **_totals(state)})
    series.append({"step": len(replay.actions), "turn": state.turn, **_totals(state)})
    players = len(replay.seats)
    return {
        "game_id": replay.game_id,
        "queue": record.get("queue", ""),
        "rules": replay.rules.name,
        "territory_bonus": replay.rules.territory_bonus,
        "seats": list(replay.seats),
        "owners": players + (1 if replay.rules.neutral else 0),
        "places": list(state.places),
        "outcomes": [str(o).removeprefix("SEAT_OUTCOME_").lower() for o in record.get("outcomes", [])],
        "reason": record.get("reason") or state.end_reason or "",
        "map": map_json(state),
        "steps": steps,
        "series": series,
    }


def _totals(state: GameState) -> dict[str, list[int]]:
    """Territories and armies held by every owner (seats, then the neutral army if any)."""
    owners = len(state.status)
    territories = [0] * owners
    armies = [0] * owners
    for owner, count in zip(state.owner, state.armies, strict=True):
        if 0 <= owner < owners:
            territories[owner] += 1
            armies[owner] += count
    return {"territories": territories, "armies": armies}


MOUNT = """
const data = JSON.parse(document.getElementById("replay-data").textContent);
ReplayViewer.mount(document.getElementById("view"), data);
"""


def script_json(data: dict[str, Any]) -> str:
    """``data`` as JSON that is inert inside an HTML ``<script>`` block: every ``<``, ``>`` and ``&`` is
    written as its \\u escape (the same string to JSON.parse), so no ``</script>`` or ``<!--`` a bot wrote
    can end the block or change how the HTML parser reads it."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def standalone_page(data: dict[str, Any]) -> str:
    """One HTML page holding the viewer's CSS, scripts and ``data``: it works opened from a file. Its
    Content-Security-Policy allows exactly its own scripts and style (by hash) and nothing from anywhere."""
    sources = [f"\n{(STATIC / name).read_text()}\n" for name in STANDALONE_SCRIPTS] + [MOUNT]
    style = f"\n{(STATIC / 'style.css').read_text()}\n"
    hashes = " ".join(_sha256(source) for source in sources)
    policy = (
        f"default-src 'none'; script-src {hashes}; style-src {_sha256(style)}; "
        "style-src-attr 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    scripts = "\n".join(f"<script>{source}</script>" for source in sources)
    title = html.escape(f"Conquest replay {data['game_id']}".strip())
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<main id="view" class="standalone"></main>
<script type="application/json" id="replay-data">{script_json(data)}</script>
{scripts}
</body>
</html>
"""
