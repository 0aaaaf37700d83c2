"""The two-player game with the Allied Army (001, "TWO PLAYER RISK")."""

from __future__ import annotations

from collections import Counter

import pytest
from engine_table import T, force_dice, position, start_turn

from engine import (
    Attack,
    ChooseDefence,
    EndPhase,
    Fortify,
    GameState,
    IllegalActionError,
    Occupy,
    Phase,
    Place,
    aggressive_policy,
    default_action,
    new_game,
    preset,
)
from engine.events import Captured, Claimed, Drew, Placed

ALLIED = 2


def test_setup_claims_fourteen_each_then_the_allied_army_then_placements() -> None:
    """001: "Each player takes 40 armies and alternately places 1 army on an unoccupied territory until each
    has occupied 14 territories. The remaining armies are alternately distributed on the occupied
    territories. The remaining 14 territories will be occupied by a force called the Allied Army. ... Two
    Allied Armies will be placed on each unoccupied territory for a total of 28 armies.\""""
    state, _ = new_game(preset("allied_two_player"), seats=2, seed=3)
    first = state.to_act
    claimers = []
    events = []
    while state.phase == Phase.SETUP_CLAIM:
        claimers.append(state.to_act)
        events = state.apply(default_action(state.legal_actions()), seat=state.to_act)
    assert claimers == [(first + i) % 2 for i in range(28)]
    assert Counter(state.owner) == {0: 14, 1: 14, ALLIED: 14}
    garrison = [e for e in events if isinstance(e, Claimed | Placed) and e.seat == ALLIED]
    assert len(garrison) == 28
    assert all(state.armies[t] == 2 for t in range(42) if state.owner[t] == ALLIED)
    placers = []
    while state.phase == Phase.SETUP_PLACE:
        legal = state.legal_actions()
        assert (legal.place_min, legal.place_max, legal.place_neutral) == (1, 1, False)
        assert all(state.owner[t] == state.to_act for t in legal.place_territories)
        placers.append(state.to_act)
        state.apply(default_action(legal), seat=state.to_act)
    assert placers == [(first + i) % 2 for i in range(52)]
    totals: Counter[int] = Counter()
    for t, o in enumerate(state.owner):
        totals[o] += state.armies[t]
    assert totals == {0: 40, 1: 40, ALLIED: 28}
    assert state.phase == Phase.REINFORCE and state.turn_seat == first


# Seat 0 holds the Americas (ids 0..12), seat 1 Europe and Africa, the Allied Army Asia and Australia.
NA_SA, EUROPE_AFRICA = range(13), range(13, 26)
OWNERS = [0] * 13 + [1] * 13 + [ALLIED] * 16
ALASKA, KAMCHATKA, BRAZIL, NORTH_AFRICA = T("Alaska"), T("Kamchatka"), T("Brazil"), T("North Africa")


def allied_game(**options: object) -> GameState:
    """Seat 0's turn has just started (13 territories, both Americas held: 4 + 5 + 2 = 11 armies)."""
    state = position(OWNERS, 3, rules=preset("allied_two_player", **options), seats=2, phase=Phase.FORTIFY)
    start_turn(state, 0)
    return state


def to_allied_stage(state: GameState) -> None:
    state.apply(Place(ALASKA, state.reinforcements), seat=0)
    state.apply(EndPhase(), seat=0)


def test_the_opponent_places_half_the_active_players_armies_after_the_attacks() -> None:
    """001: "When a player begins his/her turn and determines the number of armies s/he is entitled to, the
    Allied army is entitled to one half of that number. Fractions do not count" and "After a player has
    ... completed his/her attacks (but prior to his/her free move) the opposing player places the number
    of Allied Armies (determined above) in Allied occupied territories.\""""
    state = allied_game()
    assert state.reinforcements == 11
    to_allied_stage(state)
    legal = state.legal_actions()
    assert state.phase == Phase.ALLIED_REINFORCE and state.to_act == 1 and legal.seat == 1
    assert legal.place_neutral and (legal.place_min, legal.place_max) == (1, 5)
    assert legal.place_territories == tuple(t for t in range(42) if state.owner[t] == ALLIED)
    with pytest.raises(IllegalActionError):
        state.apply(Place(NORTH_AFRICA, 1), seat=1)  # its own territory: not the Allied Army's
    events = state.apply(Place(KAMCHATKA, 5), seat=1)
    assert events == [Placed(ALLIED, KAMCHATKA, 5)]
    assert state.armies[KAMCHATKA] == 8
    assert state.phase == Phase.ALLIED_ATTACK and state.to_act == 1


@pytest.mark.parametrize(("total", "allied"), [(9, 4), (6, 3), (3, 1)])
def test_fractions_do_not_count(total: int, allied: int) -> None:
    """001: "Fractions do not count, so, if a player obtains a total of 9 armies, the Allied Army is
    entitled to 4." — the total includes traded sets (docs/rules.md)."""
    state = allied_game()
    state.received = state.reinforcements = total
    to_allied_stage(state)
    assert state.reinforcements == allied


def test_the_allied_army_attacks_only_the_active_player() -> None:
    """001: "Immediately after the Allied Armies are placed, the player who placed them may act as the Allied
    Army and attack the other player's armies." and "When a player is commanding Allied forces s/he may not
    attack his/her own territories.\""""
    state = allied_game()
    to_allied_stage(state)
    state.apply(Place(T("Middle East"), 5), seat=1)
    legal = state.legal_actions()
    assert legal.attacks and legal.can_end
    assert {state.owner[a.source] for a in legal.attacks} == {ALLIED}
    assert {state.owner[a.target] for a in legal.attacks} == {0}
    with pytest.raises(IllegalActionError, match="no attack from"):
        state.apply(Attack(T("Middle East"), T("Egypt"), 2), seat=1)


def test_an_allied_capture_is_moved_in_by_its_commander_and_earns_no_card() -> None:
    """001: "Allied forces do not pick up RISK cards and they accumulate armies only in the manner described
    above.\""""
    state = allied_game()
    to_allied_stage(state)
    state.apply(Place(KAMCHATKA, 5), seat=1)  # Kamchatka: 8 armies
    state.armies[ALASKA] = 1
    force_dice(state, ((6, 6, 6), (1,)))
    events = state.apply(Attack(KAMCHATKA, ALASKA, 3), seat=1)
    assert Captured(ALLIED, KAMCHATKA, ALASKA, 0) in events
    assert state.phase == Phase.OCCUPY and state.to_act == 1
    state.apply(Occupy(4), seat=1)
    assert state.owner[ALASKA] == ALLIED and state.armies[ALASKA] == 4
    assert state.phase == Phase.ALLIED_ATTACK and state.to_act == 1
    state.apply(EndPhase(), seat=1)
    assert state.phase == Phase.FORTIFY and state.to_act == 0
    events = state.apply(EndPhase(), seat=0)
    assert not [e for e in events if isinstance(e, Drew)]
    assert state.hands == [[], []]


def test_the_free_move_follows_the_allied_attacks_and_the_allied_army_never_fortifies() -> None:
    """001: "After the second player has decided to stop attacking with the Allied Army, the first player
    takes his/her free move. The Allied Army is not entitled to a free move.\""""
    state = allied_game()
    to_allied_stage(state)
    state.apply(Place(KAMCHATKA, 5), seat=1)
    state.apply(EndPhase(), seat=1)
    legal = state.legal_actions()
    assert state.phase == Phase.FORTIFY and legal.seat == 0
    assert all(state.owner[f.source] == 0 for f in legal.fortify)
    state.apply(Fortify(ALASKA, T("Alberta"), 1), seat=0)
    assert state.turn_seat == 1 and state.phase == Phase.REINFORCE


def test_each_player_defends_its_own_and_the_opponent_the_allied_army() -> None:
    """001: "When a player attacks the Allied Army, the other player rolls the dice for the Army." — in
    defender_dice='choose' the DEFEND decision goes to that seat; the active player defends against the
    Allied Army's attacks."""
    state = allied_game(defender_dice="choose")
    state.apply(Place(ALASKA, state.reinforcements), seat=0)
    state.armies[KAMCHATKA] = 2
    state.apply(Attack(ALASKA, KAMCHATKA, 3), seat=0)
    assert state.phase == Phase.DEFEND and state.to_act == 1
    force_dice(state, ((1, 1, 1), (6, 6)))
    state.apply(ChooseDefence(2), seat=1)
    assert state.phase == Phase.ATTACK and state.to_act == 0
    state.apply(EndPhase(), seat=0)
    state.apply(Place(KAMCHATKA, state.reinforcements), seat=1)
    state.armies[ALASKA] = 2
    state.apply(Attack(KAMCHATKA, ALASKA, 3), seat=1)
    assert state.phase == Phase.DEFEND and state.to_act == 0
    force_dice(state, ((1, 1, 1), (6, 6)))
    state.apply(ChooseDefence(2), seat=0)
    assert state.phase == Phase.ALLIED_ATTACK and state.to_act == 1


def test_no_allied_armies_once_it_holds_no_territory() -> None:
    """001: "Once the Allied Army loses all its territories it may no longer obtain additional armies and
    the game is played according to the traditional rules.\""""
    owners = [0] * 21 + [1] * 21
    state = position(owners, 3, rules=preset("allied_two_player"), seats=2, phase=Phase.FORTIFY)
    start_turn(state, 0)
    state.apply(Place(ALASKA, state.reinforcements), seat=0)
    state.apply(EndPhase(), seat=0)
    assert state.phase == Phase.FORTIFY and state.to_act == 0


def test_the_allied_army_eliminating_the_active_player_ends_the_game() -> None:
    """001: "End of Game: The game ends when one player loses all his/her territories." — also when the
    Allied Army, commanded by the opponent, takes the last one."""
    owners = [ALLIED] * 42
    owners[ALASKA] = 0
    owners[NORTH_AFRICA] = 1
    state = position(owners, 3, rules=preset("allied_two_player"), seats=2, phase=Phase.FORTIFY)
    start_turn(state, 0)
    state.apply(Place(ALASKA, 1), seat=0)
    state.apply(Place(ALASKA, state.reinforcements), seat=0)
    state.apply(EndPhase(), seat=0)
    state.apply(Place(KAMCHATKA, state.reinforcements), seat=1)
    state.armies[ALASKA] = 1
    force_dice(state, ((6, 6, 6), (1,)))
    state.apply(Attack(KAMCHATKA, ALASKA, 3), seat=1)
    assert state.is_over() and state.end_reason == "conquest" and state.places == (2, 1)
    assert state.eliminated_by[0] == ALLIED


def test_aggressive_players_finish_allied_games() -> None:
    """Issue 5: "`play_game` finishes games of every preset"."""
    for seed in range(5):
        state, _ = new_game(preset("allied_two_player"), seats=2, seed=seed)
        while not state.is_over():
            state.apply(aggressive_policy(state), seat=state.to_act)
        assert state.end_reason == "conquest" and sorted(state.places) == [1, 2]
