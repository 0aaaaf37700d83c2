"""Properties of every random legal game, on every preset (hypothesis)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    PRESETS,
    GameState,
    Observation,
    Phase,
    PlayerStatus,
    default_action,
    new_game,
    observe,
    preset,
    random_policy,
)
from engine.events import (
    Captured,
    CardsTaken,
    Claimed,
    Dealt,
    Drew,
    Event,
    Fortified,
    HeadquartersChosen,
    MissionDealt,
    Occupied,
    Placed,
    Rolled,
    Traded,
    public_view,
)

SETUP = (Phase.SETUP_CLAIM, Phase.SETUP_PLACE, Phase.CHOOSE_HEADQUARTERS)
GOAL_ENDS = ("headquarters", "mission")


@st.composite
def games(draw: st.DrawFn) -> tuple[GameState, list[Event], random.Random]:
    """A new game of a random preset, seat count and rule options, with a seeded random policy's RNG."""
    name = draw(st.sampled_from(sorted(PRESETS)))
    seats = draw(st.sampled_from(PRESETS[name].player_counts()))
    rules = preset(
        name,
        defender_dice=draw(st.sampled_from(["max", "choose"])),
        fortify=draw(st.sampled_from(["adjacent", "connected"])),
        territory_bonus_mode=draw(st.sampled_from(["once_per_turn", "per_set"])),
        elimination_extra_trades=draw(st.booleans()),
        capital_goal=draw(st.sampled_from(["all", "shortened"])),
        three_continent_missions=draw(st.booleans()),
        turn_cap=draw(st.integers(1, 60)),
    )
    state, events = new_game(rules, seats=seats, seed=draw(st.integers(0, 2**32)))
    return state, events, random.Random(draw(st.integers(0, 2**32)))


def play(game: tuple[GameState, list[Event], random.Random]) -> Iterator[list[Event]]:
    """Play to the end with random legal actions through the checked path; yield each step's events."""
    state, events, rng = game
    yield events
    policy = random_policy(rng)
    while not state.is_over():
        yield state.apply(policy(state), seat=state.to_act)


GAMES = settings(max_examples=35, deadline=None)


@GAMES
@given(games())
def test_games_run_to_the_end_and_rank_every_seat(game: tuple[GameState, list[Event], random.Random]) -> None:
    """Issue 2: "Property tests (hypothesis) over random legal games: no crash to the end" and "every game
    produces a full ranking of all seats"."""
    state = game[0]
    for _ in play(game):
        pass
    assert state.is_over() and state.to_act == -1
    assert len(state.places) == state.seats and all(1 <= p <= state.seats for p in state.places)
    alive = [s for s in range(state.seats) if state.status[s] == PlayerStatus.ALIVE]
    assert all(state.places[s] <= len(alive) for s in alive)
    assert sorted(state.places[s] for s in state.eliminated) == list(range(len(alive) + 1, state.seats + 1))
    if state.end_reason == "conquest":
        assert [state.places[s] for s in alive] == [1]
    if state.end_reason in GOAL_ENDS:
        assert state.goal is not None
        assert [s for s in alive if state.places[s] == 1 and state.goal.achieved(state, s)]


@GAMES
@given(games())
def test_every_territory_has_one_owner_and_an_army(
    game: tuple[GameState, list[Event], random.Random],
) -> None:
    """Issue 2: "after every step each territory has one owner and at least one army"; 000: "During the
    game, every territory must always be occupied by at least one army." The one exception is the
    territory just captured while the move-in is owed (000: "you capture that territory and must occupy
    it immediately")."""
    state = game[0]
    owners = range(len(state.territory_count))
    for _ in play(game):
        if state.phase == Phase.SETUP_CLAIM:
            continue
        assert all(o in owners for o in state.owner)
        empty = [t for t, a in enumerate(state.armies) if a < 1]
        if state.phase == Phase.OCCUPY:
            assert state.pending_occupy is not None
            assert empty == [state.pending_occupy[1]]
            assert state.armies[state.pending_occupy[1]] == 0
        else:
            assert empty == []
        assert state.territory_count == [state.owner.count(o) for o in owners]


@GAMES
@given(games())
def test_armies_change_only_as_the_events_say(game: tuple[GameState, list[Event], random.Random]) -> None:
    """Issue 2: "armies change only as the events say" — the board rebuilt from the events alone equals
    the state's after every step."""
    state = game[0]
    owner = [-1] * 42
    armies = [0] * 42
    for events in play(game):
        for e in events:
            if isinstance(e, Dealt):
                owner, armies = list(e.owners), [1] * 42
            elif isinstance(e, Claimed):
                owner[e.territory], armies[e.territory] = e.seat, 1
            elif isinstance(e, Placed):
                assert owner[e.territory] == e.seat
                armies[e.territory] += e.armies
            elif isinstance(e, Traded) and e.bonus_territory >= 0:
                armies[e.bonus_territory] += state.rules.territory_bonus
            elif isinstance(e, Rolled):
                armies[e.source] -= e.attacker_losses
                armies[e.target] -= e.defender_losses
            elif isinstance(e, Captured):
                assert owner[e.target] == e.previous_owner and armies[e.target] == 0
                owner[e.target] = e.seat
            elif isinstance(e, Occupied | Fortified):
                armies[e.source] -= e.armies
                armies[e.target] += e.armies
        assert owner == state.owner
        assert armies == state.armies


@GAMES
@given(games())
def test_the_44_cards_are_always_deck_plus_hands(game: tuple[GameState, list[Event], random.Random]) -> None:
    """Issue 2: "the 44 cards are always in deck + hands + discard" — traded cards go back to the bottom of
    the draw pile (004), so deck + hands hold every card exactly once once play has started; in Capital
    Risk the headquarters cards are kept out of the way (000) and count with them."""
    state = game[0]
    for _ in play(game):
        cards = list(state.deck) + [c for hand in state.hands for c in hand]
        if state.rules.objective == "headquarters" and state.phase not in SETUP:
            cards += state.headquarters
        if state.phase in SETUP:
            assert cards == []
        else:
            assert sorted(cards) == list(range(44))


@GAMES
@given(games())
def test_a_seat_to_act_is_in_the_game_and_has_a_legal_action(
    game: tuple[GameState, list[Event], random.Random],
) -> None:
    """Issue 2: "a player who is not out always has a legal action" — and the timeout default is one of
    them in every decision of every preset (issue 5: "Every new decision kind")."""
    state = game[0]
    for _ in play(game):
        legal = state.legal_actions()
        if state.is_over():
            assert legal.is_empty()
            continue
        assert 0 <= state.to_act < state.seats
        assert state.status[state.to_act] == PlayerStatus.ALIVE
        assert legal.seat == state.to_act and not legal.is_empty()
        assert default_action(legal) in legal


HIDDEN = {"hands", "deck", "seed", "rng"}


def test_every_preset_is_drawn() -> None:
    """Issue 5: "a property test plays many random games of every preset to the end" — the strategy draws
    from every preset there is."""
    assert {"capital", "secret_mission", "allied_two_player", "older_edition"} <= set(PRESETS)


@GAMES
@given(games())
def test_observations_hide_other_hands(game: tuple[GameState, list[Event], random.Random]) -> None:
    """Issue 2: "Per-seat observation that removes what the seat may not see (others' cards, the deck
    order, the seed)" and "a drawn card's identity only for its holder"; issue 5: headquarters "revealed
    only when all have chosen" and "Missions are hidden from other seats and revealed at the end"."""
    state = game[0]
    assert not set(Observation._fields) & HIDDEN
    for events in play(game):
        all_chosen = -1 not in state.headquarters
        for seat in range(-1, state.seats):
            view = observe(state, seat)
            assert view.hand == (tuple(sorted(state.hands[seat])) if seat >= 0 else ())
            assert view.hand_sizes == tuple(len(h) for h in state.hands)
            assert view.deck_size == len(state.deck)
            assert view.mission == (state.missions[seat] if seat >= 0 else -1)
            revealed = state.is_over() and state.rules.objective == "missions"
            assert view.missions == (tuple(state.missions) if revealed else ())
            if state.rules.objective == "headquarters":
                assert view.headquarters == tuple(
                    t if all_chosen or s == seat else -1 for s, t in enumerate(state.headquarters)
                )
            for e in events:
                seen = public_view(e, seat)
                if isinstance(e, Drew):
                    assert seen == (e if e.seat == seat else e._replace(card=-1))
                elif isinstance(e, CardsTaken):
                    assert seen == (e if e.seat == seat else e._replace(cards=tuple(-1 for _ in e.cards)))
                elif isinstance(e, MissionDealt):
                    assert seen == (e if e.seat == seat else e._replace(mission=-1))
                elif isinstance(e, HeadquartersChosen):
                    assert seen == (e if e.seat == seat else e._replace(territory=-1))
                else:
                    assert seen == e
