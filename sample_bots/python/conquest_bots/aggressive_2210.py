"""Aggressive RISK 2210 A.D. play (``AggressiveBot.decide_2210``): stack every MOD on the strongest front,
invade wherever the odds are good with every unit, move everything forward, pull idle units up to the
front. Energy goes to the commanders an attack needs (Naval for water, Space for the Moon once a Space
Station stands, Land and Nuclear for 8-sided dice); it bids nothing, takes the first Turn Order marker
left, and buys or plays no Command card (a 3-territory bonus card is taken and kept)."""

from __future__ import annotations

from collections.abc import Sequence

from conquest.v1 import r2210_pb2 as pb
from conquest_sdk import Game, Turn2210
from conquest_sdk import actions_2210 as act
from conquest_sdk.r2210 import LAND, NAVAL, NUCLEAR, SPACE, Position2210

P = pb.Phase2210
GOOD_ODDS = 0.6
"""Invade when the chance of taking the target, rolling on with every unit, is at least this."""


def decide(game: Game, turn: Turn2210) -> pb.Action2210:
    legal, phase = turn.legal, turn.phase
    assert game.board_2210 is not None
    where = Position2210(game.board_2210, turn.observation)
    if phase == P.PHASE2210_SETUP_CLAIM:
        near = [t for t in legal.territories if any(n in where.mine for n in where.board.neighbours[t])]
        return act.claim((near or list(legal.territories))[0])
    if phase in (P.PHASE2210_SETUP_PLACE, P.PHASE2210_DEPLOY):
        return act.place(front(where, legal.territories), legal.place_max)
    if phase == P.PHASE2210_SETUP_COMMANDERS:
        t = front(where, legal.territories)
        return act.place_commanders(t, t, t)
    if phase == P.PHASE2210_BID:
        return act.bid(0)
    if phase == P.PHASE2210_CHOOSE_MARKER:
        return act.choose_marker(min(legal.markers))
    if phase == P.PHASE2210_BUY:
        return _buy(where, legal)
    if phase == P.PHASE2210_BONUS_CARD:
        return act.take_card(next(d for d, n in enumerate(legal.card_decks) if n))
    if phase == P.PHASE2210_INVADE:
        return _invade(where, legal)
    if phase == P.PHASE2210_ROLL:
        return act.roll(legal.dice_max, legal.d8)
    if phase == P.PHASE2210_OCCUPY:
        return act.move_in(legal, legal.occupy_mods, legal.occupy_commanders)
    if phase == P.PHASE2210_FORTIFY:
        return _fortify(where, legal)
    return turn.default()  # defend with every die, lose MODs first, pass every card window


def front(where: Position2210, territories: Sequence[int]) -> int:
    """Of ``territories`` (ours), the one whose units outnumber a neighbour it could invade the most."""
    best, best_edge = territories[0], -(1 << 30)
    for t in territories:
        for n in where.board.neighbours[t]:
            if where.owners[n] != where.seat and n not in where.devastated:
                edge = where.units[t] - where.units[n]
                if where.owners[n] >= 0 and where.can_invade(where.seat, t, n):
                    edge += 1  # an enemy we can reach now beats water or Moon we cannot
                if edge > best_edge:
                    best, best_edge = t, edge
    return best


def _buy(where: Position2210, legal: pb.Legal2210) -> pb.Action2210:
    """The first commander an attack needs that we lack, on the front; then stop buying."""
    wanted = [NAVAL, LAND, NUCLEAR]
    if where.launch_pads():
        wanted.insert(1, SPACE)
    for commander in wanted:
        if commander in legal.hires:
            return act.hire(commander, front(where, legal.territories))
    return act.end_phase()


def _invade(where: Position2210, legal: pb.Legal2210) -> pb.Action2210:
    """The invasion with the best odds (an empty territory is certain), when they are good."""
    best, best_odds = -1, GOOD_ODDS
    for i, (source, target) in enumerate(zip(legal.invasion_sources, legal.invasion_targets, strict=True)):
        odds = where.capture_odds(source, target) + where.units[source] / 1000  # ties: the bigger stack
        if odds >= best_odds:
            best, best_odds = i, odds
    if best < 0:
        return act.end_phase()
    return act.declare(legal.invasion_sources[best], legal.invasion_targets[best])


def _fortify(where: Position2210, legal: pb.Legal2210) -> pb.Action2210:
    """Everything from the biggest interior stack to a front it reaches."""
    moves = [
        (o, t)
        for o in legal.fortify
        if not where.is_border(o.source)
        for t in o.targets
        if where.is_border(t)
    ]
    if not moves:
        return act.end_phase()
    option, target = max(moves, key=lambda m: m[0].mods + len(m[0].commanders))
    return act.move(option, target, option.mods, option.commanders)
