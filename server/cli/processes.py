"""``conquest serve --processes N``: N replicas of the server on this machine, one ladder.

Each child is a ``conquest serve`` of its own in cluster mode (``server.play.cluster``) on the configured
PostgreSQL: all of them listen on the bots' one port (SO_REUSEPORT: the kernel spreads new connections
over them), each with its own relay port (any free one), metrics port (``metrics_port`` + its index) and
replay directory (``replay_dir``/process-<index>, the same after a restart, so its pending results are
retried); only the first serves the dashboard. The parent supervises them: a child that dies is started
again (its games are taken over by the others meanwhile), and SIGTERM or SIGINT stops every child with
SIGINT, so that each drains as a single server does (SIGTERM would have each hand its games to the others,
all stopping too); the parent exits when they all have.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

import structlog

from server.ops.config import ServerConfig

RESTART_DELAY_S = 1.0
"""How long the parent waits before starting a dead child again (a child that cannot start is not
started again in a tight loop)."""
log = structlog.get_logger("conquest.processes")


def child_environment(config: ServerConfig, index: int, token: str) -> dict[str, str]:
    """The ``CONQUEST_*`` variables that make child ``index`` one replica of the cluster."""
    return {
        "CONQUEST_SERVER_PROCESSES": "1",
        "CONQUEST_SERVER_CLUSTER": "true",
        "CONQUEST_SERVER_CLUSTER_TOKEN": token,
        "CONQUEST_SERVER_RELAY_PORT": "0",
        "CONQUEST_SERVER_ADVERTISE_HOST": config.advertise_host or "127.0.0.1",
        "CONQUEST_SERVER_METRICS_PORT": str(config.metrics_port + index if config.metrics_port else 0),
        "CONQUEST_SERVER_DASHBOARD_PORT": str(config.dashboard_port if index == 0 else 0),
    }


def supervise(config: ServerConfig, serve_args: Sequence[str]) -> int:
    """Run ``config.processes`` children (``conquest serve`` with ``serve_args``, the flags this one got)
    until SIGTERM or SIGINT; then drain them all. Returns 0 once every child has stopped."""
    token = config.cluster_token or secrets.token_hex(32)
    stopping = False

    def spawn(index: int) -> subprocess.Popen[bytes]:
        replay_dir = config.replay_dir / f"process-{index}"
        command = [
            sys.executable,
            "-m",
            "server.cli.main",
            "serve",
            *serve_args,
            "--replay-dir",
            str(replay_dir),
        ]
        child = subprocess.Popen(command, env={**os.environ, **child_environment(config, index, token)})
        log.info("process_started", index=index, pid=child.pid)
        return child

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGINT)

    children = [spawn(index) for index in range(config.processes)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopping:
        time.sleep(0.2)
        for index, child in enumerate(children):
            if child.poll() is not None and not stopping:
                log.warning("process_died", index=index, pid=child.pid, returncode=child.returncode)
                time.sleep(RESTART_DELAY_S)
                if not stopping:
                    children[index] = spawn(index)
    for child in children:
        child.wait()
    log.info("processes_stopped", processes=len(children))
    return 0
