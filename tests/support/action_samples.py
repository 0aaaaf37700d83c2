"""One sample of every kind of action, with a ``LegalActions`` that offers it and nothing else.

``tests/engine/test_engine_action_kinds.py`` and ``tests/server/test_server_wire_action_kinds.py`` run
every sample through every table keyed by kind; both fail until a new kind has its sample here.
"""

from __future__ import annotations

from engine import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.legal import AttackOption, FortifyOption, LegalActions

OFFERED: dict[type, tuple[LegalActions, Action]] = {
    Claim: (LegalActions(Phase.SETUP_CLAIM, 0, claim=(5,)), Claim(5)),
    Place: (LegalActions(Phase.REINFORCE, 0, place_territories=(5,), place_min=3, place_max=3), Place(5, 3)),
    TradeCards: (
        LegalActions(Phase.REINFORCE, 0, trades=((1, 2, 3),), bonus_territories=((2,),), must_trade=True),
        TradeCards((1, 2, 3), 2),
    ),
    Attack: (LegalActions(Phase.ATTACK, 0, attacks=(AttackOption(5, 6, 1, 2),)), Attack(5, 6, 1, 1)),
    ChooseDefence: (LegalActions(Phase.DEFEND, 1, defend_max=1), ChooseDefence(1)),
    Occupy: (LegalActions(Phase.OCCUPY, 0, occupy_min=2, occupy_max=2), Occupy(2)),
    Fortify: (LegalActions(Phase.FORTIFY, 0, fortify=(FortifyOption(5, (6,), 1),)), Fortify(5, 6, 1)),
    EndPhase: (LegalActions(Phase.ATTACK, 0, can_end=True), EndPhase()),
    ChooseHeadquarters: (
        LegalActions(Phase.CHOOSE_HEADQUARTERS, 0, headquarters=(5,)),
        ChooseHeadquarters(5),
    ),
}
