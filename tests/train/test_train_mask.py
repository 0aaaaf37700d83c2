"""Issue 22: "A flat action space with an action mask ... Every masked-in action is legal, every legal
action is reachable through the mask (tested over thousands of random states)." Army counts are bucketed
(least, middle, most: docs/training.md), so "every legal action" is every legal choice of kind,
territories, card set, dice and roll mode, with its least and most army counts.

The states come from games played by the engine's random policy (not through the mask), over every rules
preset with the options that open the rarer decisions (defender dice, connected free moves).
"""

from __future__ import annotations

import random

import numpy as np

from conquest_sdk.encoding import TRADE_SLOTS
from engine import (
    CLASSIC,
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    LegalActions,
    Occupy,
    Place,
    TradeCards,
    new_game,
    preset,
    random_legal_action,
)
from server.train.inputs import choices_of, engine_action, layout_for

GAMES = [
    ("classic", 4, {}),
    ("classic", 6, {"defender_dice": "choose"}),
    ("classic_dealt", 3, {"fortify": "connected"}),
    ("classic_two_player", 2, {"defender_dice": "choose"}),
    ("allied_two_player", 2, {"defender_dice": "choose"}),
    ("capital", 4, {}),
    ("secret_mission", 5, {}),
    ("older_edition", 4, {"fortify": "connected"}),
]


def expected_actions(legal: LegalActions) -> set[Action]:
    """Every legal choice, at the least and the most armies it allows."""
    out: set[Action] = {Claim(t) for t in legal.claim} | {ChooseHeadquarters(t) for t in legal.headquarters}
    for t in legal.place_territories:
        out |= {Place(t, legal.place_min), Place(t, legal.place_max)}
    out |= {TradeCards(cards, -1) for cards in legal.trades}
    for a in legal.attacks:
        out |= {Attack(a.source, a.target, d, mode) for d in range(1, a.max_dice + 1) for mode in (0, 1)}
    out |= {ChooseDefence(d) for d in range(1, legal.defend_max + 1)}
    if legal.occupy_max:
        out |= {Occupy(legal.occupy_min), Occupy(legal.occupy_max)}
    for f in legal.fortify:
        out |= {Fortify(f.source, t, n) for t in f.targets for n in (1, f.max_armies)}
    if legal.can_end:
        out.add(EndPhase())
    return out


def test_mask_is_exactly_the_legal_actions_over_thousands_of_random_states() -> None:
    states = 0
    for preset_name, seats, options in GAMES:
        rules = preset(preset_name, turn_cap=60, **options)
        layout = layout_for(rules, seats, CLASSIC)
        for seed in (1, 2):
            rng = random.Random(seed)
            state, _ = new_game(rules, seats, seed)
            while not state.is_over():
                legal = state.legal_actions()
                choices = choices_of(legal)
                masked = np.flatnonzero(layout.mask(choices))
                decoded = [engine_action(layout.decode(int(i), choices)) for i in masked]
                for index, action in zip(masked, decoded, strict=True):
                    assert action in legal, f"{preset_name} seed {seed}: index {index} -> {action} is illegal"
                assert len(set(decoded)) == len(decoded), "two indices name the same action"
                assert len(legal.trades) <= TRADE_SLOTS
                missing = expected_actions(legal) - set(decoded)
                assert not missing, f"{preset_name} seed {seed}: legal but not in the mask: {missing}"
                state.apply(random_legal_action(legal, rng))
                states += 1
    assert states >= 3000
