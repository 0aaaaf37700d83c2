"""The environment's fast room (``server.train.fast``: ``Encoder`` and ``Room``) against the plain
construction (``conquest_sdk.encoding`` over ``server.train.inputs``, what the SDK builds from a
DecisionRequest).
Issue 22: "The same encoding on the wire: the SDK builds the identical arrays and mask from a
`DecisionRequest`"; the project's rule: "Speed tricks live only in the named fast rooms, each pinned by a
test against the plain construction".

Every decision of random games over every rules preset: every seat's observation vector (the seat to act
and the others, so each seat's kept vector is updated across many changes), the mask, and the action of
every masked-in index; and ``Room`` (the open decision, its masked-in indices, a seat's observation, the
play of an index) against a game played beside it through the plain construction.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_train_mask import GAMES  # every preset, with the options that open the rarer decisions

from conquest_sdk.encoding import BUCKETS, bucket_count, buckets
from engine import CLASSIC, LegalActions, new_game, observe, preset, random_legal_action
from engine.actions import Phase
from server.train import fast
from server.train.fast import Encoder, Room
from server.train.fast_observation import Observer
from server.train.inputs import choices_of, engine_action, layout_for, view_of


@pytest.mark.parametrize(("preset_name", "seats", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_fast_encoder_equals_the_plain_construction(preset_name: str, seats: int, options: dict) -> None:
    rules = preset(preset_name, turn_cap=40, **options)
    layout = layout_for(rules, seats, CLASSIC)
    encoder = Encoder(layout)
    observer = Observer(layout)
    decisions = 0
    for seed in (1, 2):
        rng = random.Random(seed)
        state, _ = new_game(rules, seats, seed)
        encoder.reset()
        observer.reset()
        while not state.is_over():
            legal = state.legal_actions()
            choices = choices_of(legal)
            third = legal.army >= 0
            # Not every seat every time: a seat's kept vector then catches up over several moves.
            for seat in range(seats):
                if seat == state.to_act or rng.random() < 0.3:
                    obs = observe(state, seat)
                    plain = layout.observation(view_of(obs), third and seat == state.to_act)
                    fast = observer.observation(state, seat, third and seat == state.to_act)
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
            observer.note(state.apply(random_legal_action(legal, rng)))
            decisions += 1
    assert decisions > 300


@pytest.mark.parametrize(("preset_name", "seats", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_fast_room_equals_the_plain_construction(preset_name: str, seats: int, options: dict) -> None:
    """``Room`` (what ``ConquestEnv`` calls every step) against a game played beside it through the plain
    construction: the same legal actions, mask and observations; its masked-in indices are the mask's
    ``np.flatnonzero``; ``play`` of a masked-in index plays the plain decode of it (the two games stay equal)
    and refuses an index outside the mask, playing nothing."""
    rules = preset(preset_name, turn_cap=40, **options)
    layout = layout_for(rules, seats, CLASSIC)
    room = Room(layout)
    for seed in (1, 2):
        rng = random.Random(seed)
        state, _ = new_game(rules, seats, seed)
        plain, _ = new_game(rules, seats, seed)
        room.reset(state)
        decisions = 0
        while not plain.is_over():
            legal = plain.legal_actions()
            choices = choices_of(legal)
            assert room.legal() == legal
            plain_mask = layout.mask(choices)
            assert np.array_equal(room.mask(), plain_mask)
            assert room.indices() == tuple(np.flatnonzero(plain_mask).tolist())
            seat = rng.randrange(seats)
            obs = room.observe(seat)
            acting = seat == plain.to_act
            view = layout.observation(view_of(observe(plain, seat)), acting and legal.army >= 0)
            assert np.array_equal(obs["observation"], view)
            assert np.array_equal(obs["action_mask"], plain_mask if acting else np.zeros_like(plain_mask))
            probes = (-1, layout.actions, rng.randrange(layout.actions))
            outside = [i for i in probes if not 0 <= i < layout.actions or not plain_mask[i]]
            for index in [*outside, None]:
                assert room.play(index) == -2
            index = rng.choice(room.indices())
            eliminated = len(plain.eliminated)
            plain.apply(engine_action(layout.decode(index, choices)))
            decisions += 1
            to_act = room.play(np.int64(index) if decisions % 2 else index)
            over = plain.is_over() or len(plain.eliminated) != eliminated
            assert to_act == (-1 if over else plain.to_act)
            assert room.decisions == decisions
            assert observe(state, 0) == observe(plain, 0) and state.to_act == plain.to_act
        assert decisions > 100


def test_fast_buckets_equal_the_encoding() -> None:
    for least in range(0, 12):
        for most in range(least, 40):
            assert fast._BUCKET_SETS[fast._bucket_set(least, most)] == buckets(least, most), (least, most)
            for b in range(BUCKETS):
                assert fast._bucket_count(least, most, b) == bucket_count(least, most, b), (least, most, b)


def test_fast_mask_of_choices_listed_out_of_order_equals_the_encoding() -> None:
    """The engine lists its choices in ascending order, which the fast mask relies on; choices listed out of
    order (or twice) still give the encoding's mask, and the masked-in indices ascending."""
    layout = layout_for(preset("classic"), 4, CLASSIC)
    state, _ = new_game(preset("classic"), 4, 3)
    rng = random.Random(3)
    while state.phase is not Phase.ATTACK or len(state.legal_actions().attacks) < 3:
        state.apply(random_legal_action(state.legal_actions(), rng))
    legal = state.legal_actions()
    attacks = (*reversed(legal.attacks), legal.attacks[0])
    shuffled = LegalActions(legal.phase, legal.seat, attacks=attacks, can_end=legal.can_end)
    encoder = Encoder(layout)
    plain = layout.mask(choices_of(shuffled))
    assert np.array_equal(encoder.mask(shuffled), plain)
    assert encoder.indices() == tuple(np.flatnonzero(plain).tolist())
