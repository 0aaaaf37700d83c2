"""A seat's chess clock: a base time per decision plus a timebank with a capped increment.

Pure: the runner passes in the milliseconds it measured, so the rules of the clock test without waiting.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.ops.config import TimeControl


@dataclass(slots=True)
class SeatClock:
    """The time control's numbers are copied in (``start``): read for every decision, an attribute of this
    compiled class costs next to nothing, one of a TimeControl (a Python dataclass) ~160 instructions."""

    first_decision_ms: int
    decision_ms: int
    defend_decision_ms: int
    increment_ms: int
    max_timebank_ms: int
    timebank_ms: int
    decisions: int = 0
    """Decisions charged so far (the first one gets ``first_decision_ms``)."""
    defending: bool = False
    """The next decision chooses defence dice: it gets ``defend_decision_ms`` (set by the runner)."""

    @staticmethod
    def start(control: TimeControl) -> SeatClock:
        return SeatClock(
            control.first_decision_ms,
            control.decision_ms,
            control.defend_decision_ms,
            control.increment_ms,
            control.max_timebank_ms,
            control.initial_timebank_ms,
        )

    def time_allowed_ms(self) -> int:
        """Time for the next decision before the timebank is touched."""
        if self.defending:
            return self.defend_decision_ms
        return self.first_decision_ms if self.decisions == 0 else self.decision_ms

    def budget_ms(self) -> int:
        """Longest the next decision may take: its allowance plus the whole timebank."""
        return self.time_allowed_ms() + self.timebank_ms

    def charge(self, used_ms: int) -> None:
        """Book a decision that took ``used_ms``: time over the allowance comes out of the timebank
        (never below zero; a timeout charges the whole budget), then the increment is added up to the cap.
        """
        over = max(0, used_ms - self.time_allowed_ms())
        left = max(0, self.timebank_ms - over)
        # The cap limits what the increment adds; it never takes away a larger initial timebank.
        self.timebank_ms = max(left, min(self.max_timebank_ms, left + self.increment_ms))
        self.decisions += 1
