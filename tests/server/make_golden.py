"""Regenerate the golden DecisionRequest fixtures: ``.venv/bin/python tests/server/make_golden.py``.

One DecisionRequest per phase, the first met in fixed-seed games played by the aggressive policy (a classic
game where the defender chooses dice, so PHASE_DEFEND occurs; Capital Risk for PHASE_CHOOSE_HEADQUARTERS;
the Allied Army game for PHASE_ALLIED_REINFORCE and PHASE_ALLIED_ATTACK), built by the same
``decision_request`` the runner sends.
"""

from __future__ import annotations

from pathlib import Path

from google.protobuf import json_format

from conquest.v1 import bot_pb2
from engine import Phase, aggressive_policy, new_game, preset
from server.play.messages import decision_request
from server.play.wire import PublicArrays

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261122
PHASES = [p for p in Phase if p != Phase.GAME_OVER]
GAMES = (
    (preset("classic", defender_dice="choose"), 3),
    (preset("capital"), 3),
    (preset("allied_two_player"), 2),
)


def golden_requests() -> dict[str, str]:
    """File name -> JSON of the first DecisionRequest met in each phase."""
    found: dict[str, str] = {}
    step = 0
    for rules, seats in GAMES:
        state, _ = new_game(rules, seats, SEED)
        while len(found) < len(PHASES) and not state.is_over():
            step += 1
            name = f"decision_request_{state.phase.name.lower()}.json"
            if name not in found:
                legal = state.legal_actions()
                serialized = decision_request(
                    "golden-game", step, state, legal, PublicArrays(), 1000, 10_000, 12, 1
                )
                message = bot_pb2.ConnectResponse.FromString(serialized)
                found[name] = json_format.MessageToJson(message, indent=2, sort_keys=True) + "\n"
            state.apply(aggressive_policy(state))
    return found


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, text in golden_requests().items():
        (GOLDEN / name).write_text(text)
        print(f"wrote {GOLDEN / name}")
