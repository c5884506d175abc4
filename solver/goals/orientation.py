"""Orientation and position+orientation goals."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array, finite_scalar, nonnegative
from ..exceptions import SolverInputError
from .base import C5, Batch, Goal, column, orthonormal_pair, rows, toward

__all__ = ["Orientation", "PositionOrientation"]


class Orientation(Goal):
    """Match the effector's axes to ``x`` and ``y``.

    ``P = c_dx²‖x_e − x_g‖² + c_dy²‖y_e − y_g‖²``; ``∂P/∂x_e = 2c_dx²(x_e − x_g)``,
    ``∂P/∂y_e = 2c_dy²(y_e − y_g)``. A weight of 0 frees that direction (Zhao & Badler 1994:
    a palm normal held level while the hand turns about it).

    Args:
        x: Goal x axis x_g in world, unit, shape (3,).
        y: Goal y axis y_g in world, unit and orthogonal to x, shape (3,).
        c_dx: Weight of the x axis, ≥ 0 (see :func:`solver.goals.commensurate`).
        c_dy: Weight of the y axis, ≥ 0.
    """

    __slots__ = ("c_dx", "c_dy", "x", "y")

    def __init__(self, x: ArrayLike, y: ArrayLike, c_dx: float = C5, c_dy: float = C5) -> None:
        self.x, self.y = orthonormal_pair(x, y, "Orientation goal")
        self.c_dx = nonnegative(c_dx, "Orientation goal c_dx")
        self.c_dy = nonnegative(c_dy, "Orientation goal c_dy")

    def curvature(self) -> tuple[float, float, float]:
        """See :meth:`Goal.curvature`."""
        return (0.0, 2.0 * self.c_dx**2, 2.0 * self.c_dy**2)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        own = [g for g in goals if isinstance(g, Orientation)]
        return _orientation_batch(own, [1.0] * len(own), None, [0.0] * len(own))

    def __repr__(self) -> str:
        return f"Orientation(x={self.x.tolist()}, y={self.y.tolist()})"


class PositionOrientation(Goal):
    """Weighted sum ``w_p·‖r − p‖² + (1 − w_p)·Orientation``.

    Args:
        point: Goal point p, shape (3,).
        x: Goal x axis, unit, shape (3,).
        y: Goal y axis, unit and orthogonal to x, shape (3,).
        w_position: Weight w_p ∈ [0, 1] of the position term; the orientation term
            weighs ``1 − w_p``.
        c_dx: Weight of the x axis, ≥ 0.
        c_dy: Weight of the y axis, ≥ 0.
    """

    __slots__ = ("orientation", "point", "w_orientation", "w_position")

    def __init__(
        self,
        point: ArrayLike,
        x: ArrayLike,
        y: ArrayLike,
        w_position: float = 0.5,
        c_dx: float = C5,
        c_dy: float = C5,
    ) -> None:
        self.point: FloatArray = finite_array(point, "PositionOrientation goal point", (3,))
        self.orientation = Orientation(x, y, c_dx, c_dy)
        weight = finite_scalar(w_position, "PositionOrientation goal w_position")
        if not 0.0 <= weight <= 1.0:
            raise SolverInputError(
                f"PositionOrientation goal: w_position must be in [0, 1], got {weight}"
            )
        self.w_position = weight
        self.w_orientation = 1.0 - weight

    def reach_margin(self, centre: FloatArray, radius: float) -> float:
        """See :meth:`Goal.reach_margin`: the point's, when the position counts."""
        if self.w_position == 0.0:
            return math.inf
        return radius - float(np.linalg.norm(self.point - centre))

    def within(self, centre: FloatArray, radius: float) -> Goal:
        """See :meth:`Goal.within`: the point, moved toward the centre, when it counts."""
        point = toward(self.point, centre, radius)
        if self.w_position == 0.0 or point is self.point:
            return self
        moved = copy.copy(self)
        moved.point = point
        return moved

    def curvature(self) -> tuple[float, float, float]:
        """See :meth:`Goal.curvature`."""
        _, x, y = self.orientation.curvature()
        return (2.0 * self.w_position, self.w_orientation * x, self.w_orientation * y)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        own = [g for g in goals if isinstance(g, PositionOrientation)]
        return _orientation_batch(
            [g.orientation for g in own],
            [g.w_orientation for g in own],
            rows([g.point for g in own]),
            [g.w_position for g in own],
        )

    def __repr__(self) -> str:
        return f"PositionOrientation({self.point.tolist()}, w_position={self.w_position})"


def _orientation_batch(
    goals: Sequence[Orientation],
    w_orientation: Sequence[float],
    target: FloatArray | None,
    w_position: Sequence[float],
) -> Batch:
    goal_x = rows([g.x for g in goals])
    goal_y = rows([g.y for g in goals])
    wo = column(w_orientation)
    wx = wo * column([g.c_dx**2 for g in goals])
    wy = wo * column([g.c_dy**2 for g in goals])
    wp = column(w_position)

    def batch(
        points: FloatArray, x: FloatArray, y: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        dx = x - goal_x
        dy = y - goal_y
        value = (wx * dx * dx + wy * dy * dy).sum(axis=1)
        if target is None:
            d_point = 0.0 * points
        else:
            delta = points - target
            value += (wp * delta * delta).sum(axis=1)
            d_point = (2.0 * wp) * delta
        return value, d_point, (2.0 * wx) * dx, (2.0 * wy) * dy

    return batch
