"""The solve's share of an interactive event's time budget (a drag event, a live update).

The user's *Time budget* is what an event may take; the solve gets it less what the
rest of the event took lately (reading the goals, writing and judging the pose, for a
drag the viewport's redraw), when *Adaptive* is on, but never less than a quarter of it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MIN_BUDGET_SHARE", "SMOOTHING", "EventBudget"]

MIN_BUDGET_SHARE = 0.25
"""The adaptive budget never falls below this share of the user's time budget."""

SMOOTHING = 0.3
"""Weight of the newest measurement in the running averages."""


class EventBudget:
    """Running averages of an event's time outside its solve, and the solve's limit.

    Attributes:
        overhead: The event's time outside the solve [s], averaged.
        redraw: The viewport's redraw after an event [s], averaged.
    """

    def __init__(self) -> None:
        self.overhead = 0.0
        self.redraw = 0.0

    def limit(self, settings: Any) -> float:
        """The solve's time limit for the next event [s] (``settings``: ``Object.reach``)."""
        budget = float(settings.time_budget)
        if not settings.adaptive:
            return budget
        return max(budget - self.overhead - self.redraw, MIN_BUDGET_SHARE * budget)

    def note_event(self, seconds: float, solve_seconds: float) -> None:
        """Fold an event's time outside its solve into the average."""
        self.overhead = _average(self.overhead, seconds - solve_seconds)

    def note_redraw(self, seconds: float) -> None:
        """Fold a measured viewport redraw time into the average."""
        self.redraw = _average(self.redraw, seconds)


def _average(mean: float, value: float) -> float:
    return (1.0 - SMOOTHING) * mean + SMOOTHING * max(value, 0.0)
