"""Training: reinforcement-learning environments over the engine, PettingZoo (every seat an agent) and
Gymnasium (one learning seat against fixed opponents).

Imports the engine and the SDK's encoding (``conquest_sdk.encoding``, which the SDK's ``PolicyBot`` uses
on the wire); nothing in the engine or the rest of the server imports this room. Needs
``conquest-server[train]`` (``make install`` includes it); docs/training.md walks through it, and
``server.train.example`` (``python -m server.train.example``) trains a policy with numpy alone and plays
it on a server. ``Conquest2210Env`` is RISK 2210 A.D.'s environment
(``ConquestGymEnv("2210", ...)`` its single-agent wrapper).

    >>> from server.train import ConquestEnv
    >>> env = ConquestEnv("classic", seats=4)
    >>> env.reset(seed=7)
    >>> env.agent_selection in env.agents
    True
"""

from server.train.aec import REWARDS, ConquestEnv, env
from server.train.aec_2210 import Conquest2210Env
from server.train.single import ConquestGymEnv

__all__ = ["REWARDS", "Conquest2210Env", "ConquestEnv", "ConquestGymEnv", "env"]
