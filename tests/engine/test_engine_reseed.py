"""A game taken over by another server goes on with a fresh seed (issue 20: "A resumed game must not let a
bot profit from anything it saw that was lost (e.g. dice shown after the last persisted action)"): the
replay records where the seed changed, and re-simulating it applies the change there."""

from __future__ import annotations

import random

import pytest

from engine import aggressive_policy, new_game, preset
from engine.replay import Replay, ReplayError, Reseed, reseed, verify


def _play_with_reseed(at: int, fresh: int) -> Replay:
    """A classic game played with the aggressive policy whose dice take ``fresh`` after ``at`` actions."""
    rules = preset("classic", turn_cap=30)
    state, _ = new_game(rules, 3, 11)
    replay = Replay(rules, 11, ["a", "b", "c"], reseeds=[Reseed(at, fresh, "c")])
    while not state.is_over():
        if len(replay.actions) == at:
            reseed(state, fresh)
        action = aggressive_policy(state)
        state.apply(action)
        replay.actions.append(action)
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    return replay


@pytest.mark.parametrize("at", [150, 0])
def test_a_reseeded_game_replays_only_with_its_reseed(at: int) -> None:
    """The recorded reseed is what makes the replay verify: without it, the dice after it differ. At action
    0 too: a game a draining replica handed over before its first action ("a draining replica hands its
    games to the others instead of ending them") has its only fresh seed there."""
    replay = _play_with_reseed(at, 987654321)
    verify(replay)
    data = replay.to_dict()
    assert data["format"] == 2 and data["reseeds"] == [{"at": at, "seed": 987654321, "commitment": "c"}]
    assert Replay.from_dict(data) == replay
    del data["reseeds"]
    data["format"] = 1
    with pytest.raises(ReplayError):
        verify(Replay.from_dict(data))


def test_the_fresh_seed_redraws_the_dice_and_the_draw_pile() -> None:
    """After a reseed neither the next rolls nor the order of the undrawn cards follow from the old seed:
    what a bot saw of them before the takeover tells it nothing."""
    state, _ = new_game(preset("classic"), 3, 5)
    while not state.deck:  # the draw pile is shuffled once the setup is over
        state.apply(aggressive_policy(state))
    old = state.clone()
    reseed(state, 42)
    assert sorted(state.deck) == sorted(old.deck) and list(state.deck) != list(old.deck)
    assert [state.dice.battle() for _ in range(8)] != [old.dice.battle() for _ in range(8)]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"format": 1}, "a replay with reseeds is format 2, not 1"),
        ({"reseeds": [{"at": 10, "seed": 1}, {"at": 5, "seed": 2}]}, "each must be between 0 and"),
        ({"reseeds": [{"at": 10**6, "seed": 1}]}, "each must be between 0 and"),
    ],
)
def test_malformed_reseeds_are_refused_by_name(change: dict[str, object], error: str) -> None:
    data = {**_play_with_reseed(3, 1).to_dict(), **change}
    with pytest.raises(ReplayError, match=error):
        Replay.from_dict(data)


def test_a_game_on_one_server_keeps_format_1() -> None:
    """Replays without a takeover are written exactly as before (format 1, no "reseeds")."""
    state, _ = new_game(preset("classic"), 3, random.Random(1).randrange(1000))
    data = Replay(state.rules, 1, ["a", "b", "c"]).to_dict()
    assert data["format"] == 1 and "reseeds" not in data
