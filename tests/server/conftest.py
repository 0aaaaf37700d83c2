"""``start_server``: real servers on port 0 playing short games (server_support.py), stopped after
the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from live_server import LiveServer, serving
from server_support import FAST, short_queues

from server.ops.config import TimeControl


@pytest.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[LiveServer]]]:
    """``await start_server(control=..., **settings)`` -> a LiveServer whose queues all use ``control``
    (``settings``: other ServerConfig fields); stopped (with its bots) after the test."""
    async with AsyncExitStack() as servers:

        async def start(control: TimeControl = FAST, **settings: Any) -> LiveServer:
            queues = short_queues(control)
            return await servers.enter_async_context(serving(queues, tmp_path / "replays", **settings))

        yield start
