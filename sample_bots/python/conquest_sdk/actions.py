"""One call per Action message, so a bot never assembles protobuf by hand.

>>> from conquest_sdk import actions
>>> actions.attack(3, 4, dice=3, repeat_until=1).attack.target
4
"""

from __future__ import annotations

from collections.abc import Sequence

from conquest.v1 import game_pb2 as pb


def claim(territory: int) -> pb.Action:
    """Claim an empty territory (setup claim phase)."""
    return pb.Action(claim=pb.ClaimAction(territory=territory))


def place(territory: int, armies: int) -> pb.Action:
    """Place ``armies`` on one of your territories (or the neutral or Allied Army's when
    ``legal.place_neutral`` says the armies are theirs)."""
    return pb.Action(place=pb.PlaceAction(territory=territory, armies=armies))


def trade(cards: Sequence[int], bonus_territory: int | None = None) -> pb.Action:
    """Trade three cards; ``bonus_territory`` picks where the +2 goes (None: the server's choice)."""
    return pb.Action(trade_cards=pb.TradeCardsAction(cards=list(cards), bonus_territory=bonus_territory))


def attack(source: int, target: int, dice: int, repeat_until: int = 0) -> pb.Action:
    """Roll ``dice`` from ``source`` into ``target``: once (``repeat_until`` 0), or on until the target
    falls or the source is down to ``repeat_until`` armies."""
    return pb.Action(
        attack=pb.AttackAction(source=source, target=target, dice=dice, repeat_until=repeat_until)
    )


def choose_headquarters(territory: int) -> pb.Action:
    """Choose one of your territories as your headquarters (Capital Risk)."""
    return pb.Action(choose_headquarters=pb.ChooseHeadquartersAction(territory=territory))


def defend(dice: int) -> pb.Action:
    """Defend with ``dice`` dice (only in rules where the defender chooses; the Allied Army's or the
    neutral army's territory too when ``legal.army`` says so)."""
    return pb.Action(choose_defence=pb.ChooseDefenceAction(dice=dice))


def occupy(armies: int) -> pb.Action:
    """Move ``armies`` into the territory just captured."""
    return pb.Action(occupy=pb.OccupyAction(armies=armies))


def fortify(source: int, target: int, armies: int) -> pb.Action:
    """The free move of ``armies`` from ``source`` to ``target``; it ends the turn."""
    return pb.Action(fortify=pb.FortifyAction(source=source, target=target, armies=armies))


def end_phase() -> pb.Action:
    """Stop attacking (your own attacks or the Allied Army's), or end the turn without a free move."""
    return pb.Action(end_phase=pb.EndPhaseAction())
