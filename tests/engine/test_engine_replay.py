"""Determinism and replays: a game is (rules, board, seed, seats, actions)."""

from __future__ import annotations

import json
import random

import pytest

from engine import Action, EndPhase, GameState, aggressive_policy, new_game, preset, random_policy
from engine.codec import ACTION_KINDS, decode_action, decode_event, encode_action, encode_event
from engine.events import Event
from engine.replay import Replay, ReplayError, simulate, verify

PRESETS = [
    ("classic", 4),
    ("classic_dealt", 3),
    ("classic_two_player", 2),
    ("older_edition", 5),
    ("capital", 4),
    ("secret_mission", 6),
    ("allied_two_player", 2),
]

ACTION_NAMES = {kind: name for name, kind in ACTION_KINDS.items()}


def recorded_game(name: str, seats: int, seed: int) -> tuple[GameState, list[Event], list[Action]]:
    """A random legal game (turn cap 40) with its events and the actions taken."""
    state, events = new_game(preset(name, turn_cap=40), seats=seats, seed=seed)
    policy = random_policy(random.Random(seed))
    actions: list[Action] = []
    while not state.is_over():
        action = policy(state)
        actions.append(action)
        events += state.apply(action, seat=state.to_act)
    return state, events, actions


def replay_of(name: str, seats: int, seed: int) -> tuple[Replay, GameState]:
    state, _, actions = recorded_game(name, seats, seed)
    replay = Replay(
        rules=state.rules,
        seed=seed,
        seats=[f"bot{i}" for i in range(seats)],
        actions=actions,
        places=list(state.places),
        fingerprint=state.fingerprint(),
    )
    return replay, state


@pytest.mark.parametrize(("name", "seats"), PRESETS)
def test_same_seed_and_actions_give_the_same_states(name: str, seats: int) -> None:
    """Issue 2: "Determinism: the same seed and actions give the same states"."""
    for seed in (1, 2):
        original, events, actions = recorded_game(name, seats, seed)
        again, again_events = new_game(original.rules, seats=seats, seed=seed)
        for action in actions:
            again_events += again.apply(action)
        assert again.snapshot() == original.snapshot()
        assert again.fingerprint() == original.fingerprint()
        assert again_events == events


def test_every_intermediate_state_is_reproduced() -> None:
    """Issue 2: "re-simulating a replay reproduces every state exactly"."""
    state, _ = new_game(preset("classic"), seats=4, seed=9)
    twin, _ = new_game(preset("classic"), seats=4, seed=9)
    assert state.fingerprint() == twin.fingerprint()
    for _ in range(400):
        if state.is_over():
            break
        action = aggressive_policy(state)
        assert state.apply(action) == twin.apply(action)
        assert state.fingerprint() == twin.fingerprint()


def test_clone_is_independent_and_evolves_identically() -> None:
    """engine/state.py: "``clone()`` first if the previous state is needed"."""
    state, _ = new_game(preset("classic_dealt"), seats=3, seed=4)
    for _ in range(150):
        state.apply_unchecked(aggressive_policy(state))
    copy = state.clone()
    before = state.fingerprint()
    assert copy.fingerprint() == before
    action = aggressive_policy(copy)
    assert copy.apply(action) == state.clone().apply(action)
    assert state.fingerprint() == before, "playing on the clone changed the original"
    state.apply(action)
    assert state.fingerprint() == copy.fingerprint()


def test_fingerprint_tells_states_apart() -> None:
    """engine/state.py: "equal fingerprints mean equal states" — and different states differ."""
    state, _ = new_game(preset("classic"), seats=3, seed=1)
    other, _ = new_game(preset("classic"), seats=3, seed=2)
    assert state.fingerprint() != other.fingerprint()  # the RNG state differs
    state.apply(aggressive_policy(state))
    assert state.fingerprint() != new_game(preset("classic"), seats=3, seed=1)[0].fingerprint()


@pytest.mark.parametrize(("name", "seats"), PRESETS)
def test_replay_round_trips_through_json_and_verifies(name: str, seats: int) -> None:
    """Issue 2: "Replays: a game is (rules, map, seed, seats, actions); re-simulating a replay reproduces
    every state exactly" and "replay re-simulation equals the recorded final state"."""
    replay, final = replay_of(name, seats, seed=7)
    text = replay.to_json()
    json.loads(text)  # plain JSON
    loaded = Replay.from_json(text)
    assert loaded.to_dict() == replay.to_dict()
    assert loaded.actions == replay.actions and loaded.rules == replay.rules
    state = verify(loaded)
    assert state.fingerprint() == final.fingerprint() == replay.fingerprint
    assert list(state.places) == replay.places


@pytest.mark.parametrize(("name", "seats"), PRESETS)
def test_codec_round_trips_every_action_and_event(name: str, seats: int) -> None:
    """Issue 2: "A compact serialisable form of state, actions and events"; issue 5: "replays of every
    preset re-simulate (codec handles new actions/events)"."""
    _, events, actions = recorded_game(name, seats, seed=3)
    for action in actions:
        # engine/codec.py: "An action is a list: its kind followed by its fields" (tuples as lists).
        fields = [list(v) if isinstance(v, tuple) else v for v in action]
        assert encode_action(action) == [ACTION_NAMES[type(action)], *fields]
        assert decode_action(json.loads(json.dumps(encode_action(action)))) == action
    for event in events:
        assert decode_event(json.loads(json.dumps(encode_event(event)))) == event


def test_tampered_places_fail_verify() -> None:
    """engine/replay.py: "The recorded result (places and the final state's fingerprint) lets ``verify``
    prove a replay honest"."""
    replay, _ = replay_of("classic", 4, seed=11)
    replay.places = [p % 4 + 1 for p in replay.places]
    with pytest.raises(ReplayError, match=r"re-simulated places .* differ from recorded"):
        verify(replay)


def test_tampered_fingerprint_fails_verify() -> None:
    """engine/replay.py: ``verify`` checks "the recorded places and final fingerprint"."""
    replay, _ = replay_of("classic", 4, seed=12)
    replay.fingerprint = "0" * 64
    with pytest.raises(ReplayError, match="final state differs from the recorded fingerprint"):
        verify(replay)


def test_tampered_action_fails_verify_naming_the_action() -> None:
    """engine/replay.py: ``simulate`` raises ReplayError when "an action is illegal where the replay puts
    it"."""
    replay, _ = replay_of("classic", 4, seed=13)
    replay.actions[0] = EndPhase()  # the first action is a claim
    with pytest.raises(ReplayError, match=r"action 0 \['end_phase'\] is illegal: .*SETUP_CLAIM"):
        verify(replay)


def test_tampered_seed_fails_verify() -> None:
    """Issue 2: "a game is (rules, map, seed, seats, actions)" — another seed is another game."""
    replay, _ = replay_of("classic_dealt", 3, seed=14)
    replay.seed += 1
    with pytest.raises(ReplayError):
        verify(replay)


def test_truncated_replay_fails_verify() -> None:
    """engine/replay.py: ``verify`` raises "a result that differs from the recording"."""
    replay, _ = replay_of("classic_two_player", 2, seed=15)
    replay.actions = replay.actions[:-1]
    with pytest.raises(ReplayError):
        verify(replay)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "a replay is a JSON object"),
        ('{"format": 99}', "format 99 is not one of 1, 2"),
        ('{"format": 1, "board": "classic"}', "missing the field 'rules'"),
        ('{"format": 1, "board": "moon"}', "unknown board 'moon'"),
    ],
)
def test_unreadable_replays_say_what_is_wrong(text: str, message: str) -> None:
    """Issue 2: "A compact serialisable form" — a bad replay gets a clear error."""
    with pytest.raises(ReplayError, match=message):
        Replay.from_json(text)


def test_simulate_returns_the_same_events_as_the_game() -> None:
    """Issue 2: "re-simulating a replay reproduces every state exactly"."""
    state, events, actions = recorded_game("classic", 3, seed=21)
    replay = Replay(rules=state.rules, seed=21, seats=["a", "b", "c"], actions=actions)
    again, again_events = simulate(replay)
    assert again_events == events and again.fingerprint() == state.fingerprint()
