"""Regenerate the golden DecisionRequest fixtures: ``.venv/bin/python tests/server/make_golden.py``.

One DecisionRequest per phase, from a fixed-seed game (defender chooses dice, so PHASE_DEFEND occurs)
played by the aggressive policy, built by the same ``decision_request`` the runner sends.
"""

from __future__ import annotations

from pathlib import Path

from google.protobuf import json_format

from engine import Phase, aggressive_policy, new_game, preset
from server.runner import decision_request

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261122
PHASES = [p for p in Phase if p < Phase.GAME_OVER]
"""The phases of the classic game (the later members belong to Capital Risk and the Allied Army game)."""


def golden_requests() -> dict[str, str]:
    """File name -> JSON of the first DecisionRequest met in each phase."""
    state, _ = new_game(preset("classic", defender_dice="choose"), 3, SEED)
    found: dict[str, str] = {}
    step = 0
    while len(found) < len(PHASES) and not state.is_over():
        step += 1
        name = f"decision_request_{state.phase.name.lower()}.json"
        if name not in found:
            message = decision_request("golden-game", step, state, state.legal_actions(), 1000, 10_000, 12, 1)
            found[name] = json_format.MessageToJson(message, indent=2, sort_keys=True) + "\n"
        state.apply(aggressive_policy(state))
    return found


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, text in golden_requests().items():
        (GOLDEN / name).write_text(text)
        print(f"wrote {GOLDEN / name}")
