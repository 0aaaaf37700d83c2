"""Every rule set over the wire (issue 5: "Every new decision kind (choose headquarters, mission reveal,
allied placement/attack, defence dice) is in the protocol"): random games of every preset go through
server/play/wire.py step by step, and every phase, legal list, action, event and observation field survives
the trip."""

from __future__ import annotations

import random
import typing

from hypothesis import given, settings
from hypothesis import strategies as st

from conquest.v1 import game_pb2 as pb
from engine import PRESETS, GameState, Phase, new_game, observe, preset, random_policy
from engine import events as ev
from engine.actions import Action
from engine.classic_map import CLASSIC
from engine.goals import MISSIONS
from engine.policies import Policy, aggressive_policy
from server.play import convert, wire

SEEN: dict[str, set[str]] = {"phase": set(), "action": set(), "event": set()}
"""What the checks below have carried so far (see the last test)."""


def _check_event(event: ev.Event, seat: int, sequence: int) -> None:
    """The GameEvent carries the event as ``seat`` may see it, field by field."""
    public = ev.public_view(event, seat)
    message = wire.event_to_pb(public, sequence)
    assert message.sequence == sequence
    kind = message.WhichOneof("kind")
    assert kind is not None
    body = getattr(message, kind)
    for name, value in public._asdict().items():
        if isinstance(public, ev.FirstPlayerRolled) and name == "rolls":
            value = [die for round_ in value for die in round_]
        carried = getattr(body, name)
        assert (list(carried) if isinstance(value, tuple | list) else carried) == (
            list(value) if isinstance(value, tuple | list) else value
        ), (event, message)
    SEEN["event"].add(type(event).__name__)


def _check_decision(state: GameState, action: Action) -> None:
    seat = state.to_act
    legal = state.legal_actions()
    phase = wire.phase_to_pb(state.phase)
    assert pb.Phase.Name(phase) == f"PHASE_{state.phase.name}"
    assert convert.legal_from_pb(wire.legal_actions(legal), phase, seat) == legal
    assert convert.action_from_pb(convert.action_to_pb(action)) == action
    view = observe(state, seat)
    message = wire.observation(view)
    assert list(message.headquarters) == list(view.headquarters)
    assert (message.mission, list(message.missions)) == (view.mission, list(view.missions))
    SEEN["phase"].add(state.phase.name)
    SEEN["action"].add(type(action).__name__)


@st.composite
def games(draw: st.DrawFn) -> tuple[GameState, list[ev.Event], random.Random]:
    name = draw(st.sampled_from(sorted(PRESETS)))
    rules = preset(
        name,
        defender_dice=draw(st.sampled_from(["max", "choose"])),
        three_continent_missions=draw(st.booleans()),
        turn_cap=draw(st.integers(1, 40)),
    )
    seats = draw(st.sampled_from(rules.player_counts()))
    state, events = new_game(rules, seats, draw(st.integers(0, 2**32)))
    return state, events, random.Random(draw(st.integers(0, 2**32)))


def _play_through_the_wire(state: GameState, events: list[ev.Event], policy: Policy) -> None:
    sequence = 0
    while True:
        for event in events:
            for seat in (-1, *range(state.seats)):
                _check_event(event, seat, sequence)
            sequence += 1
        if state.is_over():
            return
        action = policy(state)
        _check_decision(state, action)
        events = state.apply(action, state.to_act)


@settings(max_examples=60, deadline=None)
@given(games())
def test_every_step_of_every_preset_round_trips(
    game: tuple[GameState, list[ev.Event], random.Random],
) -> None:
    """Phases, legal actions, actions, observations and every seat's view of every event of random games
    of every preset survive server/play/wire.py."""
    state, events, rng = game
    _play_through_the_wire(state, events, random_policy(rng))


def test_hidden_values_are_minus_one_for_other_seats() -> None:
    """Issue 5: missions "are hidden from other seats and revealed at the end"; headquarters are chosen
    "secretly" (000) and revealed "only when all have chosen"."""
    state, events = new_game(preset("secret_mission"), 4, 3)
    dealt = [e for e in events if isinstance(e, ev.MissionDealt)]
    assert len(dealt) == 4
    for event in dealt:
        for seat in range(4):
            shown = wire.event_to_pb(ev.public_view(event, seat), 0).mission_dealt.mission
            assert shown == (event.mission if seat == event.seat else -1)
    state, _ = new_game(preset("capital"), 3, 3)
    while state.phase != Phase.CHOOSE_HEADQUARTERS:
        state.apply(random_policy(random.Random(1))(state))
    chooser = state.to_act
    [chosen] = state.apply(random_policy(random.Random(2))(state))
    assert isinstance(chosen, ev.HeadquartersChosen)
    other = (chooser + 1) % 3
    assert wire.event_to_pb(ev.public_view(chosen, other), 0).headquarters_chosen.territory == -1
    assert wire.observation(observe(state, other)).headquarters[chooser] == -1
    assert wire.observation(observe(state, chooser)).headquarters[chooser] == chosen.territory


def test_rules_info_describes_the_goals() -> None:
    """000: "4 players: Capture any 2 opposing Headquarters ... 5 or 6 players: ... any 3"; issue 5: "missions
    for absent colours removed"."""
    assert convert.rules_info(preset("capital"), 4).headquarters_needed == 3
    assert convert.rules_info(preset("capital", capital_goal="shortened"), 4).headquarters_needed == 2
    assert convert.rules_info(preset("capital", capital_goal="shortened"), 6).headquarters_needed == 3
    assert convert.rules_info(preset("classic"), 4).headquarters_needed == 0
    info = convert.rules_info(preset("secret_mission"), 3)
    assert info.objective == "missions"
    assert [m.text for m in info.missions] == [m.text for m in MISSIONS]
    assert [m.in_deck for m in info.missions[:6]] == [True, True, True, False, False, False]
    assert not info.missions[12].in_deck  # three-continent missions only by option
    asia_africa = info.missions[9]
    assert [CLASSIC.continents[c].name for c in asia_africa.continents] == ["Asia", "Africa"]
    allied = convert.rules_info(preset("allied_two_player"), 2)
    assert (allied.setup, allied.allied_army, allied.elimination_extra_trades) == ("allied_claim", True, True)


def test_the_wire_carries_every_phase_action_and_event() -> None:
    """Seeded games of every preset (defender choosing) meet every phase that asks for a decision, every
    kind of action and every kind of event, and carry them all."""
    for name in sorted(PRESETS):
        rules = preset(name, defender_dice="choose")
        for seed, policy in enumerate((random_policy(random.Random(1)), aggressive_policy)):
            state, events = new_game(rules, rules.player_counts()[0], seed)
            _play_through_the_wire(state, events, policy)  # aggressive play eliminates and takes cards
    decisions = {p.name for p in Phase} - {"GAME_OVER"}
    assert SEEN["phase"] == decisions
    assert SEEN["action"] == {t.__name__ for t in typing.get_args(Action)}
    assert SEEN["event"] == {t.__name__ for t in typing.get_args(ev.Event)}


def test_allied_decisions_say_they_command_the_allied_army() -> None:
    """game.proto LegalActions.army: "`players` (the third army) when you place neutral or Allied armies,
    attack with the Allied Army, move it into a territory it captured, or choose dice for an attacked
    neutral or Allied territory"; 001: "the opposing player places the number of Allied Armies"."""
    kinds: set[str] = set()
    for seed in range(6):
        state, _ = new_game(preset("allied_two_player", defender_dice="choose"), 2, seed)
        while not state.is_over():
            legal = state.legal_actions()
            army = wire.legal_actions(legal).army
            if state.phase in (Phase.ALLIED_REINFORCE, Phase.ALLIED_ATTACK):
                assert state.to_act != state.turn_seat and army == state.neutral
                kinds.add(state.phase.name)
            elif state.phase == Phase.DEFEND:
                assert state.pending_attack is not None
                assert army == state.owner[state.pending_attack.target]
                kinds.add("DEFEND" if army == state.to_act else "DEFEND_ALLIED")
            elif state.phase == Phase.OCCUPY:
                assert state.pending_occupy is not None
                assert army == state.owner[state.pending_occupy[0]]
                kinds.add("OCCUPY" if army == state.to_act else "OCCUPY_ALLIED")
            else:
                assert army == state.to_act
            state.apply(aggressive_policy(state))
    assert kinds >= {"ALLIED_REINFORCE", "ALLIED_ATTACK", "DEFEND", "DEFEND_ALLIED", "OCCUPY_ALLIED"}
