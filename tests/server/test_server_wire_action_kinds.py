"""Every kind of action has its field in the Action message's ``kind`` oneof and crosses the wire both ways
(issue 18: "a test fails if a kind is missing from any dispatch"; the engine's tables are checked in
tests/engine/test_engine_action_kinds.py)."""

from __future__ import annotations

import pytest
from action_samples import OFFERED

from conquest.v1 import game_pb2 as pb
from engine import MalformedActionError, TradeCards
from engine.actions import ACTION_KINDS
from server.play import convert

KINDS = sorted(ACTION_KINDS.values(), key=lambda kind: kind.__name__)


def test_every_kind_has_one_oneof_field_and_every_field_a_kind() -> None:
    oneof = {field.name for field in pb.Action.DESCRIPTOR.oneofs_by_name["kind"].fields}
    assert set(convert.ACTION_FIELDS) == set(ACTION_KINDS.values())
    assert set(convert.ACTION_FIELDS.values()) == oneof


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_kind_crosses_the_wire_both_ways(kind: type) -> None:
    _, action = OFFERED[kind]
    message = convert.action_to_pb(action)
    assert message.WhichOneof("kind") == convert.ACTION_FIELDS[kind]
    assert pb.Action.FromString(message.SerializeToString()) == message
    back = convert.action_from_pb(message)
    # action_from_pb builds with tuple.__new__: the same value and type as the plain constructor.
    assert type(back) is kind and back == kind(*action)


def test_a_trade_without_bonus_territory_leaves_the_field_unset() -> None:
    message = convert.action_to_pb(TradeCards((1, 2, 3)))
    assert not message.trade_cards.HasField("bonus_territory")
    assert convert.action_from_pb(message) == TradeCards((1, 2, 3), -1)


def test_a_decision_without_an_action_names_every_kind() -> None:
    with pytest.raises(MalformedActionError) as raised:
        convert.action_from_pb(pb.Action())
    assert str(raised.value) == (
        "the Decision carries no action: set exactly one of claim, place, trade_cards, attack, "
        "choose_defence, occupy, fortify, end_phase or choose_headquarters"
    )
