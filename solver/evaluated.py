"""The objective at the last pose a problem was asked about, kept as one record.

A solver asks for G_all, its gradient and its curvature at the same θ in turn, and a
solve asks again at its end; the pose (effectors and variables' axes) and, once
evaluated, G_all and its gradient there are kept (:class:`Evaluated`). A problem made
with other goals, weights or terms keeps the pose and drops the value
(:meth:`Evaluated.pose_only`), so no problem reads another's value.
"""

from __future__ import annotations

from typing import NamedTuple

from ._checks import FloatArray, same

__all__ = ["Evaluated"]


class Evaluated(NamedTuple):
    """The pose at θ and, once evaluated there, G_all and its gradient over the variables.

    Attributes:
        theta: θ, shape (n_dofs,): a copy the problem made, or the kernel's own array
            (:meth:`solver.Problem.keep_compiled`); never changed.
        points: Each leaf's effector point, shape (m, 3).
        x: Its unit x axis, shape (m, 3).
        y: Its unit y axis, shape (m, 3).
        axes: Each variable's axis in world, shape (n_v, 3).
        pivots: Each variable's pivot in world, shape (n_v, 3).
        at: The effectors' parts' points, shape (K, 3) (:mod:`.parts`).
        value: G_all at θ, or None where not evaluated for this problem.
        gradient: Its gradient over the variables, shape (n_v,), or None alike.
    """

    theta: FloatArray
    points: FloatArray
    x: FloatArray
    y: FloatArray
    axes: FloatArray
    pivots: FloatArray
    at: FloatArray
    value: float | None = None
    gradient: FloatArray | None = None

    def holds(self, theta: FloatArray) -> bool:
        """Whether this is the pose at ``theta`` (compared by value)."""
        return same(self.theta, theta)

    def kept(self) -> tuple[float, FloatArray] | None:
        """G_all and (a copy of) its gradient, where they were evaluated, else None."""
        if self.value is None or self.gradient is None:
            return None
        return self.value, self.gradient.copy()

    def pose_only(self) -> Evaluated:
        """The same pose without a value (for a problem of other goals, weights or terms)."""
        return self._replace(value=None, gradient=None)
