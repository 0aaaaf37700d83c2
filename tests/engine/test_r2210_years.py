"""RISK 2210 A.D. years, turn order, income and buying (issue 19: "Years and turn order", "Income",
"Commanders and Space Stations")."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError, NotYourTurnError
from engine.r2210.actions import Bid, BuildStation, ChooseMarker, Commander, EndPhase, Hire, Phase, Place
from engine.r2210.game import apply, legal_actions
from engine.r2210.observe import observe_2210
from engine.r2210.state import GameState2210
from engine.r2210.year import start_turn
from tests.engine.r2210_support import fresh, midturn, play_until, put


def _at_bids(seats: int = 4, seed: int = 3) -> GameState2210:
    return play_until(fresh(seats, seed=seed), Phase.BID)


def test_bids_are_simultaneous_secret_and_spent() -> None:
    """004: "Secretly choose how many you want to bid ... You may bid anything from 0 to everything you
    have. Players reveal their bids at the same time"; "All energy used to bid is spent"."""
    state = _at_bids()
    assert state.asked == (0, 1, 2, 3)
    with pytest.raises(IllegalActionError, match="bid 0 to 3 energy"):
        apply(state, Bid(4), 2)
    events = apply(state, Bid(2), 2)
    assert state.asked == (0, 1, 3)
    assert events[0].private and events[0].seat == 2
    assert observe_2210(state, 2).bids == (-1, -1, 2, -1)
    assert observe_2210(state, 0).bids == (-1, -1, -1, -1) and observe_2210(state, -1).bids == (-1,) * 4
    with pytest.raises(NotYourTurnError):
        apply(state, Bid(1), 2)
    apply(state, Bid(3), 0)
    apply(state, Bid(0), 1)
    events = apply(state, Bid(1), 3)
    assert state.energy == [0, 3, 1, 2]
    revealed = [e for e in events if e.kind == "bids_revealed"]
    assert revealed and revealed[0].data["bids"] == [3, 0, 2, 1] and not revealed[0].private
    assert observe_2210(state, 1).bids == (3, 0, 2, 1)
    # "The highest bidder chooses a Turn Order marker, followed by the 2nd highest bidder, etc."
    assert state.phase == Phase.CHOOSE_MARKER and state.asked == (0,) and state.choosers == [0, 2, 3, 1]


def test_markers_in_bid_order_any_marker_and_the_last_one_taken() -> None:
    """004: "You can choose any Turn Order marker you like"; "the player bidding 0 takes the remaining Turn
    Order marker"; "The player with Turn Order marker #1 goes first, followed by marker #2, and so on.\""""
    state = _at_bids()
    for seat, energy in enumerate((3, 0, 2, 1)):
        apply(state, Bid(energy), seat)
    assert legal_actions(state, 0).markers == (1, 2, 3, 4)
    apply(state, ChooseMarker(3), 0)
    with pytest.raises(IllegalActionError, match="choose a free marker \\[1, 2, 4\\]"):
        apply(state, ChooseMarker(3), 2)
    apply(state, ChooseMarker(1), 2)
    apply(state, ChooseMarker(4), 3)
    assert state.marker == [3, 2, 1, 4] and state.order == (2, 1, 0, 3)
    assert state.phase == Phase.DEPLOY and state.turn_seat == 2 and state.asked == (2,)


def test_tied_bids_roll_a_d6_high_roller_chooses_first() -> None:
    """004: "In the case of a tie, the tied players roll one 6-sided die to determine the order in which
    they choose. High roller chooses first. For example, three players bid 2 energy and the fourth player
    bids none ... the player bidding 0 takes the remaining Turn Order marker.\""""
    for seed in range(6):
        state = _at_bids(seed=seed)
        events = []
        for seat, energy in enumerate((2, 2, 0, 2)):
            events += apply(state, Bid(energy), seat)
        rolls = [e for e in events if e.kind == "bid_tie_rolled"]
        assert rolls and rolls[0].data["seats"] == [0, 1, 3]
        first_round = rolls[0].data["rolls"][0]
        leader = state.choosers[0]
        assert first_round[[0, 1, 3].index(leader)] == max(first_round)
        assert state.choosers[-1] == 2


def test_income_from_the_score_chart_regions_and_stations() -> None:
    """004: "The number in the lower right corner of this space indicates the number of MODs and amount of
    energy you get"; "If a continent/colony contains a territory (territories) with a Devastation Marker(s)
    and you control all other territories within that continent/colony, then you receive the full bonus";
    "You also receive one 1.0-MOD for each Space Station you control. (This MOD must be placed in the
    territory with the Space Station.)\""""
    state = midturn(3, seat=0, phase=Phase.FORTIFY)
    australia = next(r for r in state.board.regions if r.name == "Australia")
    for t in australia.members[1:]:
        put(state, 0, state.board.names[t], 2)
    state.devastated[australia.members[0]] = True
    station = put(state, 0, "Mexico", 0, station=True)  # controlled by a Space Station alone
    for name in ("Akara", "Tycho", "Bay of Dew", "Egypt", "Andean Nations"):
        put(state, 0, name, 1)
    controlled = len(state.controlled(0))
    assert controlled == 9  # 3 + Mexico + 5
    state.energy[0] = 1
    start_turn(state, [])
    assert state.recruits == 3 + 2  # max(3, 9 // 3) + Australia
    assert state.energy[0] == 1 + 3 + 2
    assert state.mods[station] == 1 and state.phase == Phase.DEPLOY
    assert legal_actions(state, 0).place_max == 5


def test_region_bonus_energy_option_gives_mods_only() -> None:
    """2210_NOTES point 6 and its disagreement: "one FAQ sentence says energy depends 'solely' on
    territories" (rules option ``region_bonus_energy=False``)."""
    state = midturn(3, seat=0, phase=Phase.FORTIFY, region_bonus_energy=False)
    for name in ("Sea of Crisis", "Sea of Serenity", "Sea of Nectar", "Aristotle"):
        put(state, 0, name, 1)
    start_turn(state, [])
    assert state.recruits == 3 + 2 and state.energy[0] == 3


def test_deploy_on_controlled_territories_only() -> None:
    """004: "Territories that are unoccupied are not under your control and MODs cannot be placed there.\""""
    state = midturn(3, seat=0, phase=Phase.FORTIFY)
    mine = put(state, 0, "Egypt", 1)
    theirs = put(state, 1, "Andean Nations", 1)
    start_turn(state, [])
    with pytest.raises(IllegalActionError, match="not a territory you control"):
        apply(state, Place(theirs, 1), 0)
    apply(state, Place(mine, 3), 0)
    assert state.phase == Phase.BUY and state.mods[mine] == 4


def test_hire_commanders_for_3_and_stations_for_5_at_most_4() -> None:
    """004: "You may now hire (buy) any Commanders that you do not already have in play. Commanders cost 3
    energy each and must be placed into territories that you control"; "Once you have your Commanders in
    place, you may then buy additional Space Stations (5 energy each). If you already control 4 Space
    Stations, you cannot purchase additional ones ... you cannot have more than one Space Station in a
    single territory"; "Purchased Space Stations may be put into any Land territory that you control".\""""
    state = midturn(3, seat=0, phase=Phase.BUY)
    egypt = put(state, 0, "Egypt", 1, (Commander.LAND,))
    akara = put(state, 0, "Akara", 1)
    peru = put(state, 0, "Andean Nations", 1, station=True)
    state.energy[0] = 2
    assert legal_actions(state, 0).hires == () and legal_actions(state, 0).stations == ()
    state.energy[0] = 30
    legal = legal_actions(state, 0)
    assert Commander.LAND not in legal.hires and Commander.NAVAL in legal.hires
    assert legal.stations == (egypt,)  # not water, not a territory with a station already
    with pytest.raises(IllegalActionError, match="commanders you may hire now"):
        apply(state, Hire(Commander.LAND, egypt), 0)
    apply(state, Hire(Commander.NAVAL, akara), 0)
    assert state.energy[0] == 27 and state.commander(0, Commander.NAVAL) == akara
    apply(state, BuildStation(egypt), 0)
    assert state.energy[0] == 22 and state.station[egypt] == 0
    with pytest.raises(IllegalActionError, match="commanders you may hire now: \\[\\]"):
        apply(state, Hire(Commander.SPACE, egypt), 0)
    for name in ("Mexico", "Argentina"):
        put(state, 0, name, 1, station=True)
    put(state, 0, "Alberta", 1)
    assert state.stations_of(0) == 4 and legal_actions(state, 0).stations == ()
    assert peru in state.controlled(0)
    apply(state, EndPhase(), 0)
    assert state.phase == Phase.INVADE
