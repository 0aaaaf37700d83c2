"""The Gymnasium wrapper: one learning seat against fixed opponents, seeded and reproducible.

An opponent is an engine policy (``GameState -> Action``, e.g. ``engine.aggressive_policy``), the name
"random" or "aggressive" (the engine's policies of those names), the name of another Python sample bot
(``conquest_bots.roster.BOTS``, e.g. "strategist": it plays on the messages the server would send it), or
an ``Encoded`` policy (a trained ``policy(observation, mask) -> index``).

``rules="2210"`` (or an ``engine.r2210.rules.Rules2210``) plays RISK 2210 A.D. (``Conquest2210Env``); its
opponents are "random" and "aggressive" (``engine.r2210.policies``: ``random_action`` and
``aggressive_2210``), another sample bot's name (e.g. "strategist", on the 2210 messages the server would
send it), a ``Policy2210`` (``(GameState2210, seat) -> Action2210``) or an ``Encoded`` policy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from engine import Action, GameState, Rules, aggressive_policy, random_policy
from engine.r2210.actions import Action2210
from engine.r2210.game import legal_actions
from engine.r2210.policies import aggressive_2210, random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from server.train.aec import ConquestEnv, ObsDict
from server.train.aec_2210 import Conquest2210Env

EngineOpponent = Callable[[GameState], Action]
Policy2210 = Callable[[GameState2210, int], Action2210]
"""A 2210 engine policy: the state and the seat asked (``agent_selection``) in, its action out."""


class Encoded(NamedTuple):
    """An opponent that plays a trained ``policy(observation, mask) -> action index``."""

    policy: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]


Opponent = str | EngineOpponent | Policy2210 | Encoded


class ConquestGymEnv(gym.Env[ObsDict, int]):
    """Seat ``seat`` of a game of ``rules`` learns; the other seats are ``opponents`` in seat order (one
    per other seat). Other keyword arguments go to ``ConquestEnv`` (rules_options, reward,
    invalid_action, penalty). An episode ends when the learner's game ends (or it is eliminated)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  # gymnasium names it so

    def __init__(
        self,
        rules: str | Rules | Rules2210 = "classic",
        opponents: Sequence[Opponent] = ("random",),
        seat: int = 0,
        **options: Any,
    ) -> None:
        self.env: ConquestEnv | Conquest2210Env
        if rules == "2210" or isinstance(rules, Rules2210):
            rules_2210 = rules if isinstance(rules, Rules2210) else None
            self.env = Conquest2210Env(len(opponents) + 1, rules=rules_2210, **options)
        else:
            assert not isinstance(rules, Rules2210)
            self.env = ConquestEnv(rules, len(opponents) + 1, **options)
        if not 0 <= seat <= len(opponents):
            raise ValueError(f"seat must be 0..{len(opponents)} for {len(opponents) + 1} seats, not {seat}")
        self.seat = seat
        self.agent = self.env.possible_agents[seat]
        self.opponent_specs = list(opponents)
        self.observation_space = self.env.observation_space(self.agent)
        self.action_space = self.env.action_space(self.agent)
        self._opponents: dict[str, Any] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62)) if seed is None else seed
        self.env.reset(seed=game_seed)
        others = [a for a in self.env.possible_agents if a != self.agent]
        specs = zip(others, self.opponent_specs, strict=True)
        pick = _opponent_2210 if isinstance(self.env, Conquest2210Env) else _opponent
        self._opponents = {agent: pick(spec, game_seed * 16 + k) for k, (agent, spec) in enumerate(specs)}
        self._play_others()
        return self.env.observe(self.agent), {}

    def step(self, action: int) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` (an index; see ``ConquestEnv.step`` for one outside the mask),
        then the opponents until the learner is to act again or its game is over."""
        self.env.step(action)
        self._play_others()
        env = self.env
        # The learner's rewards since its action; a finished learner is never stepped out of the game.
        reward = env._cumulative_rewards[self.agent]
        terminated, truncated = env.terminations[self.agent], env.truncations[self.agent]
        return env.observe(self.agent), float(reward), terminated, truncated, {}

    def _learner_finished(self) -> bool:
        return self.env.terminations[self.agent] or self.env.truncations[self.agent]

    def _play_others(self) -> None:
        """Play every other seat until the learner is to act or finished."""
        env = self.env
        while env.agents and env.agent_selection != self.agent and not self._learner_finished():
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                opponent = self._opponents[agent]
                if isinstance(opponent, Encoded):
                    obs = env.observe(agent)
                    env.step(opponent.policy(obs["observation"], obs["action_mask"]))
                elif isinstance(env, Conquest2210Env):
                    assert env.game is not None
                    env.step_action(opponent(env.game, env.game.asked[0]))
                else:
                    assert env.game is not None
                    env.step_action(opponent(env.game))


def _opponent(spec: Opponent, seed: int) -> EngineOpponent | Encoded:
    if isinstance(spec, Encoded):
        return spec
    if spec == "random":
        return random_policy(random.Random(seed))
    if spec == "aggressive":
        return aggressive_policy
    if isinstance(spec, str):
        from server.train.sample_bots import sample_bot  # imports the server's message builders

        return sample_bot(spec, seed)
    return spec  # type: ignore[return-value]  # a GameState -> Action callable


def _opponent_2210(spec: Opponent, seed: int) -> Policy2210 | Encoded:
    if isinstance(spec, Encoded):
        return spec
    if spec == "random":
        rng = random.Random(seed)
        return lambda state, seat: random_action(legal_actions(state, seat), rng)
    if spec == "aggressive":
        return aggressive_2210
    if isinstance(spec, str):
        from server.train.sample_bots import SampleBot2210  # imports the server's message builders

        return SampleBot2210(spec, seed)
    return spec  # type: ignore[return-value]  # a (GameState2210, seat) -> Action2210 callable
