"""``convert.action_from_pb`` builds actions positionally (``tuple.__new__``: an action's own ``__new__`` is
interpreted Python); each kind is pinned here against the action built by keyword, with a distinct value
in every field so that two fields swapped cannot pass."""

from __future__ import annotations

import pytest

from conquest.v1 import game_pb2 as pb
from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Place,
    TradeCards,
)
from server.play import convert

CASES: list[tuple[pb.Action, Action]] = [
    (
        pb.Action(attack=pb.AttackAction(source=1, target=2, dice=3, repeat_until=4)),
        Attack(source=1, target=2, dice=3, repeat_until=4),
    ),
    (pb.Action(place=pb.PlaceAction(territory=5, armies=6)), Place(territory=5, armies=6)),
    (pb.Action(end_phase=pb.EndPhaseAction()), EndPhase()),
    (pb.Action(occupy=pb.OccupyAction(armies=7)), Occupy(armies=7)),
    (
        pb.Action(fortify=pb.FortifyAction(source=8, target=9, armies=10)),
        Fortify(source=8, target=9, armies=10),
    ),
    (
        pb.Action(trade_cards=pb.TradeCardsAction(cards=[11, 12, 13], bonus_territory=14)),
        TradeCards(cards=(11, 12, 13), bonus_territory=14),
    ),
    (pb.Action(trade_cards=pb.TradeCardsAction(cards=[11, 12, 13])), TradeCards(cards=(11, 12, 13))),
    (pb.Action(choose_defence=pb.ChooseDefenceAction(dice=2)), ChooseDefence(dice=2)),
    (pb.Action(claim=pb.ClaimAction(territory=15)), Claim(territory=15)),
    (
        pb.Action(choose_headquarters=pb.ChooseHeadquartersAction(territory=16)),
        ChooseHeadquarters(territory=16),
    ),
]


@pytest.mark.parametrize(("message", "action"), CASES, ids=[type(a).__name__ for _, a in CASES])
def test_an_action_from_the_wire_is_the_action_built_by_keyword(message, action):
    built = convert.action_from_pb(message)
    assert type(built) is type(action)
    assert built == action


def test_every_action_kind_is_pinned():
    kinds = {type(action) for _, action in CASES}
    assert kinds == set(Action.__args__)
