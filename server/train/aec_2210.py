"""The PettingZoo AEC environment of RISK 2210 A.D.: agents are seats, each step is one decision.

An agent's observation is what its seat gets over the wire: the engine's state goes through the server's
own message builders (``server.play.convert_2210``: ``observation_2210``, ``legal_2210``) and the SDK's
encoding (``conquest_sdk.encoding_2210``) turns those messages into ``{"observation": float32 vector,
"action_mask": int8 vector}``, as ``conquest_sdk.policy`` does with a DecisionRequest. Bids are secret: every
living seat is asked at once, and the environment asks them one after another, each seeing only its own
bid until all are revealed. Reactions (card windows, losses, MOD Reduction, the nuclear exchange) are
asked of the seat the engine asks, which need not be the seat whose turn it is.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from conquest.v1 import r2210_pb2 as pb
from conquest_sdk.encoding_2210 import Layout2210
from engine.r2210.actions import Action2210, Phase
from engine.r2210.game import apply, apply_unchecked, new_game_2210
from engine.r2210.legal import Legal2210, legal_for
from engine.r2210.observe import observe_2210
from engine.r2210.policies import default_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.rules import DefenderDice
from server.play.convert_2210 import (
    action_from_pb_2210,
    legal_2210,
    map_2210,
    observation_2210,
    rules_info_2210,
)
from server.train.aec import (
    InvalidAction,
    ObsDict,
    Reward,
    agent_spaces,
    check_options,
    final_reward,
    illegal_index,
)


def rules_2210(options: dict[str, Any] | None = None) -> Rules2210:
    """The 2210 rules with ``options`` (``Rules2210`` fields, as a 2210 queue's ``rules_options``;
    ``defender_dice`` as "max" or "choose")."""
    values = dict(options or {})
    known = {f.name for f in dataclasses.fields(Rules2210)}
    if unknown := sorted(set(values) - known):
        raise ValueError(f"unknown 2210 rules options {unknown}; known: {sorted(known)}")
    if "defender_dice" in values:
        values["defender_dice"] = DefenderDice(values["defender_dice"])
    return Rules2210(**values)


class Conquest2210Env(AECEnv[str, ObsDict, int | None]):  # type: ignore[misc]  # pettingzoo has no types
    """One RISK 2210 A.D. game for ``seats`` players (2 to 5) under ``rules`` (a ``Rules2210``, or
    ``rules_options`` for one). Rewards and ``invalid_action`` as ``server.train.ConquestEnv``: "raise" (an
    ``IllegalActionError`` naming the decision and what was legal; the state is unchanged) or "penalty"
    (the engine's safe default, ``engine.r2210.policies.default_action``, is played and the seat gets
    ``-penalty``); "territory" counts all 69 territories of Earth and Moon."""

    metadata = {"name": "conquest_2210_v0", "is_parallelizable": False, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        seats: int = 4,
        *,
        rules: Rules2210 | None = None,
        rules_options: dict[str, Any] | None = None,
        reward: Reward = "win",
        invalid_action: InvalidAction = "raise",
        penalty: float = 1.0,
    ) -> None:
        super().__init__()
        self.rules = rules if rules is not None else rules_2210(rules_options)
        self.rules.starting_mods(seats)  # RulesConfigError for a seat count 2210 does not allow
        check_options(reward, invalid_action)
        self.seats = seats
        self.reward = reward
        self.invalid_action = invalid_action
        self.penalty = penalty
        probe, _ = new_game_2210(self.rules, seats, 0)
        self.start = pb.Start2210(
            rules=rules_info_2210(self.rules, seats), map=map_2210(probe.board, self.rules)
        )
        """What a 2210 GameStarted carries of the rules and the board (the observation aside)."""
        self.layout = Layout2210(self.start.rules, self.start.map, seats)
        self.possible_agents = [f"seat_{s}" for s in range(seats)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._obs_space, self._act_space = agent_spaces(self.layout.observation_size, self.layout.actions)
        self._seeds = random.Random()
        self.game: GameState2210 | None = None
        """The engine's game (None before ``reset``)."""
        self.decisions = 0
        """Decisions taken in this game so far."""
        self._open: tuple[int, Legal2210, pb.Legal2210, np.ndarray[Any, np.dtype[np.int8]]] | None = None
        """The open decision: its number, the engine's legal actions, their message and its mask (read-only:
        ``step`` trusts it)."""
        self._shares = [0.0] * seats
        self._bid_views: dict[int, pb.Observation2210] = {}
        """In BID: each bidder's view when the bids opened, what the server sends every bidder at once."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game on engine seed ``seed``; without one, on the next seed drawn from the last one given."""
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.getrandbits(62)
        self.game, _ = new_game_2210(self.rules, self.seats, game_seed)
        self.decisions = 0
        self._open = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._shares = self._territory_shares()
        self._bid_views = {}
        self.agent_selection = self.possible_agents[self.game.asked[0]]

    # ------------------------------------------------------------------ what a seat sees

    def raw_observation(self, agent: str) -> pb.Observation2210:
        """What ``agent``'s seat sees now, as the wire's Observation2210. A seat yet to bid sees the game as
        the bids opened: the server asks every bidder at once, so no bidder learns who has bid before it."""
        state, seat = self._game(), self._seat[agent]
        if seat in self._bid_views and seat in state.asked:
            return self._bid_views[seat]
        return observation_2210(observe_2210(state, seat))

    def legal_message(self, agent: str) -> pb.Legal2210:
        """What ``agent``'s seat may do now, as the wire's Legal2210 (empty when it is not asked)."""
        if agent == self.agent_selection:
            return self._decision()[2]
        return legal_2210(legal_for(self._game(), self._seat[agent]))

    def legal_actions(self) -> Legal2210:
        """The compact legal actions of the agent to act (``agent_selection``), the engine's."""
        return self._decision()[1]

    def observe(self, agent: str) -> ObsDict:
        if agent in self.agents and self._game().asked and agent == self.agent_selection:
            mask = self._decision()[3]
        else:
            mask = np.zeros(self.layout.actions, np.int8)
        return {"observation": self.layout.observation(self.raw_observation(agent)), "action_mask": mask}

    def _decision(self) -> tuple[int, Legal2210, pb.Legal2210, np.ndarray[Any, np.dtype[np.int8]]]:
        if self._open is None or self._open[0] != self.decisions:
            legal = legal_for(self._game(), self._seat[self.agent_selection])
            message = legal_2210(legal)
            mask = self.layout.mask(message)
            mask.setflags(write=False)
            self._open = (self.decisions, legal, message, mask)
        return self._open

    # ------------------------------------------------------------------ playing

    def step(self, action: int | None) -> None:
        """Play action index ``action`` (masked in) for ``agent_selection``; None for a finished agent.

        Raises:
            IllegalActionError: with invalid_action="raise", an index outside the mask (or None for an
                agent still playing); the message names the decision and the legal choices.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        _, legal, message, mask = self._decision()
        index = -1 if action is None else int(action)
        if 0 <= index < self.layout.actions and mask[index]:
            self._play(action_from_pb_2210(self.layout.decode(index, message)), 0.0, checked=False)
            return
        what = "no action (None)" if action is None else self.layout.describe(index)
        if self.invalid_action == "raise":
            raise illegal_index(what, agent, self.decisions, legal.phase.name, mask, legal.describe())
        self._play(default_action(legal), -self.penalty, checked=False)

    def step_action(self, action: Action2210) -> None:
        """Play the engine action ``action`` for ``agent_selection`` (checked by the engine).

        Raises:
            engine.ActionError: ``action`` is not legal now; the state is unchanged.
        """
        self._play(action, 0.0, checked=True)

    def _play(self, action: Action2210, penalty: float, checked: bool) -> None:
        state = self._game()
        agent = self.agent_selection
        seat = self._seat[agent]
        if checked:
            apply(state, action, seat)
        else:
            apply_unchecked(state, action, seat)
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.rewards[agent] += penalty
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        state = self._game()
        if self.reward == "territory":
            shares = self._territory_shares()
            for s, a in enumerate(self.possible_agents):
                if a in self.rewards:
                    self.rewards[a] += shares[s] - self._shares[s]
            self._shares = shares
        if state.phase != Phase.BID:
            self._bid_views = {}
        elif not self._bid_views:
            self._bid_views = {s: observation_2210(observe_2210(state, s)) for s in state.asked}
        over = state.is_over()
        for a in self.agents:
            s = self._seat[a]
            if self.terminations[a] or self.truncations[a]:
                continue
            if over:
                place = state.places[s]
            elif not state.alive[s]:
                place = self.seats - state.eliminated.index(s)
            else:
                continue
            self.rewards[a] += final_reward(self.reward, place, self.seats)
            self.terminations[a] = True
        if not over:
            self.agent_selection = self.possible_agents[state.asked[0]]
        self._deads_step_first()

    def _territory_shares(self) -> list[float]:
        owner = self._game().owner
        return [sum(1 for o in owner if o == s) / len(owner) for s in range(self.seats)]

    def _game(self) -> GameState2210:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game
