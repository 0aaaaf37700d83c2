"""Every kind of action (``engine.actions.ACTION_KINDS``) is handled by every table keyed by kind: applied,
checked for legality and well-formedness, written and read by the replay codec, drawn by the random policy
(issue 18: "a test fails if a kind is missing from any dispatch"). The wire's share is checked in
tests/server/test_server_wire_action_kinds.py."""

from __future__ import annotations

import json
import random

import pytest
from action_samples import OFFERED

from engine import CLASSIC, Action, IllegalActionError, LegalActions, MalformedActionError, Phase
from engine.actions import ACTION_KINDS
from engine.codec import decode_action, encode_action
from engine.game import APPLY, APPLY_THEN_CHECK_GOAL
from engine.legal import check_well_formed
from engine.policies import random_legal_action

KINDS = sorted(ACTION_KINDS.values(), key=lambda kind: kind.__name__)
TERRITORY_FIELDS = ("territory", "source", "target", "bonus_territory")
"""The fields that name a territory (by the naming the action types follow)."""


def test_every_kind_has_a_sample_offered() -> None:
    assert set(OFFERED) == set(ACTION_KINDS.values()), "add the new kind to tests/support/action_samples.py"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_kind_is_applied(kind: type) -> None:
    assert kind in APPLY, f"engine.game.APPLY has no entry for {kind.__name__}"
    assert kind in APPLY_THEN_CHECK_GOAL


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_kind_is_checked_for_legality(kind: type) -> None:
    legal, action = OFFERED[kind]
    assert legal.check_form(action) is action
    legal.check(action)
    assert action in legal
    with pytest.raises(IllegalActionError, match="is illegal in GAME_OVER"):
        LegalActions(Phase.GAME_OVER, -1).check_legal(action)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_territory_field_is_range_checked(kind: type) -> None:
    _, action = OFFERED[kind]
    check_well_formed(action, CLASSIC.size, CLASSIC.card_count)
    for field in set(TERRITORY_FIELDS) & set(action._fields):
        off_board: Action = action._replace(**{field: CLASSIC.size})
        with pytest.raises(MalformedActionError, match="territory ids are"):
            check_well_formed(off_board, CLASSIC.size, CLASSIC.card_count)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_kind_survives_the_replay_codec(kind: type) -> None:
    _, action = OFFERED[kind]
    written = json.loads(json.dumps(encode_action(action)))
    assert ACTION_KINDS[written[0]] is kind
    decoded = decode_action(written)
    assert type(decoded) is kind and decoded == action


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_the_random_policy_draws_every_kind_it_is_offered(kind: type) -> None:
    legal, _ = OFFERED[kind]
    rng = random.Random(kind.__name__)
    for _ in range(20):
        drawn = random_legal_action(legal, rng)
        assert type(drawn) is kind
        legal.check(drawn)
