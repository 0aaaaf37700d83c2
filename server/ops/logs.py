"""structlog set-up: JSON lines for machines or a console renderer for people.

Log lines carry game ids, bot names and outcomes; never tokens, hands, the deck or a seed before the
game reveals it. Lines a client sets off with each message go through ``SAMPLED``: a flood of messages
writes a few lines a second, each saying how many like it were left out.
"""

from __future__ import annotations

import logging
import sys
import time
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
