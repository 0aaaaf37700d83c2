"""The SDK's RISK 2210 A.D. helpers against the engine: the battle odds with 8-sided dice, the board and
position a bot reads (``Board2210``, ``Position2210``), and the action builders (``actions_2210``).

Issue 19: "The Python SDK and the three sample bots play 2210"; what the SDK tells a bot must be what the
engine does.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from math import prod

import pytest

from conquest_sdk import Turn2210
from conquest_sdk import actions_2210 as act
from conquest_sdk.odds import capture_odds, roll_odds
from conquest_sdk.r2210 import Position2210
from engine.odds import battle_odds, roll_losses
from engine.r2210.actions import (
    Bid,
    BuildStation,
    BuyCards,
    ChooseMarker,
    Claim,
    Commander,
    Declare,
    Defend,
    EndPhase,
    Hire,
    Lose,
    Phase,
    Place,
    PlaceCommanders,
    PlayCard,
    Remove,
    Roll,
    TakeCard,
)
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from server.play import convert_2210
from server.play.offline import decision_request_2210, seat_games_2210


@pytest.mark.parametrize(
    ("attack", "defend"),
    [((6,), (6,)), ((8, 6, 6), (6, 6)), ((8, 8, 8), (8, 8)), ((6, 6), (8,)), ((8, 6), (8, 6))],
)
def test_one_roll_odds_agree_with_the_engines_dice_comparison(
    attack: tuple[int, ...], defend: tuple[int, ...]
) -> None:
    """Every face of 6- and 8-sided dice, compared by the engine's own ``roll_losses``, in exact fractions."""
    exact: dict[tuple[int, int], Fraction] = {}
    each = Fraction(1, prod(attack + defend))
    for faces in product(*(range(1, s + 1) for s in attack + defend)):
        a = sorted(faces[: len(attack)], reverse=True)
        d = sorted(faces[len(attack) :], reverse=True)
        key = roll_losses(a, d)
        exact[key] = exact.get(key, Fraction(0)) + each
    odds = roll_odds(attack, defend)
    assert set(odds) == set(exact)
    for key, p in exact.items():
        assert odds[key] == pytest.approx(float(p), abs=1e-12)


def test_capture_odds_are_the_engines_with_six_sided_dice_and_better_with_eight() -> None:
    """All 6-sided: the engine's exact battle odds; an 8-sided attacker die helps, a station's hurts."""
    for attackers in range(1, 10):
        for defenders in range(1, 10):
            exact = float(battle_odds(attackers + 1, defenders).capture)
            assert capture_odds(attackers, defenders) == pytest.approx(exact, abs=1e-9)
            assert capture_odds(attackers, defenders, attack_d8=1) > capture_odds(attackers, defenders)
            assert capture_odds(attackers, defenders, defend_d8=2) < capture_odds(attackers, defenders)
    assert capture_odds(5, 0) == 1.0


def _positions(seed: int, players: int = 4) -> list[tuple[GameState2210, int]]:
    """(state, seat to act) at every INVADE, OCCUPY and FORTIFY decision of a random game, copied."""
    state, _ = new_game_2210(Rules2210(), players, seed)
    rng = random.Random(seed)
    out: list[tuple[GameState2210, int]] = []
    while not state.is_over():
        seat = state.asked[0]
        if state.phase in (Phase.INVADE, Phase.OCCUPY, Phase.FORTIFY, Phase.ROLL):
            out.append((state.clone(), seat))
        apply(state, random_action(legal_actions(state, seat), rng), seat)
    return out


def _turn(state: GameState2210, seat: int) -> tuple[Position2210, Turn2210]:
    game = seat_games_2210(state, ["x"] * state.seats, "g")[seat]
    turn = Turn2210(decision_request_2210(state, game, seat, 1))
    assert game.board_2210 is not None
    return Position2210(game.board_2210, turn.observation), turn


def test_position_reads_units_commanders_and_eight_sided_dice_as_the_engine_does() -> None:
    """``Position2210``'s units, launch pads (our stations on land), d8 attackers (004's table) and d8
    defenders (station: all; else one per commander) are the engine's, at every invasion of random games."""
    checked = 0
    for state, seat in _positions(3)[::7]:
        where, _ = _turn(state, seat)
        assert where.units == [state.units(t) for t in range(state.board.size)]
        assert where.mine == list(state.controlled(seat))
        pads = [t for t in state.controlled(seat) if state.station[t] == seat and state.board.kinds[t] == 0]
        assert where.launch_pads() == pads
        for source, target in state.invasions(seat):
            assert where.d8_attackers(source, target) == [int(c) for c in state.d8_commanders(source, target)]
            station = state.station[target] == state.owner[target] >= 0
            assert where.d8_defenders(target) == (2 if station else min(2, len(state.commanders_in(target))))
            checked += 1
    assert checked > 100


def test_move_in_and_move_make_any_wish_legal() -> None:
    """``actions_2210.move_in`` (OCCUPY) and ``move`` (FORTIFY) turn any wish into a move the engine
    accepts: the commanders that must move go, one unit stays, at least the minimum moves."""
    rng = random.Random(4)
    occupies = fortifies = 0
    for seed in (4, 5):
        for state, seat in _positions(seed, players=3):
            if state.phase not in (Phase.OCCUPY, Phase.FORTIFY):
                continue
            _, turn = _turn(state, seat)
            legal = turn.legal
            commanders = [c for c in range(5) if rng.random() < 0.5]
            if state.phase == Phase.OCCUPY:
                action = act.move_in(legal, rng.randint(-1, legal.occupy_mods + 2), commanders)
                occupies += 1
            elif legal.fortify:
                option = rng.choice(list(legal.fortify))
                target = rng.choice(list(option.targets))
                action = act.move(option, target, rng.randint(-1, option.mods + 2), commanders)
                fortifies += 1
            else:
                continue
            problem = legal_actions(state, seat).problem(convert_2210.action_from_pb_2210(action))
            assert problem == "", problem
    assert occupies > 20 and fortifies > 10


def test_builders_make_the_actions_the_server_reads() -> None:
    """One call per Action2210; the server decodes each to the engine action it names."""
    land, naval = Commander.LAND, Commander.NAVAL
    cases = [
        (act.claim(7), Claim(7)),
        (act.place(3, 2), Place(3, 2)),
        (act.place_commanders(1, 2, 3), PlaceCommanders(1, 2, 3)),
        (act.bid(2), Bid(2)),
        (act.choose_marker(4), ChooseMarker(4)),
        (act.hire(2, 9), Hire(naval, 9)),
        (act.build_station(5), BuildStation(5)),
        (act.buy_cards([1, 0, 2, 0, 0]), BuyCards((1, 0, 2, 0, 0))),
        (act.take_card(0), TakeCard(land)),
        (act.declare(1, 2), Declare(1, 2)),
        (act.roll(3, [0, 2]), Roll(3, (land, naval))),
        (act.defend(2), Defend(2)),
        (act.lose(1, [0]), Lose(1, (land,))),
        (act.remove([4, 4, 5]), Remove((4, 4, 5))),
        (act.play_card(33, [6]), PlayCard(33, (6,))),
        (act.play_card(1), PlayCard(1, ())),
        (act.end_phase(), EndPhase()),
    ]
    for message, action in cases:
        assert convert_2210.action_from_pb_2210(message) == action
