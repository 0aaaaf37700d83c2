"""A finished RISK 2210 A.D. game as the replay viewer shows it: every step's board computed by the engine.

The 2210 sibling of ``server.web.replay_view.viewer_data`` (which hands a ``"game": "2210"`` record here),
for the same viewer page: step 0 is the board as the setup left it (devastation, the claims, commanders and
stations placed), step k the board after action k-1, each with the events it caused (the private ones too:
a finished game hides nothing), the action, the seat that acted (``seat``; -1 for the setup) and the bot's
annotation. A step's board has the fields of a spectator's ``Observation2210`` as JSON (the shape the live
view is sent, so one drawing serves both; bids once revealed) but its ``seat``, plus every hand's card ids
and ``turn``, the turns begun so far.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from conquest.v1 import r2210_pb2 as pb
from engine.r2210.actions import COMMANDERS
from engine.r2210.events import Event2210
from engine.r2210.observe import observe_2210
from engine.r2210.replay import Replay2210, encode_action, replayed
from engine.r2210.state import GameState2210
from server.play import convert_2210
from server.web.layout_2210 import LAYOUT_2210

GAME_2210 = "2210"
"""The viewer data's ``game`` for a 2210 replay (a classic one has none)."""

_OBSERVATION_FIELDS = [(f.name, f.is_repeated, f.enum_type) for f in pb.Observation2210.DESCRIPTOR.fields]
"""(name, repeated, enum) of each Observation2210 field: a step's board is written from these."""


def message_json(message: Message) -> dict[str, Any]:
    """A protobuf message as JSON with the .proto's field names and every field present: what the
    dashboard's live stream sends (``MessageToDict``)."""
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def observation_json(observation: pb.Observation2210) -> dict[str, Any]:
    """``message_json(observation)``, five times faster: a replay writes one per step (the dashboard
    test pins the two equal)."""
    out: dict[str, Any] = {}
    for name, repeated, enum in _OBSERVATION_FIELDS:
        value = getattr(observation, name)
        out[name] = list(value) if repeated else enum.values_by_number[value].name if enum else value
    return out


def _board(state: GameState2210, turn: int) -> dict[str, Any]:
    board = observation_json(convert_2210.observation_2210(observe_2210(state, -1)))
    board["hands"] = [sorted(hand) for hand in state.hands]
    board["turn"] = turn
    return board


def _event(event: Event2210) -> dict[str, Any]:
    """An event as the viewer reads it (the live view reads a GameEvent2210 into the same shape)."""
    return {"type": event.kind, "seat": event.seat, "data": event.data}


def _totals(state: GameState2210) -> dict[str, list[int]]:
    """Territories, units (MODs and commanders) and energy of every owner (seats, then the two-player
    game's neutral army)."""
    owners = state.seats + (1 if state.neutral >= 0 else 0)
    territories = [0] * owners
    units = [0] * owners
    for t, owner in enumerate(state.owner):
        if 0 <= owner < owners:
            territories[owner] += 1
            units[owner] += state.mods[t]
    for seat in range(state.seats):
        units[seat] += sum(state.in_play(seat, c) for c in COMMANDERS)
    return {
        "territories": territories,
        "units": units,
        "energy": [*state.energy, *([0] * (owners - state.seats))],
    }


def viewer_data_2210(record: dict[str, Any]) -> dict[str, Any]:
    """The viewer's data for a 2210 replay file's fields.

    Raises:
        ReplayError: the record is not a 2210 replay, or an action is illegal where it stands.
    """
    replay = Replay2210.from_dict(record)
    steps: list[dict[str, Any]] = []
    series: list[dict[str, Any]] = []
    turn = 0
    for index, (state, events) in enumerate(replayed(replay)):
        turn += sum(1 for e in events if e.kind == "turn_started")
        step: dict[str, Any] = {"action": None, "seat": -1, "events": [_event(e) for e in events]}
        if index:
            seat, action = replay.actions[index - 1]
            step.update(action=encode_action(seat, action)[1:], seat=seat)
            if index - 1 in replay.annotations:
                step["note"] = replay.annotations[index - 1]
        steps.append({**_board(state, turn), **step})  # "seat": the acting seat, not the view's -1
        if index == 0 or any(e.kind == "turn_started" for e in events):
            series.append({"step": index, "turn": turn, **_totals(state)})
    series.append({"step": len(replay.actions), "turn": turn, **_totals(state)})
    return {
        "game": GAME_2210,
        "game_id": replay.game_id,
        "queue": record.get("queue", ""),
        "rules": replay.rules.name,
        "rules_2210": message_json(convert_2210.rules_info_2210(replay.rules, state.seats)),
        "seats": list(replay.seats),
        "owners": len(series[-1]["territories"]),
        "places": list(state.places),
        "outcomes": [str(o).removeprefix("SEAT_OUTCOME_").lower() for o in record.get("outcomes", [])],
        "reason": record.get("reason") or state.end_reason or "",
        "map": message_json(convert_2210.map_2210(state.board, replay.rules)),
        "layout": LAYOUT_2210,
        "steps": steps,
        "series": series,
    }
