"""Training: reinforcement-learning environments over the engine, PettingZoo (every seat an agent) and
Gymnasium (one learning seat against fixed opponents).

Imports the engine and the SDK's encoding (``conquest_sdk.encoding``, which the SDK's ``PolicyBot`` uses
on the wire); nothing in the engine or the rest of the server imports this room. Needs ``conquest[train]``;
docs/training.md walks through it, and ``server.train.example`` (``python -m server.train.example``) trains a
policy with numpy alone and plays it on a server.

    >>> from server.train import ConquestEnv
    >>> env = ConquestEnv("classic", seats=4)
    >>> env.reset(seed=7)
    >>> env.agent_selection in env.agents
    True
"""

from server.train.aec import REWARDS, ConquestEnv, env
from server.train.single import ConquestGymEnv

__all__ = ["REWARDS", "ConquestEnv", "ConquestGymEnv", "env"]
