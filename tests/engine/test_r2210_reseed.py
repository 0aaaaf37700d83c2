"""A RISK 2210 A.D. game taken over by another server goes on with a fresh seed (issue 20: "every game it
hosted is taken over by another replica, rebuilt by replay, and finished" and "A resumed game must not let
a bot profit from anything it saw that was lost (e.g. dice shown after the last persisted action): say how
(for example a fresh committed seed for the rest of the game, recorded in the replay so it still
verifies)")."""

from __future__ import annotations

import json
import random

import pytest
from r2210_support import fresh, play_until

from engine.r2210.actions import Action2210, Phase
from engine.r2210.game import apply, new_game_2210
from engine.r2210.legal import legal_for
from engine.r2210.policies import random_action
from engine.r2210.replay import Replay2210, advance_2210, decode_action, reseed_2210, verify
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.replay import ReplayError, Reseed

SEED = 23


def _play_on(state: GameState2210, actions: list[tuple[int, Action2210]], rng: random.Random) -> None:
    """Random legal play of ``state`` to its end, each action appended to ``actions``."""
    while not state.is_over():
        seat = state.asked[0]
        action = random_action(legal_for(state, seat), rng)
        apply(state, action, seat)
        actions.append((seat, action))


def _whole_game(seats: int) -> list[tuple[int, Action2210]]:
    state, _ = new_game_2210(Rules2210(), seats, SEED)
    actions: list[tuple[int, Action2210]] = []
    _play_on(state, actions, random.Random(seats))
    return actions


def _taken_over(seats: int, played: list[tuple[int, Action2210]], cut: int, fresh_seed: int) -> Replay2210:
    """The game of ``played`` cut after ``cut`` actions, rebuilt from its log (its actions as the server
    logs them: JSON, decoded again) on a new state, reseeded there and played on to its end."""
    logged = [decode_action(a) for a in json.loads(json.dumps(Replay2210.encoded(played[:cut])))]
    state, _ = new_game_2210(Rules2210(), seats, SEED)
    for _ in advance_2210(state, logged):
        pass
    reseed_2210(state, fresh_seed)
    actions = list(logged)
    _play_on(state, actions, random.Random(cut))
    replay = Replay2210(
        Rules2210(), SEED, [f"s{i}" for i in range(seats)], actions, reseeds=[Reseed(cut, fresh_seed, "c")]
    )
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    return replay


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_a_game_cut_at_any_action_rebuilt_and_reseeded_gives_a_replay_that_verifies(seats: int) -> None:
    """ "taken over by another replica, rebuilt by replay, and finished" with "a fresh committed seed for the
    rest of the game, recorded in the replay so it still verifies": cut at the start, at the end and at
    cuts spread over the whole game (every phase a game of random play reaches), each continuation's
    replay verifies, and through its JSON too (format 2)."""
    played = _whole_game(seats)
    cuts = sorted({0, len(played), *range(1, len(played), max(1, len(played) // 15))})
    for cut in cuts:
        replay = _taken_over(seats, played, cut, 1000 + cut)
        verify(replay)
        data = json.loads(replay.to_json())
        assert data["format"] == 2 and data["reseeds"] == [{"at": cut, "seed": 1000 + cut, "commitment": "c"}]
        assert Replay2210.from_dict(data) == replay
        verify(Replay2210.from_dict(data))


def test_the_recorded_reseed_is_what_makes_the_replay_verify() -> None:
    """Without its reseed the rest of the game re-simulates with the old dice and does not verify."""
    played = _whole_game(3)
    data = _taken_over(3, played, len(played) // 3, 77).to_dict()
    del data["reseeds"]
    data["format"] = 1
    with pytest.raises(ReplayError):
        verify(Replay2210.from_dict(data))


def test_a_game_taken_over_twice_verifies() -> None:
    """A game can change hands more than once: each takeover's fresh seed applies from its action on."""
    state, _ = new_game_2210(Rules2210(), 4, SEED)
    actions: list[tuple[int, Action2210]] = []
    rng = random.Random(4)
    reseeds = [Reseed(150, 11, ""), Reseed(400, 12, "")]
    for reseed in reseeds:
        while len(actions) < reseed.at:
            seat = state.asked[0]
            action = random_action(legal_for(state, seat), rng)
            apply(state, action, seat)
            actions.append((seat, action))
        reseed_2210(state, reseed.seed)
    _play_on(state, actions, rng)
    replay = Replay2210(Rules2210(), SEED, ["a", "b", "c", "d"], actions, reseeds=reseeds)
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    verify(Replay2210.from_dict(json.loads(replay.to_json())))


def test_the_fresh_seed_redraws_the_dice_and_reshuffles_every_undrawn_deck() -> None:
    """Nothing hidden a bot saw after the last logged action tells it anything: the next rolls come from
    the fresh stream, and the undrawn territory cards and Command cards are shuffled again (the same cards,
    another order), so a card drawn then is not known to come next."""
    state = play_until(fresh(3, seed=5), Phase.BUY)
    old = state.clone()
    reseed_2210(state, 42)
    assert [state.dice.uniform(1 << 30) for _ in range(8)] != [old.dice.uniform(1 << 30) for _ in range(8)]
    decks = ("land_deck", "water_deck", "lunar_deck")
    for name in decks:
        assert sorted(getattr(state, name)) == sorted(getattr(old, name))
    for new, before in zip(state.command_decks, old.command_decks, strict=True):
        assert sorted(new) == sorted(before)
    orders = [getattr(state, n) for n in decks] + state.command_decks
    assert orders != [getattr(old, n) for n in decks] + old.command_decks
    assert state.hands == old.hands, "cards in hand stay: they were logged, each seat knows its own"


def test_bids_not_revealed_are_withdrawn_and_every_living_seat_bids_again() -> None:
    """A bid is secret until every seat has bid; a bid lost after the last logged action may have completed
    the reveal every seat saw, so no seat bids again alone knowing the others': after a reseed in the
    bids, all bids are withdrawn (no energy was spent: it is spent at the reveal) and every seat is asked."""
    state = play_until(fresh(3, seed=2), Phase.BID)
    seat = state.asked[0]
    energy = list(state.energy)
    apply(state, random_action(legal_for(state, seat), random.Random(1)), seat)
    assert seat not in state.asked
    reseed_2210(state, 9)
    assert state.bids == [-1, -1, -1] and state.asked == (0, 1, 2) and state.energy == energy


def test_a_2210_game_on_one_server_keeps_format_1() -> None:
    """Replays without a takeover are written as before (format 1, no "reseeds"): the kits' verifiers read
    them; they refuse a format 2 file by its number."""
    data = Replay2210(Rules2210(), 1, ["a", "b"]).to_dict()
    assert data["format"] == 1 and "reseeds" not in data


def test_reseeds_in_a_format_1_2210_replay_are_refused_by_name() -> None:
    data = {**_taken_over(2, _whole_game(2), 10, 1).to_dict(), "format": 1}
    with pytest.raises(ReplayError, match="a replay with reseeds is format 2, not 1"):
        Replay2210.from_dict(data)
