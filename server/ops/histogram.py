"""Bucket counts for the histograms observed on every decision (round trips, engine steps).

``server.ops.metrics`` exports them as Prometheus histograms when ``/metrics`` is scraped. prometheus-client's
own ``Histogram`` takes a lock and runs ~0.8 us of Python per observation, which is right for a metric
observed now and then but not for two per decision on the event loop's one thread; this counts in a list.
"""

from __future__ import annotations


def bucket(bounds: tuple[float, ...], value: float) -> int:
    """The index of the bucket ``value`` falls in, as Prometheus counts it (the first bound it does not
    exceed); ``len(bounds)`` for a value above the last bound. A compiled scan of a dozen floats: cheaper
    than calling ``bisect`` (a Python call comparing boxed floats), and most values fall in the first few."""
    for index, bound in enumerate(bounds):
        if value <= bound:
            return index
    return len(bounds)


class Buckets:
    """Observations counted per bucket of ``bounds``, and their sum. One thread observes (the event loop);
    a scrape reads a copy of ``counts``, so at worst it misses the observation being made."""

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        """Per bucket, not cumulative: the last counts the values above the last bound."""
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bucket(self.bounds, value)] += 1
        self.sum += value
