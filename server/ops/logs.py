"""structlog set-up: JSON lines for machines or a console renderer for people.

Log lines carry game ids, bot names and outcomes; never tokens, hands, the deck or a seed before the
game reveals it. Lines a client sets off with each message go through ``SAMPLED``: a flood of messages
writes a few lines a second, each saying how many like it were left out. Lines set off by peers that showed
no secret go through a ``PerPeer``: one line per address now and then, however fast they come.
"""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import structlog

from server.ops.config import LOG_FORMATS


def configure_logging(log_format: str, level: int = logging.INFO) -> None:
    """Route structlog to stderr in ``log_format`` ("console" or "json")."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format {log_format!r} is not one of: {', '.join(LOG_FORMATS)}")
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())  # no escape codes in a redirected file
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        # Not cached on first use: a cached logger keeps the configuration of its first line, which a
        # later configure_logging (another command in the same process) would not reach. Lines are few
        # (per game, and sampled per message), so the lookup per line costs nothing that shows.
        cache_logger_on_first_use=False,
    )


class Sampled:
    """Log lines a client's messages set off (a JoinQueue, a rejected Decision): at most ``per_s`` lines of
    one event a second, the rest counted and not written; the next line written says how many of its
    event were left out (``suppressed``). One flooding client then costs a few lines a second, not a line
    per message."""

    def __init__(self, per_s: int = 20) -> None:
        self.per_s = per_s
        self._seconds: dict[str, tuple[int, int, int]] = {}
        """event -> (the second, lines written in it, lines left out since the last one written)."""

    def info(self, logger: Any, event: str, **fields: Any) -> None:
        """``logger.info(event, **fields)`` unless ``per_s`` lines of ``event`` were written this second."""
        second = int(time.monotonic())
        then, written, suppressed = self._seconds.get(event, (second, 0, 0))
        if then != second:
            written = 0
        if written >= self.per_s:
            self._seconds[event] = (second, written, suppressed + 1)
            return
        self._seconds[event] = (second, written + 1, 0)
        if suppressed:
            fields["suppressed"] = suppressed
        logger.info(event, **fields)


SAMPLED = Sampled()
"""The one sampler of the server's per-message log lines."""


class PerPeer:
    """Log lines that peers who showed no secret set off (a relay connection refused): at most one line per
    peer address every ``every_s`` seconds, for at most ``peers`` addresses at a time; the address's next
    line says how many of its lines were left out (``suppressed``). Past ``peers`` addresses, the rest
    share one line (peer ``others``). However fast a flood comes, and from however many addresses, it
    writes at most ``peers + 1`` lines every ``every_s`` seconds; its full count is the caller's metric."""

    OTHERS = "others"
    """The peer of the line the addresses past ``peers`` share."""

    def __init__(self, every_s: float, peers: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.peers = peers
        self.clock = clock
        self._peers: dict[str, tuple[float, int]] = {}
        """address -> (when its last line was written, its lines left out since)."""
        self._others = (-math.inf, 0)
        """The same, for the addresses past ``peers``."""

    def warning(self, logger: Any, event: str, address: str, **fields: Any) -> None:
        """``logger.warning(event, **fields)``, unless ``address`` had a line in the last ``every_s``."""
        now = self.clock()
        if address not in self._peers and len(self._peers) >= self.peers:
            self._forget(now)
        others = address not in self._peers and len(self._peers) >= self.peers
        written_at, suppressed = self._others if others else self._peers.get(address, (-math.inf, 0))
        if now - written_at < self.every_s:
            kept = (written_at, suppressed + 1)
        else:
            kept = (now, 0)
            if others:
                fields["peer"] = self.OTHERS
            if suppressed:
                fields["suppressed"] = suppressed
            logger.warning(event, **fields)
        if others:
            self._others = kept
        else:
            self._peers[address] = kept

    def _forget(self, now: float) -> None:
        """Drop the addresses whose last line is ``every_s`` old (what they left out since is not told:
        the caller's metric counts it)."""
        for address in [a for a, (at, _) in self._peers.items() if now - at >= self.every_s]:
            del self._peers[address]
