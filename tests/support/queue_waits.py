"""A client left waiting in a queue, and what the SDK logged about it (tests/bots)."""

from __future__ import annotations

import asyncio

import pytest

from conquest_sdk import Client


async def logged_waits(client: Client, queue: str, caplog: pytest.LogCaptureFixture) -> list[str]:
    """Run ``client`` until it has logged two statuses of having waited (5 s at most), stop it, and return
    the lines it logged about ``queue``; the server's status interval should be short (0.2 s)."""
    running = asyncio.create_task(client.run())
    for _ in range(100):
        await asyncio.sleep(0.05)
        if sum("waited" in r.getMessage() for r in caplog.records) >= 2:
            break
    client.stop()
    await asyncio.wait_for(running, 10)
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"queue {queue}")]
