"""Issue 22, for RISK 2210 A.D. ("add 2210 when the RISK 2210 A.D. issue has landed"): "A PettingZoo AEC
environment for every ruleset and player count ... Agents are seats; each step is one decision; hidden
information stays hidden (an agent's observation is what that seat would get over the wire)"; "Checks:
`pettingzoo.test.api_test` and `gymnasium.utils.env_checker.check_env` pass for every ruleset; seeded runs
are identical"; "rewards configurable"; "Bad input: an action outside the mask gets a clear error naming
the decision and the legal choices (or, when configured, the engine's safe default and a penalty), never a
corrupted state."
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from engine.errors import IllegalActionError, RulesConfigError
from engine.r2210.actions import Phase
from engine.r2210.observe import observe_2210
from engine.r2210.policies import aggressive_2210
from engine.r2210.state import GameState2210
from server.play.convert_2210 import observation_2210
from server.train import Conquest2210Env, ConquestGymEnv
from server.train.single import Encoded, Opponent


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_pettingzoo_api_test_passes_for_2210(seats: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict observation space and no render(): both by design
        api_test(Conquest2210Env(seats), num_cycles=200)


@pytest.mark.parametrize(
    ("seats", "options"), [(2, {}), (4, {"defender_dice": "choose", "choose_losses": True})]
)
def test_gymnasium_check_env_passes_for_2210(seats: int, options: dict[str, object]) -> None:
    """check_env samples unmasked actions, so the env runs with invalid_action="penalty" here."""
    env = ConquestGymEnv("2210", ["random"] * (seats - 1), invalid_action="penalty", rules_options=options)
    check_env(env, skip_render_check=True)


def _play(env: Conquest2210Env, seed: int) -> list[tuple[str, float, bytes]]:
    env.reset(seed=seed)
    rng = random.Random(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, reward, obs["observation"].tobytes() + obs["action_mask"].tobytes()))
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
    return trace


def test_seeded_2210_runs_are_identical() -> None:
    first = _play(Conquest2210Env(4, rules_options={"years": 2}), 5)
    assert first == _play(Conquest2210Env(4, rules_options={"years": 2}), 5)
    assert first != _play(Conquest2210Env(4, rules_options={"years": 2}), 6)
    assert len(first) > 200


def test_bids_are_asked_one_seat_after_another_each_seeing_only_what_it_would_over_the_wire() -> None:
    """Bids are simultaneous on the server (every bidder's DecisionRequest is sent when the bids open); the
    environment asks the bidders in turn, and each sees the game as the bids opened: no other bid, and not
    who has bid before it. Out of the bids, an agent sees its seat's ``observe_2210``."""
    env = Conquest2210Env(3)
    env.reset(seed=4)
    game = env.game
    assert isinstance(game, GameState2210)
    while _phase(game) != Phase.BID:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        other = env.possible_agents[(int(env.agent_selection[-1]) + 1) % 3]
        if _phase(game) != Phase.BID:
            assert env.raw_observation(other) == observation_2210(observe_2210(game, int(other[-1])))
    opened = {a: env.raw_observation(a) for a in env.possible_agents}
    assert all(list(o.asked) == [0, 1, 2] and list(o.bids).count(-1) == 3 for o in opened.values())
    bid_top = env.layout.offsets["bid"] + 7  # the bid of all the energy held
    for agent in env.possible_agents:
        assert env.agent_selection == agent and _phase(game) == Phase.BID
        assert env.raw_observation(agent) == opened[agent]
        assert np.array_equal(env.observe(agent)["observation"], env.layout.observation(opened[agent]))
        env.step(bid_top)
    assert _phase(game) != Phase.BID and list(env.raw_observation("seat_0").bids) == [3, 3, 3]


def _phase(game: GameState2210) -> Phase:
    return game.phase


@pytest.mark.parametrize("reward", ["win", "placement", "territory"])
def test_2210_rewards_follow_the_configured_scheme(reward: str) -> None:
    env = Conquest2210Env(3, reward=reward, rules_options={"years": 2})  # type: ignore[arg-type]
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
    game = env.game
    assert game is not None and game.is_over()
    for seat, agent in enumerate(env.possible_agents):
        if reward == "win":
            assert totals[agent] == (1.0 if game.places[seat] == 1 else -1.0)
        elif reward == "placement":
            assert totals[agent] == pytest.approx(1.0 - (game.places[seat] - 1))
        else:  # the share of the 69 territories held at the end (none at the start)
            assert totals[agent] == pytest.approx(game.owner.count(seat) / 69)


def test_an_action_outside_the_2210_mask_raises_naming_the_decision_and_the_legal_choices() -> None:
    env = Conquest2210Env(4)
    env.reset(seed=1)
    assert env.game is not None
    before = env.game.fingerprint()
    end = env.layout.offsets["end_phase"]
    with pytest.raises(IllegalActionError) as error:
        env.step(end)
    message = str(error.value)
    assert f"action {end} (end_phase 0) is not legal for {env.agent_selection} at decision 0" in message
    assert "(SETUP_CLAIM); masked-in actions: [" in message and "legal now: SETUP_CLAIM for seat" in message
    assert "territories=(" in message
    size = env.layout.actions
    with pytest.raises(IllegalActionError, match=rf"action {size} \(the action space is 0\.\.{size - 1}\)"):
        env.step(size)
    with pytest.raises(IllegalActionError, match=r"no action \(None\)"):
        env.step(None)
    assert env.game.fingerprint() == before and env.decisions == 0
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="read-only"):
        mask[end] = 1  # step() trusts the mask it handed out


def test_with_penalty_an_action_outside_the_2210_mask_plays_the_safe_default_and_costs_the_penalty() -> None:
    env = Conquest2210Env(4, invalid_action="penalty", penalty=0.5)
    env.reset(seed=1)
    agent = env.agent_selection
    first = env.legal_actions().territories[0]
    env.step(env.layout.offsets["end_phase"])
    assert env.game is not None and env.game.owner[first] == int(agent[-1])  # default: the first claim
    assert env._cumulative_rewards[agent] == -0.5 and env.decisions == 1


def test_2210_seat_counts_and_rules_options_are_checked() -> None:
    with pytest.raises(RulesConfigError, match="2 to 5 players, not 6"):
        Conquest2210Env(6)
    with pytest.raises(ValueError, match=r"unknown 2210 rules options \['turn_cap'\]"):
        Conquest2210Env(3, rules_options={"turn_cap": 9})


def test_gym_wrapper_plays_2210_reproducibly_against_every_kind_of_opponent() -> None:
    """Issue 22: "one learning seat against opponents chosen from the engine policies, the sample bots, or
    any callable, seeded and reproducible": the engine's 2210 policies by name, a sample bot by name, a
    (state, seat) callable, a trained policy."""

    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    opponents: list[Opponent] = ["random", "strategist", Encoded(first_legal), aggressive_2210]

    def episode() -> list[float]:
        env = ConquestGymEnv("2210", opponents, seat=1, rules_options={"years": 2})
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
    with pytest.raises(ValueError, match="no sample bot 'strategos'; opponents are random, aggressive or"):
        ConquestGymEnv("2210", ["strategos"]).reset(seed=1)


def test_the_2210_example_in_docs_training_md_works_as_written() -> None:
    """docs/training.md, "RISK 2210 A.D.": the example plays a whole game and resets the Gym wrapper."""
    text = (Path(__file__).parents[2] / "docs" / "training.md").read_text()
    section = text[text.index("## RISK 2210 A.D.") :]
    code = section[section.index("```python\n") + len("```python\n") : section.index("\n```\n")]
    namespace: dict[str, object] = {}
    exec(code, namespace)  # the documentation's own example
    env = namespace["env"]
    assert isinstance(env, Conquest2210Env) and env.game is not None and env.game.is_over()
    assert isinstance(namespace["gym_env"], ConquestGymEnv)


def test_every_2210_index_is_described_in_words_by_its_block() -> None:
    """The bad-input error names the action: ``Layout2210.describe`` works for every index of every block."""
    layout = Conquest2210Env(5).layout
    for index in range(layout.actions):
        kind = layout._block(index)[0]
        assert layout.describe(index).startswith(f"action {index} ("), kind
    assert layout.describe(layout.offsets["declare"]) == "action {} (declare {}->{})".format(
        layout.offsets["declare"], *layout.invasion_pairs[0]
    )
