"""Issue 22: "A PettingZoo AEC environment for every ruleset and player count"; "Checks:
`pettingzoo.test.api_test` and `gymnasium.utils.env_checker.check_env` pass for every ruleset; seeded runs
are identical"; the Gymnasium wrapper's opponents ("the engine policies, the sample bots, or any
callable"), rewards ("win/loss, placement, territory share") and bad input ("an action outside the mask
gets a clear error naming the decision and the legal choices (or, when configured, the engine's safe
default and a penalty), never a corrupted state").
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from engine import PRESETS, IllegalActionError, aggressive_policy
from server.train import ConquestEnv, ConquestGymEnv
from server.train.single import Encoded

RULESETS = [(name, seats) for name, rules in PRESETS.items() for seats in rules.player_counts()]


@pytest.mark.parametrize(("rules", "seats"), RULESETS, ids=[f"{r}-{n}" for r, n in RULESETS])
def test_pettingzoo_api_test_passes(rules: str, seats: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict observation space and no render(): both by design
        api_test(ConquestEnv(rules, seats, rules_options={"turn_cap": 30}), num_cycles=60)


@pytest.mark.parametrize("rules", list(PRESETS))
def test_gymnasium_check_env_passes(rules: str) -> None:
    """check_env samples unmasked actions, so the env runs with invalid_action="penalty" here."""
    opponents = ["random"] * (PRESETS[rules].player_counts()[0] - 1)
    env = ConquestGymEnv(rules, opponents, invalid_action="penalty", rules_options={"turn_cap": 20})
    check_env(env, skip_render_check=True)


def _play(env: ConquestEnv, seed: int, steps: int) -> list[tuple[str, float, bytes]]:
    env.reset(seed=seed)
    rng = random.Random(seed)
    trace = []
    for agent in env.agent_iter(steps):
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, reward, obs["observation"].tobytes() + obs["action_mask"].tobytes()))
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            assert env.legal_indices() == tuple(legal.tolist())
            env.step(int(legal[rng.randrange(len(legal))]))
    return trace


def test_seeded_runs_are_identical() -> None:
    first = _play(ConquestEnv("secret_mission", 4, rules_options={"turn_cap": 40}), 5, 3000)
    again = _play(ConquestEnv("secret_mission", 4, rules_options={"turn_cap": 40}), 5, 3000)
    other = _play(ConquestEnv("secret_mission", 4, rules_options={"turn_cap": 40}), 6, 3000)
    assert first == again
    assert first != other


def test_gym_wrapper_is_reproducible_against_every_kind_of_opponent() -> None:
    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    opponents = ["random", "aggressive", "strategist", Encoded(first_legal), aggressive_policy]

    def episode() -> list[float]:
        env = ConquestGymEnv("classic", opponents, seat=2, rules_options={"turn_cap": 15})
        obs, _ = env.reset(seed=3)
        rng, rewards, done = random.Random(0), [], False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, terminated, truncated, _ = env.step(int(legal[rng.randrange(len(legal))]))
            rewards.append(reward)
            done = terminated or truncated
        return rewards

    rewards = episode()
    assert rewards == episode()
    assert rewards[-1] in (1.0, -1.0) and not any(rewards[:-1])


@pytest.mark.parametrize("reward", ["win", "placement", "territory"])
def test_rewards_follow_the_configured_scheme(reward: str) -> None:
    env = ConquestEnv("classic", 3, reward=reward, rules_options={"turn_cap": 30})  # type: ignore[arg-type]
    env.reset(seed=2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = random.Random(1)
    for agent in env.agent_iter():
        obs, r, term, trunc, _ = env.last()
        totals[agent] += r
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
    assert env.game is not None
    places = env.game.places
    for seat, agent in enumerate(env.possible_agents):
        if reward == "win":
            assert totals[agent] == (1.0 if places[seat] == 1 else -1.0)
        elif reward == "placement":
            assert totals[agent] == pytest.approx(1.0 - (places[seat] - 1))
        else:  # the share of the territories held at the end (none at the start)
            assert totals[agent] == pytest.approx(env.game.territory_count[seat] / 42)


def test_an_action_outside_the_mask_raises_naming_the_decision_and_the_legal_choices() -> None:
    env = ConquestEnv("classic", 4)
    env.reset(seed=1)
    assert env.game is not None
    before = env.game.fingerprint()
    end = env.layout.offsets["end_phase"]
    with pytest.raises(IllegalActionError) as error:
        env.step(end)
    message = str(error.value)
    assert f"action {end} (end_phase 0) is not legal for {env.agent_selection} at decision 0" in message
    assert "SETUP_CLAIM" in message and "legal now: claim one of [0, 1, 2" in message
    size = env.layout.actions
    with pytest.raises(IllegalActionError, match=rf"action {size} \(the action space is 0\.\.{size - 1}\)"):
        env.step(size)
    with pytest.raises(IllegalActionError, match=r"no action \(None\)"):
        env.step(None)
    assert env.game.fingerprint() == before and env.decisions == 0


def test_with_penalty_an_action_outside_the_mask_plays_the_safe_default_and_costs_the_penalty() -> None:
    env = ConquestEnv("classic", 4, invalid_action="penalty", penalty=0.5)
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(env.layout.offsets["end_phase"])
    assert env.game is not None and env.game.owner[0] == int(agent[-1])  # default: claim the lowest id
    assert env._cumulative_rewards[agent] == -0.5
    # Rewards are per step: the next legal step leaves the penalty behind (the env skips zeroing rewards
    # only after steps that paid none).
    assert env.rewards[agent] == -0.5
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert set(env.rewards.values()) == {0.0} and env._cumulative_rewards[agent] == -0.5


def test_the_mask_handed_out_cannot_be_edited_into_accepting_an_illegal_action() -> None:
    """step() trusts the mask it handed out ("never a corrupted state"), so that mask is read-only."""
    env = ConquestEnv("classic", 4)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="read-only"):
        mask[env.layout.offsets["end_phase"]] = 1
