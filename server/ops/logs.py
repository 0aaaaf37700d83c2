"""structlog set-up: JSON lines for machines or a console renderer for people.

Log lines carry game ids, bot names and outcomes; never tokens, hands, the deck or a seed before the
game reveals it.
"""

from __future__ import annotations

import logging
import sys

import structlog

from server.ops.config import LOG_FORMATS


def configure_logging(log_format: str, level: int = logging.INFO) -> None:
    """Route structlog to stderr in ``log_format`` ("console" or "json")."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format {log_format!r} is not one of: {', '.join(LOG_FORMATS)}")
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if log_format == "json" else structlog.dev.ConsoleRenderer()
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
        cache_logger_on_first_use=True,
    )
