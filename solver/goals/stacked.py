"""The goals of many constraints evaluated together: one batched call per goal type."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

import numpy as np

from .._checks import FloatArray, IntArray
from ..vectors import axis_torque
from .aim import Aim
from .base import Batch, CurvatureBatch, Goal, HessianBatch
from .geometric import HalfSpace, Plane
from .orientation import Orientation, PositionOrientation
from .position import Position

__all__ = ["StackedGoals"]


class StackedGoals:
    """Goals stacked by type (see :meth:`Goal.stack`), evaluated in their given order.

    Attributes:
        curvature: Each goal's Gauss–Newton weights (:meth:`Goal.curvature`), shape (m, 3).
        axes_weighted: Whether some goal weighs the effector's axes.
        isotropic: Whether every goal's curvature is these constant weights (position and
            orientation goals); else :meth:`factors` gives it.
        squared: Where every goal is a sum of squared distances of the effector's point
            and axes from theirs (:class:`.Position`, :class:`.Orientation`,
            :class:`.PositionOrientation`), the goal vectors (v, 3) and their
            coefficients (v,) as the compiled kernel evaluates them, v = blocks · m: the
            points' goals alone (blocks 1, every goal a Position) or the points', the x
            axes' and the y axes' (blocks 3), each coefficient half the goal's
            curvature there (:meth:`Goal.curvature`); else None.
        compiled: :attr:`squared`'s vectors and coefficients where every goal is one of
            those, a :class:`.Plane` or :class:`.HalfSpace` (its point the first vector,
            coefficients 1, 0, 0) or an :class:`.Aim` (its point the first vector,
            coefficients 0, 0, c_d²), with the goals' faces as the kernel reads them
            (m, 4: a plane's normal and 1, a half-space's and 2, zeros and 3 for an aim,
            zeros for a squared distance; None where every goal is one); else None.
    """

    def __init__(self, goals: Sequence[Goal]) -> None:
        self._m = len(goals)
        kinds: dict[type[Goal], list[int]] = {}
        for i, goal in enumerate(goals):
            kinds.setdefault(type(goal), []).append(i)
        self._groups: tuple[tuple[IntArray, type[Goal], list[Goal]], ...] = tuple(
            (np.array(members, np.intp), kind, [goals[k] for k in members])
            for kind, members in kinds.items()
        )
        self._batches: tuple[tuple[IntArray, Batch], ...] = tuple(
            (members, kind.stack(own)) for members, kind, own in self._groups
        )
        self._single = len(self._batches) == 1
        self.curvature: FloatArray = np.array([goal.curvature() for goal in goals]).reshape(-1, 3)
        self.axes_weighted = bool(np.any(self.curvature[:, 1:] > 0.0))
        default = Goal.stack_curvature.__func__  # type: ignore[attr-defined]
        self.isotropic = all(
            getattr(kind.stack_curvature, "__func__", None) is default for kind in kinds
        )
        self.compiled = _compiled(goals, self.curvature)
        self.squared = _squared_of(self.compiled)
        self._curvatures: tuple[tuple[IntArray, CurvatureBatch], ...] | None = None
        self._hessians: tuple[tuple[IntArray, HessianBatch], ...] | None = None
        self._weighted: tuple[FloatArray, FloatArray] | None = None  # weights, and by vector

    @property
    def targets(self) -> FloatArray | None:
        """Every goal's point (m, 3) when every goal is a :class:`.Position`, else None."""
        squared = self.squared
        return squared[0] if squared is not None and len(squared[0]) == self._m else None

    def vector_weights(self, weights: FloatArray) -> FloatArray:
        """Each of :attr:`compiled`'s vectors' weight in G_all.

        Its goal's weight in G_all (``weights``, (m,)) times its coefficient; kept for the
        same ``weights``.
        """
        assert self.compiled is not None
        kept = self._weighted
        if kept is not None and kept[0] is weights:
            return kept[1]
        coefficients = self.compiled[1]
        blocks = len(coefficients) // len(weights)
        by_vector = weights if blocks == 1 else np.tile(weights, blocks) * coefficients
        self._weighted = weights, by_vector
        return by_vector

    def replaced(self, goals: Sequence[Goal], changed: Collection[int]) -> StackedGoals:
        """``StackedGoals(goals)`` where ``goals`` are this stack's but at ``changed``.

        Each goal at ``changed`` replaces one of its own type, so only the groups with a
        changed member are stacked again (a drag's goals move every event).
        """
        other = object.__new__(StackedGoals)  # (a shallow copy, without copy's detours)
        other.__dict__.update(self.__dict__)
        groups, batches = [], []
        touched = {int(k) for k in changed}
        for (members, kind, own), batch in zip(self._groups, self._batches, strict=True):
            listed = members.tolist()
            if not touched.isdisjoint(listed):
                own = [goals[k] for k in listed]
                batch = (members, kind.stack(own))
            groups.append((members, kind, own))
            batches.append(batch)
        other._groups, other._batches = tuple(groups), tuple(batches)
        other.curvature = self.curvature.copy()
        curvature, axial = other.curvature, False  # whether a changed goal weighs axes
        for k in changed:
            axial = axial or curvature[k, 1] > 0.0 or curvature[k, 2] > 0.0  # (before)
            curvature[k] = goals[k].curvature()
            axial = axial or curvature[k, 1] > 0.0 or curvature[k, 2] > 0.0  # (after)
        if axial:
            other.axes_weighted = bool((other.curvature[:, 1:] > 0.0).any())
        if self.compiled is not None:
            vectors, coefficients, faces = self.compiled
            vectors, coefficients = vectors.copy(), coefficients.copy()
            faces = None if faces is None else faces.copy()
            m = self._m
            for k in changed:
                _vectors_of(goals[k], vectors[k::m])
                coefficients[k::m] = 0.5 * curvature[k, : len(coefficients) // m]
                if faces is not None:
                    _face_of(goals[k], faces[k])
            other.compiled = vectors, coefficients, faces
            other.squared = _squared_of(other.compiled)
        other._curvatures = other._hessians = None
        other._weighted = None
        return other

    def factors(self, points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
        """Each goal's Gauss–Newton curvature factor F, shape (m, 9, 9).

        ``F Fᵀ`` is the curvature over (δr, δx, δy) (see :meth:`Goal.stack_curvature`).
        The batches are stacked on first use: goals that move every drag event are
        stacked anew each time, and isotropic goals never need them.
        """
        if self._curvatures is None:
            self._curvatures = tuple(
                (members, kind.stack_curvature(own)) for members, kind, own in self._groups
            )
        result = np.empty((self._m, 9, 9))
        for members, batch in self._curvatures:
            result[members] = batch(points[members], x[members], y[members])
        return result

    def hessians(self, points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
        """Each goal's Hessian of P over (r, x, y), shape (m, 9, 9) (:meth:`Goal.stack_hessian`).

        Stacked on first use, as :meth:`factors`.
        """
        if self._hessians is None:
            self._hessians = tuple(
                (members, kind.stack_hessian(own)) for members, kind, own in self._groups
            )
        if len(self._hessians) == 1:
            return self._hessians[0][1](points, x, y)
        result = np.empty((self._m, 9, 9))
        for members, batch in self._hessians:
            result[members] = batch(points[members], x[members], y[members])
        return result

    def gradients(
        self, points: FloatArray, x: FloatArray, y: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """∂P/∂r, ∂P/∂x and ∂P/∂y of each goal, (m, 3) each (zero where P ignores them)."""
        m = self._m
        d_point, d_x, d_y = np.empty((m, 3)), np.zeros((m, 3)), np.zeros((m, 3))
        for members, _, dp, dx, dy in self._each(points, x, y):
            d_point[members] = dp
            if dx is not None:
                d_x[members] = dx
            if dy is not None:
                d_y[members] = dy
        return d_point, d_x, d_y

    def __call__(
        self, points: FloatArray, x: FloatArray, y: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray | None]:
        """Potentials (m,), ∂P/∂r (m, 3) and the axes' torque x×∂P/∂x + y×∂P/∂y (m, 3).

        Args:
            points: Effector points, shape (m, 3).
            x: Effector unit x axes, shape (m, 3).
            y: Effector unit y axes, shape (m, 3).

        Returns:
            The torque is None when no goal depends on the axes.
        """
        if self._single:
            values, d_point, d_x, d_y = self._batches[0][1](points, x, y)
            return values, d_point, axis_torque(x, y, d_x, d_y)
        m = self._m
        values = np.empty(m)
        d_point = np.empty((m, 3))
        torque: FloatArray | None = None
        for members, value, dp, dx, dy in self._each(points, x, y):
            values[members] = value
            d_point[members] = dp
            part = axis_torque(x[members], y[members], dx, dy)
            if part is not None:
                if torque is None:
                    torque = np.zeros((m, 3))
                torque[members] = part
        return values, d_point, torque

    def _each(
        self, points: FloatArray, x: FloatArray, y: FloatArray
    ) -> Iterator[tuple[IntArray, FloatArray, FloatArray, FloatArray | None, FloatArray | None]]:
        """Each goal type's members with its :data:`~.base.Batch` on their states."""
        for members, batch in self._batches:
            yield (members, *batch(points[members], x[members], y[members]))


_SQUARED = (Position, Orientation, PositionOrientation)
"""The goal types whose potentials are sums of squared distances of the effector's point
and axes from theirs."""


_FACED: dict[type[Goal], float] = {Plane: 1.0, HalfSpace: 2.0, Aim: 3.0}
"""The goal types the kernel reads with a face, and their kinds there: a point's height
over a plane (squared, or only below it), or an aim of the effector's y axis at a point."""

Compiled = tuple[FloatArray, FloatArray, FloatArray | None]
""":attr:`StackedGoals.compiled`: the goal vectors, their coefficients, the faces."""


def _compiled(goals: Sequence[Goal], curvature: FloatArray) -> Compiled | None:
    """:attr:`StackedGoals.compiled` of ``goals``, whose curvatures are ``curvature`` (m, 3)."""
    if not goals or any(type(goal) not in _SQUARED and type(goal) not in _FACED for goal in goals):
        return None
    m = len(goals)
    pointwise = (Position, Plane, HalfSpace)
    blocks = 1 if all(type(goal) in pointwise for goal in goals) else 3
    vectors = np.zeros((blocks * m, 3))
    for k, goal in enumerate(goals):
        _vectors_of(goal, vectors[k::m])
    faces = None
    if any(type(goal) in _FACED for goal in goals):
        faces = np.zeros((m, 4))
        for k, goal in enumerate(goals):
            _face_of(goal, faces[k])
    return vectors, 0.5 * curvature[:, :blocks].T.ravel(), faces


def _squared_of(compiled: Compiled | None) -> tuple[FloatArray, FloatArray] | None:
    """:attr:`StackedGoals.squared` from :attr:`StackedGoals.compiled`."""
    if compiled is None or compiled[2] is not None:
        return None
    return compiled[0], compiled[1]


def _face_of(goal: Goal, out: FloatArray) -> None:
    """``goal``'s plane normal and kind into ``out`` (4,), zeros for a squared distance."""
    kind = _FACED.get(type(goal))
    out[:] = 0.0
    if isinstance(goal, Plane | HalfSpace):
        out[:3] = goal.normal
    if kind is not None:
        out[3] = kind


def _vectors_of(goal: Goal, out: FloatArray) -> None:
    """``goal``'s point and axes (as many as ``out`` has rows) into ``out``, zero where none."""
    out[:] = 0.0
    if isinstance(goal, Position | PositionOrientation | Plane | HalfSpace | Aim):
        out[0] = goal.point
    orientation = goal.orientation if isinstance(goal, PositionOrientation) else goal
    if len(out) > 1 and isinstance(orientation, Orientation):
        out[1], out[2] = orientation.x, orientation.y
