"""Compact, JSON-ready forms of actions and events (replays and the wire format build on these).

An action is a list: its kind followed by its fields, e.g. ``["attack", 3, 4, 3, 1]``.
An event is a dict: ``{"type": "rolled", ...fields}``.
"""

from __future__ import annotations

import re
from typing import Any

from engine import events as ev
from engine.actions import ACTION_KINDS as ACTION_KINDS  # re-exported: the kinds by their names here
from engine.actions import Action, TradeCards
from engine.errors import MalformedActionError


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


EVENT_KINDS: dict[str, type[Any]] = {
    _snake(k.__name__): k
    for k in (
        ev.FirstPlayerRolled,
        ev.Dealt,
        ev.Claimed,
        ev.Placed,
        ev.TurnStarted,
        ev.Traded,
        ev.Rolled,
        ev.Captured,
        ev.Occupied,
        ev.Eliminated,
        ev.CardsTaken,
        ev.Drew,
        ev.Fortified,
        ev.TurnEnded,
        ev.GameEnded,
        ev.MissionDealt,
        ev.MissionsRevealed,
        ev.HeadquartersChosen,
        ev.HeadquartersRevealed,
    )
}
_KIND_OF = {v: k for k, v in ACTION_KINDS.items()}


def encode_action(action: Action) -> list[Any]:
    # Unpacked whole, not value by value: a finished game's replay encodes every action at once, on the
    # server's core. Only a trade has a field that is not a number (its three card ids).
    if isinstance(action, TradeCards):
        return [_KIND_OF[TradeCards], list(action.cards), action.bonus_territory]
    return [_KIND_OF[type(action)], *action]


def decode_action(data: object) -> Action:
    """An action from its list form.

    Raises:
        MalformedActionError: an unknown kind, or the wrong number or type of fields.
    """
    if not isinstance(data, list | tuple) or not data or data[0] not in ACTION_KINDS:
        kinds = ", ".join(ACTION_KINDS)
        raise MalformedActionError(f"an action is [kind, fields...] with kind one of {kinds}; got {data!r}")
    kind = ACTION_KINDS[data[0]]
    fields = list(data[1:])
    if kind is TradeCards and fields:
        if not isinstance(fields[0], list | tuple) or len(fields[0]) != 3:
            raise MalformedActionError(f"trade_cards needs three card ids first, got {fields[0]!r}")
        fields[0] = tuple(fields[0])
        flat = [*fields[0], *fields[1:]]
    else:
        flat = fields
    if any(isinstance(v, bool) or not isinstance(v, int) for v in flat):
        raise MalformedActionError(f"{data[0]} takes whole numbers only, got {list(data[1:])!r}")
    try:
        action: Action = kind(*fields)
    except TypeError:
        names = ", ".join(kind._fields)
        raise MalformedActionError(f"{data[0]} takes ({names}), got {list(data[1:])!r}") from None
    return action


def encode_event(event: ev.Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _snake(type(event).__name__)}
    for key, value in event._asdict().items():
        out[key] = _plain(value)
    return out


def decode_event(data: dict[str, Any]) -> ev.Event:
    kind = EVENT_KINDS[data["type"]]
    values = {k: _tupled(v) for k, v in data.items() if k != "type"}
    event: ev.Event = kind(**values)
    return event


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value
