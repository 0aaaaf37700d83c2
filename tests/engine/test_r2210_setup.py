"""RISK 2210 A.D. setup (issue 19, "Setup": "devastation markers from the land deck (4), claim of land
territories one MOD at a time, then three at a time, Land and Diplomat Commanders and a Space Station placed
in turn order, 3 energy each, starting MODs by player count; water and lunar territories start empty")."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError, NotYourTurnError, RulesConfigError
from engine.r2210.actions import Claim, Commander, Phase, Place, PlaceCommanders
from engine.r2210.board import Kind
from engine.r2210.dice import Dice
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.rules import Rules2210
from tests.engine.r2210_support import fresh, play_until


def test_four_devastated_lands_are_the_top_of_the_shuffled_land_deck() -> None:
    """004: "Turn over the top Land Territory card and place a Devastation Marker on that territory. Repeat
    until four Land territories have been marked ... Place the four devastated Land Territory cards into a
    discard pile ... These cards will not be used again.\""""
    state, events = new_game_2210(Rules2210(), 4, 99)
    deck = list(state.board.of_kind(Kind.LAND))
    Dice(99).shuffle(deck)
    devastated = [t for t, d in enumerate(state.devastated) if d]
    assert sorted(deck[:4]) == devastated and state.land_discard == deck[:4]
    assert [e.data["territory"] for e in events if e.kind == "devastated"] == deck[:4]
    assert len(state.land_deck) == 38 and not set(state.land_deck) & set(devastated)
    assert all(state.board.kinds[t] == Kind.LAND for t in devastated)


def test_claims_one_mod_at_a_time_on_empty_undevastated_land_only() -> None:
    """004: "On your turn, place one 1.0-MOD into any unoccupied Land territory that does not contain a
    Devastation Marker. You may not place MODs on the Moon or in Water territories to start the game.\""""
    state = fresh(3, seed=5)
    seat = state.to_act
    legal = legal_actions(state, seat)
    assert set(legal.territories) == {t for t in state.board.of_kind(Kind.LAND) if not state.devastated[t]}
    water = state.board.of_kind(Kind.WATER)[0]
    with pytest.raises(IllegalActionError, match="not an unoccupied, undevastated land territory"):
        apply(state, Claim(water), seat)
    devastated = state.devastated.index(True)
    with pytest.raises(IllegalActionError, match="legal: \\["):
        apply(state, Claim(devastated), seat)
    with pytest.raises(NotYourTurnError, match="seats asked are"):
        apply(state, Claim(legal.territories[0]), (seat + 1) % 3)
    apply(state, Claim(legal.territories[0]), seat)
    assert state.mods[legal.territories[0]] == 1 and state.to_act == (seat + 1) % 3
    assert legal.territories[0] not in legal_actions(state, state.to_act).territories


def test_then_three_at_a_time_and_the_remainder_last() -> None:
    """004: "Then place MODs, three at a time, into any territory under your control ... on the last round
    of MOD placement, players may have fewer than 3 MODs. Simply place the 1 or 2 MODs you have
    remaining.\""""
    state = play_until(fresh(3, seed=2), Phase.SETUP_PLACE)
    seat = state.to_act
    legal = legal_actions(state, seat)
    assert legal.place_max == 3 and set(legal.territories) == set(state.controlled(seat))
    assert all(state.board.kinds[t] == Kind.LAND for t in range(state.board.size) if state.owner[t] >= 0)
    mine = legal.territories[0]
    apply(state, Place(mine, 2), seat)
    assert state.to_act == seat and legal_actions(state, seat).place_max == 1
    with pytest.raises(IllegalActionError, match="place 1 to 1 MODs, not 2"):
        apply(state, Place(mine, 2), seat)
    apply(state, Place(mine, 1), seat)
    assert state.to_act == (seat + 1) % 3
    # 38 undevastated lands among 3 players of 35 MODs: 13, 13, 12 claims, then 22, 22, 23 to place.
    while state.phase == Phase.SETUP_PLACE:
        s = state.to_act
        legal = legal_actions(state, s)
        assert legal.place_max == min(3, state.setup_left[s])
        apply(state, Place(legal.territories[0], legal.place_max), s)
    assert state.phase == Phase.SETUP_COMMANDERS
    for s in range(3):
        assert sum(state.mods[t] for t in state.controlled(s)) == 35


@pytest.mark.parametrize(("seats", "mods"), [(2, 30), (3, 35), (4, 30), (5, 25)])
def test_starting_mods_energy_commanders_and_a_station_in_turn_order(seats: int, mods: int) -> None:
    """004: "3 Players: each player counts out 35 1.0-MODs. 4 Players: ... 30 ... 5 Players: ... 25"; two
    players: "using 30 1.0-MODs each"; "Each player takes three 1-point energy chips to begin"; "place in
    turn order, your Land and Diplomat Commanders and a Space Station (at one time) into any of your
    occupied territories"."""
    state = play_until(fresh(seats, seed=seats), Phase.SETUP_COMMANDERS)
    first = state.first_seat
    assert state.to_act == first and state.energy == [3] * seats
    for s in range(seats):
        assert sum(state.mods[t] for t in state.controlled(s)) == mods
    for step in range(seats):
        seat = (first + step) % seats
        assert state.asked == (seat,)
        own = state.controlled(seat)
        other = next(t for t in range(state.board.size) if state.owner[t] not in (seat, -1))
        with pytest.raises(IllegalActionError, match="not a territory you occupy"):
            apply(state, PlaceCommanders(own[0], own[0], other), seat)
        apply(state, PlaceCommanders(own[0], own[-1], own[0]), seat)
        assert state.commander(seat, Commander.LAND) == own[0] and state.station[own[0]] == seat
        assert state.commander(seat, Commander.DIPLOMAT) == own[-1]
        assert not state.in_play(seat, Commander.NAVAL)
    assert state.phase == Phase.BID and state.year == 1
    for kind in (Kind.WATER, Kind.LUNAR):
        assert all(state.owner[t] in (-1, state.neutral) for t in state.board.of_kind(kind))


def test_two_players_get_neutrals_on_16_land_6_water_6_lunar() -> None:
    """004 (2 players): "Turn over 16 Land Territory Cards, 6 Water Territory cards, and 6 Moon Territory
    cards. Place 3 neutral armies in each of these territories then shuffle the Territory cards back into
    their respective decks.\""""
    state = fresh(2, seed=11)
    neutral = state.controlled(state.neutral)
    kinds = [state.board.kinds[t] for t in neutral]
    assert (kinds.count(Kind.LAND), kinds.count(Kind.WATER), kinds.count(Kind.LUNAR)) == (16, 6, 6)
    assert all(state.mods[t] == 3 for t in neutral) and not any(state.devastated[t] for t in neutral)
    assert (len(state.land_deck), len(state.water_deck), len(state.lunar_deck)) == (38, 13, 14)
    play_until(state, Phase.BID)
    assert all(state.board.kinds[t] == Kind.LAND for s in (0, 1) for t in state.controlled(s))


def test_player_counts_outside_2_to_5_are_refused() -> None:
    """004's setup covers 2, 3, 4 and 5 players ("If you are playing a 5 player game use all 5 markers")."""
    for seats in (1, 6):
        with pytest.raises(RulesConfigError, match="2 to 5 players"):
            new_game_2210(Rules2210(), seats, 1)
