"""The chaos suite's short profile, the dashboard's attacks of issue 33 (items 2, 3 and 4): each against one
real ``conquest serve`` (tests/support/chaos.py) beside honest bots, with the bar of the other rows. The
full run is ``make chaos`` (benchmarks/chaos.py), with the issue's own sizes; the attacks are
tests/support/chaos_dashboard.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import chaos_dashboard as attacks
import pytest
from chaos import ChaosServer, held_within

LIMIT_S = 90
"""Longest an attack of the short profile may take on a loaded machine."""
REQUEST_TIMEOUT_S = 3.0
"""The short profile's request deadline (``server.dashboard_request_timeout_ms``; the full run keeps the
default, ``server.web.limits.REQUEST_TIMEOUT_S``): the slowloris attack lasts as long as it, twice over."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChaosServer]:
    """One server for the three attacks: each leaves it as it was (its connections closed, its streams
    ended; the rate limit's buckets drained are those of the attacker's own addresses)."""
    with pytest.MonkeyPatch.context() as environment:  # conquest serve reads it at start
        environment.setenv("CONQUEST_SERVER_DASHBOARD_REQUEST_TIMEOUT_MS", str(int(REQUEST_TIMEOUT_S * 1000)))
        running = ChaosServer(tmp_path_factory.mktemp("chaos-dashboard")).start()
    try:
        yield running
    finally:
        running.stop()


held = held_within(LIMIT_S)


async def test_item_2_one_address_cannot_hoard_the_live_views(server: ChaosServer) -> None:
    """Issue 33, item 2: "One address can take all 200 live-view slots of the dashboard (`/watch` SSE, never
    reading); every other visitor gets 503"."""
    await held(attacks.item_2_hoarded_live_views(server, count=40, seconds=6))


async def test_item_3_slow_and_silent_connections_are_cut_and_visitors_served(server: ChaosServer) -> None:
    """Issue 33, item 3: "800 slowloris connections (headers at one byte a second) and 2,000 silent ones were
    held for good; at the 20,000 open-file limit it answered no visitor for ~40 s and logged nothing"."""
    attack = attacks.item_3_slow_and_silent_connections(
        server, slow=80, silent=200, sources=10, crowd=64, request_timeout_s=REQUEST_TIMEOUT_S
    )
    await held(attack)


async def test_item_4_a_forwarded_for_header_chooses_no_bucket(server: ChaosServer) -> None:
    """Issue 33, item 4: "`X-Forwarded-For` from `::1` chooses the rate-limit bucket: 120 of 120 requests
    and 60 of 60 heavy odds requests answered where ~60 and 12 should be"."""
    await held(attacks.item_4_forwarded_for(server, clients=4, seconds=5))
