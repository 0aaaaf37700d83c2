"""Reinforcement-learning environments over the engine: PettingZoo (every seat an agent) and Gymnasium
(one learning seat against fixed opponents).

Imports the engine and the SDK's encoding (``conquest_sdk.encoding``, which the SDK's ``PolicyBot`` uses
on the wire); nothing in the engine or the server imports this package. Needs ``conquest[train]``;
docs/training.md walks through it.

    >>> from conquest_env import ConquestEnv
    >>> env = ConquestEnv("classic", seats=4)
    >>> env.reset(seed=7)
    >>> env.agent_selection in env.agents
    True
"""

from conquest_env.aec import REWARDS, ConquestEnv, env
from conquest_env.single import ConquestGymEnv

__all__ = ["REWARDS", "ConquestEnv", "ConquestGymEnv", "env"]
