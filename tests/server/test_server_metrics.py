"""Metrics over HTTP after a real game (issue 6: "the metrics endpoint exposes each documented metric
after a game")."""

from __future__ import annotations

import asyncio
import bisect
import random
import re
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from raw_client import seat_three
from server_support import FAST

from engine import Claim
from server.ops.histogram import bucket
from server.ops.metrics import Metrics
from server.play.clock import SeatClock
from server.play.seats import RemoteSeat
from server.records import ROUND_TRIP_BUCKETS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        return response.read().decode()


def _sample(text: str, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    raise AssertionError(f"no sample {name}{labels} in /metrics")


async def test_metrics_endpoint_exposes_every_documented_metric_after_a_game(start_server) -> None:
    server = await start_server()
    http = server.lobby.metrics.serve(0, "127.0.0.1")
    try:
        bots, started = await seat_three(server)
        first = bots[started[0].observation.to_act]
        request = (await first.expect("decision_request")).decision_request
        first.decide(request, Claim(99))  # malformed: a rejection to count
        await first.expect("decision_rejected")
        first.decide(request, Claim(request.legal.claim[0]))
        results = await asyncio.gather(*(b.play_until_over(random.Random(i)) for i, b in enumerate(bots)))
        text = await asyncio.to_thread(_scrape, http.server_port)
    finally:
        http.shutdown()

    documented = re.findall(r"^\| `(conquest_[a-z_]+)`", DOCS.read_text(), flags=re.MULTILINE)
    assert len(documented) == 27  # the newest: replay_dir_up
    for name in documented:
        assert f"# HELP {name} " in text, f"{name} is documented in docs/metrics.md but not exported"
    exported = set(re.findall(r"^# HELP (conquest_[a-z_]+) ", text, flags=re.MULTILINE))
    assert exported == set(documented), "every exported metric is documented"

    # The bots stay in the queue, so a second game may already have started when we scrape.
    started = _sample(text, "conquest_games_started_total", queue="classic-3")
    assert started in (1, 2)
    assert _sample(text, "conquest_games_finished_total", queue="classic-3", outcome=results[0].reason) == 1
    assert _sample(text, "conquest_games_in_progress", queue="classic-3") == started - 1
    assert _sample(text, "conquest_queue_wait_seconds_count", queue="classic-3") == 3 * started
    assert _sample(text, "conquest_decision_rejections_total", reason="malformed") == 1
    assert _sample(text, "conquest_bots_connected") == 3
    assert _sample(text, "conquest_decision_round_trip_seconds_count", phase="setup_claim") >= 42
    assert _sample(text, "conquest_engine_step_seconds_count") > 42
    assert _sample(text, "conquest_database_up") == 1 and _sample(text, "conquest_results_pending") == 0


def test_a_seats_round_trips_fall_in_the_prometheus_buckets() -> None:
    """Issue 8, Bot page: "decision-latency histogram by phase" — per seat, in the same buckets as the
    conquest_decision_round_trip_seconds histogram: a round trip on a bound counts in that bound's bucket,
    one above the last bound in the extra last bucket."""
    metrics = Metrics()
    seat = RemoteSeat("alice", "alice", None, SeatClock.start(FAST))
    trips = [0.0001, 0.0005, 0.00051, 0.004, 0.005, 1.0, 29.9, 30.0, 31.0, 120.0]
    for seconds in trips:
        metrics.decision_round_trip.labels("attack").observe(seconds)
        seat.record_round_trip("attack", seconds)
    seat.record_round_trip("fortify", 0.2)
    counts = seat.round_trips["attack"]
    assert len(counts) == len(ROUND_TRIP_BUCKETS) + 1 and sum(counts) == len(trips)
    registry = metrics.registry
    for i, bound in enumerate(ROUND_TRIP_BUCKETS):
        cumulative = registry.get_sample_value(
            "conquest_decision_round_trip_seconds_bucket", {"phase": "attack", "le": str(float(bound))}
        )
        assert sum(counts[: i + 1]) == cumulative, f"bucket <= {bound} s"
    assert counts[-1] == 2  # 31 s and 120 s
    assert seat.round_trips["fortify"] == [
        int(i == ROUND_TRIP_BUCKETS.index(0.25)) for i in range(len(counts))
    ]


def test_the_per_decision_histograms_export_count_sum_and_inf_as_prometheus_histograms() -> None:
    """docs/metrics.md: conquest_engine_step_seconds and conquest_decision_round_trip_seconds are
    histograms (counted in server.histogram.Buckets, exported when scraped): _bucket up to +Inf, _count,
    _sum; a scrape in the middle sees what was observed so far."""
    metrics = Metrics()
    registry = metrics.registry
    assert registry.get_sample_value("conquest_engine_step_seconds_count") == 0, "exported before any step"
    steps = [0.000004, 0.00003, 0.02]  # the last is above every bound
    for seconds in steps:
        metrics.engine_step.observe(seconds)
    assert registry.get_sample_value("conquest_engine_step_seconds_count") == 3
    assert registry.get_sample_value("conquest_engine_step_seconds_sum") == sum(steps)
    assert registry.get_sample_value("conquest_engine_step_seconds_bucket", {"le": "1e-05"}) == 1
    assert registry.get_sample_value("conquest_engine_step_seconds_bucket", {"le": "0.01"}) == 2
    assert registry.get_sample_value("conquest_engine_step_seconds_bucket", {"le": "+Inf"}) == 3
    metrics.decision_round_trip.labels("attack").observe(0.003)
    metrics.decision_round_trip.labels("fortify").observe(40.0)
    for phase, seconds in (("attack", 0.003), ("fortify", 40.0)):
        labels = {"phase": phase}
        assert registry.get_sample_value("conquest_decision_round_trip_seconds_count", labels) == 1
        assert registry.get_sample_value("conquest_decision_round_trip_seconds_sum", labels) == seconds
    assert (
        registry.get_sample_value(
            "conquest_decision_round_trip_seconds_bucket", {"phase": "fortify", "le": "30.0"}
        )
        == 0
    )
    with pytest.raises(ValueError, match="takes labels"):
        metrics.decision_round_trip.labels("attack", "extra")


def test_a_value_falls_in_the_first_bucket_whose_bound_it_does_not_exceed() -> None:
    """Prometheus's `le` buckets: a value on a bound counts in that bound's bucket; above the last, in
    the extra one. Checked on the bounds themselves, between them and beyond them."""
    bounds = ROUND_TRIP_BUCKETS
    values = [0.0, *bounds, *(b * 1.0001 for b in bounds), *(b * 0.9999 for b in bounds), 1e9]
    for value in values:
        assert bucket(bounds, value) == bisect.bisect_left(bounds, value), value
    assert bucket(bounds, bounds[3]) == 3 and bucket(bounds, bounds[-1] * 2) == len(bounds)
