"""Conquest Python SDK: write one ``Bot`` class, call ``run(bot)``.

    from conquest_sdk import Bot, actions, run

    class FirstChoice(Bot):
        name = "first-choice"

        def decide(self, game, turn):
            return turn.legal.default()

    run(FirstChoice())

Depends only on grpcio, protobuf and the generated ``conquest.v1`` stubs: ``pip install sample_bots/python``
installs the three (and the sample bots) without the server. ``conquest_sdk.policy`` (run a policy trained
in ``server.train`` as a bot), ``conquest_sdk.encoding`` and ``conquest_sdk.encoding_2210`` also need numpy
(``pip install 'sample_bots/python[train]'``, docs/training.md); nothing else here imports them.
"""

from conquest_sdk import actions
from conquest_sdk.cli import run
from conquest_sdk.client import Bot, Client, SessionError
from conquest_sdk.game import Game, Phase, Turn
from conquest_sdk.legal import AttackOption, FortifyOption, Legal, TradeOption
from conquest_sdk.r2210 import Turn2210

__all__ = [
    "AttackOption",
    "Bot",
    "Client",
    "FortifyOption",
    "Game",
    "Legal",
    "Phase",
    "SessionError",
    "TradeOption",
    "Turn",
    "Turn2210",
    "actions",
    "run",
]
