"""Goals as least-squares tasks: a residual R and its rows A with ``P ≈ ‖R + A δφ‖²``.

The damped least-squares and Jacobian-transpose methods work on residual vectors, the
task space of Whitney's resolved motion-rate control; Reach's goals are potentials
P(e). Every goal type gives its Gauss–Newton curvature factor F over the effector's
state e = (r, x_e, y_e) (:meth:`solver.goals.Goal.stack_curvature`), with
``F Fᵀ = 2 J_Rᵀ J_R`` for ``P = ‖R‖²``. With ``F Fᵀ = Q Λ Qᵀ`` (Λ > 0 kept):

    A = (Λ/2)^{1/2} Qᵀ J_e        R = (Λ/2)^{-1/2} Qᵀ ∇_e P / 2

so that ``2 AᵀR = J_eᵀ ∇_e P = ∇G`` and ``2 AᵀA = J_eᵀ F Fᵀ J_e``, the goal's
Gauss–Newton curvature: for a position goal A is the point's Jacobian and R = r − p,
for a plane one row and the height over it. J_e is the effector's Jacobian over the
scaled variables φ (Zhao & Badler 1994, §4). Rows are scaled by the square root of the
constraint's weight in G_all, so stacking tasks stacks the weighted sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray, IntArray
from ..goals.base import Goal
from ..linalg import svd
from ..problem import Problem
from .space import ReducedSpace

__all__ = ["Task", "TaskModel", "damped_inverse"]


@dataclass(frozen=True)
class Task:
    """One leaf constraint's residual and rows at a pose.

    Attributes:
        leaf: Index in ``problem.leaves``.
        residual: R, shape (k,), ``‖R‖² ≈`` the weighted potential.
        rows: A, shape (k, n_v), over the scaled variables.
        basis: M with ``A = M J_e``, shape (k, 9): the rows as combinations of the
            effector's state e = (r, x_e, y_e) (:meth:`TaskModel.states`).
    """

    leaf: int
    residual: FloatArray
    rows: FloatArray
    basis: FloatArray


class TaskModel:
    """The tasks of one problem's leaves over its reduced space.

    Args:
        problem: The problem.
        space: Its reduced space (the variables and their scale).
    """

    def __init__(self, problem: Problem, space: ReducedSpace) -> None:
        self.problem = problem
        self.space = space
        leaves = problem.leaves
        kinds: dict[type[Goal], list[int]] = {}
        for i, leaf in enumerate(leaves):
            kinds.setdefault(type(leaf.goal), []).append(i)
        self._groups = tuple(
            (
                np.array(members, np.intp),
                kind.stack([leaves[k].goal for k in members]),
                kind.stack_curvature([leaves[k].goal for k in members]),
            )
            for kind, members in kinds.items()
        )
        self._weights = problem.weights.copy()
        self._members = tuple(term.members for term in problem.terms)
        self._disjunctive = tuple(
            (term.weight, term.members) for term in problem.terms if term.disjunctive
        )

    def coefficients(self, values: FloatArray) -> FloatArray:
        """Each leaf's weight in G_all at unweighted potentials ``values``, shape (m,).

        An ``AnyOf`` counts its member with the smallest weighted potential alone.
        """
        coefficient = self._weights.copy()
        for weight, members in self._disjunctive:
            chosen = list(members)
            best = chosen[int(np.argmin(self._weights[chosen] * values[chosen]))]
            coefficient[chosen] = 0.0
            coefficient[best] = weight * self._weights[best]
        return coefficient

    def evaluate(self, phi: FloatArray) -> tuple[FloatArray, list[Task]]:
        """Unweighted potentials (m,) and every leaf's task at φ."""
        problem, space = self.problem, self.space
        theta = space.theta(phi)
        points, x, y, jacobians = problem.effector_motion(theta)
        m = points.shape[0]
        values = np.empty(m)
        gradients = np.zeros((m, 9))
        factors = np.empty((m, 9, 9))
        for members, batch, curvature in self._groups:
            value, d_point, d_x, d_y = batch(points[members], x[members], y[members])
            values[members] = value
            gradients[members, :3] = d_point
            if d_x is not None:
                gradients[members, 3:6] = d_x
            if d_y is not None:
                gradients[members, 6:] = d_y
            factors[members] = curvature(points[members], x[members], y[members])
        coefficient = self.coefficients(values)
        jacobians = jacobians * space.scale[None, None, :]
        tasks: list[Task] = []
        for i in range(m):
            if coefficient[i] <= 0.0:
                continue
            curvature_e = factors[i] @ factors[i].T
            eigen, basis = np.linalg.eigh(curvature_e)
            keep = eigen > 1e-12 * max(float(eigen.max(initial=0.0)), 1e-300)
            half = eigen[keep] / 2.0
            q = basis[:, keep]
            root = np.sqrt(coefficient[i])
            basis = (np.sqrt(half)[:, None] * q.T) * root
            residual = (q.T @ gradients[i]) / (2.0 * np.sqrt(half)) * root
            tasks.append(Task(i, residual, basis @ jacobians[i], basis))
        return values, tasks

    def states(self, phi: FloatArray, leaves: IntArray) -> tuple[FloatArray, FloatArray]:
        """The effector states e = (r, x_e, y_e) of ``leaves`` at φ and their Jacobians.

        Returns:
            Shapes (len(leaves), 9) and (len(leaves), 9, n_v).
        """
        points, x, y, jacobians = self.problem.effector_motion(self.space.theta(phi))
        states = np.concatenate([points[leaves], x[leaves], y[leaves]], axis=1)
        return states, jacobians[leaves] * self.space.scale


def stack(tasks: Sequence[Task], n: int) -> tuple[FloatArray, FloatArray]:
    """The tasks' residuals and rows stacked: shapes (k,) and (k, n)."""
    if not tasks:
        return np.zeros(0), np.zeros((0, n))
    return (
        np.concatenate([t.residual for t in tasks]),
        np.concatenate([t.rows for t in tasks], axis=0),
    )


def leaves_by_level(problem: Problem) -> list[IntArray]:
    """Leaf indices per priority level, pins first, then priority 0, 1 and so on.

    An ``AnyOf`` set's members stay together, at the highest level of any of them: the
    set counts its least member, so no level holds part of it.
    """
    leaves = problem.leaves
    levels: dict[tuple[int, int], list[int]] = {}
    for term in problem.terms:
        key = min((0, 0) if leaves[i].pinned else (1, leaves[i].priority) for i in term.members)
        levels.setdefault(key, []).extend(term.members)
    return [np.array(sorted(levels[key]), np.intp) for key in sorted(levels)]


def damped_inverse(
    matrix: FloatArray, damping: float, residual: float = np.inf
) -> tuple[FloatArray, FloatArray]:
    """The adaptively damped pseudo-inverse of ``matrix`` and its row-space basis.

    Args:
        matrix: Shape (k, n).
        damping: λ_max ≥ 0.
        residual: The norm of the residual the inverse is applied to: below
            ``damping`` the damping shrinks with it (see :mod:`.dls`).

    Returns:
        ``(inverse, basis)``: shapes (n, k) and (r, n), r the numerical rank; ``basisᵀ
        basis`` projects onto the row space.
    """
    if not matrix.size:
        return np.zeros(matrix.shape[::-1]), np.zeros((0, matrix.shape[1]))
    u, sigma, vt = svd(matrix, full_matrices=False)
    keep = sigma > 1e-10 * max(float(sigma.max(initial=0.0)), 1e-300)
    if not np.any(keep):
        return np.zeros(matrix.shape[::-1]), np.zeros((0, matrix.shape[1]))
    u, sigma, vt = u[:, keep], sigma[keep], vt[keep]
    threshold = 4.0 * damping
    smallest = float(sigma.min())
    lam2 = damping**2 * (1.0 - (smallest / threshold) ** 2) if smallest < threshold else 0.0
    if damping > 0.0:
        lam2 *= min(1.0, residual / damping)
    inverse: FloatArray = (vt.T * (sigma / (sigma**2 + lam2))) @ u.T
    return inverse, vt
