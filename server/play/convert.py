"""Engine values <-> protobuf messages, built and read with protobuf's own classes: the action a Decision
carries and its message (one ``Action`` oneof field per action kind, ``ACTION_FIELDS``), legal actions read
back from the wire (for clients), and the map and rules a game starts with. The messages sent for every
decision are written by hand in ``server.play.wire``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

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
    Phase,
    Place,
    TradeCards,
)
from engine.board import Board
from engine.classic_map import CLASSIC
from engine.errors import MalformedActionError
from engine.goals import GOALS, MISSIONS, HeadquartersGoal, mission_deck
from engine.legal import AttackOption, FortifyOption, LegalActions
from engine.rules import Objective, Rules

MAP_WIDTH = 1000
MAP_HEIGHT = 560


def map_info(board: Board) -> pb.MapInfo:
    return pb.MapInfo(
        name=board.name,
        territories=[
            pb.Territory(
                name=t.name,
                continent=t.continent,
                card_design=pb.CardDesign.ValueType(int(t.design) + 1),
                x=t.x,
                y=t.y,
                neighbours=board.neighbours[i],
            )
            for i, t in enumerate(board.territories)
        ],
        continents=[
            pb.Continent(name=c.name, bonus=c.bonus, territories=board.continent_members[i])
            for i, c in enumerate(board.continents)
        ],
        wild_cards=board.wild_cards,
        width=MAP_WIDTH,
        height=MAP_HEIGHT,
    )


def rules_info(rules: Rules, seats: int, board: Board = CLASSIC) -> pb.RulesInfo:
    """The rules of a game of ``seats`` players (``board`` names the missions' continents)."""
    goal = GOALS[rules.objective]
    return pb.RulesInfo(
        preset=rules.name,
        setup=rules.setup.value,
        neutral=rules.neutral,
        starting_armies=rules.starting_armies_for(seats),
        trade_values=rules.trade_values,
        trade_increment=rules.trade_increment,
        forced_trade_at=rules.forced_trade_at,
        elimination_trade_at=rules.elimination_trade_at,
        elimination_trade_down_to=rules.elimination_trade_down_to,
        territory_bonus=rules.territory_bonus,
        territory_bonus_mode=rules.territory_bonus_mode.value,
        fortify=rules.fortify.value,
        defender_dice=rules.defender_dice.value,
        turn_cap=rules.turn_cap,
        objective=rules.objective.value,
        capital_goal=rules.capital_goal.value,
        headquarters_needed=goal.needed(rules, seats) if isinstance(goal, HeadquartersGoal) else 0,
        three_continent_missions=rules.three_continent_missions,
        allied_army=rules.allied_army,
        elimination_extra_trades=rules.elimination_extra_trades,
        missions=_missions(rules, seats, board) if rules.objective == Objective.MISSIONS else (),
    )


def _missions(rules: Rules, seats: int, board: Board) -> list[pb.Mission]:
    continent = {c.name: i for i, c in enumerate(board.continents)}
    deck = set(mission_deck(rules, seats))
    return [
        pb.Mission(
            text=m.text,
            continents=[continent[name] for name in m.continents],
            other_continents=m.other_continents,
            territories=m.territories,
            min_armies=m.min_armies,
            destroy=m.destroy,
            in_deck=i in deck,
        )
        for i, m in enumerate(MISSIONS)
    ]


def legal_from_pb(message: pb.LegalActions, phase: pb.Phase.ValueType, seat: int) -> LegalActions:
    """The engine's LegalActions back from the wire (for clients: engine policies and defaults run on it)."""
    fortify: list[FortifyOption] = []
    for source, target, most in zip(
        message.fortify_sources, message.fortify_targets, message.fortify_max_armies, strict=True
    ):
        if fortify and fortify[-1].source == source:
            fortify[-1] = fortify[-1]._replace(targets=(*fortify[-1].targets, target))
        else:
            fortify.append(FortifyOption(source, (target,), most))
    return LegalActions(
        phase=Phase(int(phase) - 1),
        seat=seat,
        claim=tuple(message.claim),
        place_territories=tuple(message.place_territories),
        place_min=message.place_min,
        place_max=message.place_max,
        place_neutral=message.place_neutral,
        trades=tuple((s.cards[0], s.cards[1], s.cards[2]) for s in message.trades),
        bonus_territories=tuple(tuple(s.bonus_territories) for s in message.trades),
        must_trade=message.must_trade,
        attacks=tuple(
            AttackOption(*option)
            for option in zip(
                message.attack_sources,
                message.attack_targets,
                message.attack_max_dice,
                message.attack_source_armies,
                strict=True,
            )
        ),
        defend_max=message.defend_max,
        occupy_min=message.occupy_min,
        occupy_max=message.occupy_max,
        fortify=tuple(fortify),
        can_end=message.can_end,
        headquarters=tuple(message.headquarters),
        army=message.army if message.army != seat else -1,
    )


ACTION_FIELDS: Final[dict[type[Any], str]] = {
    Claim: "claim",
    Place: "place",
    TradeCards: "trade_cards",
    Attack: "attack",
    ChooseDefence: "choose_defence",
    Occupy: "occupy",
    Fortify: "fortify",
    EndPhase: "end_phase",
    ChooseHeadquarters: "choose_headquarters",
}
"""Each kind of action's field in the ``Action`` message's ``kind`` oneof, read both ways. That field's
message has the action's fields under the same names; a trade is the one exception written out (its card
ids are a repeated field, and its bonus territory -1 is left unset)."""
_FROM_FIELD: Final[dict[str, tuple[type[Any], Callable[[Any], Any], bool]]] = {
    field: (kind, attrgetter(*kind._fields) if kind._fields else tuple, len(kind._fields) == 1)
    for kind, field in ACTION_FIELDS.items()
}
"""Oneof field -> (kind, what reads its values from the field's message, whether it has one value)."""
_NO_ACTION: Final = "the Decision carries no action: set exactly one of {} or {}".format(
    ", ".join(list(ACTION_FIELDS.values())[:-1]), list(ACTION_FIELDS.values())[-1]
)
_END_PHASE: Final = EndPhase()


def action_from_pb(message: pb.Action) -> Action:
    """The engine action a Decision carries.

    Raises:
        MalformedActionError: no action kind is set, or a trade does not name exactly three cards.
    """
    field = message.WhichOneof("kind")
    if field is None:
        raise MalformedActionError(_NO_ACTION)
    kind, read, one_value = _FROM_FIELD[field]
    if kind is EndPhase:
        return _END_PHASE  # its message is empty: no need to read it
    body = getattr(message, field)
    if kind is TradeCards:
        if len(body.cards) != 3:
            cards = body.cards
            got = list(cards) if len(cards) <= 10 else f"{len(cards)} card ids"
            raise MalformedActionError(f"trade_cards needs exactly 3 card ids, got {got}")
        bonus = body.bonus_territory if body.HasField("bonus_territory") else -1
        return tuple.__new__(TradeCards, ((body.cards[0], body.cards[1], body.cards[2]), bonus))
    # Built with tuple.__new__: an action's (a NamedTuple's) own __new__ is generated Python, interpreted
    # even here, and cost ~2,300 instructions a decision. attrgetter reads the fields in C.
    action: Action = tuple.__new__(kind, (read(body),) if one_value else read(body))
    return action


def action_to_pb(action: Action) -> pb.Action:
    message = pb.Action()
    body = getattr(message, ACTION_FIELDS[type(action)])
    body.SetInParent()  # sets the oneof even for a kind without fields (end_phase)
    if isinstance(action, TradeCards):
        body.cards.extend(action.cards)
        if action.bonus_territory >= 0:
            body.bonus_territory = action.bonus_territory
        return message
    for name, value in action._asdict().items():
        setattr(body, name, value)
    return message
