"""server.ops.runtime: every server process runs on uvloop with young collections every 10,000 allocations
(docs/benchmarks.md: "the game server spends about a tenth less CPU per decision" on uvloop)."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys

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


def test_console_logs_written_to_a_file_hold_no_colour_codes(tmp_path) -> None:
    """Issue 32: "`--log-format console` writes colour codes into a redirected file"."""
    script = (
        "import structlog; from server.ops.logs import configure_logging; "
        "configure_logging('console'); structlog.get_logger().info('serving', port=50051)"
    )
    with (tmp_path / "server.log").open("w") as log:
        subprocess.run([sys.executable, "-c", script], stderr=log, check=True, timeout=60)
    written = (tmp_path / "server.log").read_text()
    assert "serving" in written and "port=50051" in written
    assert "\x1b[" not in written, written
