"""The chess clock and the config file, without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.ops.config import ConfigError, ServerConfig, TimeControl
from server.ops.config_file import load_config, parse_config
from server.play.clock import SeatClock

CONTROL = TimeControl(
    decision_ms=1000,
    first_decision_ms=5000,
    initial_timebank_ms=10_000,
    increment_ms=200,
    max_timebank_ms=10_300,
)


def test_first_decision_gets_the_larger_allowance():
    """Issue 3: "a larger allowance for the first decision"."""
    clock = SeatClock.start(CONTROL)
    assert (clock.time_allowed_ms(), clock.budget_ms()) == (5000, 15_000)
    clock.charge(4000)
    assert clock.time_allowed_ms() == 1000


@pytest.mark.parametrize(
    ("name", "used", "bank_after"),
    [
        ("within the allowance: increment added", 800, 10_200),
        ("over the allowance: the excess comes out of the bank", 3000, 8200),
        ("timeout: the whole budget, then the increment", 11_000, 200),
        ("far over: never below zero", 60_000, 200),
    ],
)
def test_timebank_pays_the_excess_and_gains_the_increment(name, used, bank_after):
    """Issue 3: "a base time per decision plus a chess-clock timebank with a capped increment"."""
    clock = SeatClock.start(CONTROL)
    clock.charge(5000)  # the first decision, within its allowance
    clock.timebank_ms = 10_000
    clock.charge(used)
    assert clock.timebank_ms == bank_after, name


def test_increment_is_capped_but_never_cuts_the_bank():
    """TimeControl.max_timebank_ms: "Added to the timebank after each decision ... up to this cap"."""
    clock = SeatClock.start(CONTROL)
    for _ in range(5):
        clock.charge(0)
    assert clock.timebank_ms == 10_300
    big = SeatClock.start(TimeControl(initial_timebank_ms=50_000, max_timebank_ms=30_000))
    big.charge(0)
    assert big.timebank_ms == 50_000


def test_defaults_offer_the_required_queues():
    """Issue 3: queues "at least: classic 3, 4, 5 and 6 players; two-player neutral"."""
    names = {q.name: q for q in ServerConfig().queues}
    assert {"classic-3", "classic-4", "classic-5", "classic-6", "classic-dealt-4", "classic-2"} <= set(names)
    assert names["classic-2"].rules.neutral and names["classic-2"].players == 2


def test_a_config_file_overrides_defaults(tmp_path: Path):
    path = tmp_path / "conquest.toml"
    path.write_text(
        '[server]\naddress = "127.0.0.1:6000"\nlog_format = "json"\n'
        "[time_control]\ndecision_ms = 300\n"
        '[queues.fast-4]\nrules = "classic"\nplayers = 4\nrules_options = { turn_cap = 50 }\n'
        "time_control = { max_strikes = 5 }\n"
    )
    config = load_config(path)
    assert config.address == "127.0.0.1:6000" and config.log_format == "json"
    [queue] = config.queues
    assert (queue.name, queue.players, queue.rules.turn_cap) == ("fast-4", 4, 50)
    assert (queue.time_control.decision_ms, queue.time_control.max_strikes) == (300, 5)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"sever": {}}, "unknown key 'sever' in the config file; allowed keys: queues, server, time_control"),
        ({"server": {"log_format": "xml"}}, "server.log_format = 'xml' is not one of: console, json"),
        ({"server": {"practice": "yes"}}, "server.practice = 'yes' must be a bool"),
        ({"time_control": {"decision_ms": -5}}, "time_control.decision_ms = -5 must be a whole number"),
        ({"time_control": {"max_strike": 2}}, "unknown key 'max_strike' in [time_control]; allowed keys:"),
        (
            {"queues": {"q": {"rules": "chess", "players": 2}}},
            "queues.q: no rules preset 'chess'; presets are:",
        ),
        (
            {"queues": {"q": {"rules": "classic", "players": 2}}},
            "queues.q.players = 2: rules 'classic' allow 3, 4",
        ),
        ({"queues": {"q": {"rules": "classic", "players": 3, "rules_options": {"turncap": 1}}}}, "'turncap'"),
        ({"queues": {}}, "[queues] is empty"),
    ],
)
def test_bad_config_names_the_key_and_what_is_allowed(data, message):
    """Brief: "a bad config fails at start with a message naming the key and allowed values"."""
    with pytest.raises(ConfigError) as bad:
        parse_config(data)
    assert message in str(bad.value)


def test_unreadable_or_invalid_toml_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[server\n")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(broken)
