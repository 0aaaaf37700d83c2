"""SDK helpers: the LegalActions view, the action builders and the safe default, against the engine."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from conquest.v1 import bot_pb2
from conquest_sdk import AttackOption, FortifyOption, Game, Legal, TradeOption, Turn, actions
from engine import (
    PRESETS,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    GameState,
    Occupy,
    Place,
    TradeCards,
    default_action,
    new_game,
    observe,
    preset,
    random_legal_action,
)
from server.play import convert, wire


def test_builders_make_the_actions_the_server_reads() -> None:
    """Issue 3: "build Action messages with one call each"; the server decodes each to its action."""
    cases = [
        (actions.claim(7), Claim(7)),
        (actions.place(3, 5), Place(3, 5)),
        (actions.trade([1, 2, 44]), TradeCards((1, 2, 44), -1)),
        (actions.trade([1, 2, 44], bonus_territory=2), TradeCards((1, 2, 44), 2)),
        (actions.attack(3, 4, 3), Attack(3, 4, 3, 0)),
        (actions.attack(3, 4, 2, repeat_until=1), Attack(3, 4, 2, 1)),
        (actions.defend(2), ChooseDefence(2)),
        (actions.occupy(4), Occupy(4)),
        (actions.fortify(1, 2, 6), Fortify(1, 2, 6)),
        (actions.end_phase(), EndPhase()),
        (actions.choose_headquarters(9), ChooseHeadquarters(9)),
    ]
    for message, expected in cases:
        assert convert.action_from_pb(message) == expected


def states(presets: tuple[str, ...] = tuple(sorted(PRESETS)), games: int = 2) -> Iterator[GameState]:
    """Every state of a few random games of every preset (defender choosing, so DEFEND occurs too)."""
    for name in presets:
        for seed in range(games):
            rules = preset(name, defender_dice="choose", turn_cap=60)
            state, _ = new_game(rules, 2 if rules.neutral else 4, seed)
            rng = random.Random(seed)
            while not state.is_over():
                yield state
                state.apply(random_legal_action(state.legal_actions(), rng))


def test_legal_view_unpacks_the_parallel_arrays_as_named_tuples() -> None:
    """Issue 3: helpers "that make the packed parallel arrays of LegalActions easy (e.g. iterate attack
    options as small named tuples)": the view lists exactly the engine's options."""
    seen_attacks = seen_fortifies = seen_trades = seen_neutral = seen_headquarters = seen_allied = 0
    for state in states():
        engine_legal = state.legal_actions()
        legal = Legal(wire.legal_actions(engine_legal))
        assert legal.attacks == [AttackOption(*a) for a in engine_legal.attacks]
        assert legal.fortifies == [
            FortifyOption(f.source, t, f.max_armies) for f in engine_legal.fortify for t in f.targets
        ]
        assert legal.trades == [
            TradeOption(cards, bonus)
            for cards, bonus in zip(engine_legal.trades, engine_legal.bonus_territories, strict=True)
        ]
        assert legal.claim == list(engine_legal.claim)
        assert legal.place_territories == list(engine_legal.place_territories)
        assert (legal.place_min, legal.place_max, legal.must_trade, legal.can_end, legal.place_neutral) == (
            engine_legal.place_min,
            engine_legal.place_max,
            engine_legal.must_trade,
            engine_legal.can_end,
            engine_legal.place_neutral,
        )
        assert (legal.defend_max, legal.occupy_min, legal.occupy_max) == (
            engine_legal.defend_max,
            engine_legal.occupy_min,
            engine_legal.occupy_max,
        )
        seen_fortifies += bool(legal.fortifies)
        seen_trades += bool(legal.trades)
        assert legal.headquarters == list(engine_legal.headquarters)
        assert legal.army == (state.to_act if engine_legal.army < 0 else engine_legal.army)
        seen_attacks += bool(legal.attacks)
        seen_neutral += legal.place_neutral
        seen_headquarters += bool(legal.headquarters)
        seen_allied += legal.army == state.neutral
    assert (
        seen_attacks and seen_fortifies and seen_trades and seen_neutral and seen_headquarters and seen_allied
    )


def test_safe_default_is_the_servers_timeout_default() -> None:
    """Issue 3: "retry with a safe default built from the legal actions": the SDK's default is legal and
    is the very action the server would play on a timeout."""
    for state in states():
        legal = state.legal_actions()
        mine = convert.action_from_pb(Legal(wire.legal_actions(legal)).default())
        legal.check(mine)
        assert mine == default_action(legal)


def test_safe_default_refuses_when_nothing_is_legal() -> None:
    with pytest.raises(ValueError, match="no action is legal"):
        Legal(bot_pb2.DecisionRequest().legal).default()


def test_turn_gives_plain_lists_and_a_deadline() -> None:
    """Issue 3: "the callback gets the time allowed/timebank"; Turn.time_left counts down to the SDK's
    own deadline."""
    state, _ = new_game(preset("classic"), 3, 1)
    request = bot_pb2.DecisionRequest(
        game_id="g",
        request_id=1,
        observation=wire.observation(observe(state, state.to_act)),
        legal=wire.legal_actions(state.legal_actions()),
        time_allowed_ms=900,
        timebank_ms=5000,
    )
    turn = Turn(request, budget_s=0.5)
    assert turn.owners == state.owner and turn.armies == state.armies
    assert (turn.time_allowed_ms, turn.timebank_ms) == (900, 5000)
    assert 0.4 < turn.time_left() <= 0.5
    time.sleep(0.01)
    assert turn.time_left() < 0.5


def test_turn_and_game_expose_the_mission_and_headquarters() -> None:
    """Issue 5: the Python SDK handles every new decision kind and gives the seat its secret mission
    (RulesInfo.missions by id) and the headquarters it may see."""
    rules = preset("secret_mission")
    state, _ = new_game(rules, 4, 2)
    seat = state.to_act
    request = bot_pb2.DecisionRequest(observation=wire.observation(observe(state, seat)))
    game = Game(bot_pb2.GameStarted(seat=seat, rules=convert.rules_info(rules, 4)))
    turn = Turn(request)
    assert turn.mission == state.missions[seat] >= 0
    assert game.missions[turn.mission].text and turn.headquarters == []
    state, _ = new_game(preset("capital"), 3, 2)
    while all(t < 0 for t in state.headquarters):  # until the first seat has chosen
        state.apply(random_legal_action(state.legal_actions(), random.Random(1)))
    chooser = next(s for s, t in enumerate(state.headquarters) if t >= 0)
    mine = Turn(bot_pb2.DecisionRequest(observation=wire.observation(observe(state, chooser))))
    other = Turn(bot_pb2.DecisionRequest(observation=wire.observation(observe(state, (chooser + 1) % 3))))
    assert mine.headquarters[chooser] == state.headquarters[chooser] >= 0
    assert other.headquarters[chooser] == -1
