"""The relay's frames (proto/conquest/cluster/v1/relay.proto) written by hand: the relay's fast room.

Every relayed message for a bot is a ``SeatMessage`` frame, and every relayed Decision a ``SeatDecision``
frame. Here they are written as bytes in protobuf's wire format, as ``server.play.wire`` writes the bot's
own messages (half the CPU of building them as protobuf objects and serializing those), and the frames
queued on a connection are joined into one RelayRequest or RelayResponse as bytes: its ``frames``, a
repeated field, is its frames one after the other, each behind the field's key and its length. On the
connection (TCP) each message follows its length, 4 bytes big-endian (``message``, ``split``). The bytes
are protobuf's own (``tests/server/test_server_relay_wire.py``). Messages are read with protobuf's classes
(``relay_pb2.RelayRequest.FromString``), which is faster than reading them by hand in Python; so are the
rarer frames (attached, released, resume, a relayed spectator's start and end) built.

A relayed spectator's messages are ``WatchedMessage`` frames (one per message the host's spectators get:
a snapshot, each batch of events, GameOver), written by hand too (``watched``).
"""

from __future__ import annotations

from typing import Final

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import bot_pb2
from server.play.wire import _key as key_of  # the bot's fast room's writers, shared
from server.play.wire import _varint as varint

REQUEST_FRAMES_KEY: Final = key_of(relay_pb2.RelayRequest.DESCRIPTOR, "frames")
"""The key a frame is written behind in a RelayRequest (the dialing replica's messages)."""
RESPONSE_FRAMES_KEY: Final = key_of(relay_pb2.RelayResponse.DESCRIPTOR, "frames")
"""The key a frame is written behind in a RelayResponse (the dialed replica's messages)."""

_SEAT_MESSAGE_KEY: Final = key_of(relay_pb2.RelayFrame.DESCRIPTOR, "seat_message")
_DECISION_KEY: Final = key_of(relay_pb2.RelayFrame.DESCRIPTOR, "decision")
# SeatMessage and SeatDecision share their layout: the game id, the session id, then the payload (bytes).
_GAME_ID_KEY: Final = key_of(relay_pb2.SeatMessage.DESCRIPTOR, "game_id")
_SESSION_ID_KEY: Final = key_of(relay_pb2.SeatMessage.DESCRIPTOR, "session_id")
_PAYLOAD_KEY: Final = key_of(relay_pb2.SeatMessage.DESCRIPTOR, "response")
_DECISION_REQUEST_KEY: Final = key_of(bot_pb2.ConnectResponse.DESCRIPTOR, "decision_request")


def asks_decision(response: bytes) -> bool:
    """``response`` (a serialized ConnectResponse, one of its oneof) is a DecisionRequest: it opens a
    request the bot's next Decision answers. Read from its first key, without parsing it."""
    return response.startswith(_DECISION_REQUEST_KEY)


assert tuple(
    key_of(relay_pb2.SeatDecision.DESCRIPTOR, name) for name in ("game_id", "session_id", "decision")
) == (_GAME_ID_KEY, _SESSION_ID_KEY, _PAYLOAD_KEY)


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


_WATCHED_KEY: Final = key_of(relay_pb2.RelayFrame.DESCRIPTOR, "watched")
_WATCH_ID_KEY: Final = key_of(relay_pb2.WatchedMessage.DESCRIPTOR, "watch_id")
_WATCHED_RESPONSE_KEY: Final = key_of(relay_pb2.WatchedMessage.DESCRIPTOR, "response")


def watched(watch_id: int, response: bytes) -> bytes:
    """A serialized RelayFrame{watched}: ``response`` (a serialized WatchGameResponse) for the relayed
    spectator ``watch_id``."""
    body = _WATCH_ID_KEY + varint(watch_id) if watch_id else b""
    if response:
        body += _WATCHED_RESPONSE_KEY + varint(len(response)) + response
    return _WATCHED_KEY + varint(len(body)) + body


def watch(watch_id: int, game_id: str) -> bytes:
    """A serialized RelayFrame{watch}: the spectator ``watch_id`` of this replica asks for ``game_id``."""
    return relay_pb2.RelayFrame(
        watch=relay_pb2.WatchStart(watch_id=watch_id, game_id=game_id)
    ).SerializeToString()


def watch_ended(watch_id: int, end: relay_pb2.WatchEnd.ValueType, why: str = "") -> bytes:
    """A serialized RelayFrame{watch_ended}: the relayed spectator ``watch_id``'s stream ended (``end``,
    ``why``)."""
    ended = relay_pb2.WatchEnded(watch_id=watch_id, end=end, why=why)
    return relay_pb2.RelayFrame(watch_ended=ended).SerializeToString()


def framed(key: bytes, frame: bytes) -> bytes:
    """``frame`` (a serialized RelayFrame) as one item of a RelayRequest's or RelayResponse's ``frames``
    (``key``: ``REQUEST_FRAMES_KEY`` or ``RESPONSE_FRAMES_KEY``); such items joined are the message."""
    return key + varint(len(frame)) + frame


LENGTH_BYTES: Final = 4
"""Each message on a relay connection follows its length in bytes, this many bytes big-endian."""


def message(items: list[bytes]) -> bytes:
    """``items`` (``framed`` frames, or one whole serialized message) as one message on the connection:
    its length, then the items joined (a serialized RelayRequest or RelayResponse)."""
    size = sum(map(len, items))
    return b"".join((size.to_bytes(LENGTH_BYTES, "big"), *items))


class TooLarge(ValueError):
    """A message's length prefix says more than the reader takes: the peer does not speak the relay."""


def split(data: bytes, limit: int) -> tuple[list[bytes], int, int]:
    """The whole messages at the start of ``data`` (what ``message`` wrote, without their lengths); how many
    bytes of ``data`` they took; and how many bytes the next message needs with its length (its length's
    own bytes while those are not all there).

    Raises:
        TooLarge: a message's length is over ``limit`` bytes.
    """
    messages: list[bytes] = []
    at, end = 0, len(data)
    while end - at >= LENGTH_BYTES:
        size = int.from_bytes(data[at : at + LENGTH_BYTES], "big")
        if size > limit:
            raise TooLarge(f"a relay message of {size} bytes, over the {limit} taken")
        if end - at - LENGTH_BYTES < size:
            return messages, at, LENGTH_BYTES + size
        at += LENGTH_BYTES
        messages.append(data[at : at + size])
        at += size
    return messages, at, LENGTH_BYTES
