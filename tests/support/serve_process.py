"""``Serve``: ``conquest serve --config <toml>`` in a subprocess, as operators run it, read through its JSON
log; and ``free_port()`` for the ports a config names."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


class Serve:
    """``conquest serve --config <toml>`` in a subprocess; its log (stderr) goes to a file. ``prefix``: a
    command that runs it (and execs it, so that the process is the server's), such as ``unshare``."""

    def __init__(
        self,
        tmp_path: Path,
        toml: str,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        prefix: tuple[str, ...] = (),
    ) -> None:
        config = tmp_path / "conquest.toml"
        config.write_text(toml)
        self.log_path = tmp_path / "serve.log"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [*prefix, sys.executable, "-m", "server.cli.main", "serve", "--config", str(config), *args],
                stderr=log,
                # no dashboard on the fixed default port: servers alongside (make run) must not collide
                env={**os.environ, "CONQUEST_SERVER_DASHBOARD_PORT": "0", **(env or {})},
                cwd=tmp_path,  # the default SQLite database is created in the working directory
            )

    def lines(self) -> list[str]:
        return self.log_path.read_text().splitlines()

    def records(self) -> list[dict[str, Any]]:
        """The structlog lines (gRPC's C core may write its own plain lines to stderr too)."""
        return [json.loads(line) for line in self.lines() if line.startswith("{")]

    def _serving_record(self) -> dict[str, Any] | None:
        assert self.process.poll() is None, f"conquest serve exited: {self.log_path.read_text()}"
        return next((r for r in self.records() if r["event"] == "serving"), None)

    async def serving(self) -> dict[str, Any]:
        """The "serving" record, once the server listens (slow on a loaded machine: give it 30 s)."""
        for _ in range(600):
            if (record := self._serving_record()) is not None:
                return record
            await asyncio.sleep(0.05)
        raise AssertionError(f"conquest serve never logged 'serving': {self.log_path.read_text()}")

    def wait_serving(self) -> dict[str, Any]:
        """``serving()`` for code outside an event loop (a module's fixture, a benchmark's setup)."""
        for _ in range(600):
            if (record := self._serving_record()) is not None:
                return record
            time.sleep(0.05)
        raise AssertionError(f"conquest serve never logged 'serving': {self.log_path.read_text()}")

    def stop(self, timeout: float) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        finally:
            self.process.kill()


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port free on 127.0.0.1 now and not handed out before in this process: the kernel may give a port
    just closed again, and two servers of one test (a replica's bot and metrics ports) then clash on it
    ("Address already in use")."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
