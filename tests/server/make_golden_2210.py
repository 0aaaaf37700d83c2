"""Regenerate the golden 2210 DecisionRequests: ``.venv/bin/python tests/server/make_golden_2210.py``.

One DecisionRequest per 2210 phase (``golden/decision_request_2210_<phase>.json``), the first met in
fixed-seed games of random legal play (the defender chooses its dice and losses are chosen, so
PHASE2210_DEFEND and PHASE2210_LOSSES occur), built by the same ``decision_request_2210`` the runner sends;
for PHASE2210_BID, one request per seat asked at once. The Command cards that open a decision of their own
(Armageddon: EXCHANGE, MOD Reduction: REDUCE, Decoys Revealed: DECOYS) are rare in random play, so the
driver plays a card whenever playing it opens one of them not met yet (``drive``).
"""

from __future__ import annotations

import random
from collections.abc import Collection
from pathlib import Path

from google.protobuf import json_format

from conquest.v1 import bot_pb2
from engine.r2210.actions import Action2210, Phase, PlayCard
from engine.r2210.events import seen_by
from engine.r2210.game import apply_unchecked, legal_actions, new_game_2210
from engine.r2210.legal import Legal2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.rules import DefenderDice
from server.play.convert_2210 import decision_request_2210

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261122
PHASES_2210 = [p for p in Phase if p != Phase.GAME_OVER]
RULES = Rules2210(defender_dice=DefenderDice.CHOOSE, choose_losses=True)
GAMES = 150
CARD_PHASES = (Phase.EXCHANGE, Phase.REDUCE, Phase.DECOYS)
"""Decisions only a Command card opens (Armageddon, MOD Reduction, Decoys Revealed)."""
"""Fixed-seed games tried at most until every phase is met."""


def golden_requests_2210() -> dict[str, str]:
    """File name -> JSON of the first DecisionRequest met in each phase (each asked seat's, for bids)."""
    found: dict[str, str] = {}
    rng = random.Random(SEED)
    for game in range(GAMES):
        state, events = new_game_2210(RULES, 3, SEED + game)
        step = 0
        while not state.is_over() and len(found) < len(PHASES_2210) + 2:
            step += 1
            name = f"decision_request_2210_{state.phase.name.lower()}"
            asked = state.asked
            for seat in asked if state.phase == Phase.BID else asked[:1]:
                key = f"{name}_seat{seat}.json" if state.phase == Phase.BID else f"{name}.json"
                if key not in found:
                    shown = [(i, seen_by(e, seat)) for i, e in enumerate(events)]
                    request = decision_request_2210(
                        "golden-game",
                        step,
                        state,
                        seat,
                        legal_actions(state, seat),
                        shown[-5:],
                        1000,
                        10_000,
                        12,
                        1,
                    )
                    message = bot_pb2.ConnectResponse(decision_request=request)
                    found[key] = json_format.MessageToJson(message, indent=2, sort_keys=True) + "\n"
            seat = asked[0]
            wanted = [p for p in CARD_PHASES if f"decision_request_2210_{p.name.lower()}.json" not in found]
            action = drive(state, seat, legal_actions(state, seat), rng, wanted)
            events.extend(apply_unchecked(state, action, seat))
        if len(found) == len(PHASES_2210) + 2:
            break
    return found


def drive(
    state: GameState2210, seat: int, legal: Legal2210, rng: random.Random, wanted: Collection[Phase]
) -> Action2210:
    """The random legal action (drawn first, so the random stream is the same either way), or a card play
    that opens one of the ``wanted`` phases."""
    action = random_action(legal, rng)
    for choice in legal.plays:
        play = PlayCard(choice.card, choice.targets[: choice.picks])
        after = state.clone()
        apply_unchecked(after, play, seat)
        if after.phase in wanted:
            return play
    return action


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, text in golden_requests_2210().items():
        (GOLDEN / name).write_text(text)
        print(f"wrote {GOLDEN / name}")
