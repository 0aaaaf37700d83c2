"""The messages sent for every decision, written in protobuf's wire format: one of the two fast rooms.

Building protobuf messages from Python objects is the expensive part of a Python server, so the
DecisionRequest (observation, legal actions, events), the GameEvents, the GameStarted and the
ConnectResponse around them are written field by field ("messages written field by field" below), and
per-territory state goes out as packed arrays patched in place (``PublicArrays``). The bytes are
protobuf's own (``tests/server/test_server_messages_written.py``). Everything else is built with
protobuf's classes in ``server.play.convert``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from conquest.v1 import bot_pb2
from conquest.v1 import game_pb2 as pb
from engine import events as ev
from engine.actions import (
    Phase,
)
from engine.codec import EVENT_KINDS
from engine.legal import LegalActions
from engine.observe import Observation
from engine.state import PlayerStatus


# The enums' ValueType is a typing.NewType, which costs a Python call at run time; cast costs nothing, and
# these run for every DecisionRequest (a phase and a status per seat).
def phase_to_pb(phase: Phase) -> pb.Phase.ValueType:
    return cast(pb.Phase.ValueType, int(phase) + 1)


def statuses_to_pb(statuses: tuple[PlayerStatus, ...]) -> list[pb.PlayerStatus.ValueType]:
    return [cast(pb.PlayerStatus.ValueType, int(s) + 1) for s in statuses]


class PublicArrays:
    """The arrays of one game's Observations that every seat sees alike (``owners``, ``armies``,
    ``hand_sizes``, ``statuses``), kept as a serialized Observation holding only them and patched where
    they changed since last asked for. Building them from Python ints costs upb ~300 instructions an int
    (92 in a classic 4-player game, for every DecisionRequest); a decision changes two or three."""

    def __init__(self) -> None:
        self._message = pb.Observation()
        self._owner_field = self._message.owners  # kept: looking a repeated field up costs ~1k instructions
        self._army_field = self._message.armies
        self._owners: tuple[int, ...] = ()
        self._armies: tuple[int, ...] = ()
        self._hand_sizes: tuple[int, ...] = ()
        self._statuses: tuple[PlayerStatus, ...] = ()
        self._serialized = b""

    def serialized(self, obs: Observation) -> bytes:
        """``obs``'s public arrays, serialized."""
        changed = False
        if obs.owners != self._owners:
            _patch(self._owners, obs.owners, self._owner_field)
            self._owners = obs.owners
            changed = True
        if obs.armies != self._armies:
            _patch(self._armies, obs.armies, self._army_field)
            self._armies = obs.armies
            changed = True
        if obs.hand_sizes != self._hand_sizes:
            self._message.ClearField("hand_sizes")
            self._message.hand_sizes.extend(obs.hand_sizes)
            self._hand_sizes = obs.hand_sizes
            changed = True
        if obs.statuses != self._statuses:
            self._message.ClearField("statuses")
            self._message.statuses.extend(statuses_to_pb(obs.statuses))
            self._statuses = obs.statuses
            changed = True
        if changed:
            self._serialized = self._message.SerializeToString()
        return self._serialized


def _patch(before: tuple[int, ...], now: tuple[int, ...], field: Any) -> None:
    """Make the repeated ``field``, equal to ``before``, equal ``now``: set the items that differ."""
    if len(before) != len(now):  # the first call
        field.extend(now)
        return
    for i in range(len(now)):
        if now[i] != before[i]:
            field[i] = now[i]


# ------------------------------------------------------------------ messages written field by field
# The messages sent for every decision are written here in protobuf's wire format, not built as upb
# messages: building one from Python sets each field through upb's attribute machinery (~300 instructions
# an int, ~9,000 for a LegalActions). The format is small and fixed
# (https://protobuf.dev/programming-guides/encoding/): a key (field number and wire type), then a varint,
# or a length and that many bytes. Fields go in number order and zeros are left out, as protobuf writes
# them, so the bytes are those protobuf would write (tests/server/test_server_messages_written.py holds
# every message to that). A sub-message serialized once (an event every seat is sent, the map) goes into
# each message that carries it as it is: "embedded messages are compatible with bytes if the bytes
# contain an encoded version of the message" (the proto3 guide). Each writer appends a field's pieces to
# ``out``, joined once at the end: concatenating them as they come would copy the message over and over.


def _varint(value: int) -> bytes:
    """``value`` as a varint: seven bits a byte, low bits first, the high bit set on all but the last (a
    negative int32 or int64 as its 64-bit two's complement, ten bytes)."""
    if 0 <= value < 128:
        return _BYTE[value]
    if 0 < value < 16_384:  # two bytes: request ids, times, most lengths
        return _BYTE[value & 127 | 128] + _BYTE[value >> 7]
    if value == -1:  # "none" in several fields (no pending attack, no bonus territory)
        return _MINUS_ONE
    if value < 0:
        value += 1 << 64
    pieces = []
    while value >= 128:
        pieces.append(_BYTE[value & 127 | 128])
        value >>= 7
    pieces.append(_BYTE[value])
    return b"".join(pieces)


_BYTE: Final = tuple(bytes((value,)) for value in range(256))
"""Every one-byte bytes, made once."""
_MINUS_ONE: Final = b"\xff" * 9 + b"\x01"


def _key(message: Descriptor, name: str) -> bytes:
    """The key of ``message``'s field ``name``: its number and wire type (length-delimited for strings,
    bytes, messages and repeated fields, which proto3 packs when they are numbers; varint for the rest)."""
    field = message.fields_by_name[name]
    delimited = field.is_repeated or field.type in (
        FieldDescriptor.TYPE_STRING,
        FieldDescriptor.TYPE_BYTES,
        FieldDescriptor.TYPE_MESSAGE,
    )
    return _varint(field.number << 3 | (2 if delimited else 0))


def _number(out: list[bytes], key: bytes, value: int) -> None:
    """A number (or bool) field; zero, proto3's default, is not written."""
    if value:
        out.append(key)
        out.append(_varint(value))


def _delimited(out: list[bytes], key: bytes, body: bytes) -> None:
    """A string, bytes or sub-message field (an empty sub-message is still written: it is present)."""
    out.append(key)
    out.append(_varint(len(body)))
    out.append(body)


def _text(out: list[bytes], key: bytes, value: str) -> None:
    if value:
        _delimited(out, key, value.encode())


def _packed(out: list[bytes], key: bytes, values: Sequence[int]) -> None:
    """A repeated number field, packed; empty, it is not written."""
    if values:
        _delimited(out, key, _varints(values))


def _varints(values: Sequence[int]) -> bytes:
    """``values``' varints, one after another. A number 0..127 is its own one-byte varint, and most are
    (territory ids, dice, card ids): ``bytes()`` writes those in one call, and ``isascii()`` checks that
    they all were below 128."""
    try:
        written = bytes(values)
        if written.isascii():
            return written
    except ValueError:  # a number outside 0..255
        pass
    return b"".join([_varint(value) for value in values])


# The keys of the fields written here.
_RESPONSE = bot_pb2.ConnectResponse.DESCRIPTOR
_RESPONSE_KEYS: Final = {
    kind: _key(_RESPONSE, kind) for kind in ("game_started", "decision_request", "game_events")
}
_STARTED = bot_pb2.GameStarted.DESCRIPTOR
_STARTED_GAME_ID: Final = _key(_STARTED, "game_id")
_STARTED_SEAT: Final = _key(_STARTED, "seat")
_STARTED_PLAYERS: Final = _key(_STARTED, "players")
_STARTED_RULES: Final = _key(_STARTED, "rules")
_STARTED_MAP: Final = _key(_STARTED, "map")
_STARTED_QUEUE: Final = _key(_STARTED, "queue")
_STARTED_TIME_CONTROL: Final = _key(_STARTED, "time_control")
_STARTED_SEED_COMMITMENT: Final = _key(_STARTED, "seed_commitment")
_STARTED_OBSERVATION: Final = _key(_STARTED, "observation")
_STARTED_DICE_VERSION: Final = _key(_STARTED, "dice_version")
_REQUEST = bot_pb2.DecisionRequest.DESCRIPTOR
_REQUEST_GAME_ID: Final = _key(_REQUEST, "game_id")
_REQUEST_ID: Final = _key(_REQUEST, "request_id")
_REQUEST_OBSERVATION: Final = _key(_REQUEST, "observation")
_REQUEST_LEGAL: Final = _key(_REQUEST, "legal")
_REQUEST_TIME_ALLOWED_MS: Final = _key(_REQUEST, "time_allowed_ms")
_REQUEST_TIMEBANK_MS: Final = _key(_REQUEST, "timebank_ms")
_REQUEST_LAST_LATENCY_MS: Final = _key(_REQUEST, "last_latency_ms")
_REQUEST_STRIKES: Final = _key(_REQUEST, "strikes")
_REQUEST_EVENTS: Final = _key(_REQUEST, "events")
_EVENTS = bot_pb2.GameEvents.DESCRIPTOR
_EVENTS_GAME_ID: Final = _key(_EVENTS, "game_id")
_EVENTS_EVENTS: Final = _key(_EVENTS, "events")
_LEGAL = pb.LegalActions.DESCRIPTOR
_LEGAL_CLAIM: Final = _key(_LEGAL, "claim")
_LEGAL_PLACE_TERRITORIES: Final = _key(_LEGAL, "place_territories")
_LEGAL_PLACE_MIN: Final = _key(_LEGAL, "place_min")
_LEGAL_PLACE_MAX: Final = _key(_LEGAL, "place_max")
_LEGAL_TRADES: Final = _key(_LEGAL, "trades")
_LEGAL_MUST_TRADE: Final = _key(_LEGAL, "must_trade")
_LEGAL_ATTACK_SOURCES: Final = _key(_LEGAL, "attack_sources")
_LEGAL_ATTACK_TARGETS: Final = _key(_LEGAL, "attack_targets")
_LEGAL_ATTACK_MAX_DICE: Final = _key(_LEGAL, "attack_max_dice")
_LEGAL_ATTACK_SOURCE_ARMIES: Final = _key(_LEGAL, "attack_source_armies")
_LEGAL_DEFEND_MAX: Final = _key(_LEGAL, "defend_max")
_LEGAL_OCCUPY_MIN: Final = _key(_LEGAL, "occupy_min")
_LEGAL_OCCUPY_MAX: Final = _key(_LEGAL, "occupy_max")
_LEGAL_FORTIFY_SOURCES: Final = _key(_LEGAL, "fortify_sources")
_LEGAL_FORTIFY_TARGETS: Final = _key(_LEGAL, "fortify_targets")
_LEGAL_FORTIFY_MAX_ARMIES: Final = _key(_LEGAL, "fortify_max_armies")
_LEGAL_CAN_END: Final = _key(_LEGAL, "can_end")
_LEGAL_PLACE_NEUTRAL: Final = _key(_LEGAL, "place_neutral")
_LEGAL_HEADQUARTERS: Final = _key(_LEGAL, "headquarters")
_LEGAL_ARMY: Final = _key(_LEGAL, "army")
_CARD_SET = pb.CardSet.DESCRIPTOR
_CARD_SET_CARDS: Final = _key(_CARD_SET, "cards")
_CARD_SET_BONUS_TERRITORIES: Final = _key(_CARD_SET, "bonus_territories")


_OBSERVATION = pb.Observation.DESCRIPTOR
_OBSERVATION_PHASE: Final = _key(_OBSERVATION, "phase")
_OBSERVATION_TO_ACT: Final = _key(_OBSERVATION, "to_act")
_OBSERVATION_TURN: Final = _key(_OBSERVATION, "turn")
_OBSERVATION_TURN_SEAT: Final = _key(_OBSERVATION, "turn_seat")
_OBSERVATION_HAND: Final = _key(_OBSERVATION, "hand")
_OBSERVATION_DECK_SIZE: Final = _key(_OBSERVATION, "deck_size")
_OBSERVATION_TRADES_DONE: Final = _key(_OBSERVATION, "trades_done")
_OBSERVATION_NEXT_TRADE_VALUE: Final = _key(_OBSERVATION, "next_trade_value")
_OBSERVATION_REINFORCEMENTS: Final = _key(_OBSERVATION, "reinforcements")
_OBSERVATION_PENDING_SOURCE: Final = _key(_OBSERVATION, "pending_source")
_OBSERVATION_PENDING_TARGET: Final = _key(_OBSERVATION, "pending_target")
_OBSERVATION_PENDING_COUNT: Final = _key(_OBSERVATION, "pending_count")
_OBSERVATION_HEADQUARTERS: Final = _key(_OBSERVATION, "headquarters")
_OBSERVATION_MISSION: Final = _key(_OBSERVATION, "mission")
_OBSERVATION_MISSIONS: Final = _key(_OBSERVATION, "missions")


def observation(obs: Observation) -> pb.Observation:
    return pb.Observation.FromString(serialized_observation_part(obs) + PublicArrays().serialized(obs))


def serialized_observation_part(obs: Observation) -> bytes:
    """``obs`` serialized without its public arrays (``PublicArrays`` serializes those)."""
    if obs.pending_attack:
        source, target, count = obs.pending_attack
    elif obs.pending_occupy:
        source, target, count = obs.pending_occupy
    else:
        source, target, count = -1, -1, 0
    out: list[bytes] = []
    _number(out, _OBSERVATION_PHASE, phase_to_pb(obs.phase))
    _number(out, _OBSERVATION_TO_ACT, obs.to_act)
    _number(out, _OBSERVATION_TURN, obs.turn)
    _number(out, _OBSERVATION_TURN_SEAT, obs.turn_seat)
    _packed(out, _OBSERVATION_HAND, obs.hand)
    _number(out, _OBSERVATION_DECK_SIZE, obs.deck_size)
    _number(out, _OBSERVATION_TRADES_DONE, obs.trades_done)
    _number(out, _OBSERVATION_NEXT_TRADE_VALUE, obs.next_trade_value)
    _number(out, _OBSERVATION_REINFORCEMENTS, obs.reinforcements)
    _number(out, _OBSERVATION_PENDING_SOURCE, source)
    _number(out, _OBSERVATION_PENDING_TARGET, target)
    _number(out, _OBSERVATION_PENDING_COUNT, count)
    _packed(out, _OBSERVATION_HEADQUARTERS, obs.headquarters)
    _number(out, _OBSERVATION_MISSION, obs.mission)
    _packed(out, _OBSERVATION_MISSIONS, obs.missions)
    return b"".join(out)


def serialized_response(kind: str, body: bytes) -> bytes:
    """The serialized ConnectResponse whose ``kind`` ("game_started", "decision_request" or
    "game_events") is ``body``, that message serialized."""
    return b"".join([_RESPONSE_KEYS[kind], _varint(len(body)), body])


def serialized_game_started(
    game_id: str,
    seat: int,
    players: Sequence[bot_pb2.Player],
    rules: bytes,
    map_: bytes,
    queue: str,
    time_control: bytes,
    seed_commitment: str,
    observation: bytes,
    dice_version: int,
) -> bytes:
    """A serialized GameStarted; the rules, map, time control and observation go in serialized."""
    out: list[bytes] = []
    _text(out, _STARTED_GAME_ID, game_id)
    _number(out, _STARTED_SEAT, seat)
    for player in players:
        _delimited(out, _STARTED_PLAYERS, player.SerializeToString())
    _delimited(out, _STARTED_RULES, rules)
    _delimited(out, _STARTED_MAP, map_)
    _text(out, _STARTED_QUEUE, queue)
    _delimited(out, _STARTED_TIME_CONTROL, time_control)
    _text(out, _STARTED_SEED_COMMITMENT, seed_commitment)
    _delimited(out, _STARTED_OBSERVATION, observation)
    _number(out, _STARTED_DICE_VERSION, dice_version)
    return b"".join(out)


def serialized_decision_request(
    game_id: str,
    request_id: int,
    observation: bytes,
    legal: LegalActions,
    time_allowed_ms: int,
    timebank_ms: int,
    last_latency_ms: int,
    strikes: int,
    events: Sequence[bytes],
) -> bytes:
    """A serialized DecisionRequest; the observation and each GameEvent go in serialized."""
    out: list[bytes] = []
    _text(out, _REQUEST_GAME_ID, game_id)
    _number(out, _REQUEST_ID, request_id)
    _delimited(out, _REQUEST_OBSERVATION, observation)
    _delimited(out, _REQUEST_LEGAL, serialized_legal(legal))
    _number(out, _REQUEST_TIME_ALLOWED_MS, time_allowed_ms)
    _number(out, _REQUEST_TIMEBANK_MS, timebank_ms)
    _number(out, _REQUEST_LAST_LATENCY_MS, last_latency_ms)
    _number(out, _REQUEST_STRIKES, strikes)
    for event in events:
        _delimited(out, _REQUEST_EVENTS, event)
    return b"".join(out)


def serialized_game_events(game_id: str, events: Sequence[bytes]) -> bytes:
    """A serialized GameEvents; each GameEvent goes in serialized."""
    out: list[bytes] = []
    _text(out, _EVENTS_GAME_ID, game_id)
    for event in events:
        _delimited(out, _EVENTS_EVENTS, event)
    return b"".join(out)


def legal_actions(legal: LegalActions) -> pb.LegalActions:
    return pb.LegalActions.FromString(serialized_legal(legal))


def serialized_legal(legal: LegalActions) -> bytes:
    """``legal`` as a serialized LegalActions."""
    out: list[bytes] = []
    _packed(out, _LEGAL_CLAIM, legal.claim)
    _packed(out, _LEGAL_PLACE_TERRITORIES, legal.place_territories)
    _number(out, _LEGAL_PLACE_MIN, legal.place_min)
    _number(out, _LEGAL_PLACE_MAX, legal.place_max)
    for i in range(len(legal.trades)):
        card_set: list[bytes] = []
        _packed(card_set, _CARD_SET_CARDS, legal.trades[i])
        _packed(card_set, _CARD_SET_BONUS_TERRITORIES, legal.bonus_territories[i])
        _delimited(out, _LEGAL_TRADES, b"".join(card_set))
    _number(out, _LEGAL_MUST_TRADE, legal.must_trade)
    if legal.attacks:
        attacks = legal.attacks
        _packed(out, _LEGAL_ATTACK_SOURCES, [a.source for a in attacks])
        _packed(out, _LEGAL_ATTACK_TARGETS, [a.target for a in attacks])
        _packed(out, _LEGAL_ATTACK_MAX_DICE, [a.max_dice for a in attacks])
        _packed(out, _LEGAL_ATTACK_SOURCE_ARMIES, [a.source_armies for a in attacks])
    _number(out, _LEGAL_DEFEND_MAX, legal.defend_max)
    _number(out, _LEGAL_OCCUPY_MIN, legal.occupy_min)
    _number(out, _LEGAL_OCCUPY_MAX, legal.occupy_max)
    if legal.fortify:
        sources: list[int] = []
        targets: list[int] = []
        most: list[int] = []
        for option in legal.fortify:
            for target in option.targets:
                sources.append(option.source)
                targets.append(target)
                most.append(option.max_armies)
        _packed(out, _LEGAL_FORTIFY_SOURCES, sources)
        _packed(out, _LEGAL_FORTIFY_TARGETS, targets)
        _packed(out, _LEGAL_FORTIFY_MAX_ARMIES, most)
    _number(out, _LEGAL_CAN_END, legal.can_end)
    _number(out, _LEGAL_PLACE_NEUTRAL, legal.place_neutral)
    _packed(out, _LEGAL_HEADQUARTERS, legal.headquarters)
    _number(out, _LEGAL_ARMY, legal.army if legal.army >= 0 else legal.seat)
    return b"".join(out)


def event_to_pb(event: ev.Event, sequence: int) -> pb.GameEvent:
    """A GameEvent; pass events through ``engine.events.public_view`` first to hide cards."""
    return pb.GameEvent.FromString(serialized_event(event, sequence))


def serialized_event(event: ev.Event, sequence: int) -> bytes:
    """``event_to_pb(event, sequence)`` serialized: the runner sends events only as bytes."""
    kind, layout = _EVENT_LAYOUTS[type(event)]
    values: tuple[Any, ...] = event
    if type(event) is _FIRST_PLAYER_ROLLED:  # its rounds go flat on the wire
        values = ([die for round_ in event.rolls for die in round_], event.seat)
    out: list[bytes] = []
    _number(out, _EVENT_SEQUENCE, sequence)
    out.append(kind)
    first = len(out)
    for index, key, form in layout:
        if form == _NUMBER:
            _number(out, key, values[index])
        elif form == _PACKED:
            _packed(out, key, values[index])
        else:
            _text(out, key, values[index])
    size = 0
    for i in range(first, len(out)):
        size += len(out[i])
    out.insert(first, _varint(size))  # the event message's length, before its fields: one join, not two
    return b"".join(out)


_FIRST_PLAYER_ROLLED: Final = ev.FirstPlayerRolled


# How a value is written.
_NUMBER: Final = 0
_PACKED: Final = 1
_TEXT: Final = 2


def _event_layout(event_type: type, kind: str) -> tuple[bytes, tuple[tuple[int, bytes, int], ...]]:
    """How an event of ``event_type`` is written: the key of its GameEvent field ``kind``, then for each
    field of that message in number order, where its value is in the event, its key and how it is written.
    The event's field names are the message's (an event type and its message cannot drift apart: a field
    of one missing from the other stops the server at import)."""
    message = cast(Descriptor, pb.GameEvent.DESCRIPTOR.fields_by_name[kind].message_type)
    names: tuple[str, ...] = getattr(event_type, "_fields")  # noqa: B009 (mypy sees a plain type)
    if set(names) != set(message.fields_by_name):
        raise TypeError(f"{event_type.__name__}'s fields {names} are not {message.name}'s")
    layout = []
    for field in sorted(message.fields, key=lambda f: f.number):
        if field.type == FieldDescriptor.TYPE_STRING:
            form = _TEXT
        else:
            form = _PACKED if field.is_repeated else _NUMBER
        layout.append((names.index(field.name), _key(message, field.name), form))
    return _key(pb.GameEvent.DESCRIPTOR, kind), tuple(layout)


_EVENT_SEQUENCE: Final = _key(pb.GameEvent.DESCRIPTOR, "sequence")
_EVENT_LAYOUTS: Final = {
    event_type: _event_layout(event_type, kind) for kind, event_type in EVENT_KINDS.items()
}
"""Each event type's layout, by the name the replay codec gives it: its GameEvent field's name."""
