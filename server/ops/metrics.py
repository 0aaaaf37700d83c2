"""Prometheus metrics: every metric the server exports, in one place.

Names follow Prometheus conventions: the ``conquest_`` prefix, base units (seconds), ``_total`` on
counters. Labels are bounded: queue names come from the server's configuration, phases and reasons from
closed sets in the code. There are no per-bot labels, because practice mode lets any number of names
connect; per-bot figures live in the database and the dashboard instead.

Each server owns a ``Metrics`` with its own registry, so several servers (tests) never share counters.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.utils import floatToGoString

from server.ops.histogram import Buckets
from server.records import ROUND_TRIP_BUCKETS, ClusterCounts

# The `_created` timestamp series double the series count and no dashboard reads them.
disable_created_metrics()  # type: ignore[no-untyped-call]  # untyped in prometheus-client

_ENGINE_BUCKETS = (0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01)
_WAIT_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
_DB_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)


class DecisionHistogram:
    """A Prometheus histogram observed on every decision: each label set counts in a ``Buckets``
    (server.histogram says why), exported in the histogram's exposition format when scraped."""

    def __init__(
        self,
        name: str,
        documentation: str,
        bounds: tuple[float, ...],
        registry: CollectorRegistry,
        label_names: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = bounds
        self.label_names = label_names
        self._children: dict[tuple[str, ...], Buckets] = {} if label_names else {(): Buckets(bounds)}
        registry.register(self)

    def labels(self, *values: str) -> Buckets:
        """The counts of one label set (made on first use, like prometheus-client's ``labels``)."""
        child = self._children.get(values)
        if child is None:
            if len(values) != len(self.label_names):
                raise ValueError(f"{self.name} takes labels {self.label_names}, got {values}")
            child = self._children[values] = Buckets(self.bounds)
        return child

    def observe(self, value: float) -> None:
        """Observe on a histogram without labels."""
        self._children[()].observe(value)

    def describe(self) -> Iterator[HistogramMetricFamily]:
        yield HistogramMetricFamily(self.name, self.documentation, labels=self.label_names)

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(self.name, self.documentation, labels=self.label_names)
        bounds = [*map(floatToGoString, self.bounds), "+Inf"]
        for values, child in list(self._children.items()):
            cumulative = accumulate(list(child.counts))
            family.add_metric(values, list(zip(bounds, cumulative, strict=True)), child.sum)
        yield family


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.bots_connected = Gauge(
            "conquest_bots_connected", "Bot sessions currently connected.", registry=r
        )
        self.queue_depth = Gauge("conquest_queue_depth", "Bots waiting in a queue.", ["queue"], registry=r)
        self.queue_wait = Histogram(
            "conquest_queue_wait_seconds",
            "Time a bot waited in a queue before being seated.",
            ["queue"],
            buckets=_WAIT_BUCKETS,
            registry=r,
        )
        self.games_started = Counter("conquest_games_started_total", "Games started.", ["queue"], registry=r)
        self.games_finished = Counter(
            "conquest_games_finished_total",
            "Games finished, by how they ended (conquest, turn_cap, shutdown).",
            ["queue", "outcome"],
            registry=r,
        )
        self.games_in_progress = Gauge(
            "conquest_games_in_progress", "Games being played now.", ["queue"], registry=r
        )
        self.decision_round_trip = DecisionHistogram(
            "conquest_decision_round_trip_seconds",
            "Time from sending a DecisionRequest to receiving its Decision, by phase.",
            ROUND_TRIP_BUCKETS,
            r,
            label_names=("phase",),
        )
        self.timeouts = Counter(
            "conquest_decision_timeouts_total",
            "Decisions that timed out (default applied).",
            ["queue"],
            registry=r,
        )
        self.rejections = Counter(
            "conquest_decision_rejections_total",
            "Decisions rejected, by reason (malformed, illegal, stale, late, not_your_game, game_over).",
            ["reason"],
            registry=r,
        )
        self.streams_cut = Counter(
            "conquest_streams_cut_total",
            "Streams the server refused or closed to bound its resources, by reason (hello_timeout, "
            "server_busy, too_many_streams, rate_limited, unread, relay_refused, relay_unread).",
            ["reason"],
            registry=r,
        )
        self.forfeits = Counter(
            "conquest_forfeits_total",
            "Seats forfeited, by reason (timeout, disconnect).",
            ["reason"],
            registry=r,
        )
        self.games_taken_over = Counter(
            "conquest_games_taken_over_total",
            "Games this server took over from a server presumed dead (server.takeover).",
            registry=r,
        )
        self.games_handed_over = Counter(
            "conquest_games_handed_over_total",
            "Games this replica handed to the others as it drained on SIGTERM (server.cluster).",
            registry=r,
        )
        self.replicas_alive = Gauge(
            "conquest_replicas_alive",
            "Servers on this database not presumed dead, this one included, at its last heartbeat "
            "(server.takeover; 0 without it).",
            registry=r,
        )
        self.lease_holder = Gauge(
            "conquest_lease_holder",
            "1 while this replica holds the cluster's matchmaker lease, else 0 (server.cluster).",
            registry=r,
        )
        self.relayed_decisions = Counter(
            "conquest_relayed_decisions_total",
            "Decisions of bots connected to another replica, played here through the relay (server.cluster).",
            registry=r,
        )
        self.relayed_spectators = Gauge(
            "conquest_relayed_spectators",
            "WatchGame streams relayed between replicas now (server.cluster): side=hosted, this replica's "
            "games streamed to spectators on other replicas; side=elsewhere, this replica's spectators of "
            "games hosted elsewhere.",
            ["side"],
            registry=r,
        )
        self.relayed_decisions_sent = Counter(
            "conquest_relayed_decisions_sent_total",
            "Decisions of bots connected here, sent through the relay to games another replica hosts "
            "(server.cluster).",
            registry=r,
        )
        self.games_hosted = Gauge(
            "conquest_games_hosted",
            "Games running on this replica, as of its last heartbeat (server.cluster; 0 without it).",
            registry=r,
        )
        self.reconnects = Counter(
            "conquest_reconnects_total", "Bots that reconnected and resumed their seats.", registry=r
        )
        self.dashboard_restarts = Counter(
            "conquest_dashboard_restarts_total",
            "Times the web dashboard's process ended unasked and was started again.",
            registry=r,
        )
        self.engine_step = DecisionHistogram(
            "conquest_engine_step_seconds", "Time the engine took to apply one action.", _ENGINE_BUCKETS, r
        )
        self.database_write = Histogram(
            "conquest_database_write_seconds",
            "Time to write one finished game (result, ratings, replay) in one transaction.",
            buckets=_DB_BUCKETS,
            registry=r,
        )
        self.database_up = Gauge(
            "conquest_database_up",
            "1 while finished games are written to the database (or there is none), 0 while it does not take "
            "them: results wait in replay_dir and no new games are seated.",
            registry=r,
        )
        self.database_up.set(1)
        self.replay_dir_up = Gauge(
            "conquest_replay_dir_up",
            "1 while replay_dir takes files, 0 while it does not (its volume full or failing): finished "
            "games go to the database, their replay files are held in memory and no new games are seated.",
            registry=r,
        )
        self.replay_dir_up.set(1)
        self.results_pending = Gauge(
            "conquest_results_pending",
            "Finished games not yet everywhere they go: kept in replay_dir for the database, or held in "
            "memory for replay_dir.",
            registry=r,
        )
        self.rating_updates = Counter(
            "conquest_rating_updates_total", "Rating updates written, by queue.", ["queue"], registry=r
        )

    def serve(self, port: int, address: str = "0.0.0.0") -> WSGIServer:
        """Serve ``/metrics`` over HTTP on ``port`` (0: any free port) in a background thread.

        Returns the HTTP server: its ``server_port`` is the bound port; ``shutdown()`` stops it.
        """
        http_server, _ = start_http_server(port, addr=address, registry=self.registry)
        return http_server

    def cluster_counts(self) -> ClusterCounts:
        """This process's counts of what it did for the other replicas, which its heartbeat writes into
        the replica registry (where they outlive the process: docs/metrics.md, "The cluster's totals")."""
        return ClusterCounts(
            _count(self.games_handed_over),
            _count(self.games_taken_over),
            _count(self.relayed_decisions),
            _count(self.relayed_decisions_sent),
        )

    def names(self) -> list[str]:
        """Every metric name as ``/metrics`` exposes it, counters with their ``_total`` (for tests and the
        dashboard check)."""
        return sorted(m.name + "_total" if m.type == "counter" else m.name for m in self.registry.collect())


def _count(counter: Counter) -> int:
    """The value of a counter without labels, read through its public ``collect``."""
    (family,) = counter.collect()
    return int(next(s.value for s in family.samples if s.name.endswith("_total")))
