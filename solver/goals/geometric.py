"""Line, plane and half-space goals on the effector point."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array, unit_vector
from .base import Batch, CurvatureBatch, Goal, rows, toward

__all__ = ["HalfSpace", "Line", "Plane"]


class Line(Goal):
    """Keep the effector point on a line: ``P = ‖(I − ννᵀ)(r − p)‖²``.

    Args:
        point: A point p of the line, shape (3,).
        direction: The line's direction ν (normalised here), shape (3,).
    """

    __slots__ = ("direction", "point")

    def __init__(self, point: ArrayLike, direction: ArrayLike) -> None:
        self.point: FloatArray = finite_array(point, "Line goal point", (3,))
        self.direction = unit_vector(direction, "Line goal direction")

    def reach_margin(self, centre: FloatArray, radius: float) -> float:
        """See :meth:`Goal.reach_margin`: the line's distance from the centre, inside."""
        offset = centre - self.point
        across = offset - (offset @ self.direction) * self.direction
        return radius - float(np.linalg.norm(across))

    def within(self, centre: FloatArray, radius: float) -> Goal:
        """See :meth:`Goal.within`: the line, moved across toward the centre."""
        offset = centre - self.point
        across = offset - (offset @ self.direction) * self.direction
        foot = centre - across
        moved = toward(foot, centre, radius)
        return self if moved is foot else Line(moved, self.direction)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        own = [g for g in goals if isinstance(g, Line)]
        origin = rows([g.point for g in own])
        direction = rows([g.direction for g in own])

        def batch(
            points: FloatArray, x: FloatArray, y: FloatArray
        ) -> tuple[FloatArray, FloatArray, None, None]:
            delta = points - origin
            off = delta - (delta * direction).sum(axis=1, keepdims=True) * direction
            return (off * off).sum(axis=1), 2.0 * off, None, None

        return batch

    @classmethod
    def stack_curvature(cls, goals: Sequence[Goal]) -> CurvatureBatch:
        """See :meth:`Goal.stack_curvature`: ``2(I − ννᵀ)`` on the point.

        Motion along the line is free.
        """
        direction = rows([g.direction for g in goals if isinstance(g, Line)])
        factors = np.zeros((len(direction), 9, 9))
        factors[:, :3, :3] = np.sqrt(2.0) * (np.eye(3) - direction[:, :, None] * direction[:, None])

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            return factors

        return batch

    def __repr__(self) -> str:
        return f"Line({self.point.tolist()}, {self.direction.tolist()})"


class _PointNormal(Goal):
    """A goal on the height ``(r − p)·ν`` of the effector point over a plane."""

    __slots__ = ("normal", "point")
    _ONE_SIDED: ClassVar[bool] = False
    """Whether only negative heights count (a half-space) or both signs (a plane)."""

    def __init__(self, point: ArrayLike, normal: ArrayLike) -> None:
        kind = type(self).__name__
        self.point: FloatArray = finite_array(point, f"{kind} goal point", (3,))
        self.normal = unit_vector(normal, f"{kind} goal normal")

    def reach_margin(self, centre: FloatArray, radius: float) -> float:
        """See :meth:`Goal.reach_margin`: the plane's (or half-space's) depth in the ball.

        A half-space's target set is the side its normal points to, so a centre inside
        adds its height; a plane's is the plane alone.
        """
        height = float((centre - self.point) @ self.normal)
        return radius + height if self._ONE_SIDED else radius - abs(height)

    def within(self, centre: FloatArray, radius: float) -> Goal:
        """See :meth:`Goal.within`: the plane, moved along its normal toward the centre.

        A half-space whose side holds points within ``radius`` of the centre is kept.
        """
        height = float((centre - self.point) @ self.normal)
        reach = -radius if self._ONE_SIDED else math.copysign(radius, height)
        if (height >= -radius) if self._ONE_SIDED else abs(height) <= radius:
            return self
        return type(self)(self.point + (height - reach) * self.normal, self.normal)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        own = [g for g in goals if isinstance(g, cls)]
        origin = rows([g.point for g in own])
        normal = rows([g.normal for g in own])
        one_sided = cls._ONE_SIDED

        def batch(
            points: FloatArray, x: FloatArray, y: FloatArray
        ) -> tuple[FloatArray, FloatArray, None, None]:
            height = ((points - origin) * normal).sum(axis=1, keepdims=True)
            if one_sided:
                height = np.minimum(height, 0.0)
            return (height * height)[:, 0], (2.0 * height) * normal, None, None

        return batch

    @classmethod
    def stack_curvature(cls, goals: Sequence[Goal]) -> CurvatureBatch:
        """See :meth:`Goal.stack_curvature`: ``2ννᵀ`` on the point.

        Motion within the plane is free; a half-space is curved only where the point is
        outside, flat inside.
        """
        own = [g for g in goals if isinstance(g, cls)]
        origin = rows([g.point for g in own])
        normal = rows([g.normal for g in own])
        factors = np.zeros((len(own), 9, 9))
        factors[:, :3, 0] = np.sqrt(2.0) * normal
        if not cls._ONE_SIDED:

            def constant(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
                return factors

            return constant

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            outside = ((points - origin) * normal).sum(axis=1) < 0.0
            result: FloatArray = factors * outside[:, None, None]
            return result

        return batch

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.point.tolist()}, {self.normal.tolist()})"


class Plane(_PointNormal):
    """Keep the effector point on a plane: ``P = ((r − p)·ν)²``.

    Args:
        point: A point p of the plane, shape (3,).
        normal: The plane's normal ν (normalised here), shape (3,).
    """

    __slots__ = ()


class HalfSpace(_PointNormal):
    """Keep the effector point on the side of a plane its normal points to.

    ``P = min(0, (r − p)·ν)²``, ``∂P/∂r = 2 min(0, (r − p)·ν) ν``.

    Args:
        point: A point p of the bounding plane, shape (3,).
        normal: Normal ν pointing inside (normalised here), shape (3,).
    """

    __slots__ = ()
    _ONE_SIDED = True
