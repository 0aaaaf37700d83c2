"""What the server tests' games are played with: short deadlines and small turn caps, so games finish fast."""

from __future__ import annotations

from live_server import no_timebank

from engine import preset
from server.ops.config import QueueConfig, TimeControl

FAST = no_timebank(2000)


def short_queues(control: TimeControl = FAST) -> tuple[QueueConfig, ...]:
    """Three- and two-player classic games capped at 12 turns, and a longer three-player one (40)."""
    return (
        QueueConfig("classic-3", preset("classic", turn_cap=12), 3, control),
        QueueConfig("classic-2", preset("classic_two_player", turn_cap=12), 2, control),
        QueueConfig("classic-long-3", preset("classic", turn_cap=40), 3, control),
    )
