"""The runner's messages built from frames (server.wire): each parses exactly as the message built whole."""

from __future__ import annotations

import random
import re

import pytest
from google.protobuf.descriptor import FieldDescriptor

from conquest.v1 import bot_pb2, game_pb2
from engine import PlayerStatus, new_game, preset, random_policy
from engine.events import Event
from engine.observe import Observation, observe
from server import wire
from server.config import default_queues
from server.replays import DirectoryReplayWriter
from server.runner import GameRunner, decision_request
from server.seats import RemoteSeat
from server.session import Identity, Session, serialize_response

TWINS = [
    (wire.ResponseFrame, bot_pb2.ConnectResponse, {"game_started", "decision_request", "game_events"}),
    (wire.GameStartedFrame, bot_pb2.GameStarted, {"rules", "map", "time_control", "observation"}),
    (wire.DecisionRequestFrame, bot_pb2.DecisionRequest, {"observation", "events"}),
    (wire.GameEventsFrame, bot_pb2.GameEvents, {"events"}),
]


@pytest.mark.parametrize(("frame", "message", "as_bytes"), TWINS, ids=lambda t: getattr(t, "__name__", ""))
def test_a_frame_has_its_messages_fields_with_the_put_in_ones_as_bytes(frame, message, as_bytes):
    """A frame is derived from the public message, so it cannot drift from it: same names, numbers and
    repetition; the fields put in serialized are bytes (encoded as the sub-message is), the rest unchanged."""
    twin = {f.name: f for f in frame.DESCRIPTOR.fields}
    assert set(twin) == {f.name for f in message.DESCRIPTOR.fields}
    for field in message.DESCRIPTOR.fields:
        mirrored = twin[field.name]
        assert (mirrored.number, mirrored.is_repeated) == (field.number, field.is_repeated)
        if field.name in as_bytes:
            assert field.type == FieldDescriptor.TYPE_MESSAGE
            assert mirrored.type == FieldDescriptor.TYPE_BYTES
        else:
            assert mirrored.type == field.type
            assert getattr(mirrored.message_type, "full_name", None) == getattr(
                field.message_type, "full_name", None
            )


@pytest.mark.parametrize(
    "rules", ["classic", "classic_two_player", "capital", "secret_mission", "allied_two_player"]
)
def test_every_request_of_a_game_parses_as_the_request_built_whole(rules):
    """Issue 3: "DecisionRequest (request id, phase, the seat's observation, the legal actions, ...)".
    One PublicArrays patched through a whole game, events carried serialized: every request still
    parses to exactly the DecisionRequest built field by field from the same state."""
    seats = 2 if rules.endswith("two_player") else 4
    state, _ = new_game(preset(rules), seats, 7)
    arrays = wire.PublicArrays()
    policy = random_policy(random.Random(7))
    events: list[game_pb2.GameEvent] = []
    for request_id in range(1, 400):
        if state.is_over():
            break
        legal = state.legal_actions()
        sent = decision_request(
            "g", request_id, state, legal, arrays, 900, 8_000, 5, 1, [e.SerializeToString() for e in events]
        )
        whole = bot_pb2.ConnectResponse(
            decision_request=bot_pb2.DecisionRequest(
                game_id="g",
                request_id=request_id,
                observation=wire.observation(observe(state, state.to_act)),
                legal=wire.legal_actions(legal),
                time_allowed_ms=900,
                timebank_ms=8_000,
                last_latency_ms=5,
                strikes=1,
                events=events,
            )
        )
        assert bot_pb2.ConnectResponse.FromString(sent) == whole, f"request {request_id} differs"
        applied = state.apply(policy(state))
        events = [wire.event_to_pb(e, request_id) for e in applied[:3]]
    assert request_id > 50  # the arrays were patched many times over


def test_public_arrays_follow_every_change_and_reuse_their_bytes_when_none():
    state, _ = new_game(preset("classic"), 4, 3)
    arrays = wire.PublicArrays()
    view = observe(state, 0)

    def parsed(view: Observation) -> game_pb2.Observation:
        return game_pb2.Observation.FromString(arrays.serialized(view))

    def expected(view: Observation) -> game_pb2.Observation:
        whole = wire.observation(view)
        return game_pb2.Observation(
            owners=whole.owners, armies=whole.armies, hand_sizes=whole.hand_sizes, statuses=whole.statuses
        )

    first = arrays.serialized(view)
    assert parsed(view) == expected(view)
    assert arrays.serialized(observe(state, 1)) is first  # unchanged: not serialized again
    owners, armies = list(view.owners), list(view.armies)
    owners[5], armies[5], armies[41] = (owners[5] + 1) % 4, 200, 1
    changed = view._replace(
        owners=tuple(owners),
        armies=tuple(armies),
        hand_sizes=(0, 3, 0, 1),
        statuses=(PlayerStatus.ALIVE, PlayerStatus.ELIMINATED, PlayerStatus.ALIVE, PlayerStatus.ALIVE),
    )
    assert parsed(changed) == expected(changed)
    assert parsed(view) == expected(view)  # and back


def test_the_stream_sends_frames_as_they_are_and_serializes_messages():
    message = bot_pb2.ConnectResponse(error=bot_pb2.Error(code="x", message="y"))
    assert serialize_response(message) == message.SerializeToString()
    framed = wire.ResponseFrame(game_events=bot_pb2.GameEvents(game_id="g").SerializeToString())
    serialized = framed.SerializeToString()
    assert serialize_response(serialized) is serialized
    assert bot_pb2.ConnectResponse.FromString(serialized).game_events.game_id == "g"


def test_game_started_parses_as_the_message_built_whole(tmp_path):
    """Issue 3: "GameStarted (game id, seat, players, rules, and the map itself so a bot needs no map
    file)": the map, rules and time control go in serialized once per server, and each seat's
    GameStarted still parses to the one built field by field."""
    queue = next(q for q in default_queues() if q.name == "classic-4")
    seats = [
        RemoteSeat.for_bot(
            Identity(f"k{i}", f"bot{i}", False),
            Session(Identity(f"k{i}", f"bot{i}", False), 1),
            queue.time_control,
        )
        for i in range(4)
    ]
    runner = GameRunner("g", queue, seats, 99, DirectoryReplayWriter(tmp_path))
    for index in range(4):
        whole = bot_pb2.GameStarted(
            game_id="g",
            seat=index,
            players=[bot_pb2.Player(seat=i, name=f"bot{i}") for i in range(4)],
            rules=wire.rules_info(queue.rules, 4),
            map=wire.map_info(runner.state.board),
            queue="classic-4",
            time_control=queue.time_control.to_pb(),
            seed_commitment=runner.commitment,
            observation=wire.observation(observe(runner.state, index)),
        )
        assert bot_pb2.ConnectResponse.FromString(runner.game_started(index)).game_started == whole


@pytest.mark.parametrize("rules", ["classic", "capital", "secret_mission", "allied_two_player"])
def test_every_event_parses_as_the_event_built_whole(rules):
    """Issue 3: "public game events (rolls, captures, eliminations, card counts)": each event serialized
    from its cached message parses to the GameEvent built field by field, the first time and when the
    same event comes again."""
    seats = 2 if rules.endswith("two_player") else 4
    state, events = new_game(preset(rules), seats, 11)
    policy = random_policy(random.Random(11))
    seen: list[Event] = list(events)
    while not state.is_over() and len(seen) < 3000:
        seen += state.apply(policy(state))
    for sequence, event in enumerate(seen):
        kind = re.sub(r"(?<!^)([A-Z])", r"_\1", type(event).__name__).lower()
        values = dict(zip(event._fields, event, strict=True))
        if kind == "first_player_rolled":
            values["rolls"] = [die for round_ in event.rolls for die in round_]
        whole = game_pb2.GameEvent(sequence=sequence, **{kind: values})
        for _ in range(2):
            assert game_pb2.GameEvent.FromString(wire.serialized_event(event, sequence)) == whole, event
