"""RISK 2210 A.D. engine values <-> protobuf messages (``conquest/v1/r2210.proto``): the rules and board a
game starts with, a seat's observation, its compact legal actions, the action a Decision carries, and events.

Built with protobuf's own classes: a 2210 decision is not on the classic hot path (``server.play.wire``).
"""

from __future__ import annotations

import json
from typing import Any, Final

from conquest.v1 import arena_pb2, bot_pb2
from conquest.v1 import r2210_pb2 as pb
from engine.errors import MalformedActionError
from engine.r2210.actions import (
    ACTION_KINDS_2210,
    Action2210,
    Commander,
    EndPhase,
)
from engine.r2210.board import Board2210
from engine.r2210.cards import KINDS
from engine.r2210.events import Event2210, seen_by
from engine.r2210.legal import Legal2210
from engine.r2210.observe import Observation2210, observe_2210
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210

FIELD_OF: Final[dict[type, str]] = {kind: name for name, kind in ACTION_KINDS_2210.items()}
"""Each 2210 action kind's field in the ``Action2210`` oneof (the engine's kind names)."""
_COMMANDER_FIELDS: Final = frozenset({"d8", "commanders"})
"""Fields holding commanders: tuples of ``Commander`` in the engine, repeated int32 on the wire."""
_ONE_COMMANDER: Final = frozenset({"commander", "deck"})
"""Fields holding one ``Commander`` (a hire's commander, a bonus card's deck): int32 on the wire."""
_NO_ACTION: Final = (
    "the Decision carries no 2210 action: set exactly one field of Decision.r2210 ({})".format(
        ", ".join(ACTION_KINDS_2210)
    )
)
_DEFENDER_DICE = {0: "max", 1: "choose"}


def rules_info_2210(rules: Rules2210, seats: int) -> pb.Rules2210Info:
    return pb.Rules2210Info(
        preset=rules.name,
        years=rules.years,
        starting_mods=rules.starting_mods(seats),
        starting_energy=rules.starting_energy,
        commander_cost=rules.commander_cost,
        station_cost=rules.station_cost,
        max_stations=rules.max_stations,
        defender_dice=str(rules.defender_dice.value),
        choose_losses=rules.choose_losses,
        region_bonus_energy=rules.region_bonus_energy,
        armageddon_all=rules.armageddon_all,
        cards=[
            pb.Card2210(name=KINDS[kind][2], deck=KINDS[kind][1], cost=KINDS[kind][4], timing=KINDS[kind][5])
            for kind in _card_kinds()
        ],
    )


def _card_kinds() -> list[int]:
    """The kind of each card id (``engine.r2210.cards.KIND_OF``), read through ``KINDS``' copy counts."""
    return [k for k, row in enumerate(KINDS) for _ in range(row[3])]


def map_2210(board: Board2210, rules: Rules2210) -> pb.Map2210:
    return pb.Map2210(
        territories=[
            pb.Territory2210(
                name=board.names[t],
                key=board.keys[t],
                kind=int(board.kinds[t]),
                region=board.region_of[t],
                neighbours=board.neighbours[t],
            )
            for t in range(board.size)
        ],
        regions=[
            pb.Region2210(
                name=r.name,
                kind=r.kind,
                bonus_mods=r.bonus_mods,
                bonus_energy=r.bonus_energy if rules.region_bonus_energy else 0,
                bonus_points=r.bonus_points,
                territories=r.members,
            )
            for r in board.regions
        ],
        landing_sites=board.landing_sites,
        income_mods=[mods for mods, _ in board.income],
        income_energy=[energy for _, energy in board.income],
    )


def observation_2210(obs: Observation2210) -> pb.Observation2210:
    source, target = obs.pending if obs.pending is not None else (-1, -1)
    return pb.Observation2210(
        phase=pb.Phase2210.ValueType(int(obs.phase) + 1),
        asked=obs.asked,
        year=obs.year,
        turn_seat=obs.turn_seat,
        order=obs.order,
        owners=obs.owners,
        mods=obs.mods,
        commanders=[t for per_seat in obs.commanders for t in per_seat],
        stations=obs.stations,
        devastated=obs.devastated,
        energy=obs.energy,
        bids=obs.bids,
        territory_deck_sizes=obs.deck_sizes,
        command_deck_sizes=obs.command_deck_sizes,
        hand=obs.hand,
        card_counts=[n for per_seat in obs.card_counts for n in per_seat],
        recruits=obs.recruits,
        pending_source=source,
        pending_target=target,
        setup_left=obs.setup_left,
        scores=obs.scores,
        places=obs.places,
        seat=obs.seat,
    )


def legal_2210(legal: Legal2210) -> pb.Legal2210:
    return pb.Legal2210(
        phase=pb.Phase2210.ValueType(int(legal.phase) + 1),
        territories=legal.territories,
        place_max=legal.place_max,
        bid_max=legal.bid_max,
        markers=legal.markers,
        hires=[int(c) for c in legal.hires],
        stations=legal.stations,
        card_decks=legal.card_decks,
        buy_max=legal.buy_max,
        invasion_sources=[s for s, _ in legal.invasions],
        invasion_targets=[t for _, t in legal.invasions],
        dice_max=legal.dice_max,
        d8=[int(c) for c in legal.d8],
        defend_max=legal.defend_max,
        lose=legal.lose,
        mods_at=legal.mods_at,
        occupy_min=legal.occupy_min,
        occupy_mods=legal.occupy_mods,
        occupy_commanders=[int(c) for c in legal.occupy_commanders],
        must_move=[int(c) for c in legal.must_move],
        fortify=[
            pb.Fortify2210Option(source=f.source, targets=f.targets, mods=f.mods, commanders=f.commanders)
            for f in legal.fortify
        ],
        plays=[pb.CardPlayOption(card=p.card, targets=p.targets, picks=p.picks) for p in legal.plays],
        can_end=legal.can_end,
    )


def action_from_pb_2210(message: pb.Action2210) -> Action2210:
    """The engine action a 2210 Decision carries (checked against the rules by the engine, not here).

    Raises:
        MalformedActionError: no action kind is set, or a commander index is not 0..4.
    """
    field = message.WhichOneof("kind")
    if field is None:
        raise MalformedActionError(_NO_ACTION)
    kind = ACTION_KINDS_2210[field]
    if kind is EndPhase:
        return EndPhase()
    body = getattr(message, field)
    values: list[Any] = []
    for name in kind._fields:
        value = getattr(body, name)
        if name in _COMMANDER_FIELDS:
            value = _commanders(value)
        elif name in _ONE_COMMANDER:
            value = _commanders([value])[0]
        elif not isinstance(value, int):
            value = tuple(value)
        values.append(value)
    action: Action2210 = kind(*values)
    return action


def _commanders(values: Any) -> tuple[Commander, ...]:
    out = []
    for v in values:
        if not 0 <= v < len(Commander):
            raise MalformedActionError(
                f"commander index {v} is not one of 0 Land, 1 Diplomat, 2 Naval, 3 Space, 4 Nuclear"
            )
        out.append(Commander(v))
    return tuple(out)


def action_to_pb_2210(action: Action2210) -> pb.Action2210:
    message = pb.Action2210()
    body = getattr(message, FIELD_OF[type(action)])
    body.SetInParent()  # sets the oneof even for a kind without fields (end_phase)
    values: tuple[Any, ...] = tuple(action)
    for name, value in zip(type(action)._fields, values, strict=True):
        if isinstance(value, tuple):
            getattr(body, name).extend(int(v) for v in value)
        else:
            setattr(body, name, int(value))
    return message


def event_2210(event: Event2210, sequence: int) -> pb.GameEvent2210:
    return pb.GameEvent2210(
        sequence=sequence,
        kind=event.kind,
        seat=event.seat,
        data_json=json.dumps(event.data, separators=(",", ":"), default=_plain),
    )


def start_2210(rules: Rules2210, state: GameState2210, seat: int) -> pb.Start2210:
    """The rules, board and ``seat``'s view now (-1: a spectator's), as GameStarted and a snapshot carry
    them."""
    return pb.Start2210(
        rules=rules_info_2210(rules, state.seats),
        map=map_2210(state.board, rules),
        observation=observation_2210(observe_2210(state, seat)),
    )


def watch_events_2210(
    game_id: str, events: list[tuple[int, Event2210]], state: GameState2210
) -> arena_pb2.WatchGameResponse:
    """A spectator's message for one action: its ``events`` (position, event) as a spectator sees them
    (private ones blanked) and the board after them as a spectator sees it (``WatchEvents2210``)."""
    return arena_pb2.WatchGameResponse(
        events_2210=arena_pb2.WatchEvents2210(
            game_id=game_id,
            events=[event_2210(seen_by(event, -1), position) for position, event in events],
            observation=observation_2210(observe_2210(state, -1)),
        )
    )


def _plain(value: object) -> object:
    if isinstance(value, tuple | frozenset | set):
        return list(value)
    raise TypeError(f"not JSON data: {value!r}")


def decision_request_2210(
    game_id: str,
    request_id: int,
    state: GameState2210,
    seat: int,
    legal: Legal2210,
    events: list[tuple[int, Event2210]],
    time_allowed_ms: int,
    timebank_ms: int,
    last_latency_ms: int = 0,
    strikes: int = 0,
) -> bot_pb2.DecisionRequest:
    """The DecisionRequest asking ``seat`` for ``legal``, with the ``events`` (position, event) it has not
    been sent (already filtered to what it may see)."""
    return bot_pb2.DecisionRequest(
        game_id=game_id,
        request_id=request_id,
        time_allowed_ms=time_allowed_ms,
        timebank_ms=timebank_ms,
        last_latency_ms=last_latency_ms,
        strikes=strikes,
        r2210=pb.Request2210(
            observation=observation_2210(observe_2210(state, seat)),
            legal=legal_2210(legal),
            events=[event_2210(event, position) for position, event in events],
        ),
    )
