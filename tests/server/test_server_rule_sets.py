"""The server side of every rule set (issue 5: "Each becomes a rules preset in the engine and a queue the
server can offer"; "Defender chooses dice over the wire ... its own short deadline")."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Phase, PlayerStatus, new_game, preset
from engine.actions import ChooseDefence
from engine.legal import default_action
from engine.policies import aggressive_policy, play_game
from server.ops.config import ConfigError, ServerConfig, TimeControl
from server.ops.config_file import load_config
from server.play.clock import SeatClock
from server.play.results import Outcome, seat_outcome


def test_default_queues_offer_every_rule_set() -> None:
    """Issue 5: each rule set is "a queue the server can offer", the defender choosing dice included."""
    queues = {q.name: q for q in ServerConfig().queues}
    expected = {
        "classic-defend-4": "classic",
        "older-4": "older_edition",
        "capital-4": "capital",
        "mission-4": "secret_mission",
        "allied-2": "allied_two_player",
    }
    assert {name: queues[name].rules.name for name in expected} == expected
    assert queues["classic-defend-4"].rules.defender_dice == "choose"
    assert queues["allied-2"].players == 2


def test_a_queue_configures_the_defence_deadline_and_rule_options(tmp_path: Path) -> None:
    """docs/configuration.md: defend_decision_ms is a [time_control] key a queue may override."""
    path = tmp_path / "conquest.toml"
    path.write_text(
        "[time_control]\ndefend_decision_ms = 150\n"
        '[queues.hq-5]\nrules = "capital"\nplayers = 5\nrules_options = { capital_goal = "shortened" }\n'
        '[queues.dice-3]\nrules = "classic"\nplayers = 3\nrules_options = { defender_dice = "choose" }\n'
        "time_control = { defend_decision_ms = 80 }\n"
    )
    queues = {q.name: q for q in load_config(path, environ={}).queues}
    assert queues["hq-5"].time_control.defend_decision_ms == 150
    assert queues["hq-5"].rules.capital_goal == "shortened"
    assert queues["dice-3"].time_control.defend_decision_ms == 80
    assert queues["dice-3"].time_control.to_pb().defend_decision_ms == 80


def test_a_zero_defence_deadline_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "conquest.toml"
    path.write_text("[time_control]\ndefend_decision_ms = 0\n")
    with pytest.raises(ConfigError, match=r"time_control.defend_decision_ms = 0 must be at least 1"):
        load_config(path, environ={})


def test_a_defence_decision_gets_its_own_short_allowance() -> None:
    """Issue 5: the defending seat "gets a decision request with its own short deadline"."""
    clock = SeatClock.start(TimeControl(decision_ms=1000, first_decision_ms=5000, defend_decision_ms=200))
    clock.charge(0)
    clock.defending = True
    assert clock.time_allowed_ms() == 200
    assert clock.budget_ms() == 200 + clock.timebank_ms
    clock.defending = False
    assert clock.time_allowed_ms() == 1000


def test_the_timeout_default_defends_with_the_most_dice() -> None:
    """Issue 5: "timeouts default to the maximum dice"."""
    state, _ = new_game(preset("classic", defender_dice="choose"), 3, 7)
    while state.phase != Phase.DEFEND:
        state.apply(aggressive_policy(state))
    legal = state.legal_actions()
    assert legal.defend_max == 2
    assert default_action(legal) == ChooseDefence(2)


@pytest.mark.parametrize(("rules", "reason"), [("capital", "headquarters"), ("secret_mission", "mission")])
def test_a_goal_win_is_won_for_the_winner_and_survived_for_the_rest(rules: str, reason: str) -> None:
    """bot.proto SeatOutcome: SURVIVED is "Still in the game when another seat won by reaching its goal"."""
    for seed in range(20):
        state, _ = new_game(preset(rules), 4, seed)
        play_game(state, [aggressive_policy] * 4)
        if state.end_reason != reason:
            continue
        outcomes = [seat_outcome(state, s, None) for s in range(4)]
        winner = state.places.index(1)
        assert outcomes[winner] == Outcome.SEAT_OUTCOME_WON
        for s in range(4):
            if s != winner:
                eliminated = state.status[s] == PlayerStatus.ELIMINATED
                expected = Outcome.SEAT_OUTCOME_ELIMINATED if eliminated else Outcome.SEAT_OUTCOME_SURVIVED
                assert outcomes[s] == expected
        return
    raise AssertionError(f"no game of {rules} ended by {reason}")
