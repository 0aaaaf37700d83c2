"""RISK 2210 A.D. on the wire (issue 19): golden DecisionRequests of every 2210 decision, every action kind
read back from its message, the hidden stays hidden, and the replay format."""

from __future__ import annotations

import random

import pytest
from make_golden_2210 import CARD_PHASES, GAMES, GOLDEN, PHASES_2210, RULES, SEED, drive, golden_requests_2210

from conquest.v1 import r2210_pb2
from conquest_sdk.r2210 import default_2210
from engine.errors import MalformedActionError
from engine.r2210.actions import (
    Bid,
    BuildStation,
    BuyCards,
    ChooseMarker,
    Claim,
    Commander,
    Declare,
    Defend,
    EndPhase,
    Fortify,
    Hire,
    Lose,
    Occupy,
    Phase,
    Place,
    PlaceCommanders,
    PlayCard,
    Remove,
    Roll,
    TakeCard,
)
from engine.r2210.game import apply_unchecked, legal_actions, new_game_2210
from engine.r2210.policies import default_action, random_action
from engine.r2210.replay import Replay2210, verify
from engine.r2210.rules import Rules2210
from server.play.convert_2210 import action_from_pb_2210, action_to_pb_2210, decision_request_2210, legal_2210

EVERY_KIND = [
    Claim(3),
    Place(4, 2),
    PlaceCommanders(1, 2, 3),
    Bid(2),
    ChooseMarker(1),
    Hire(Commander.NAVAL, 7),
    BuildStation(9),
    BuyCards((1, 0, 2, 0, 1)),
    TakeCard(Commander.SPACE),
    Declare(5, 6),
    Roll(3, (Commander.LAND, Commander.NUCLEAR)),
    Defend(2),
    Lose(1, (Commander.DIPLOMAT,)),
    Occupy(2, (Commander.LAND,)),
    Remove((3, 3, 57)),
    Fortify(1, 2, 3, (Commander.SPACE,)),
    Fortify(4, 60, 0, (Commander.LAND, Commander.NAVAL)),
    PlayCard(40, (3, 4)),
    EndPhase(),
]


def test_golden_2210_decision_requests_match_byte_for_byte() -> None:
    """Issue 19: "golden DecisionRequests for every new decision": one per 2210 phase (one per seat for the
    simultaneous bids). A difference means the wire format changed: if on purpose, run
    tests/server/make_golden_2210.py and review the diff."""
    generated = golden_requests_2210()
    phases = {
        name.removeprefix("decision_request_2210_").split(".")[0].split("_seat")[0] for name in generated
    }
    assert phases == {p.name.lower() for p in PHASES_2210}
    assert sum("_bid_seat" in name for name in generated) == 3
    for name, text in generated.items():
        assert (GOLDEN / name).read_text() == text, f"{name} differs from the golden fixture"


def test_the_python_sdk_default_is_the_servers_and_legal_in_every_phase() -> None:
    """docs/protocol.md's 2210 table, "timeout default": the SDK's ``default_2210``, read from the wire's
    Legal2210 alone, is the engine's ``default_action`` and legal, in every phase (the card decisions
    EXCHANGE, REDUCE and DECOYS included), over the golden requests' fixed-seed games."""
    rng, met = random.Random(SEED), set()
    for game in range(GAMES):
        state, _ = new_game_2210(RULES, 3, SEED + game)
        while not state.is_over():
            seat = state.asked[0]
            legal = legal_actions(state, seat)
            sdk = action_from_pb_2210(default_2210(legal_2210(legal)))
            assert sdk == default_action(legal) and legal.problem(sdk) == "", legal.describe()
            met.add(legal.phase)
            apply_unchecked(
                state, drive(state, seat, legal, rng, [p for p in CARD_PHASES if p not in met]), seat
            )
        if met == set(PHASES_2210):
            break
    assert met == set(PHASES_2210)


@pytest.mark.parametrize("action", EVERY_KIND, ids=lambda a: type(a).__name__)
def test_every_2210_action_kind_reads_back_from_its_message(action: object) -> None:
    """Issue 19: the protocol gains "choosing dice and which commanders roll, choosing losses, choosing
    targets of cards, choosing a turn-order marker": each action kind crosses the wire unchanged."""
    message = r2210_pb2.Action2210.FromString(action_to_pb_2210(action).SerializeToString())  # type: ignore[arg-type]
    assert action_from_pb_2210(message) == action


def test_a_commander_index_out_of_range_or_no_action_is_malformed_with_what_is_right() -> None:
    """Every user-facing error says what was wrong and what would be right."""
    with pytest.raises(MalformedActionError, match="0 Land, 1 Diplomat, 2 Naval, 3 Space, 4 Nuclear"):
        action_from_pb_2210(r2210_pb2.Action2210(roll=r2210_pb2.RollAction(dice=1, d8=[7])))
    with pytest.raises(MalformedActionError, match="set exactly one field"):
        action_from_pb_2210(r2210_pb2.Action2210())


def test_bids_and_other_hands_stay_hidden_in_a_request() -> None:
    """Issue 19: "card identities and bids before the reveal are not [public]"; "energy and the number and
    type of each player's cards are public"."""
    state, _ = new_game_2210(Rules2210(), 3, 11)
    rng = random.Random(11)
    while state.phase != Phase.BID:
        seat = state.asked[0]
        apply_unchecked(state, random_action(legal_actions(state, seat), rng), seat)
    apply_unchecked(state, Bid(state.energy[0]), 0)
    assert state.phase == Phase.BID and state.bids[0] >= 0
    request = decision_request_2210("g", 1, state, 1, legal_actions(state, 1), [], 1000, 0)
    seen = request.r2210.observation
    assert seen.bids[0] == -1 and seen.bids[1] == -1
    assert list(seen.energy) == state.energy
    assert len(seen.card_counts) == 15 and list(seen.hand) == sorted(state.hands[1])


def test_a_2210_replay_round_trips_and_verifies() -> None:
    """Issue 19: "replays verify": a random game written as JSON and read back re-simulates to its result;
    a changed action is reported."""
    rules = Rules2210(years=1)
    state, _ = new_game_2210(rules, 2, 5)
    replay = Replay2210(rules, 5, ["a", "b"], game_id="g")
    rng = random.Random(5)
    while not state.is_over():
        seat = state.asked[0]
        action = random_action(legal_actions(state, seat), rng)
        apply_unchecked(state, action, seat)
        replay.actions.append((seat, action))
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    again = Replay2210.from_dict(replay.to_dict())
    assert again == replay
    assert verify(again).fingerprint() == state.fingerprint()
