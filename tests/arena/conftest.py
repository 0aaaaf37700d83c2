"""``start_arena``: servers with a database (every database of ``db_url``), stopped after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from arena_support import ADMIN, ArenaServer


@pytest.fixture
async def start_arena(db_url: str, tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[ArenaServer]]]:
    """``await start_arena()`` -> a started ArenaServer on the test database; call it again after
    ``stop()`` to restart on the same database."""
    running: list[ArenaServer] = []

    async def start(admin_token: str = ADMIN) -> ArenaServer:
        server = await ArenaServer(db_url, tmp_path / "replays", admin_token).start()
        running.append(server)
        return server

    yield start
    for server in running:
        if server.store is not None and not server.stopped:
            await server.stop()
