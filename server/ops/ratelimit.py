"""Token buckets by client: the rate limit the dashboard's HTTP requests and the Arena API's calls pass.

A client (its address) has a bucket of ``burst`` tokens, refilled at ``rate`` a second; a request takes
its cost in tokens, or is refused with the seconds to wait; work found dearer once done can be charged
after it (``charge``). Buckets of clients gone idle are forgotten past ``MAX_CLIENTS``, so a flood from
many addresses costs bounded memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_CLIENTS = 10_000
"""Buckets kept; past it the idle (full) ones are forgotten."""


@dataclass
class RateLimit:
    """Token buckets by client address. ``clock`` is seconds from any origin (monotonic)."""

    rate: float
    """Requests a second a client may keep up (tokens refilled a second)."""
    burst: int
    """Requests a client may make at once."""
    clock: Callable[[], float] = time.monotonic
    buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    """address -> (tokens, when they were counted)."""

    def take(self, client: str, cost: int = 1) -> float:
        """Take ``cost`` tokens of ``client``'s bucket: 0 when they were there, else the seconds to wait
        before they will be (nothing taken)."""
        now = self.clock()
        tokens, then = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < cost:
            self.buckets[client] = (tokens, now)
            return (cost - tokens) / self.rate
        if client not in self.buckets and len(self.buckets) >= MAX_CLIENTS:
            self._forget_idle(now)
        self.buckets[client] = (tokens - cost, now)
        return 0.0

    def charge(self, client: str, cost: float) -> None:
        """Take ``cost`` more tokens of ``client``'s bucket, for work found dearer than its price once done:
        the bucket may go below empty, and the client's next calls wait until it has filled again."""
        now = self.clock()
        tokens, then = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        self.buckets[client] = (tokens - cost, now)

    def _forget_idle(self, now: float) -> None:
        full = [c for c, (t, then) in self.buckets.items() if t + (now - then) * self.rate >= self.burst]
        for client in full or list(self.buckets)[: len(self.buckets) // 2]:
            del self.buckets[client]
