"""The relay's messages (proto/conquest/cluster/v1/relay.proto) written and read by hand: the relay's fast
room.

A relayed decision carries one message for the bot (a ``SeatMessage``) one way and the bot's Decision (a
``SeatDecision``) the other. Built as protobuf objects, each is three objects made and read back per frame,
one RelayRequest or RelayResponse around it, and one gRPC message each. Here a frame is written as bytes in
protobuf's wire format (as ``server.play.wire`` writes the bot's messages), the frames queued on a stream
in one event-loop turn are joined into one RelayRequest or RelayResponse (its ``frames``, a repeated field,
is its frames one after the other, each behind its key and length), and gRPC moves the bytes as they are
(no serializer). A message is read back the same way: each frame's kind and where its body lies, then the
two hot kinds' three fields, with no protobuf object made. The bytes are protobuf's own both ways
(``tests/server/test_server_relay_wire.py``); the rarer frames (attached, released, resume) are built and
read with protobuf's classes in ``server.play.relay``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from google.protobuf.descriptor import Descriptor

from conquest.cluster.v1 import relay_pb2
from server.play.wire import _key as key_of  # the bot's fast room's writers, shared
from server.play.wire import _varint as varint


def _number(message: Descriptor, name: str) -> int:
    return int(message.fields_by_name[name].number)


# A RelayRequest (the dialing replica's messages) and a RelayResponse (the dialed one's) hold their frames
# in different fields: the field's number, to read them, and its key, to write them behind.
REQUEST_FRAMES: Final = _number(relay_pb2.RelayRequest.DESCRIPTOR, "frames")
REQUEST_FRAMES_KEY: Final = key_of(relay_pb2.RelayRequest.DESCRIPTOR, "frames")
RESPONSE_FRAMES: Final = _number(relay_pb2.RelayResponse.DESCRIPTOR, "frames")
RESPONSE_FRAMES_KEY: Final = key_of(relay_pb2.RelayResponse.DESCRIPTOR, "frames")

# A frame's kind: the number of the RelayFrame field it sets.
_FRAME: Final = relay_pb2.RelayFrame.DESCRIPTOR
SEAT_MESSAGE: Final = _number(_FRAME, "seat_message")
DECISION: Final = _number(_FRAME, "decision")
ATTACHED: Final = _number(_FRAME, "attached")
RELEASED: Final = _number(_FRAME, "released")
RESUME: Final = _number(_FRAME, "resume")

_SEAT_MESSAGE_KEY: Final = key_of(_FRAME, "seat_message")
_DECISION_KEY: Final = key_of(_FRAME, "decision")
# SeatMessage and SeatDecision share their layout: the game id, the session id, then the payload (bytes).
_SEAT: Final = relay_pb2.SeatMessage.DESCRIPTOR
_GAME_ID, _SESSION_ID, _PAYLOAD = (_number(_SEAT, n) for n in ("game_id", "session_id", "response"))
_DECISION_FIELDS = ("game_id", "session_id", "decision")
assert tuple(_number(relay_pb2.SeatDecision.DESCRIPTOR, n) for n in _DECISION_FIELDS) == (
    _GAME_ID,
    _SESSION_ID,
    _PAYLOAD,
)
_GAME_ID_KEY: Final = key_of(_SEAT, "game_id")
_SESSION_ID_KEY: Final = key_of(_SEAT, "session_id")
_PAYLOAD_KEY: Final = key_of(_SEAT, "response")


def _seat_body(game_id: str, session_id: str, payload: bytes) -> bytes:
    """A SeatMessage's or SeatDecision's fields, in number order; empty ones left out, as protobuf does."""
    out: list[bytes] = []
    for key, value in ((_GAME_ID_KEY, game_id.encode()), (_SESSION_ID_KEY, session_id.encode())):
        if value:
            out += (key, varint(len(value)), value)
    if payload:
        out += (_PAYLOAD_KEY, varint(len(payload)), payload)
    return b"".join(out)


def seat_message(game_id: str, session_id: str, response: bytes) -> bytes:
    """A serialized RelayFrame{seat_message}: ``response`` (a serialized ConnectResponse) for the bot."""
    body = _seat_body(game_id, session_id, response)
    return _SEAT_MESSAGE_KEY + varint(len(body)) + body


def seat_decision(game_id: str, session_id: str, decision: bytes) -> bytes:
    """A serialized RelayFrame{decision}: the bot's ``decision`` (a serialized Decision) for its game."""
    body = _seat_body(game_id, session_id, decision)
    return _DECISION_KEY + varint(len(body)) + body


def framed(key: bytes, frame: bytes) -> bytes:
    """``frame`` (a serialized RelayFrame) as one item of a RelayRequest's or RelayResponse's ``frames``
    (``key``: ``REQUEST_FRAMES_KEY`` or ``RESPONSE_FRAMES_KEY``); such items joined are the message."""
    return key + varint(len(frame)) + frame


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``data[at]`` and where it ends."""
    byte = data[at]
    if byte < 128:
        return byte, at + 1
    value = byte & 127
    shift = 7
    at += 1
    while True:
        byte = data[at]
        value |= (byte & 127) << shift
        at += 1
        if byte < 128:
            return value, at
        shift += 7


def _fields(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """The length-delimited fields of the message in ``data[start:end]``: (number, where its body starts,
    where it ends). Numbers (varints and fixed) are passed over.

    Raises:
        ValueError: not protobuf's wire format.
    """
    at = start
    while at < end:
        key, at = _read_varint(data, at)
        kind = key & 7
        if kind == 2:
            length, at = _read_varint(data, at)
            if at + length > end:
                raise ValueError(f"a field {key >> 3} of {length} bytes runs past its message's end")
            yield key >> 3, at, at + length
            at += length
        elif kind == 0:
            _, at = _read_varint(data, at)
        elif kind in (1, 5):
            at += 8 if kind == 1 else 4
        else:
            raise ValueError(f"wire type {kind} (field {key >> 3}) is not one protobuf writes")
    if at != end:
        raise ValueError("the last field runs past its message's end")


def frames(message: bytes, field: int) -> Iterator[tuple[int, int, int]]:
    """The frames in a serialized RelayRequest or RelayResponse (``field``: the number of its ``frames``),
    in order: each frame's kind (the number of the RelayFrame field it sets, 0 for none) and where that
    field's body (a SeatMessage, a SeatDecision, ...) starts and ends in ``message``."""
    for number, start, end in _fields(message, 0, len(message)):
        if number == field:
            kind, body_start, body_end = 0, start, start
            for set_field in _fields(message, start, end):
                kind, body_start, body_end = (
                    set_field  # a oneof: the last field set counts, as protobuf reads
                )
            yield kind, body_start, body_end


def seat_fields(message: bytes, start: int, end: int) -> tuple[str, str, bytes]:
    """A SeatMessage's or SeatDecision's game id, session id and payload (the bot's ConnectResponse or
    Decision, serialized) from ``message[start:end]``."""
    game_id = session_id = ""
    payload = b""
    for number, at, until in _fields(message, start, end):
        if number == _GAME_ID:
            game_id = message[at:until].decode()
        elif number == _SESSION_ID:
            session_id = message[at:until].decode()
        elif number == _PAYLOAD:
            payload = message[at:until]
    return game_id, session_id, payload
