"""What a flood of refused relay connections writes to the log (issue 33, item 6): "wrong-token hellos grew
the log by 65 MiB in 41 s (~5.7 GB an hour)". A refused connection is counted every time, and logged once
in ``relay_link.REFUSAL_LOG_S`` per peer address (``server.ops.logs.PerPeer``)."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from conquest.cluster.v1 import relay_pb2
from server.app import build_lobby
from server.ops.config import ServerConfig
from server.ops.logs import PerPeer
from server.play import relay_link, relay_wire
from server.play.relay import Relay

_HELLO = relay_pb2.RelayHello(replica="r" * 4000, cluster_token="guess")
WRONG_HELLO = relay_wire.message([relay_pb2.RelayRequest(hello=_HELLO).SerializeToString()])
"""The issue's hello: a 4 KB replica name and a wrong token."""


async def _refused(port: int) -> None:
    """One connection to the relay at ``port`` that sends ``WRONG_HELLO`` and reads to the end."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(WRONG_HELLO)
    assert await reader.read(), "told why"
    writer.close()


async def test_a_flood_of_wrong_hellos_from_one_address_writes_a_line_now_and_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33, item 6: "bound the refusal log lines per peer address": 300 wrong-token hellos from one
    address write one line, and all 300 are counted; the address's next line, once ``REFUSAL_LOG_S`` has
    passed, says how many were left out."""
    # raising=False: before the fix, the test fails by its count of lines, not here
    monkeypatch.setattr(relay_link, "REFUSAL_LOG_S", 1.0, raising=False)
    lobby = build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)
    relay = Relay(lobby, f"me-{secrets.token_hex(4)}", "cluster-secret")
    listening = await relay.listen(0)
    try:
        with capture_logs() as logged:
            for _ in range(30):
                await asyncio.gather(*(_refused(listening.port) for _ in range(10)))
            lines = [line for line in logged if line["event"] == "relay_refused"]
            assert len(lines) == 1, f"{len(lines)} lines for 300 refusals from one address"
            assert "wrong cluster_token" in lines[0]["why"] and "suppressed" not in lines[0]
            await asyncio.sleep(1.0)
            await _refused(listening.port)
        lines = [line for line in logged if line["event"] == "relay_refused"]
        assert len(lines) == 2 and lines[1]["suppressed"] == 299, lines[1:]
        refusals = lobby.metrics.streams_cut.labels("relay_refused")._value.get()
        assert refusals == 301, "every refusal is counted"
    finally:
        listening.close()


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Logger:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def warning(self, event: str, **fields: Any) -> None:
        self.lines.append({"event": event, **fields})


def test_refusals_from_many_addresses_write_a_bounded_number_of_lines() -> None:
    """However many addresses a flood comes from, it writes at most ``peers`` + 1 lines every ``every_s``
    seconds: the addresses past ``peers`` share one line (peer "others"), whose next one counts them all;
    an address that went quiet is forgotten, and its place given to another."""
    clock, logger = _Clock(), _Logger()
    refusals = PerPeer(every_s=60, peers=4, clock=clock)
    for second in range(120):
        clock.now = float(second)
        for address in range(100):
            refusals.warning(logger, "relay_refused", f"10.0.0.{address}", peer=f"10.0.0.{address}")
    peers = ["10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.3", "others"]
    assert [line["peer"] for line in logger.lines] == peers + peers, "a minute apart"
    assert [line.get("suppressed") for line in logger.lines[5:]] == [59, 59, 59, 59, 96 * 60 - 1]
    clock.now = 200.0
    refusals.warning(logger, "relay_refused", "10.0.0.50", peer="10.0.0.50")
    assert logger.lines[-1] == {"event": "relay_refused", "peer": "10.0.0.50"}
