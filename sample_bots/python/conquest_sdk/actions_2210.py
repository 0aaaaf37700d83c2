"""One call per RISK 2210 A.D. ``Action2210``, as ``actions`` is for the classic game, and the two moves
whose legality has several parts built legal from a wish (``move_in``, ``move``).

>>> from conquest_sdk import actions_2210 as act
>>> act.declare(3, 4).declare.target
4
"""

from __future__ import annotations

from collections.abc import Sequence

from conquest.v1 import game_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_sdk.r2210 import end_phase

__all__ = [
    "bid",
    "build_station",
    "buy_cards",
    "choose_marker",
    "claim",
    "declare",
    "defend",
    "end_phase",
    "hire",
    "lose",
    "move",
    "move_in",
    "place",
    "place_commanders",
    "play_card",
    "remove",
    "roll",
    "take_card",
]


def claim(territory: int) -> pb.Action2210:
    return pb.Action2210(claim=game_pb2.ClaimAction(territory=territory))


def place(territory: int, mods: int) -> pb.Action2210:
    """Setup or DEPLOY: ``mods`` MODs (1..``legal.place_max``) on ``territory``."""
    return pb.Action2210(place=pb.PlaceModsAction(territory=territory, mods=mods))


def place_commanders(land: int, diplomat: int, station: int) -> pb.Action2210:
    return pb.Action2210(
        place_commanders=pb.PlaceCommandersAction(land=land, diplomat=diplomat, station=station)
    )


def bid(energy: int) -> pb.Action2210:
    return pb.Action2210(bid=pb.BidAction(energy=energy))


def choose_marker(marker: int) -> pb.Action2210:
    return pb.Action2210(choose_marker=pb.ChooseMarkerAction(marker=marker))


def hire(commander: int, territory: int) -> pb.Action2210:
    return pb.Action2210(hire=pb.HireAction(commander=commander, territory=territory))


def build_station(territory: int) -> pb.Action2210:
    return pb.Action2210(build_station=pb.BuildStationAction(territory=territory))


def buy_cards(counts: Sequence[int]) -> pb.Action2210:
    """Cards from each deck (Land, Diplomat, Naval, Space, Nuclear); ends buying."""
    return pb.Action2210(buy_cards=pb.BuyCardsAction(counts=list(counts)))


def take_card(deck: int) -> pb.Action2210:
    return pb.Action2210(take_card=pb.TakeCardAction(deck=deck))


def declare(source: int, target: int) -> pb.Action2210:
    return pb.Action2210(declare=pb.DeclareInvasionAction(source=source, target=target))


def roll(dice: int, d8: Sequence[int] = ()) -> pb.Action2210:
    """``dice`` dice, ``d8`` of them (commanders from ``legal.d8``) 8-sided."""
    return pb.Action2210(roll=pb.RollAction(dice=dice, d8=list(d8)[:dice]))


def defend(dice: int) -> pb.Action2210:
    return pb.Action2210(defend=game_pb2.ChooseDefenceAction(dice=dice))


def lose(mods: int, commanders: Sequence[int] = ()) -> pb.Action2210:
    return pb.Action2210(lose=pb.ChooseLossesAction(mods=mods, commanders=list(commanders)))


def remove(territories: Sequence[int]) -> pb.Action2210:
    """MOD Reduction: one territory id per MOD removed."""
    return pb.Action2210(remove=pb.RemoveModsAction(territories=list(territories)))


def play_card(card: int, targets: Sequence[int] = ()) -> pb.Action2210:
    return pb.Action2210(play_card=pb.PlayCardAction(card=card, targets=list(targets)))


def move_in(legal: pb.Legal2210, mods: int, commanders: Sequence[int] = ()) -> pb.Action2210:
    """OCCUPY: about ``mods`` MODs and ``commanders`` into the territory just taken, made legal: the
    commanders that rolled 8-sided dice go too, at least ``legal.occupy_min`` units move and one stays."""
    there = list(legal.occupy_commanders)
    moving = [c for c in there if c in legal.must_move or c in commanders]
    mods = max(0, min(mods, legal.occupy_mods))
    if mods + len(moving) >= legal.occupy_mods + len(there):  # one unit stays: a MOD, else a commander
        if mods > 0:
            mods -= 1
        else:
            moving.remove(next(c for c in reversed(moving) if c not in legal.must_move))
    while mods + len(moving) < legal.occupy_min:
        if mods < legal.occupy_mods:
            mods += 1
        else:
            moving.append(next(c for c in there if c not in moving))
    return pb.Action2210(occupy=pb.MoveUnitsAction(mods=mods, commanders=moving))


def move(
    option: pb.Fortify2210Option, target: int, mods: int, commanders: Sequence[int] = (), keep: int = 1
) -> pb.Action2210:
    """FORTIFY: about ``mods`` MODs and ``commanders`` from ``option.source`` to ``target``, made legal: at
    least one unit moves and ``keep`` (1) stay. DECOYS: commanders alone, ``mods`` 0 and ``keep`` 0."""
    units = option.mods + len(option.commanders)
    moving = [c for c in option.commanders if c in commanders]
    mods = max(0, min(mods, option.mods))
    while mods + len(moving) > units - keep:
        if mods > 0:
            mods -= 1
        else:
            moving.pop()
    if mods + len(moving) == 0:
        if option.mods > 0 and units - 1 >= keep:
            mods = 1
        else:
            moving = list(option.commanders[:1])
    step = pb.FortifyUnitsAction(source=option.source, target=target, mods=mods, commanders=moving)
    return pb.Action2210(fortify=step)
