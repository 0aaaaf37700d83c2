"""``start_arena``: servers with a database (every database of ``db_url``), stopped after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from arena_support import ADMIN, QUEUES
from live_server import LiveServer, serving

from server.ops.config import QueueConfig


@pytest.fixture
async def start_arena(db_url: str, tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[LiveServer]]]:
    """``await start_arena()`` -> a started LiveServer on the test database; call it again after
    ``stop()`` to restart on the same database."""
    async with AsyncExitStack() as servers:

        async def start(admin_token: str = ADMIN, queues: tuple[QueueConfig, ...] = QUEUES) -> LiveServer:
            arena = serving(queues, tmp_path / "replays", database_url=db_url, admin_token=admin_token)
            return await servers.enter_async_context(arena)

        yield start
