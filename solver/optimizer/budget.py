"""What the step methods share: their stops and budget, and the descent they return."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray
from ..result import Descent, Status

__all__ = ["Budget", "Reporter", "finished"]

Reporter = Callable[[FloatArray, float], None]
"""Called with (φ, G_all / w) at every iterate."""


@dataclass(frozen=True)
class Budget:
    """A descent's stops.

    Attributes:
        tolerance: The method's stop test (see each); G_all / w at most this counts
            as met.
        max_iterations: Most steps.
        deadline: ``time.perf_counter()`` value to stop at (None: none), checked once a
            first step has been taken.
        goal_value: Stop when G_all / w is at most this (None: never).
    """

    tolerance: float
    max_iterations: int
    deadline: float | None
    goal_value: float | None

    def met(self, value: float) -> bool:
        """Whether G_all / w = ``value`` meets the goals."""
        return value <= self.tolerance or (self.goal_value is not None and value <= self.goal_value)

    def check(self, value: float, iterations: int) -> tuple[Status, str] | None:
        """How to stop at G_all / w = ``value`` after ``iterations`` steps, or None."""
        if self.met(value):
            return Status.CONVERGED, "the goals are met"
        spent = self.spent(iterations)
        return None if spent is None else (spent, "")

    def spent(self, iterations: int) -> Status | None:
        """The status to stop with after ``iterations`` steps, or None to go on."""
        if iterations >= self.max_iterations:
            return Status.MAX_ITERATIONS
        if self.deadline is not None and iterations and time.perf_counter() >= self.deadline:
            return Status.TIME_LIMIT
        return None


def finished(
    phi: FloatArray,
    value: float,
    status: Status,
    detail: str,
    counts: tuple[int, int],
    gradient: FloatArray | None = None,
    projected: float = 0.0,
) -> Descent:
    """The :class:`Descent` of a step method (its active rows are found afterwards).

    Args:
        phi: The last iterate.
        value: G_all / w there.
        status: How it ended.
        detail: The message's detail.
        counts: (iterations, evaluations).
        gradient: The last gradient (zeros when the method has none).
        projected: The last projected gradient's size, if the method has one.
    """
    return Descent(
        phi=phi,
        value=value,
        gradient=np.zeros(phi.shape) if gradient is None else gradient,
        status=status,
        message=status.message(detail),
        iterations=counts[0],
        evaluations=counts[1],
        active=(),
        projected_gradient=projected,
        multipliers=np.zeros(0),
    )
