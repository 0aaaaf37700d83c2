"""The messages server.wire writes field by field: each is what protobuf writes for the message whole."""

from __future__ import annotations

import random
import re
from typing import NamedTuple

import pytest

from conquest.v1 import bot_pb2, game_pb2
from engine import LegalActions, Phase, PlayerStatus, new_game, preset, random_policy
from engine.events import Event
from engine.observe import Observation, observe
from server.ops.config import default_queues
from server.play import convert, wire
from server.play.messages import decision_request
from server.play.replays import DirectoryReplayWriter
from server.play.runner import GameRunner
from server.play.seats import RemoteSeat
from server.play.session import Session
from server.play.stream import serialize_response
from server.records import Identity


def legal_built_whole(legal: LegalActions) -> game_pb2.LegalActions:
    """The LegalActions built field by field through protobuf, to hold the one written by hand against."""
    fortify = [(o.source, t, o.max_armies) for o in legal.fortify for t in o.targets]
    return game_pb2.LegalActions(
        claim=legal.claim,
        place_territories=legal.place_territories,
        place_min=legal.place_min,
        place_max=legal.place_max,
        trades=[
            game_pb2.CardSet(cards=cards, bonus_territories=bonus)
            for cards, bonus in zip(legal.trades, legal.bonus_territories, strict=True)
        ],
        must_trade=legal.must_trade,
        attack_sources=[a.source for a in legal.attacks],
        attack_targets=[a.target for a in legal.attacks],
        attack_max_dice=[a.max_dice for a in legal.attacks],
        attack_source_armies=[a.source_armies for a in legal.attacks],
        defend_max=legal.defend_max,
        occupy_min=legal.occupy_min,
        occupy_max=legal.occupy_max,
        fortify_sources=[f[0] for f in fortify],
        fortify_targets=[f[1] for f in fortify],
        fortify_max_armies=[f[2] for f in fortify],
        can_end=legal.can_end,
        place_neutral=legal.place_neutral,
        headquarters=legal.headquarters,
        army=legal.army if legal.army >= 0 else legal.seat,
    )


def observation_built_whole(view: Observation) -> game_pb2.Observation:
    """The Observation built field by field through protobuf (no pending attack or move-in: -1, -1, 0)."""
    source, target, count = view.pending_attack or view.pending_occupy or (-1, -1, 0)
    return game_pb2.Observation(
        phase=int(view.phase) + 1,
        to_act=view.to_act,
        turn=view.turn,
        turn_seat=view.turn_seat,
        owners=view.owners,
        armies=view.armies,
        hand=view.hand,
        hand_sizes=view.hand_sizes,
        deck_size=view.deck_size,
        trades_done=view.trades_done,
        next_trade_value=view.next_trade_value,
        reinforcements=view.reinforcements,
        statuses=[int(s) + 1 for s in view.statuses],
        pending_source=source,
        pending_target=target,
        pending_count=count,
        headquarters=view.headquarters,
        mission=view.mission,
        missions=view.missions,
    )


PUBLIC_ARRAYS = ("owners", "armies", "hand_sizes", "statuses")


@pytest.mark.parametrize(
    "value", [0, 1, 127, 128, 300, 16_383, 16_384, 2**31 - 1, -1, -(2**31), 2**63 - 1, -(2**63)]
)
def test_a_number_is_written_as_protobuf_writes_it(value):
    """The encoding guide: varints carry seven bits a byte, low first; a negative int32 or int64 takes
    ten bytes (its 64-bit two's complement); a zero, proto3's default, is not written at all."""
    expected = bot_pb2.DecisionRequest(
        request_id=value, observation=game_pb2.Observation(), legal=game_pb2.LegalActions()
    ).SerializeToString()
    legal = LegalActions(Phase.ATTACK, 0)
    assert wire.serialized_decision_request("", value, b"", legal, 0, 0, 0, 0, ()) == expected


def test_packed_numbers_of_every_size_are_written_as_protobuf_writes_them():
    """Packed repeated int32 (proto3's default): one key, the byte length, then each number's varint;
    numbers past 127 take two bytes or more, so the length is not the count."""
    for claim in [(0, 5, 41), (1, 127, 128, 300, 70_000), (200,), (-1, 3)]:
        legal = LegalActions(Phase.SETUP_CLAIM, 0, claim=claim)
        assert wire.serialized_legal(legal) == game_pb2.LegalActions(claim=claim).SerializeToString()


@pytest.mark.parametrize(
    "rules", ["classic", "classic_two_player", "capital", "secret_mission", "allied_two_player"]
)
def test_every_legal_actions_of_a_game_is_written_byte_for_byte_as_protobuf_writes_it(rules):
    """Issue 3: "DecisionRequest (..., the legal actions, ...)": every LegalActions of whole games, each
    phase and preset (trades, move-ins, fortify lists, third armies), is the very bytes protobuf writes
    for the message built field by field: the same fields, in the same order, zeros left out alike."""
    seats = 2 if rules.endswith("two_player") else 4
    phases = set()
    for seed in range(3):
        state, _ = new_game(preset(rules), seats, seed)
        policy = random_policy(random.Random(seed))
        while not state.is_over() and state.turn < 40:
            legal = state.legal_actions()
            phases.add(legal.phase)
            assert wire.serialized_legal(legal) == legal_built_whole(legal).SerializeToString(), legal
            state.apply(policy(state))
    assert {Phase.SETUP_PLACE, Phase.ATTACK, Phase.OCCUPY, Phase.FORTIFY} <= phases


@pytest.mark.parametrize(
    "rules", ["classic", "classic_two_player", "capital", "secret_mission", "allied_two_player"]
)
def test_every_observation_of_a_game_is_written_as_protobuf_writes_it(rules):
    """Issue 3: "the seat's observation": every seat's view of whole games of each preset (hands,
    pending attacks and move-ins, headquarters, missions) parses to the Observation built field by field,
    and its part but the public arrays is the very bytes protobuf writes for those fields."""
    seats = 2 if rules.endswith("two_player") else 4
    state, _ = new_game(preset(rules), seats, 5)
    policy = random_policy(random.Random(5))
    arrays = wire.PublicArrays()
    pending = 0
    while not state.is_over() and state.turn < 30:
        for seat in range(seats):
            view = observe(state, seat)
            whole = observation_built_whole(view)
            part = wire.serialized_observation_part(view)
            assert game_pb2.Observation.FromString(part + arrays.serialized(view)) == whole
            for name in PUBLIC_ARRAYS:
                whole.ClearField(name)
            assert part == whole.SerializeToString()
            pending += bool(view.pending_attack or view.pending_occupy)
        state.apply(policy(state))
    assert pending > 0


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
                observation=observation_built_whole(observe(state, state.to_act)),
                legal=legal_built_whole(legal),
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

    def expected(view: Observation) -> bytes:
        whole = observation_built_whole(view)
        arrays_only = game_pb2.Observation()
        for name in PUBLIC_ARRAYS:
            getattr(arrays_only, name).extend(getattr(whole, name))
        return arrays_only.SerializeToString()

    first = arrays.serialized(view)
    assert first == expected(view)
    assert arrays.serialized(observe(state, 1)) is first  # unchanged: not serialized again
    owners, armies = list(view.owners), list(view.armies)
    owners[5], armies[5], armies[41] = (owners[5] + 1) % 4, 200, 1  # 200: a two-byte varint
    changed = view._replace(
        owners=tuple(owners),
        armies=tuple(armies),
        hand_sizes=(0, 3, 0, 1),
        statuses=(PlayerStatus.ALIVE, PlayerStatus.ELIMINATED, PlayerStatus.ALIVE, PlayerStatus.ALIVE),
    )
    assert arrays.serialized(changed) == expected(changed)
    assert arrays.serialized(view) == expected(view)  # and back


def test_the_stream_sends_written_messages_as_they_are_and_serializes_the_rest():
    message = bot_pb2.ConnectResponse(error=bot_pb2.Error(code="x", message="y"))
    assert serialize_response(message) == message.SerializeToString()
    serialized = wire.serialized_response("game_events", wire.serialized_game_events("g", []))
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
            rules=convert.rules_info(queue.rules, 4),
            map=convert.map_info(runner.state.board),
            queue="classic-4",
            time_control=queue.time_control.to_pb(),
            seed_commitment=runner.commitment,
            observation=observation_built_whole(observe(runner.state, index)),
            dice_version=2,
        )
        assert bot_pb2.ConnectResponse.FromString(runner.game_started(index)).game_started == whole


@pytest.mark.parametrize("rules", ["classic", "capital", "secret_mission", "allied_two_player"])
def test_every_event_is_written_as_protobuf_writes_it(rules):
    """Issue 3: "public game events (rolls, captures, eliminations, card counts)": each event of whole
    games of each preset is the very bytes protobuf writes for the GameEvent built field by field."""
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
        assert wire.serialized_event(event, sequence) == whole.SerializeToString(), event
    assert {"Rolled", "Captured", "Traded", "TurnEnded"} <= {type(e).__name__ for e in seen}


def test_an_event_type_and_its_message_may_not_drift_apart():
    """An event type whose fields are not its message's stops the server at import, not mid-game."""

    class Claimed(NamedTuple):
        seat: int
        region: int

    with pytest.raises(TypeError, match=r"Claimed's fields .* are not ClaimedEvent's"):
        wire._event_layout(Claimed, "claimed")
