"""Secret Mission Risk: the mission cards, their secrecy, and when a completed mission ends the game.

000 names the mode and its 12 mission cards ("Deck of 56 RISK cards ... 12 Secret Mission cards used only
in Secret Mission Risk"); the list of missions comes from the sources named in docs/rules.md.
"""

from __future__ import annotations

import pytest
from engine_table import T, force_dice, position, split_board

from engine import (
    CLASSIC,
    MISSIONS,
    Attack,
    EndPhase,
    GameState,
    Phase,
    Place,
    aggressive_policy,
    new_game,
    observe,
    preset,
)
from engine.events import Event, GameEnded, MissionDealt, MissionsRevealed, public_view
from engine.goals import mission_deck

DESTROY = {s: s for s in range(6)}  # mission id of "destroy seat s"
NA_AFRICA, NA_AUSTRALIA, ASIA_SA, ASIA_AFRICA, OCCUPY_24, OCCUPY_18 = range(6, 12)
EUROPE_SA_THIRD, EUROPE_AUSTRALIA_THIRD = 12, 13


def test_twelve_missions_with_six_players() -> None:
    """000: "Deck of 56 RISK cards" of which "12 Secret Mission cards" — 6 destroy-a-colour, 4 continent
    pairs, occupy 24, occupy 18 with 2 armies each."""
    deck = mission_deck(preset("secret_mission"), 6)
    assert len(deck) == 12
    assert [MISSIONS[m].destroy for m in deck[:6]] == [0, 1, 2, 3, 4, 5]
    assert {MISSIONS[m].continents for m in deck[6:10]} == {
        ("North America", "Africa"),
        ("North America", "Australia"),
        ("Asia", "South America"),
        ("Asia", "Africa"),
    }
    assert [(MISSIONS[m].territories, MISSIONS[m].min_armies) for m in deck[10:]] == [(24, 1), (18, 2)]


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_missions_of_absent_colours_are_removed(seats: int) -> None:
    """Secret Mission rules (docs/rules.md sources): "If fewer than 6 players, the General removes the
    Mission cards that refer to the unused colors.\""""
    deck = mission_deck(preset("secret_mission"), seats)
    assert len(deck) == 6 + seats
    assert all(MISSIONS[m].destroy < seats for m in deck)


def test_three_continent_missions_are_an_option() -> None:
    """Issue 5: "and the two three-continent missions of other editions as an option" — "Conquer Europe and
    South America and a third continent", "Conquer Europe and Australia and a third continent"."""
    deck = mission_deck(preset("secret_mission", three_continent_missions=True), 6)
    assert len(deck) == 14 and deck[-2:] == [EUROPE_SA_THIRD, EUROPE_AUSTRALIA_THIRD]
    assert MISSIONS[EUROPE_SA_THIRD].other_continents == 1


def test_each_seat_is_dealt_a_secret_mission_revealed_at_the_end() -> None:
    """Issue 5: "Missions are hidden from other seats and revealed at the end."; the Secret Mission rules:
    "The General shuffles the Mission cards and deals one card face down to each player.\""""
    state, events = new_game(preset("secret_mission"), seats=4, seed=11)
    dealt = [e for e in events if isinstance(e, MissionDealt)]
    assert [d.seat for d in dealt] == [0, 1, 2, 3]
    assert len({d.mission for d in dealt}) == 4 and state.missions == [d.mission for d in dealt]
    for seat in (-1, 0, 1, 2, 3):
        view = observe(state, seat)
        assert view.mission == (state.missions[seat] if seat >= 0 else -1)
        assert view.missions == ()
        for d in dealt:
            seen = public_view(d, seat)
            assert seen == (d if d.seat == seat else d._replace(mission=-1))
    while not state.is_over():
        events = state.apply(aggressive_policy(state), seat=state.to_act)
    assert MissionsRevealed(tuple(state.missions)) in events
    assert isinstance(events[-1], GameEnded)
    assert all(observe(state, seat).missions == tuple(state.missions) for seat in (-1, 0, 1, 2, 3))


def held_by_seat_0(*continents: str, extra: tuple[int, ...] = ()) -> list[int]:
    """Owners: seat 0 holds these continents and ``extra`` territories, seats 1 and 2 share the rest."""
    names = [c.name for c in CLASSIC.continents]
    owners = [1 + t % 2 for t in range(42)]
    for name in continents:
        for t in CLASSIC.continent_members[names.index(name)]:
            owners[t] = 0
    for t in extra:
        owners[t] = 0
    return owners


def mission_position(owners: list[int], missions: list[int], armies: list[int] | int = 3) -> GameState:
    state = position(owners, armies, rules=preset("secret_mission"), seats=3)
    state.missions = list(missions)
    return state


def capture(state: GameState, source: int, target: int) -> list[Event]:
    """Seat 0 takes ``target`` (1 army) from ``source`` with 3 dice, moving 3 in."""
    state.armies[source], state.armies[target] = 4, 1
    force_dice(state, ((6, 6, 6), (1,)))
    return state.apply(Attack(source, target, 3), seat=0)


NORTH_AFRICA, BRAZIL, EGYPT = T("North Africa"), T("Brazil"), T("Egypt")
SIAM, INDONESIA = T("Siam"), T("Indonesia")


@pytest.mark.parametrize(
    ("mission", "continents", "extra", "source", "target", "complete"),
    [
        (NA_AFRICA, ("North America", "Africa"), (BRAZIL,), BRAZIL, NORTH_AFRICA, True),
        (NA_AFRICA, ("North America",), (BRAZIL,), BRAZIL, NORTH_AFRICA, False),
        (ASIA_AFRICA, ("Asia", "Africa"), (), EGYPT, NORTH_AFRICA, True),
        (NA_AUSTRALIA, ("North America", "Australia"), (SIAM,), SIAM, INDONESIA, True),
        (ASIA_SA, ("Asia", "South America"), (NORTH_AFRICA,), NORTH_AFRICA, BRAZIL, True),
        (EUROPE_SA_THIRD, ("Europe", "South America", "Australia"), (SIAM,), SIAM, INDONESIA, True),
        (EUROPE_SA_THIRD, ("Europe", "South America", "Africa"), (), BRAZIL, NORTH_AFRICA, True),
        (EUROPE_SA_THIRD, ("Europe", "South America"), (NORTH_AFRICA,), NORTH_AFRICA, BRAZIL, False),
        (EUROPE_AUSTRALIA_THIRD, ("Europe", "Australia"), (SIAM,), SIAM, INDONESIA, False),  # no 3rd
        (EUROPE_AUSTRALIA_THIRD, ("Europe", "Australia", "South America"), (SIAM,), SIAM, INDONESIA, True),
    ],
)
def test_conquering_the_named_continents_ends_the_game_at_once(
    mission: int,
    continents: tuple[str, ...],
    extra: tuple[int, ...],
    source: int,
    target: int,
    complete: bool,
) -> None:
    """Mission cards: "Conquer North America and Africa", "Conquer Asia and Africa", "Conquer North America
    and Australia", "Conquer Asia and South America", "Conquer Europe and South America and a third
    continent of your choice", "... Europe and Australia and a third continent"; issue 5: "The game ends as
    soon as a mission is complete" — checked after the action that completes it."""
    owners = held_by_seat_0(*continents, extra=extra)
    owners[target] = 1  # the last territory of the mission, still to take
    state = mission_position(owners, [mission, OCCUPY_24, OCCUPY_18])
    events = capture(state, source, target)
    if complete:
        assert state.is_over() and state.end_reason == "mission"
        assert state.places[0] == 1
        assert MissionsRevealed((mission, OCCUPY_24, OCCUPY_18)) in events
    else:
        assert not state.is_over() and state.phase == Phase.ATTACK


def test_occupying_24_territories() -> None:
    """Mission card: "Occupy 24 territories.\""""
    owners = split_board(23, 10, 9)
    state = mission_position(owners, [OCCUPY_24, NA_AFRICA, ASIA_SA])
    capture(state, 22, next(n for n in CLASSIC.neighbours[22] if owners[n] != 0))
    assert state.territory_count[0] == 24 and state.end_reason == "mission"


def test_occupying_18_territories_with_two_armies_each_completes_on_a_placement() -> None:
    """Mission card: "Occupy 18 territories with at least 2 armies in each." — here completed by placing
    the turn's armies, the game ending at that placement."""
    owners = split_board(18, 12, 12)
    armies = [2] * 17 + [1] + [1] * 24
    state = mission_position(owners, [OCCUPY_18, NA_AFRICA, ASIA_SA], armies)
    state.phase, state.reinforcements = Phase.REINFORCE, 3
    state.apply(Place(0, 2), seat=0)
    assert not state.is_over()
    state.apply(Place(17, 1), seat=0)
    assert state.end_reason == "mission" and state.places[0] == 1


# Seat 2 holds only Kamchatka; seat 0 the Americas (ids 0..12), seat 1 the rest.
ELIMINATION_OWNERS = [0] * 13 + [1] * 29
ELIMINATION_OWNERS[T("Kamchatka")] = 2


def test_destroying_your_target_yourself_completes_the_mission() -> None:
    """Mission card: "Destroy all armies of [a colour]" — the holder eliminates that player."""
    state = mission_position(ELIMINATION_OWNERS, [DESTROY[2], OCCUPY_24, NA_AFRICA])
    capture(state, T("Alaska"), T("Kamchatka"))
    assert state.eliminated_by[2] == 0
    assert state.end_reason == "mission" and state.places == (1, 2, 3)


def test_target_eliminated_by_another_player_means_occupy_24() -> None:
    """Mission card: "If ... someone else eliminates them, your mission is to occupy 24 territories"
    (docs/rules.md) — and a seat that already holds 24 then wins at once, even on another seat's turn."""
    owners = [1] * 13 + [0] * 29
    owners[T("Kamchatka")] = 2
    state = position(owners, 3, rules=preset("secret_mission"), seats=3, seat=1)
    state.missions = [DESTROY[2], NA_AFRICA, OCCUPY_18]
    state.armies[T("Alaska")], state.armies[T("Kamchatka")] = 4, 1
    force_dice(state, ((6, 6, 6), (1,)))
    state.apply(Attack(T("Alaska"), T("Kamchatka"), 3), seat=1)
    assert state.eliminated_by[2] == 1
    assert state.end_reason == "mission" and state.places[0] == 1  # seat 0 holds 28 >= 24


def test_destroying_yourself_means_occupy_24() -> None:
    """Mission card: "If they are yours ... your mission is to occupy 24 territories"."""
    owners = split_board(23, 10, 9)
    state = mission_position(owners, [DESTROY[0], NA_AFRICA, ASIA_SA])
    state.apply(EndPhase(), seat=0)
    assert not state.is_over()
    state = mission_position(owners, [DESTROY[0], NA_AFRICA, ASIA_SA])
    capture(state, 22, next(n for n in CLASSIC.neighbours[22] if owners[n] != 0))
    assert state.end_reason == "mission"


def test_aggressive_players_finish_mission_games() -> None:
    """Issue 5: "the aggressive policy should pursue a mission/HQ goal at least crudely"."""
    reasons = []
    for seed in range(8):
        state, _ = new_game(preset("secret_mission", three_continent_missions=True), seats=4, seed=seed)
        while not state.is_over():
            state.apply(aggressive_policy(state), seat=state.to_act)
        reasons.append(state.end_reason)
    assert set(reasons) <= {"mission", "conquest"} and reasons.count("mission") >= 4
