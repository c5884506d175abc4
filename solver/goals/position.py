"""Position goal: P = ‖r − p‖²."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array
from .base import Batch, Goal, HessianBatch, rows, toward

__all__ = ["Position"]


class Position(Goal):
    """Bring the effector point to ``point``: ``P = ‖r − p‖²``, ``∂P/∂r = 2(r − p)``.

    Args:
        point: Goal point p in world, shape (3,).
    """

    __slots__ = ("point",)

    def __init__(self, point: ArrayLike) -> None:
        self.point: FloatArray = finite_array(point, "Position goal point", (3,))

    def reach_margin(self, centre: FloatArray, radius: float) -> float:
        """See :meth:`Goal.reach_margin`: the point's distance inside the ball."""
        return radius - float(np.linalg.norm(self.point - centre))

    def within(self, centre: FloatArray, radius: float) -> Goal:
        """See :meth:`Goal.within`: the point, moved toward the centre."""
        point = toward(self.point, centre, radius)
        return self if point is self.point else Position(point)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        target = rows([g.point for g in goals if isinstance(g, Position)])

        def batch(
            points: FloatArray, x: FloatArray, y: FloatArray
        ) -> tuple[FloatArray, FloatArray, None, None]:
            delta = points - target
            return (delta * delta).sum(axis=1), 2.0 * delta, None, None

        return batch

    @classmethod
    def stack_hessian(cls, goals: Sequence[Goal]) -> HessianBatch:
        """See :meth:`Goal.stack_hessian`: exactly ``2 I`` over r, nothing over the axes."""
        hessian = np.zeros((len(goals), 9, 9))
        hessian[:, np.arange(3), np.arange(3)] = 2.0

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            return hessian

        return batch

    def __repr__(self) -> str:
        return f"Position({self.point.tolist()})"
