"""The PettingZoo AEC environment: agents are seats, each step is one decision of the seat to act.

An agent's observation is what its seat gets over the wire (``engine.observe``), encoded by
``conquest_sdk.encoding`` as ``{"observation": float32 vector, "action_mask": int8 vector}``; the raw
``Observation`` and ``LegalActions`` are there too (``raw_observation``, ``legal_actions``), and
``step_action`` plays an engine action directly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from engine import (
    CLASSIC,
    Action,
    Board,
    GameState,
    IllegalActionError,
    LegalActions,
    Observation,
    PlayerStatus,
    Rules,
    Termination,
    default_action,
    new_game,
    observe,
    preset,
)
from server.train.fast import Room
from server.train.inputs import layout_for

Reward = Literal["win", "placement", "territory"]
REWARDS: tuple[Reward, ...] = ("win", "placement", "territory")
"""win: +1 for first place, -1 otherwise, when the seat's game ends; placement: from +1 (first) to -1
(last) likewise; territory: after every step, the change in the seat's share of the territories."""
InvalidAction = Literal["raise", "penalty"]
OBSERVATION_HIGH = 1e6
"""The observation space's upper bound (armies and counts stay far below it)."""

ObsDict = dict[str, npt.NDArray[Any]]


class ConquestEnv(AECEnv[str, ObsDict, int | None]):  # type: ignore[misc]  # pettingzoo has no types
    """One game of ``rules`` (a preset name or ``engine.Rules``; ``rules_options`` change a preset as the
    server's queues do: turn_cap, defender_dice, card rules ...) for ``seats`` players.

    ``invalid_action``: "raise" (an ``engine.IllegalActionError`` naming the decision and what was legal;
    the state is unchanged) or "penalty" (the engine's safe default is played instead and the seat gets
    ``-penalty``).
    """

    metadata = {"name": "conquest_v0", "is_parallelizable": False, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        rules: str | Rules = "classic",
        seats: int = 4,
        *,
        rules_options: dict[str, Any] | None = None,
        reward: Reward = "win",
        invalid_action: InvalidAction = "raise",
        penalty: float = 1.0,
        board: Board = CLASSIC,
    ) -> None:
        super().__init__()
        self.rules = preset(rules, **(rules_options or {})) if isinstance(rules, str) else rules
        self.rules.starting_armies_for(seats)  # RulesConfigError for a seat count the rules do not allow
        check_options(reward, invalid_action)
        self.seats = seats
        self.board = board
        self.reward = reward
        self.invalid_action = invalid_action
        self.penalty = penalty
        self.layout = layout_for(self.rules, seats, board)
        self._room = Room(self.layout)
        """The game's decisions, observations and plays (``server.train.fast``, compiled)."""
        self._territory = reward == "territory"
        self.possible_agents = [f"seat_{s}" for s in range(seats)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._obs_space, self._act_space = agent_spaces(self.layout.observation_size, self.layout.actions)
        self._seeds = random.Random()
        self.game: GameState | None = None
        """The engine's game (None before ``reset``)."""
        self._shares = [0.0] * seats
        self._finished = 0
        """Seats eliminated so far, as last seen by ``_after_move``."""
        self._paid = False
        """The last step put a reward in ``rewards`` (else every one is 0 and the per-step clearing and
        accumulating of PettingZoo's bookkeeping are skipped)."""

    @property
    def decisions(self) -> int:
        """Decisions taken in this game so far."""
        return self._room.decisions

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # ------------------------------------------------------------------ the game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game on engine seed ``seed``; without one, on the next seed drawn from the last seed given
        (so a seeded env replays its whole sequence of games)."""
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.getrandbits(62)
        self.game, _ = new_game(self.rules, self.seats, game_seed, self.board)
        self._room.reset(self.game)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._shares = self._territory_shares()
        self._finished = 0
        self.agent_selection = self.possible_agents[self.game.to_act]

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """PettingZoo's ``agent_iter`` (``agent_selection`` while any agent is left, at most ``max_iter``
        times), as a generator: cheaper per step than PettingZoo's iterator object."""
        while self.agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection

    def observe(self, agent: str) -> ObsDict:
        return self._room.observe(self._seat[agent])

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the observation (with ``observe``), cumulative reward, termination,
        truncation and info of ``agent_selection``."""
        agent = self.agent_selection
        return (
            self._room.observe(self._seat[agent]) if observe else None,  # self.observe(agent), inlined
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def raw_observation(self, agent: str) -> Observation:
        """What ``agent``'s seat sees now, as the engine's Observation (the wire's Observation)."""
        return observe(self._game(), self._seat[agent])

    def legal_actions(self) -> LegalActions:
        """The compact legal actions of the agent to act (``agent_selection``)."""
        return self._room.legal()

    def legal_indices(self) -> tuple[int, ...]:
        """The masked-in action indices of the agent to act, ascending (``np.flatnonzero`` of its
        ``action_mask``), made once per decision: a random agent draws from them without numpy."""
        return self._room.indices()

    def step(self, action: int | None) -> None:
        """Play action index ``action`` (masked in) for ``agent_selection``; None for a finished agent.

        Raises:
            engine.IllegalActionError: with invalid_action="raise", an index outside the mask (or None
                for an agent still playing); the message names the decision and the legal choices.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # A masked-in index is played unchecked: every masked-in index is legal (test_train_mask.py).
        to_act = self._room.play(action)
        if to_act != -2:
            self._cumulative_rewards[agent] = 0.0
            if self._paid:
                self._clear_rewards()
                self._paid = False
            if to_act >= 0 and not self._territory:
                self.agent_selection = self.possible_agents[to_act]  # nobody's game ended: the common case
                return
            self._after_move()
            if self._paid:
                self._accumulate_rewards()
            return
        legal, mask = self._room.legal(), self._room.mask()
        index = -1 if action is None else int(action)
        what = "no action (None)" if action is None else self.layout.describe(index)
        if self.invalid_action == "raise":
            raise illegal_index(what, agent, self.decisions, legal.phase.name, mask, legal.describe())
        self._play(default_action(legal), -self.penalty, checked=False)

    def step_action(self, action: Action) -> None:
        """Play the engine action ``action`` for ``agent_selection`` (checked by the engine).

        Raises:
            engine.ActionError: ``action`` is not legal now; the state is unchanged.
        """
        self._play(action, 0.0, checked=True)

    def _play(self, action: Action, penalty: float, checked: bool) -> None:
        state = self._game()
        agent = self.agent_selection
        if checked:
            events = state.apply(action, self._seat[agent], self._room.legal())
        else:
            events = state.apply_unchecked(action)
        self._room.played(events)
        self._cumulative_rewards[agent] = 0.0
        if self._paid:
            self._clear_rewards()
        self._paid = penalty != 0.0
        self.rewards[agent] += penalty
        self._after_move()
        if self._paid:
            self._accumulate_rewards()

    def _after_move(self) -> None:
        state = self._game()
        if self.reward == "territory":
            shares = self._territory_shares()
            for s, a in enumerate(self.possible_agents):
                if a in self.rewards:
                    self.rewards[a] += shares[s] - self._shares[s]
            self._shares = shares
            self._paid = True
        over = state.is_over()
        if not over:
            self.agent_selection = self.possible_agents[state.to_act]
            if len(state.eliminated) == self._finished:
                return  # nobody's game ended: the common case, kept short
        self._finished = len(state.eliminated)
        for a in self.agents:
            s = self._seat[a]
            if self.terminations[a] or self.truncations[a]:
                continue
            if over:
                place = state.places[s]
            elif state.status[s] == PlayerStatus.ELIMINATED:
                place = self.seats - state.eliminated.index(s)
            else:
                continue
            self.rewards[a] += final_reward(self.reward, place, self.seats)
            self._paid = True
            if over and state.end_reason == Termination.TURN_CAP and state.status[s] == PlayerStatus.ALIVE:
                self.truncations[a] = True  # still playing when the turn cap stopped the game
            else:
                self.terminations[a] = True
        self._deads_step_first()

    def _territory_shares(self) -> list[float]:
        counts = self._game().territory_count
        return [counts[s] / self.board.size for s in range(self.seats)]

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def check_options(reward: str, invalid_action: str) -> None:
    """Raises: ValueError naming the allowed values of a bad ``reward`` or ``invalid_action``."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    if invalid_action not in ("raise", "penalty"):
        raise ValueError(f"invalid_action must be 'raise' or 'penalty', not {invalid_action!r}")


def agent_spaces(observation_size: int, actions: int) -> tuple[spaces.Dict, spaces.Discrete]:
    """Every agent's observation space (the vector and the mask) and action space (an index)."""
    observation = spaces.Dict(
        {
            "observation": spaces.Box(0.0, OBSERVATION_HIGH, (observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }
    )
    return observation, spaces.Discrete(actions)


def final_reward(reward: Reward, place: int, seats: int) -> float:
    """A seat's reward when its game ends in ``place``: win +1/-1, placement +1 (first) to -1 (last);
    territory pays per step instead (0)."""
    if reward == "win":
        return 1.0 if place == 1 else -1.0
    if reward == "placement":
        return 1.0 - 2.0 * (place - 1) / (seats - 1)
    return 0.0


def illegal_index(
    what: str, agent: str, decision: int, phase: str, mask: npt.NDArray[np.int8], legal: str
) -> IllegalActionError:
    """The error for an index outside the mask: the decision, the first masked-in indices, what is legal."""
    allowed = np.flatnonzero(mask)
    shown = ", ".join(str(i) for i in allowed[:16]) + (" ..." if len(allowed) > 16 else "")
    return IllegalActionError(
        f"{what} is not legal for {agent} at decision {decision} ({phase}); masked-in actions: [{shown}]; "
        f"legal now: {legal}"
    )


def env(**kwargs: Any) -> ConquestEnv:
    """PettingZoo's usual constructor name: ``server.train.aec.env(rules="capital", seats=4)``."""
    return ConquestEnv(**kwargs)
