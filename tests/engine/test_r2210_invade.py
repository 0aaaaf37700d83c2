"""RISK 2210 A.D. invasions (issue 19, "Invasions" and "Commanders and Space Stations": "the d8 table
(Diplomat never, Land from/into land, Naval from/into water, Space from/into lunar, Nuclear always;
commanders always defend with d8; every unit under a Space Station defends with d8); commanders that rolled
d8 must move in; losses may be taken as MODs first; capturing, replacing or destroying Space Stations")."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError, NotYourTurnError
from engine.r2210.actions import Commander, Declare, Defend, EndPhase, Lose, Occupy, Phase, Roll
from engine.r2210.events import Event2210
from engine.r2210.game import apply, legal_actions
from engine.r2210.state import GameState2210
from engine.rules import DefenderDice
from tests.engine.r2210_support import FixedDice, midturn, put

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR


def _rolled(events: list[Event2210]) -> dict[str, object]:
    return next(e.data for e in events if e.kind == "rolled")


def test_the_d8_table_for_attackers() -> None:
    """004: "Diplomat Never; Land When invading from/into a land territory; Naval When invading from/into a
    water territory; Space When invading from/into a lunar territory; Nuclear Always\""""
    state = midturn()
    egypt = put(state, 0, "Egypt", 3, (L, D, N, S, X), station=True)
    middle = put(state, 1, "Middle East", 1)
    put(state, 1, "Saharan Empire", 1)
    reef = put(state, 1, "The Ivory Reef", 1)
    tycho = put(state, 1, "Tycho", 1)
    assert state.d8_commanders(egypt, middle) == (L, X)
    assert state.d8_commanders(egypt, tycho) == (L, S, X)
    saharan = put(state, 0, "Saharan Empire", 2, (N, X))
    assert state.d8_commanders(saharan, reef) == (N, X)
    put(state, 0, "Egypt", 3, (N, X))
    apply(state, Declare(egypt, middle), 0)
    legal = legal_actions(state, 0)
    assert legal.phase == Phase.ROLL and legal.dice_max == 3 and legal.d8 == (L, X)
    with pytest.raises(IllegalActionError, match="8-sided dice may be rolled by \\['LAND', 'NUCLEAR'\\]"):
        apply(state, Roll(3, (D,)), 0)
    with pytest.raises(IllegalActionError, match="more 8-sided dice than dice rolled"):
        apply(state, Roll(1, (L, X)), 0)


def test_attack_at_least_once_after_declaring() -> None:
    """004: "Once you declare an invasion, you must attack at least once before calling it off.\""""
    state = midturn()
    a = put(state, 0, "Egypt", 3)
    b = put(state, 1, "Middle East", 3)
    apply(state, Declare(a, b), 0)
    with pytest.raises(IllegalActionError, match="ending the phase is not allowed in ROLL"):
        apply(state, EndPhase(), 0)
    state.dice = FixedDice([1, 1], [6, 6])  # type: ignore[assignment]
    apply(state, Roll(2), 0)
    assert state.phase == Phase.INVADE and state.mods[a] == 1
    apply(state, EndPhase(), 0)
    assert state.phase == Phase.FORTIFY


def test_commanders_and_stations_defend_with_d8() -> None:
    """004: "Commanders always defend with an 8-sided die"; "All units in a territory with a Space Station
    defend with 8-sided dice"; "In case of a tie, the defender wins.\""""
    state = midturn()
    a = put(state, 0, "Egypt", 5, (L,))
    b = put(state, 1, "Middle East", 3, (D,))
    c = put(state, 1, "Imperial Balkania", 3, station=True)
    dice = FixedDice([6, 6, 6], [6, 1])
    state.dice = dice  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    events = apply(state, Roll(3, (L,)), 0)
    assert dice.faces[-1] == ((8, 6, 6), (8, 6))
    assert _rolled(events)["attacker_losses"] == 1 and _rolled(events)["defender_losses"] == 1
    apply(state, Declare(a, c), 0)
    apply(state, Roll(1), 0)
    assert dice.faces[-1] == ((6,), (8, 8))


def test_losses_are_taken_as_mods_before_commanders() -> None:
    """004: "When using 8-sided dice to defend or attack a territory, you do not have to remove Commanders
    first when losses are suffered -- You may remove MODs in their place.\""""
    state = midturn()
    a = put(state, 0, "Egypt", 2, (L, X))
    b = put(state, 1, "Middle East", 1, (D, N))
    state.dice = FixedDice([1, 1, 1], [8, 8])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(3, (L, X)), 0)
    assert state.mods[a] == 0 and state.commanders_in(a) == (L, X)
    state.mods[a] = 3
    state.dice = FixedDice([8, 8, 8], [1, 1])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(3, (X,)), 0)
    assert state.mods[b] == 0 and state.commanders_in(b) == (N,)  # then the Diplomat before the Naval


def test_with_choose_losses_each_side_picks_which_units_it_loses() -> None:
    """004: "you do not have to remove Commanders first when losses are suffered -- You may remove MODs in
    their place" (rules option ``choose_losses``: the attacker, then the defender, is asked)."""
    state = midturn(choose_losses=True)
    a = put(state, 0, "Egypt", 2, (L, X))
    b = put(state, 1, "Middle East", 3, (D,))
    state.dice = FixedDice([6, 1, 1], [5, 2])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(3, (L,)), 0)
    legal = legal_actions(state, 0)
    assert state.phase == Phase.LOSSES and state.asked == (0,) and legal.lose == 1
    with pytest.raises(IllegalActionError, match="remove exactly 1 units"):
        apply(state, Lose(1, (X,)), 0)
    apply(state, Lose(0, (X,)), 0)
    assert not state.in_play(0, X) and state.mods[a] == 2
    assert state.asked == (1,) and legal_actions(state, 1).lose == 1
    apply(state, Lose(0, (D,)), 1)
    assert state.mods[b] == 3 and not state.in_play(1, D)
    assert state.phase == Phase.INVADE and state.asked == (0,)


def test_commanders_that_rolled_d8_must_move_in() -> None:
    """004: "If you successfully invade a territory and you rolled one or more 8-sided dice, then you must
    move in the Commander(s) that allowed you to roll the 8-sided dice ... You must now move at least three
    units into New Avalon including your Nuclear and Land Commanders.\""""
    state = midturn()
    andorra = put(state, 0, "Andorra", 3, (L, X, D))
    avalon = put(state, 1, "New Avalon", 1)
    state.dice = FixedDice([8, 7, 5], [2])  # type: ignore[assignment]
    apply(state, Declare(andorra, avalon), 0)
    apply(state, Roll(3, (X, L)), 0)
    legal = legal_actions(state, 0)
    assert legal.phase == Phase.OCCUPY and legal.occupy_min == 3 and set(legal.must_move) == {L, X}
    with pytest.raises(IllegalActionError, match="must move in: \\['NUCLEAR', 'LAND'\\]"):
        apply(state, Occupy(3, (L,)), 0)
    with pytest.raises(IllegalActionError, match="move 3 to 5 units"):
        apply(state, Occupy(0, (L, X)), 0)
    apply(state, Occupy(1, (L, X)), 0)
    assert state.owner[avalon] == 0 and state.commanders_in(avalon) == (L, X) and state.units(andorra) == 3


def _four_stations(state: GameState2210) -> None:
    for name in ("Mexico", "Argentina", "Alberta", "Japan"):
        put(state, 0, name, 1, station=True)


@pytest.mark.parametrize("attacker_has_four", [False, True])
def test_space_stations_are_captured_or_destroyed(attacker_has_four: bool) -> None:
    """004: "if ... your attacker destroys all of your units in a particular territory, leaving only the
    Space Station, you lose control of the Space Station and the territory. The attacker replaces the
    defeated player's Space Station with one of his/her own color. If all four of the attacker's Space
    Stations are already on the board then the captured Space Station is destroyed and removed from play.\""""
    state = midturn()
    a = put(state, 0, "Egypt", 4)
    b = put(state, 1, "Middle East", 1, station=True)
    put(state, 1, "Lesotho", 2)
    if attacker_has_four:
        _four_stations(state)
    state.dice = FixedDice([6], [1])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    events = apply(state, Roll(1), 0)
    assert state.owner[b] == 0
    assert state.station[b] == (-1 if attacker_has_four else 0)
    kind = "station_destroyed" if attacker_has_four else "station_captured"
    assert any(e.kind == kind for e in events)


def test_empty_and_station_only_territories_are_taken_without_dice() -> None:
    """004: "You may invade these unoccupied territories - there is no dice roll. However, moving into an
    unoccupied territory does count as an invasion. As usual, you must leave at least one unit behind";
    "You still control a territory if all you have in it is a Space Station"; 2210_NOTES point 10."""
    state = midturn()
    a = put(state, 0, "Egypt", 2)
    empty = state.board.territory_id("Middle East")
    station_only = put(state, 1, "Imperial Balkania", 0, station=True)
    put(state, 1, "Lesotho", 2)
    assert (a, empty) in legal_actions(state, 0).invasions
    events = apply(state, Declare(a, empty), 0)
    assert not any(e.kind == "rolled" for e in events)
    legal = legal_actions(state, 0)
    assert legal.phase == Phase.OCCUPY and legal.occupy_min == 1
    with pytest.raises(IllegalActionError, match="move 1 to 1 units"):
        apply(state, Occupy(2), 0)
    apply(state, Occupy(1), 0)
    state.mods[a] = 3
    events = apply(state, Declare(a, station_only), 0)
    assert state.station[station_only] == 0 and state.owner[station_only] == 0
    assert any(e.kind == "station_captured" for e in events) and not any(e.kind == "rolled" for e in events)


def test_water_needs_a_naval_commander_in_play_anywhere() -> None:
    """004: "you must have a Naval Commander in order to invade into or out of Water territories ... the
    Naval Commander does not need to be in the same territory as the invading units ... He need only be in
    play. ... units in a Water territory without a Naval Commander may still defend as normal.\""""
    state = midturn()
    saharan = put(state, 0, "Saharan Empire", 3)
    reef = state.board.territory_id("The Ivory Reef")
    paulo = put(state, 0, "Neo Paulo", 3)
    amazon = put(state, 1, "Amazon Desert", 1)
    assert (saharan, reef) not in state.invasions(0) and (paulo, amazon) not in state.invasions(0)
    put(state, 0, "Japan", 1, (N,))
    assert (saharan, reef) in state.invasions(0) and (paulo, amazon) in state.invasions(0)


def test_the_moon_needs_a_space_commander_and_a_station_one_way() -> None:
    """004: "From a Space Station, an invading force can travel to any one of the three lunar landing sites
    (Sea of Crisis, Bay of Dew, and Tycho)"; "you must have a Space Commander to invade into or out of Lunar
    territories"; "You cannot attack a Land territory containing a Space Station from a landing site on the
    moon. It is a one-way trip when attacking.\""""
    state = midturn()
    mexico = put(state, 0, "Mexico", 3, station=True)
    tycho = put(state, 1, "Tycho", 2)
    sites = set(state.board.landing_sites)
    assert not {t for s, t in state.invasions(0) if s == mexico} & sites
    put(state, 0, "Japan", 1, (S,))
    assert {t for s, t in state.invasions(0) if s == mexico} >= sites
    assert (mexico, state.board.territory_id("Harpalus")) not in state.invasions(0)
    state.order = (1, 0, 2)
    state.turn_index = 0
    state.to_act = 1
    state.commander_at[1 * 5 + S] = tycho
    assert not any(t == mexico for _, t in state.invasions(1))


def test_three_contested_captures_earn_one_energy_once() -> None:
    """004: "if you take three contested territories you immediately earn 1 energy and 1 Command card ...
    This bonus is collected only once during a turn"; "A contested territory is one that contains enemy
    units.\""""
    state = midturn()
    a = put(state, 0, "Hong Kong", 40)
    targets = [put(state, 1, n, 1) for n in ("Siberia", "Afghanistan", "Angkhor Wat", "United Indiastan")]
    put(state, 1, "Egypt", 5)
    empty = state.board.territory_id("Khan Industrial State")
    state.dice = FixedDice([6], [1])  # type: ignore[assignment]
    apply(state, Declare(a, empty), 0)
    apply(state, Occupy(1), 0)
    gained = []
    for t in targets:
        before = state.energy[0]
        apply(state, Declare(a, t), 0)
        apply(state, Roll(1), 0)
        apply(state, Occupy(1), 0)
        gained.append(state.energy[0] - before)
    assert gained == [0, 0, 1, 0]


def test_eliminating_the_last_opponent_ends_and_scores_the_game() -> None:
    """004: "If during your turn you eliminate an opponent by defeating his or her last unit in play ...
    That player is eliminated from play.\""""
    state = midturn(3)
    a = put(state, 0, "Egypt", 4)
    b = put(state, 1, "Middle East", 1)
    c = put(state, 2, "Imperial Balkania", 1)
    state.dice = FixedDice([6], [1])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    events = apply(state, Roll(1), 0)
    assert not state.alive[1] and any(e.kind == "eliminated" and e.seat == 1 for e in events)
    apply(state, Occupy(1), 0)
    apply(state, Declare(a, c), 0)
    apply(state, Roll(1), 0)
    assert state.is_over() and state.end_reason == "conquest" and state.places == (1, 3, 2)


def test_taking_the_last_station_and_unit_of_the_last_opponent_ends_the_game() -> None:
    """004: a Space Station alone still controls its territory, but the player whose "last unit in play" is
    defeated is eliminated; the station standing alone goes with it and the game ends with one seat left."""
    state = midturn(2)
    a = put(state, 0, "Egypt", 4)
    b = put(state, 1, "Middle East", 1, station=True)
    lone = put(state, 1, "Alden", 0, station=True)
    state.dice = FixedDice([6], [1])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(1), 0)
    assert state.is_over() and state.asked == () and state.places == (1, 2)
    assert state.station[lone] == -1 and state.owner[lone] == -1 and state.station[b] == 0


def test_the_defender_chooses_its_dice_and_the_other_seat_defends_the_neutral() -> None:
    """004: "first you, as the attacker, then your opponent, as the defender, must announce the number of
    dice you intend to roll"; "The defender may roll either 1 or 2 dice"; 2210_NOTES point 17: for the
    two-player neutral, "the non-attacking player decides its losses and dice" (``defender_dice="choose"``:
    a decision asked of a seat that is not the one whose turn it is)."""
    state = midturn(3, defender_dice=DefenderDice.CHOOSE)
    a = put(state, 0, "Egypt", 4)
    b = put(state, 2, "Middle East", 3)
    dice = FixedDice([6, 6, 6], [1, 1])
    state.dice = dice  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(3), 0)
    assert state.phase == Phase.DEFEND and state.asked == (2,) and legal_actions(state, 2).defend_max == 2
    with pytest.raises(NotYourTurnError):
        apply(state, Defend(1), 0)
    apply(state, Defend(1), 2)
    assert dice.faces[-1] == ((6, 6, 6), (6,)) and state.asked == (0,) and state.mods[b] == 2
    duel = midturn(2, defender_dice=DefenderDice.CHOOSE)
    a = put(duel, 0, "Egypt", 4)
    n = put(duel, duel.neutral, "Middle East", 3)
    put(duel, 1, "Alden", 1)
    duel.dice = FixedDice([6, 6, 6], [1, 1])  # type: ignore[assignment]
    apply(duel, Declare(a, n), 0)
    apply(duel, Roll(2), 0)
    assert duel.asked == (1,)
