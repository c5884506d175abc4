"""Aiming-at goal: point the effector's y axis at a point."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array, nonnegative
from .base import C5, Batch, CurvatureBatch, Goal, column, rows

__all__ = ["Aim"]

_TINY = 1e-12


class Aim(Goal):
    """Aim the effector's y axis (a Blender bone's axis) from r at ``point``.

    With ``d = p − r`` and ``w = d/‖d‖``: ``P = c_d²‖w − v‖²`` (v the effector's unit
    y axis). ``∂P/∂v = −2c_d²(w − v)``; ``∂P/∂r = −2c_d²(I − wwᵀ)(w − v)/‖d‖``. When
    the effector sits on the point (‖d‖ < 1e-12) the aim is undefined and P is 0.

    Args:
        point: Point p aimed at, in world, shape (3,).
        c_d: Weight, ≥ 0 (see :func:`solver.goals.commensurate`).
    """

    __slots__ = ("c_d", "point")

    def __init__(self, point: ArrayLike, c_d: float = C5) -> None:
        self.point: FloatArray = finite_array(point, "Aim goal point", (3,))
        self.c_d = nonnegative(c_d, "Aim goal c_d")

    def curvature(self) -> tuple[float, float, float]:
        """See :meth:`Goal.curvature`: the aimed axis only."""
        return (0.0, 0.0, 2.0 * self.c_d**2)

    @classmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """See :meth:`Goal.stack`."""
        own = [g for g in goals if isinstance(g, Aim)]
        target = rows([g.point for g in own])
        weight = column([g.c_d**2 for g in own])

        def batch(
            points: FloatArray, x: FloatArray, y: FloatArray
        ) -> tuple[FloatArray, FloatArray, None, FloatArray]:
            d = target - points
            distance = np.sqrt((d * d).sum(axis=1, keepdims=True))
            present = distance > _TINY
            w = d / np.where(present, distance, 1.0)
            e = np.where(present, w - y, 0.0)
            along = (w * e).sum(axis=1, keepdims=True)
            d_point = (-2.0 * weight / np.where(present, distance, 1.0)) * (e - along * w)
            return (weight * e * e).sum(axis=1), d_point, None, (-2.0 * weight) * e

        return batch

    @classmethod
    def stack_curvature(cls, goals: Sequence[Goal]) -> CurvatureBatch:
        """See :meth:`Goal.stack_curvature`: of the residual ``R = c_d(w − v)``.

        ``∂R/∂r = −c_d(I − wwᵀ)/‖d‖`` and ``∂R/∂v = −c_d I``, so ``F = √2 J_Rᵀ``: moving
        the effector's point turns the direction it should aim along, too.
        """
        own = [g for g in goals if isinstance(g, Aim)]
        target = rows([g.point for g in own])
        c_d = np.array([g.c_d for g in own])
        eye = np.eye(3)

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            d = target - points
            distance = np.sqrt((d * d).sum(axis=1))
            present = distance > _TINY
            safe = np.where(present, distance, 1.0)
            w = d / safe[:, None]
            scale = np.sqrt(2.0) * c_d * present
            factors = np.zeros((len(own), 9, 9))
            across = eye - w[:, :, None] * w[:, None]
            factors[:, :3, :3] = -(scale / safe)[:, None, None] * across
            factors[:, 6:, :3] = -scale[:, None, None] * eye
            return factors

        return batch

    def __repr__(self) -> str:
        return f"Aim({self.point.tolist()})"
