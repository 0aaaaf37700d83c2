"""The environment's fast room (``server.train.fast``) against the plain construction
(``conquest_sdk.encoding`` over ``server.train.inputs``, what the SDK builds from a DecisionRequest).
Issue 22: "The same encoding on the wire: the SDK builds the identical arrays and mask from a
`DecisionRequest`"; the project's rule: "Speed tricks live only in the named fast rooms, each pinned by a
test against the plain construction".

Every decision of random games over every rules preset: every seat's observation vector (the seat to act
and the others, so each seat's kept vector is updated across many changes), the mask, and the action of
every masked-in index.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_train_mask import GAMES  # every preset, with the options that open the rarer decisions

from engine import CLASSIC, new_game, observe, preset, random_legal_action
from server.train.fast import Encoder
from server.train.inputs import choices_of, engine_action, layout_for, view_of


@pytest.mark.parametrize(("preset_name", "seats", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_fast_encoder_equals_the_plain_construction(preset_name: str, seats: int, options: dict) -> None:
    rules = preset(preset_name, turn_cap=40, **options)
    layout = layout_for(rules, seats, CLASSIC)
    encoder = Encoder(layout)
    decisions = 0
    for seed in (1, 2):
        rng = random.Random(seed)
        state, _ = new_game(rules, seats, seed)
        encoder.reset()
        while not state.is_over():
            legal = state.legal_actions()
            choices = choices_of(legal)
            third = legal.army >= 0
            # Not every seat every time: a seat's kept vector then catches up over several moves.
            for seat in range(seats):
                if seat == state.to_act or rng.random() < 0.3:
                    obs = observe(state, seat)
                    plain = layout.observation(view_of(obs), third and seat == state.to_act)
                    fast = encoder.observation(state, seat, third and seat == state.to_act)
                    assert fast.dtype == plain.dtype and np.array_equal(fast, plain), (
                        f"{preset_name} seed {seed} decision {decisions} seat {seat}: observation differs at "
                        f"{np.flatnonzero(fast != plain).tolist()}"
                    )
            mask = encoder.mask(legal)
            plain_mask = layout.mask(choices)
            assert mask.dtype == plain_mask.dtype and np.array_equal(mask, plain_mask), (
                f"{preset_name} seed {seed} decision {decisions}: mask differs at "
                f"{np.flatnonzero(mask != plain_mask).tolist()}"
            )
            assert not mask.flags.writeable
            for index in np.flatnonzero(mask):
                plain_action = engine_action(layout.decode(int(index), choices))
                assert encoder.action(int(index), legal) == plain_action, f"index {index}"
            state.apply(random_legal_action(legal, rng))
            decisions += 1
    assert decisions > 300
