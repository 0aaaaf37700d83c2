"""RISK 2210 A.D. fortify and the end (issue 19: "Fortify along a connected path of your territories,
Moon↔Earth through a landing site and your Space Station, water and lunar without the commanders"; "End and
scoring: after year 5, territories + region bonuses ...; ties by energy, then units on the board, then a
shared result")."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.r2210.actions import Commander, EndPhase, Fortify, Phase
from engine.r2210.game import apply, legal_actions
from tests.engine.r2210_support import midturn, put


def _targets(state: object, source: int) -> tuple[int, ...]:
    legal = legal_actions(state, 0)  # type: ignore[arg-type]
    return next((f[1] for f in legal.fortify if f[0] == source), ())


def test_fortify_along_a_safe_path_only() -> None:
    """004: "there must be a safe "path" between them ... If you have to pass through an enemy territory or
    an empty territory then you cannot fortify between the two territories. In moving your units from one
    territory to another, you must leave at least one unit behind.\""""
    state = midturn(phase=Phase.FORTIFY)
    a = put(state, 0, "Egypt", 5)
    b = put(state, 0, "Imperial Balkania", 1)
    c = put(state, 0, "Warsaw Republic", 1)
    beyond = put(state, 0, "Ukrayina", 1)
    cut = put(state, 0, "Ministry of Djibouti", 1)
    put(state, 1, "Saharan Empire", 1)
    assert set(_targets(state, a)) == {b, c, beyond, cut}
    state.owner[b] = 1
    state.owner[beyond] = 1
    assert set(_targets(state, a)) == {cut}
    with pytest.raises(IllegalActionError, match=f"from {a} you may fortify to \\[{cut}\\]"):
        apply(state, Fortify(a, c, 1), 0)
    with pytest.raises(IllegalActionError, match="move 1 to 4 units"):
        apply(state, Fortify(a, cut, 5), 0)
    events = apply(state, Fortify(a, cut, 4), 0)
    assert state.mods[a] == 1 and state.mods[cut] == 5 and events[-1].kind in ("turn_started", "year_started")


def test_moon_and_earth_join_through_a_landing_site_and_your_station() -> None:
    """004: "When fortifying from the Moon to Earth (or vice-versa) you must be able to travel from a Lunar
    landing site down to a Space Station you control (or the other way around). This does not break the
    path"; "You may fortify to and from territories underwater or on the Moon even if you do not have a
    Naval or Space Commander in play"; FAQ example Alden-Siberia(station)-Tycho-Mexico(station)-American
    Republic."""
    state = midturn(phase=Phase.FORTIFY)
    alden = put(state, 0, "Alden", 4, (Commander.LAND,))
    put(state, 0, "Siberia", 1, station=True)
    tycho = put(state, 0, "Tycho", 1)
    put(state, 0, "Mexico", 1, station=True)
    republic = put(state, 0, "American Republic", 1)
    ny = put(state, 0, "New York", 1)
    assert {tycho, republic, ny} <= set(_targets(state, alden))
    apply(state, Fortify(alden, ny, 3, (Commander.LAND,)), 0)
    assert state.mods[ny] == 4 and state.commander(0, Commander.LAND) == ny
    state2 = midturn(phase=Phase.FORTIFY)
    alden = put(state2, 0, "Alden", 4)
    put(state2, 0, "Siberia", 1)  # no station: the Moon is cut off
    tycho = put(state2, 0, "Tycho", 1)
    assert tycho not in _targets(state2, alden)


def _last_turn(seats: int = 3):  # type: ignore[no-untyped-def]
    state = midturn(seats, seat=seats - 1, phase=Phase.FORTIFY)
    state.year = 5
    return state


def test_after_year_5_the_game_is_scored() -> None:
    """004: "At the end of Year 5, the final score for the game is calculated ... You earn 1 point for every
    territory (Land, Water, and Lunar) that you control. Add up your continental and colony bonuses"; "the
    one with the highest score wins\""""
    state = _last_turn()
    for t in next(r for r in state.board.regions if r.name == "Delphot").members:
        put(state, 0, state.board.names[t], 1)
    put(state, 1, "Egypt", 9)
    put(state, 1, "Akara", 1)
    put(state, 1, "Japan", 0, station=True)
    put(state, 2, "Alden", 30)
    events = apply(state, EndPhase(), 2)
    assert state.is_over() and state.end_reason == "year_5"
    assert state.scores == (4 + 2, 3, 1) and state.places == (1, 2, 3)
    assert events[-1].kind == "game_ended" and legal_actions(state, 0).phase == Phase.GAME_OVER
    assert state.asked == ()


def test_ties_go_to_energy_then_units_then_are_shared() -> None:
    """004 A TIE: "If there is a tie on the Score Chart, then the player with the most energy wins. If there
    is still a tie, then the player with the most units on the board wins. If there is still a tie, then the
    game is a tie and both players share control of the Earth.\""""
    state = _last_turn(4)
    put(state, 0, "Egypt", 2)
    put(state, 1, "Alden", 3)
    put(state, 2, "Japan", 2, (Commander.DIPLOMAT,))
    put(state, 3, "Akara", 3)
    state.energy = [5, 1, 1, 1]
    apply(state, EndPhase(), 3)
    assert state.scores == (1, 1, 1, 1)
    assert state.places == (1, 2, 2, 2)
    state = _last_turn(3)
    put(state, 0, "Egypt", 2)
    put(state, 1, "Alden", 1)
    put(state, 2, "Japan", 2)
    apply(state, EndPhase(), 2)
    assert state.places == (1, 3, 1)


def test_a_year_passes_to_new_bids_and_turns_follow_the_markers() -> None:
    """004 ENDING A YEAR: "Once all players have completed their turn, the year ends. Move the Year Marker to
    the next year and refer back to 'Start of a Year – Bidding for Turn Order'\""""
    state = midturn(3, seat=0, phase=Phase.FORTIFY)
    for s, name in enumerate(("Egypt", "Alden", "Japan")):
        put(state, s, name, 2)
    state.order = (0, 2, 1)
    apply(state, EndPhase(), 0)
    assert state.turn_seat == 2 and state.phase == Phase.DEPLOY
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 2)
    assert state.turn_seat == 1
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 1)
    assert state.phase == Phase.BID and state.year == 2 and state.asked == (0, 1, 2)
