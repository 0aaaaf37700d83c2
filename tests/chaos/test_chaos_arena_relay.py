"""The chaos suite's short profile of issue 33's floods: every Arena call in turn (item 5) and wrong-token
hellos at a replica's relay port (item 6), each beside honest bots, against one real ``conquest serve``
that listens as a replica's relay too (tests/support/chaos_arena_relay.py). The full run is ``make chaos``
(benchmarks/chaos.py), with longer floods, one server each.
"""

from __future__ import annotations

from collections.abc import Iterator

import chaos_arena_relay as floods
import pytest
from chaos import ChaosServer, held_within

PER_CALL_S = 0.75
"""Each Arena call's flood, in seconds (the full run: 6)."""
RELAY_S = 5.0
"""The relay flood, in seconds (the full run: the issue's 41)."""
RELAY_PER_S = 500
"""Wrong hellos a second, about the issue's (16,000 lines of 4 KB in 41 s). The full run sends them as fast
as they are refused, 2,000-3,000 a second: its flooding process takes a core, which on the 2-core machine
of a test run is the honest bots' time as much as the server's."""
LIMIT_S = 60
"""Longest a flood of the short profile may take on a loaded machine."""


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChaosServer]:
    """One server listening as a replica's relay too, for both floods (each leaves it as it was)."""
    running = floods.relay_replica(tmp_path_factory.mktemp("chaos-arena-relay")).start()
    try:
        yield running
    finally:
        running.stop()


held = held_within(LIMIT_S)


async def test_a_flood_of_each_arena_call_is_held_to_the_bucket_and_costs_honest_bots_nothing(
    replica: ChaosServer,
):
    """Issue 33, item 5: "`ListLiveGames` is the one Arena call without a rate limit: 1,344 calls a second
    took the server from 0.45 to 0.79 of a core and honest bots missed 5 deadlines"."""
    flood = floods.arena_flood_per_call(replica, seconds=PER_CALL_S, callers=16, calls_per_run=16)
    await held(flood)


async def test_wrong_token_relay_hellos_write_a_line_now_and_then(replica: ChaosServer):
    """Issue 33, item 6: "wrong-token hellos grew the log by 65 MiB in 41 s (~5.7 GB an hour)"."""
    await held(floods.relay_log_flood(replica, seconds=RELAY_S, connections=8, per_second=RELAY_PER_S))
