"""server.ops.runtime: every server process runs on uvloop with young collections every 10,000 allocations
(docs/benchmarks.md: "the game server spends about a tenth less CPU per decision" on uvloop)."""

from __future__ import annotations

import asyncio
import gc

from server.ops import runtime


async def _probe() -> tuple[str, int]:
    return type(asyncio.get_running_loop()).__module__, gc.get_threshold()[0]


def test_run_is_on_uvloop_with_the_young_generation_collected_every_10000_allocations() -> None:
    before = gc.get_threshold()
    try:
        loop_module, young = runtime.run(_probe())
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
    assert loop_module.startswith("uvloop")
    assert young == runtime.YOUNG_COLLECTION_EVERY == 10_000
