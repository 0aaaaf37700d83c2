"""The dashboard's JSON side without a browser: exact odds (issue 8: "The odds calculator is unit-tested
against hand-computed values (e.g. one roll of 3 dice against 2)"), the replay viewer's data and the
dashboard_port setting (docs/configuration.md)."""

from __future__ import annotations

import pytest

from engine import Attack, preset
from engine.policies import aggressive_policy
from engine.replay import Replay
from server.ops.config import ConfigError
from server.ops.config_file import load_config
from server.web.replay_view import attack_odds, viewer_data


def test_one_roll_of_three_dice_against_two_matches_the_hand_count() -> None:
    """Of the 6**5 = 7776 rolls, the defender loses both armies in 2890, each side one in 2611 and the
    attacker two in 2275 (counted by hand from the rulebook's highest-against-highest comparison)."""
    odds = attack_odds(4, 2, dice=3, repeat_until=0)
    assert odds["capture"]["exact"] == "1445/3888"  # 2890/7776
    assert odds["attacker_losses"]["exact"] == "2387/2592"  # (2611 + 2 * 2275) / 7776
    assert odds["defender_losses"]["exact"] == "2797/2592"  # (2611 + 2 * 2890) / 7776


def test_a_battle_of_two_armies_against_one_is_one_die_against_one() -> None:
    """One attacking die against one: the attacker wins on a strictly higher face, 15 of 36."""
    odds = attack_odds(2, 1, repeat_until=1)
    assert odds["capture"]["exact"] == "5/12"
    assert odds["attacker_losses"]["exact"] == "7/12"


def test_an_impossible_attack_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="at least 2 attacking armies"):
        attack_odds(1, 3)


def test_viewer_steps_are_the_engine_states_after_each_action() -> None:
    """Issue 8: the replay viewer seeks to any turn: step k is the board after k actions, with its events,
    the bot's annotation and, for an attack, its exact odds."""
    rules = preset("classic", turn_cap=8)
    replay = Replay(rules, 11, ["a", "b", "c"], game_id="g")
    state, _ = replay.start()
    while not state.is_over():
        action = aggressive_policy(state)
        replay.actions.append(action)
        state.apply(action)
    replay.annotations = {3: "why I claimed this"}
    data = viewer_data(replay.to_dict())
    assert len(data["steps"]) == len(replay.actions) + 1
    assert data["steps"][-1]["owners"] == list(state.owner)
    assert data["steps"][-1]["armies"] == list(state.armies)
    assert data["steps"][4]["note"] == "why I claimed this"
    attack = next(i for i, a in enumerate(replay.actions) if isinstance(a, Attack))
    assert (
        data["steps"][attack + 1]["odds"]["attackers"]
        == data["steps"][attack]["armies"][replay.actions[attack].source]
    )
    assert len(data["map"]["territories"]) == 42


def test_dashboard_port_is_configurable_and_checked() -> None:
    """docs/configuration.md: server.dashboard_port, 1..65535 or 0 (off), CONQUEST_SERVER_DASHBOARD_PORT."""
    assert load_config(None, {}).dashboard_port == 8080
    assert load_config(None, {"CONQUEST_SERVER_DASHBOARD_PORT": "0"}).dashboard_port == 0
    with pytest.raises(ConfigError, match=r"server\.dashboard_port = 70000 is not a TCP port"):
        load_config(None, {"CONQUEST_SERVER_DASHBOARD_PORT": "70000"})
