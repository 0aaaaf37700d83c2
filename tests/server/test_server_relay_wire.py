"""The relay's fast room (server.play.relay_wire): the frames and messages it writes by hand are protobuf's
own bytes, each message behind its length; and a connection's frames queued in one event-loop turn go out
as one message (issue 20: "a decision whose seat sits on another replica costs ≤ 1.5× the server CPU of a
local one")."""

from __future__ import annotations

import asyncio
from typing import cast

import pytest

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import arena_pb2, bot_pb2, game_pb2
from server.play import relay_wire
from server.play.relay_link import Link

RESPONSE = bot_pb2.ConnectResponse(
    decision_request=bot_pb2.DecisionRequest(game_id="9f3a", request_id=300)
).SerializeToString()
DECISION = bot_pb2.Decision(
    game_id="9f3a",
    request_id=300,
    action=game_pb2.Action(attack=game_pb2.AttackAction(source=3, target=40)),
).SerializeToString()


WATCHED = arena_pb2.WatchGameResponse(
    events=bot_pb2.GameEvents(game_id="d4", events=[game_pb2.GameEvent(sequence=41)])
).SerializeToString()


@pytest.mark.parametrize("payload", [RESPONSE, b"", b"\x00" * 20_000])
@pytest.mark.parametrize(("game_id", "session_id"), [("9f3a", "c0ffee123456"), ("", "s"), ("g" * 300, "")])
def test_frames_written_by_hand_are_protobufs_bytes(game_id: str, session_id: str, payload: bytes) -> None:
    message = relay_pb2.SeatMessage(game_id=game_id, session_id=session_id, response=payload)
    assert relay_wire.seat_message(game_id, session_id, payload) == (
        relay_pb2.RelayFrame(seat_message=message).SerializeToString()
    )
    decision = relay_pb2.SeatDecision(game_id=game_id, session_id=session_id, decision=payload)
    assert relay_wire.seat_decision(game_id, session_id, payload) == (
        relay_pb2.RelayFrame(decision=decision).SerializeToString()
    )


@pytest.mark.parametrize("response", [WATCHED, b"", b"\x01" * 20_000])
@pytest.mark.parametrize("watch_id", [0, 1, 127, 128, 2**40])
def test_a_relayed_spectators_frames_round_trip(watch_id: int, response: bytes) -> None:
    """Issue 20, "a bot never needs to know there is more than one process" (nor does a spectator): the
    frames of a spectator's stream relayed from the game's host read back as written; the host's messages
    (``watched``, written by hand, one per message the spectator gets) are protobuf's own bytes, and the
    WatchGameResponse in them is passed on unchanged."""
    watched = relay_pb2.RelayFrame(watched=relay_pb2.WatchedMessage(watch_id=watch_id, response=response))
    assert relay_wire.watched(watch_id, response) == watched.SerializeToString()
    read = relay_pb2.RelayFrame.FromString(relay_wire.watched(watch_id, response)).watched
    assert (read.watch_id, read.response) == (watch_id, response)
    start = relay_pb2.RelayFrame.FromString(relay_wire.watch(watch_id, "d4e5"))
    assert (start.WhichOneof("message"), start.watch.watch_id, start.watch.game_id) == (
        "watch",
        watch_id,
        "d4e5",
    )
    for end, why in [
        (relay_pb2.WATCH_END_GAME_OVER, ""),
        (relay_pb2.WATCH_END_NOT_HERE, "it ended here (conquest)"),
    ]:
        ended = relay_pb2.RelayFrame.FromString(relay_wire.watch_ended(watch_id, end, why))
        assert ended.WhichOneof("message") == "watch_ended"
        assert (ended.watch_ended.watch_id, ended.watch_ended.end, ended.watch_ended.why) == (
            watch_id,
            end,
            why,
        )


def every_kind() -> list[relay_pb2.RelayFrame]:
    return [
        relay_pb2.RelayFrame(
            seat_message=relay_pb2.SeatMessage(game_id="a1", session_id="s1", response=RESPONSE)
        ),
        relay_pb2.RelayFrame(
            decision=relay_pb2.SeatDecision(game_id="a1", session_id="s1", decision=DECISION)
        ),
        relay_pb2.RelayFrame(
            attached=relay_pb2.SeatAttached(game_id="b2", seat=3, session_id="s2", resumed=True)
        ),
        relay_pb2.RelayFrame(released=relay_pb2.SeatReleased(game_id="b2", session_id="s2")),
        relay_pb2.RelayFrame(
            resume=relay_pb2.SeatResume(game_id="c3", session_id="s3", key="k", live_events=True)
        ),
        relay_pb2.RelayFrame(watch=relay_pb2.WatchStart(watch_id=7, game_id="d4")),
        relay_pb2.RelayFrame(watched=relay_pb2.WatchedMessage(watch_id=7, response=WATCHED)),
        relay_pb2.RelayFrame(
            watch_ended=relay_pb2.WatchEnded(watch_id=7, end=relay_pb2.WATCH_END_STOPPED, why="handed_over")
        ),
    ]


@pytest.mark.parametrize("dialed", [True, False])
async def test_a_message_joined_by_hand_is_the_one_protobuf_writes(dialed: bool) -> None:
    """A connection's message is its length, then its frames one after the other, each behind its key and
    length: protobuf's RelayRequest (the dialing replica's) or RelayResponse (the dialed one's) with those
    ``frames``, which the other side's ``Link.read`` reads back."""
    frames = every_kind()
    whole: relay_pb2.RelayRequest | relay_pb2.RelayResponse
    if dialed:
        whole, key = relay_pb2.RelayResponse(frames=frames), relay_wire.RESPONSE_FRAMES_KEY
    else:
        whole, key = relay_pb2.RelayRequest(frames=frames), relay_wire.REQUEST_FRAMES_KEY
    message = relay_wire.message([relay_wire.framed(key, f.SerializeToString()) for f in frames])
    serialized = whole.SerializeToString()
    assert message == len(serialized).to_bytes(4, "big") + serialized
    assert list(Link("peer", dialed=not dialed).read.FromString(message[4:]).frames) == frames


def test_messages_are_split_where_their_lengths_say_and_a_partial_one_waits() -> None:
    """Whatever pieces TCP delivers, the reader takes each whole message once, and knows how many bytes the
    next one needs."""
    messages = [relay_pb2.RelayResponse(frames=every_kind()[:n]).SerializeToString() for n in (1, 0, 5)]
    stream = b"".join(relay_wire.message([m]) for m in messages)
    assert relay_wire.split(stream, 1 << 20) == (messages, len(stream), 4)
    cut = 4 + len(messages[0]) + 2  # the first whole, two bytes of the second's length
    assert relay_wire.split(stream[:cut], 1 << 20) == (messages[:1], cut - 2, 4)
    cut = len(stream) - 1  # all but the last message's last byte
    assert relay_wire.split(stream[:cut], 1 << 20) == (
        messages[:2],
        cut + 1 - 4 - len(messages[2]),
        4 + len(messages[2]),
    )
    with pytest.raises(relay_wire.TooLarge):
        relay_wire.split(b"PRI * HTTP/2.0", 1 << 20)  # a gRPC client's first bytes: no relay peer


class Transport:
    """What a link writes, as a connection's transport takes it."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def test_frames_queued_in_one_event_loop_turn_go_out_as_one_message() -> None:
    """ "coalesce all frames queued on a link in one event-loop turn into ONE ... message"."""
    link = Link("peer", dialed=True)
    transport = Transport()
    frames = [f.SerializeToString() for f in every_kind()]
    link.send(frames[0])  # before the connection is up: waits for it
    link.open(cast(asyncio.Transport, transport))
    for frame in frames[1:3]:
        link.send(frame)
    await asyncio.sleep(0)
    for frame in frames[3:]:
        link.send(frame)
    link.close()  # what is queued goes out first
    link.send(frames[0])  # after close: dropped
    await asyncio.sleep(0)
    assert transport.closed
    read = [relay_pb2.RelayResponse.FromString(m[4:]).frames for m in transport.written]
    assert read == [every_kind()[:1], every_kind()[1:3], every_kind()[3:]]


@pytest.mark.parametrize(
    "kind", [f.name for f in bot_pb2.ConnectResponse.DESCRIPTOR.oneofs_by_name["message"].fields]
)
def test_a_relayed_decision_request_is_told_from_its_first_key(kind: str) -> None:
    """``asks_decision`` reads a serialized ConnectResponse's first key by hand: true for a DecisionRequest
    (the bot's replica counts the answers it is owed, so relayed answers keep their rate token) and for
    no other kind of message, set as protobuf sets it."""
    field = bot_pb2.ConnectResponse.DESCRIPTOR.fields_by_name[kind]
    response = bot_pb2.ConnectResponse()
    getattr(response, kind).SetInParent()
    if field.message_type is not None and "game_id" in field.message_type.fields_by_name:
        getattr(response, kind).game_id = "9f3a"  # a request is never empty; others may be
    assert relay_wire.asks_decision(response.SerializeToString()) == (kind == "decision_request")
