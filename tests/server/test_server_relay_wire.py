"""The relay's fast room (server.play.relay_wire): the frames and messages it writes by hand are protobuf's
own bytes; and a stream's frames queued in one event-loop turn go out as one message (issue 20: "a
decision whose seat sits on another replica costs ≤ 1.5× the server CPU of a local one")."""

from __future__ import annotations

import asyncio

import pytest

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import bot_pb2, game_pb2
from server.play import relay_wire
from server.play.relay import Link

RESPONSE = bot_pb2.ConnectResponse(
    decision_request=bot_pb2.DecisionRequest(game_id="9f3a", request_id=300)
).SerializeToString()
DECISION = bot_pb2.Decision(
    game_id="9f3a",
    request_id=300,
    action=game_pb2.Action(attack=game_pb2.AttackAction(source=3, target=40)),
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
    ]


@pytest.mark.parametrize("dialed", [True, False])
def test_a_message_joined_by_hand_is_the_one_protobuf_writes(dialed: bool) -> None:
    """A stream's message is its frames one after the other, each behind its key and length: protobuf's
    RelayRequest (the dialing replica's) or RelayResponse (the dialed one's) with those ``frames``, which
    the other side's ``Link.read`` reads back."""
    frames = every_kind()
    whole: relay_pb2.RelayRequest | relay_pb2.RelayResponse
    if dialed:
        whole, key = relay_pb2.RelayResponse(frames=frames), relay_wire.RESPONSE_FRAMES_KEY
    else:
        whole, key = relay_pb2.RelayRequest(frames=frames), relay_wire.REQUEST_FRAMES_KEY
    message = b"".join(relay_wire.framed(key, f.SerializeToString()) for f in frames)
    assert message == whole.SerializeToString()
    assert list(Link("peer", dialed=not dialed).read(message).frames) == frames


async def test_frames_queued_in_one_event_loop_turn_go_out_as_one_message() -> None:
    """ "coalesce all frames queued on a link in one event-loop turn into ONE gRPC message"."""
    link = Link("peer", dialed=True)
    written: list[bytes] = []

    async def write(message: bytes) -> None:
        written.append(message)
        await asyncio.sleep(0)

    writing = asyncio.create_task(link.write(write))
    frames = [f.SerializeToString() for f in every_kind()]
    for frame in frames[:3]:
        link.send(frame)
    await asyncio.sleep(0.01)
    for frame in frames[3:]:
        link.send(frame)
    link.close()
    link.send(frames[0])  # after close: dropped
    await asyncio.wait_for(writing, 1)
    assert [relay_pb2.RelayResponse.FromString(m).frames for m in written] == [
        every_kind()[:3],
        every_kind()[3:],
    ]
