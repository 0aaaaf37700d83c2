"""The event loop every server process runs on: uvloop (asyncio's loop on libuv) where it is installed.

grpc.aio and the game tasks hand every decision from task to task (a stream's reader, the game, the
stream's writer), so the loop's own per-callback cost is paid several times per decision: on uvloop
the game server spends about a tenth less CPU per decision than on asyncio's pure-Python loop
(docs/benchmarks.md). uvloop does not run on Windows; there the server uses asyncio's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop where it is installed."""
    try:
        import uvloop
    except ImportError:  # Windows (pyproject installs uvloop everywhere else)
        return asyncio.run(main)
    return uvloop.run(main)
