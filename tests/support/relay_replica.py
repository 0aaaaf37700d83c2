"""``conquest serve`` with a cluster's relay listening beside its gRPC port, and no cluster: the chaos suite's
target for floods of the relay port without PostgreSQL. The relay (``server.play.relay`` over
``server.play.relay_link``) takes and refuses connections by itself; a replica's cluster side (shared
queues, the lease, the heartbeat), which needs PostgreSQL, plays no part in that. The relay is the server's
own, on its lobby and in its process, so its refusals cost what they cost a replica, beside its games.

    python relay_replica.py python -m server.cli.main serve --config FILE

(``ChaosServer``'s ``prefix``): logs ``relay_listening`` with the relay's TCP port before ``serving``.
"""

from __future__ import annotations

import asyncio
import os
import sys

import structlog

from server import app
from server.app import Health
from server.cli.main import main as conquest
from server.play.lobby import Lobby
from server.play.relay import Relay
from server.play.relay_link import Listening

CLUSTER_TOKEN = "chaos-cluster-token"
"""The secret the relay takes (the floods send another)."""
START_RECORDER = app.start_recorder
LISTENING: list[Listening] = []
"""The relay's listeners, kept open until the process ends."""


async def _start_recorder_and_relay(lobby: Lobby, health: Health) -> asyncio.Task[None] | None:
    """``server.app.start_recorder``, once a relay listens on a free port for ``lobby``'s replica."""
    relay = Relay(lobby, f"chaos-relay-{os.getpid()}", CLUSTER_TOKEN)
    listening = await relay.listen(0)
    LISTENING.append(listening)
    structlog.get_logger("conquest.relay").info("relay_listening", port=listening.port)
    return await START_RECORDER(lobby, health)


def main(argv: list[str]) -> int:
    app.start_recorder = _start_recorder_and_relay  # serve() calls it once, after building its lobby
    return conquest(argv[argv.index("serve") :])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
