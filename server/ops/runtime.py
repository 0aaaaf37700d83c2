"""How every server process runs: on uvloop (asyncio's loop on libuv) where it is installed, with the
garbage collector tuned for a server.

grpc.aio hands every decision from task to task (a stream's reader, which plays the game on, and the
stream's writer), so the loop's own per-callback cost is paid several times per decision: on uvloop the
game server spends about a tenth less CPU per decision than on asyncio's pure-Python loop
(docs/benchmarks.md). uvloop does not run on Windows; there the server uses asyncio's loop.

A decision allocates a few hundred short-lived objects (protobuf wrappers, tuples, dicts), so CPython's
default collector (a young collection every 700 allocations) runs every few decisions and its older
generations walk every live game's state. Freezing what the imports made and collecting the young
generation every 10,000 allocations cuts ~5% of the instructions per decision (callgrind); the objects
are freed by reference counting all the same, cycles a little later.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

YOUNG_COLLECTION_EVERY = 10_000
"""Allocations (less deallocations) of tracked objects between young collections (CPython's default: 700)."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop where it is installed, with the collector tuned."""
    gc.freeze()  # the modules and constants loaded so far live as long as the process: never scan them
    gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
    try:
        import uvloop
    except ImportError:  # Windows (pyproject installs uvloop everywhere else)
        return asyncio.run(main)
    return uvloop.run(main)
