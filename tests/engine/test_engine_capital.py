"""Capital Risk (000): secret headquarters, winning by holding them, and their cards."""

from __future__ import annotations

import pytest
from engine_table import T, force_dice, position, split_board

from engine import (
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    EndPhase,
    GameState,
    IllegalActionError,
    Phase,
    PlayerStatus,
    aggressive_policy,
    default_action,
    new_game,
    observe,
    preset,
)
from engine.events import Event, GameEnded, HeadquartersChosen, HeadquartersRevealed, TurnStarted, public_view


def after_setup(seats: int, seed: int = 5) -> tuple[GameState, list[Event]]:
    """A Capital Risk game set up by the aggressive policy, at its first headquarters choice."""
    state, events = new_game(preset("capital"), seats=seats, seed=seed)
    while state.phase in (Phase.SETUP_CLAIM, Phase.SETUP_PLACE):
        events += state.apply(aggressive_policy(state), seat=state.to_act)
    return state, events


def test_every_seat_chooses_a_headquarters_in_turn_after_setup() -> None:
    """000: "After deploying your armies at the beginning of the game, select one of the territories you've
    claimed and make it your Headquarters." and "After everyone in turn has selected a Headquarters, all
    players turn their cards face up"."""
    state, _ = after_setup(4)
    assert state.phase == Phase.CHOOSE_HEADQUARTERS and state.turn == 0
    order = []
    while state.phase == Phase.CHOOSE_HEADQUARTERS:
        seat = state.to_act
        legal = state.legal_actions()
        assert legal.seat == seat
        assert legal.headquarters == tuple(t for t in range(42) if state.owner[t] == seat)
        assert not legal.place_territories and not legal.attacks and not legal.can_end
        order.append(seat)
        events = state.apply(default_action(legal), seat=seat)
        assert HeadquartersChosen(seat, legal.headquarters[0]) in events
    assert order == [(state.first_seat + i) % 4 for i in range(4)]
    assert [e for e in events if isinstance(e, HeadquartersRevealed)] == [
        HeadquartersRevealed(tuple(state.headquarters))
    ]
    assert isinstance(events[-1], TurnStarted) and state.turn_seat == state.first_seat
    assert state.phase == Phase.REINFORCE


def test_a_headquarters_must_be_one_of_your_own_territories() -> None:
    """000: "select one of the territories you've claimed and make it your Headquarters"."""
    state, _ = after_setup(3)
    other = state.owner.index((state.to_act + 1) % 3)
    with pytest.raises(IllegalActionError, match=f"territory {other} is not one of yours"):
        state.apply(ChooseHeadquarters(other), seat=state.to_act)


def test_choices_stay_hidden_until_all_have_chosen() -> None:
    """000: "without revealing the territory you've chosen, find its matching RISK card and place it face
    down in front of you. After everyone in turn has selected a Headquarters, all players turn their cards
    face up"."""
    state, _ = after_setup(3)
    first = state.to_act
    (chosen,) = state.apply(default_action(state.legal_actions()), seat=first)
    assert isinstance(chosen, HeadquartersChosen)
    for seat in (-1, 0, 1, 2):
        view = observe(state, seat)
        expected = [-1, -1, -1]
        if seat == first:
            expected[first] = chosen.territory
        assert view.headquarters == tuple(expected)
        assert public_view(chosen, seat) == (chosen if seat == first else chosen._replace(territory=-1))
    while state.phase == Phase.CHOOSE_HEADQUARTERS:
        state.apply(default_action(state.legal_actions()), seat=state.to_act)
    assert all(observe(state, seat).headquarters == tuple(state.headquarters) for seat in (-1, 0, 1, 2))


def test_headquarters_cards_are_kept_out_of_the_draw_pile() -> None:
    """000: "You may not use a Headquarters card as part of a matched set of RISK cards. Be sure to keep all
    Headquarters cards out of the way during the game." — so they are never drawn, held or traded."""
    state, _ = after_setup(5)
    while state.phase == Phase.CHOOSE_HEADQUARTERS:
        state.apply(default_action(state.legal_actions()), seat=state.to_act)
    assert len(state.deck) == 44 - 5
    assert not set(state.deck) & set(state.headquarters)
    assert sorted([*state.deck, *state.headquarters]) == list(range(44))


# Seat 0: North America and South America (ids 0..12); seat 1: ids 13..27; seat 2: ids 28..41.
OWNERS = split_board(13, 15, 14)
ALASKA, KAMCHATKA, VENEZUELA, BRAZIL = T("Alaska"), T("Kamchatka"), T("Venezuela"), T("Brazil")


def capital_position(
    headquarters: list[int], owners: list[int] = OWNERS, seats: int = 3, **options: object
) -> GameState:
    """Seat 0 attacking from Alaska (4 armies) in a Capital Risk game with these headquarters."""
    armies = [2] * 42
    armies[ALASKA] = 4
    armies[KAMCHATKA] = 1
    state = position(owners, armies, rules=preset("capital", **options), seats=seats)
    state.headquarters = list(headquarters)
    return state


def take_kamchatka(state: GameState) -> list[Event]:
    force_dice(state, ((6, 6, 6), (1,)))
    return state.apply(Attack(ALASKA, KAMCHATKA, 3), seat=0)


@pytest.mark.parametrize(
    ("seats", "goal", "counts", "opposing_held_before", "wins"),
    [
        (3, "all", (13, 15, 14), 1, True),  # holds seat 1's: Kamchatka (seat 2's) is the last
        (3, "all", (13, 15, 14), 0, False),
        (3, "shortened", (13, 15, 14), 0, False),  # no shortened goal for 3 players: still all
        (4, "all", (13, 10, 10, 9), 1, False),  # 2 of 3
        (4, "shortened", (13, 10, 10, 9), 1, True),  # "4 players: Capture any 2"
        (5, "shortened", (13, 8, 7, 7, 7), 1, False),  # 2 of the 3 needed
        (5, "shortened", (13, 8, 7, 7, 7), 2, True),  # "5 or 6 players: Capture any 3"
        (6, "shortened", (13, 6, 6, 6, 6, 5), 2, True),
        (6, "all", (13, 6, 6, 6, 6, 5), 2, False),
    ],
)
def test_capturing_the_headquarters_the_goal_asks_for_wins(
    seats: int, goal: str, counts: tuple[int, ...], opposing_held_before: int, wins: bool
) -> None:
    """000: "To capture all opposing Headquarters-while still controlling your own territory. If you wish,
    you may shorten the game even further: 4 players: Capture any 2 opposing Headquarters while controlling
    your own. 5 or 6 players: Capture any 3 opposing Headquarters while controlling your own.\""""
    owners = split_board(*counts)
    owners[KAMCHATKA] = seats - 1
    # Seat 0's headquarters is Brazil; opponents' headquarters are their first territories, except that the
    # last seat's is Kamchatka; seat 0 already holds ``opposing_held_before`` of the others.
    firsts = [owners.index(s) for s in range(seats)]
    headquarters = [BRAZIL, *firsts[1:-1], KAMCHATKA]
    for t in headquarters[1 : 1 + opposing_held_before]:
        owners[t] = 0
    state = capital_position(headquarters, owners, seats, capital_goal=goal)
    events = take_kamchatka(state)
    if wins:
        assert state.is_over() and state.end_reason == "headquarters"
        (ended,) = [e for e in events if isinstance(e, GameEnded)]
        assert ended.places[0] == 1 and sorted(ended.places)[1] == 2
    else:
        assert not state.is_over() and state.phase == Phase.ATTACK


def test_no_win_without_holding_your_own_headquarters() -> None:
    """000: "To capture all opposing Headquarters-while still controlling your own territory." — seat 0
    holds every opposing headquarters but seat 1 holds seat 0's: no win until seat 0 takes it back."""
    owners = list(OWNERS)
    owners[KAMCHATKA] = 2
    owners[T("Peru")], owners[T("Indonesia")] = 1, 0
    state = capital_position([T("Peru"), T("Indonesia"), KAMCHATKA], owners)
    take_kamchatka(state)
    assert not state.is_over()
    state.apply(EndPhase(), seat=0)
    assert state.phase == Phase.FORTIFY


def test_losing_your_headquarters_does_not_eliminate_you() -> None:
    """000: "If at any point your Headquarters is captured by an opponent, you are not eliminated from the
    game. Simply give your card to that opponent and continue playing." — the card is held by whoever
    holds the territory, so it now counts for seat 0."""
    owners = list(OWNERS)
    owners[KAMCHATKA] = 1
    state = capital_position([BRAZIL, KAMCHATKA, T("Siam")], owners)
    take_kamchatka(state)
    assert state.owner[KAMCHATKA] == 0
    assert state.status[1] == PlayerStatus.ALIVE and not state.is_over()
    assert state.goal is not None and not state.goal.achieved(state, 1)
    state.owner[T("Siam")] = 0  # seat 0 then takes seat 2's as well
    assert state.goal.achieved(state, 0)


def test_the_defender_of_a_headquarters_chooses_its_dice() -> None:
    """Issue 5: "Defender dice `choose` ... make sure it works in every new preset"; 000: "The defender will
    roll either 1 or 2 white dice"."""
    owners = list(OWNERS)
    owners[KAMCHATKA] = 2
    state = capital_position([BRAZIL, owners.index(1), KAMCHATKA], owners, defender_dice="choose")
    state.armies[KAMCHATKA] = 2
    state.apply(Attack(ALASKA, KAMCHATKA, 3), seat=0)
    assert state.phase == Phase.DEFEND and state.to_act == 2
    force_dice(state, ((6, 6, 6), (1, 1)))
    state.apply(ChooseDefence(2), seat=2)
    assert state.owner[KAMCHATKA] == 0 and state.to_act == 0


def test_aggressive_players_finish_capital_games() -> None:
    """Issue 5: "the aggressive policy should pursue a mission/HQ goal at least crudely"."""
    reasons = set()
    for seed in range(6):
        state, _ = new_game(preset("capital", capital_goal="shortened"), seats=5, seed=seed)
        while not state.is_over():
            state.apply(aggressive_policy(state), seat=state.to_act)
        reasons.add(state.end_reason)
    assert reasons <= {"headquarters", "conquest"} and "headquarters" in reasons
