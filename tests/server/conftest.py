"""``start_server``: real servers on port 0 playing short games (server_support.py), stopped after
the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from live_server import LiveServer, serving
from server_support import FAST, short_queues

from server.ops.config import TimeControl


@pytest.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[LiveServer]]]:
    """``await start_server(control=...)`` -> a LiveServer whose queues all use ``control``; stopped (with
    its bots) after the test."""
    async with AsyncExitStack() as servers:

        async def start(control: TimeControl = FAST) -> LiveServer:
            return await servers.enter_async_context(serving(short_queues(control), tmp_path / "replays"))

        yield start
