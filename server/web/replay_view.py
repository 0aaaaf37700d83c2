"""A finished game as the replay viewer shows it: every step's board computed by the engine, as JSON.

The dashboard's replay page (``/api/games/<id>/replay``) and ``conquest replay render`` (one
self-contained HTML page) both show this data, so the browser never re-implements a rule: step 0 is the
board after the setup events, step k the board after action k-1, each with the events it caused, the
seat that acted, the bot's annotation and, for an attack, its exact odds (``engine.odds``). A finished
game hides nothing: hands are shown with their card ids.
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction
from importlib import resources
from typing import Any

from google.protobuf.json_format import MessageToDict

from engine.actions import Attack
from engine.codec import encode_action, encode_event
from engine.events import TurnStarted
from engine.odds import battle_odds, roll_outcomes
from engine.replay import Replay
from engine.state import GameState
from server.play import convert

STATIC = resources.files("server.web") / "static"
STANDALONE_SCRIPTS = ("board.js", "replay.js")
"""The scripts the standalone page inlines (the dashboard serves the same files)."""


def map_json(state: GameState) -> dict[str, Any]:
    """The board's layout as the dashboard draws it: ``MapInfo`` (the live stream's shape) as JSON."""
    return MessageToDict(
        convert.map_info(state.board),
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


def _exact(value: Fraction) -> dict[str, Any]:
    """A probability or expectation as a float, and as a fraction when it is short enough to read."""
    shown: dict[str, Any] = {"value": float(value)}
    if value.denominator < 10**12:
        shown["exact"] = f"{value.numerator}/{value.denominator}"
    return shown


@functools.lru_cache(maxsize=4096)  # a long battle costs a DP over Fractions; games repeat armies a lot
def attack_odds(attackers: int, defenders: int, dice: int = 3, repeat_until: int = 1) -> dict[str, Any]:
    """Exact odds of an attack from ``attackers`` armies against ``defenders``: with ``repeat_until`` >= 1
    the whole battle (the attacker rolls its most dice each time, the defender its most), with 0 one roll
    of ``dice`` (capped by the armies) against the most defending dice.

    Raises:
        ValueError: armies or dice that no attack can have (the message says which).
    """
    if repeat_until:
        odds = battle_odds(attackers, defenders, stop_at=repeat_until)
        capture, lost_a, lost_d = odds.capture, odds.attacker_losses, odds.defender_losses
    else:
        if attackers < 2 or defenders < 1:
            raise ValueError(f"an attack needs 2+ armies against 1+; got {attackers} against {defenders}")
        outcomes = roll_outcomes(min(dice, 3, attackers - 1), min(2, defenders))
        capture = sum((p for (_, ld), p in outcomes.items() if ld >= defenders), Fraction(0))
        lost_a = sum((p * la for (la, _), p in outcomes.items()), Fraction(0))
        lost_d = sum((p * ld for (_, ld), p in outcomes.items()), Fraction(0))
    return {
        "attackers": attackers,
        "defenders": defenders,
        "repeat_until": repeat_until,
        "capture": _exact(capture),
        "attacker_losses": _exact(lost_a),
        "defender_losses": _exact(lost_d),
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

    Raises:
        ReplayError: the record is not a replay (the message names the field).
    """
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


def standalone_page(data: dict[str, Any]) -> str:
    """One HTML page holding the viewer's CSS, scripts and ``data``: it works opened from a file."""
    scripts = "\n".join(f"<script>\n{(STATIC / name).read_text()}\n</script>" for name in STANDALONE_SCRIPTS)
    embedded = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")  # no early </script>
    title = f"Conquest replay {data['game_id']}".strip()
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{(STATIC / "style.css").read_text()}
</style>
</head>
<body>
<main id="view" class="standalone"></main>
<script type="application/json" id="replay-data">{embedded}</script>
{scripts}
<script>
const data = JSON.parse(document.getElementById("replay-data").textContent);
ReplayViewer.mount(document.getElementById("view"), data);
</script>
</body>
</html>
"""
