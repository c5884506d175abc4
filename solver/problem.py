"""A figure with constraints: the objective G_all(θ) and its gradient (SPEC §3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_scalar
from .constraint import AnyOf, Constraint
from .exceptions import SolverInputError
from .figure import Figure
from .goals.base import Goal

__all__ = ["Problem", "Term"]


@dataclass(frozen=True)
class Term:
    """One summand of G_all: a constraint, or a disjunctive set of them.

    Attributes:
        weight: Weight of the term (a constraint's own weight, or the AnyOf's).
        members: Indices of the leaf constraints in :attr:`Problem.leaves`.
        disjunctive: True for an AnyOf (the term is ``weight · min_j w_j G_j``).
    """

    weight: float
    members: tuple[int, ...]
    disjunctive: bool


class Problem:
    """Minimise ``G_all(θ) = Σ w_i G_i(θ)`` over a figure's DOFs within its limits.

    The variables are the union of all constraints' chains (chain reconciliation, seed
    000 §10), less DOFs locked by rigidity 1; every variable DOF that moves an
    effector enters that constraint's gradient. Other DOFs stay fixed.

    Args:
        figure: The figure.
        constraints: Constraints and :class:`AnyOf` sets, at least one.

    Raises:
        SolverInputError: For an empty list, an item of the wrong type, an effector on an
            unknown segment, or a chain start that is not the effector's segment or one
            of its ancestors.
    """

    def __init__(self, figure: Figure, constraints: Sequence[Constraint | AnyOf]) -> None:
        if not isinstance(figure, Figure):
            raise SolverInputError(f"Problem needs a solver.Figure, got {type(figure).__name__}")
        if isinstance(constraints, (Constraint, AnyOf)) or not isinstance(constraints, Sequence):
            raise SolverInputError(
                "Problem needs a list of constraints (solver.Constraint or solver.AnyOf), got "
                f"{type(constraints).__name__}; wrap a single constraint in a list"
            )
        items = list(constraints)
        if not items:
            raise SolverInputError("Problem needs at least one constraint; the list is empty")
        self.figure = figure
        self.kinematics = figure.kinematics
        self.limits = figure.limits
        self._version = figure.version
        leaves: list[Constraint] = []
        terms: list[Term] = []
        for k, item in enumerate(items):
            if isinstance(item, Constraint):
                terms.append(Term(1.0, (len(leaves),), False))
                leaves.append(item)
            elif isinstance(item, AnyOf):
                first = len(leaves)
                leaves.extend(item.constraints)
                terms.append(Term(item.weight, tuple(range(first, len(leaves))), True))
            else:
                raise SolverInputError(
                    f"constraint {k} must be a solver.Constraint or solver.AnyOf, "
                    f"got {type(item).__name__}"
                )
        self.constraints = tuple(items)
        self.leaves = tuple(leaves)
        self.terms = tuple(terms)
        n = figure.n_dofs
        chains = np.zeros((len(leaves), n), dtype=bool)
        segments: list[int] = []
        paths: list[list[int]] = []
        for i, leaf in enumerate(leaves):
            segment = figure.segment(leaf.effector.segment)
            segments.append(segment.index)
            path = self._path(segment.index, leaf)
            paths.append(path)
            for index in path:
                chains[i, figure.segments[index].dof_indices] = True
        self._paths = tuple(paths)
        self._chain_lengths: FloatArray | None = None
        locked = figure.rigidity >= 1.0
        self.variable_mask = chains.any(axis=0) & ~locked
        self.variables = np.flatnonzero(self.variable_mask)
        self.chains = chains
        self.effector_segments = np.array(segments, np.intp)
        local = np.zeros((len(leaves), 4, 3))
        for i, leaf in enumerate(leaves):
            local[i, :3, 0] = leaf.effector.point
            local[i, 3, 0] = 1.0
            local[i, :3, 1] = leaf.effector.x_axis
            local[i, :3, 2] = leaf.effector.y_axis
        self._local = local
        self._weights = np.array([c.weight for c in leaves])
        moves = self.kinematics.moves[np.ix_(self.effector_segments, self.variables)]
        self._moves_variables = np.ascontiguousarray(moves.T, dtype=np.float64)
        self._plain = all(not t.disjunctive for t in terms)
        self._goals = tuple(c.goal for c in leaves)
        kinds: dict[type[Goal], list[int]] = {}
        for i, goal in enumerate(self._goals):
            kinds.setdefault(type(goal), []).append(i)
        self._batches = tuple(
            (np.array(members, np.intp), kind.stack([self._goals[k] for k in members]))
            for kind, members in kinds.items()
        )
        self._single = len(self._batches) == 1
        self._kappa = np.array([goal.curvature() for goal in self._goals]).reshape(-1, 3)
        self._axes_weighted = bool(np.any(self._kappa[:, 1:] > 0.0))
        self._variable_rotation = self.kinematics.dof_rotation[self.variables][:, None]
        self._all_rotations = bool(np.all(self._variable_rotation))

    def _path(self, segment: int, leaf: Constraint) -> list[int]:
        """Segments from the effector's up to the chain start (or the root), in order."""
        kin = self.kinematics
        fig = self.figure
        start = None if leaf.chain_start is None else fig.segment(leaf.chain_start).index
        current = segment
        path: list[int] = []
        while current >= 0:
            path.append(current)
            if current == start:
                break
            current = int(kin.segment_parent[current])
        if start is not None and path[-1] != start:
            raise SolverInputError(
                f"{leaf.name}: chain_start {leaf.chain_start!r} is not segment "
                f"{leaf.effector.segment!r} or one of its ancestors",
                item=leaf.name,
            )
        return path

    @property
    def chain_lengths(self) -> FloatArray:
        """Length of each leaf constraint's chain at the zero pose, shape (m,).

        The sum of the distances from the chain's first joint through the joints of
        its segments to the effector point: the limb length that goal errors are
        measured against.
        """
        if self._chain_lengths is None:
            world = self.kinematics.frames(np.zeros(self.figure.n_dofs)).world
            points = self._states(world)[0]
            lengths = np.empty(len(self.leaves))
            for i, path in enumerate(self._paths):
                joints = np.array([world[k][:3, 3] for k in reversed(path)] + [points[i]])
                lengths[i] = float(np.sqrt(((joints[1:] - joints[:-1]) ** 2).sum(axis=1)).sum())
            self._chain_lengths = lengths
        return self._chain_lengths

    def goal_tolerance(self, relative: float) -> float:
        """The G_all below which every goal is met to ``relative`` × its chain length.

        ``G_all ≤ τ`` with ``τ = min_i c_i (relative · L_i)²`` (c_i the leaf's weight
        in G_all, L_i its :attr:`chain_lengths`) bounds every weighted potential by τ,
        so a position goal's distance is at most ``relative · L_i``; orientation
        potentials are bounded alike in their commensurate length units.

        Args:
            relative: The fraction of the chain length, ≥ 0.

        Returns:
            τ ≥ 0, for ``solve(goal_tolerance=...)``.
        """
        fraction = finite_scalar(relative, "goal_tolerance: relative")
        if fraction < 0.0:
            raise SolverInputError(f"goal_tolerance: relative must be ≥ 0, got {fraction}")
        weights = np.empty(len(self.leaves))
        for term in self.terms:
            for member in term.members:
                scale = term.weight if term.disjunctive else 1.0
                weights[member] = scale * self._weights[member]
        positive = weights > 0.0
        if not np.any(positive):
            return 0.0
        sizes = weights[positive] * (fraction * self.chain_lengths[positive]) ** 2
        return float(sizes.min())

    @property
    def n_dofs(self) -> int:
        """Length of θ."""
        return self.figure.n_dofs

    def check_current(self) -> None:
        """Raise if the figure changed after this problem was built.

        Raises:
            SolverInputError: If segments or limits were added since.
        """
        if self.figure.version != self._version:
            raise SolverInputError(
                "the figure changed after this Problem was built; build a new Problem"
            )

    def objective(self, theta: ArrayLike) -> tuple[float, FloatArray]:
        """G_all and its gradient.

        Args:
            theta: Joint values, shape (n_dofs,).

        Returns:
            ``(value, gradient)``; the gradient has shape (n_dofs,), with the true
            partial derivative for every variable DOF and 0 for fixed DOFs.

        Raises:
            SolverInputError: If ``theta`` has the wrong length or holds NaN.
        """
        self.check_current()
        return self.evaluate(self.figure.check_theta(theta))

    def effector_states(self, theta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """World points and unit axes of all leaf effectors, each shape (m, 3)."""
        return self._states(self.kinematics.frames(theta).world)

    def _states(self, world: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        columns = world[self.effector_segments] @ self._local
        points = columns[:, :3, 0]
        x = columns[:, :3, 1]
        y = columns[:, :3, 2]
        if self.kinematics.scaled:
            x = x / np.sqrt((x * x).sum(axis=1))[:, None]
            y = y / np.sqrt((y * y).sum(axis=1))[:, None]
        return points, x, y

    def potentials(self, theta: FloatArray) -> FloatArray:
        """Unweighted potentials G_i of the leaf constraints, shape (m,)."""
        return self._goal_values(*self.effector_states(theta))[0]

    def _goal_values(
        self, points: FloatArray, x: FloatArray, y: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray | None]:
        """Potentials (m,), ∂P/∂r (m, 3) and the axes' torque x×∂P/∂x + y×∂P/∂y (m, 3)."""
        if self._single:
            values, d_point, d_x, d_y = self._batches[0][1](points, x, y)
            return values, d_point, _axis_torque(x, y, d_x, d_y)
        m = len(self._goals)
        values = np.empty(m)
        d_point = np.empty((m, 3))
        torque: FloatArray | None = None
        for members, batch in self._batches:
            value, dp, dx, dy = batch(points[members], x[members], y[members])
            values[members] = value
            d_point[members] = dp
            part = _axis_torque(x[members], y[members], dx, dy)
            if part is not None:
                if torque is None:
                    torque = np.zeros((m, 3))
                torque[members] = part
        return values, d_point, torque

    def evaluate(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its gradient without input checks; the gradient has length n_dofs."""
        total, partial = self.evaluate_variables(theta)
        gradient = np.zeros(self.figure.n_dofs)
        gradient[self.variables] = partial
        return total, gradient

    def evaluate_variables(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its partial derivatives by the variables only (the solver's hot path).

        Effector e's wrench (moment about the origin ``r_e × ∂P/∂r + torque``, force
        ``∂P/∂r``), summed over the effectors a DOF moves, gives that DOF's derivative:
        ``u · (M − q × F)`` for a rotation about axis u through pivot q, ``u · F`` for a
        translation.

        Returns:
            ``(value, gradient)``, the gradient of shape (len(variables),).
        """
        frames = self.kinematics.frames(theta)
        points, x, y = self._states(frames.world)
        values, d_point, torque = self._goal_values(points, x, y)
        weighted = self._weights * values
        if self._plain:
            total = float(weighted.sum())
            coefficient = self._weights
        else:
            total, coefficient = self._combine(weighted)
        wrench = np.empty((len(values), 6))
        moment = cross(points, d_point)
        if torque is not None:
            moment += torque
        wrench[:, :3] = moment
        wrench[:, 3:] = d_point
        wrench *= coefficient[:, None]
        dof_wrench = self._moves_variables @ wrench
        axes, pivots = self.kinematics.dof_axes(frames, self.variables)
        force = dof_wrench[:, 3:]
        if self._all_rotations:
            load = dof_wrench[:, :3] - cross(pivots, force)
        else:
            load = np.where(
                self._variable_rotation, dof_wrench[:, :3] - cross(pivots, force), force
            )
        return total, (axes * load).sum(axis=1)

    def gauss_newton(self, theta: FloatArray) -> FloatArray:
        """Gauss–Newton curvature ``Σ_e c_e J_eᵀ diag(κ_e) J_e`` of G_all at ``theta``.

        ``J_e`` stacks the Jacobians of effector e's point and axes over all DOFs, ``κ_e``
        its goal's :meth:`~solver.goals.Goal.curvature` weights and ``c_e`` its weight
        in G_all (for an :class:`AnyOf`, the member that is smallest at ``theta``).

        Returns:
            Shape (n_dofs, n_dofs), positive semi-definite, zero outside the variables.
        """
        n = self.figure.n_dofs
        result = np.zeros((n, n))
        result[np.ix_(self.variables, self.variables)] = self.gauss_newton_variables(theta)
        return result

    def gauss_newton_variables(self, theta: FloatArray) -> FloatArray:
        """:meth:`gauss_newton` restricted to the variables, shape (n_v, n_v)."""
        frames = self.kinematics.frames(theta)
        points, x, y = self._states(frames.world)
        if self._plain:
            coefficient = self._weights
        else:
            values = self._goal_values(points, x, y)[0]
            coefficient = self._combine(self._weights * values)[1]
        axes, pivots = self.kinematics.dof_axes(frames, self.variables)
        m, n = points.shape[0], axes.shape[0]
        rotation = self._variable_rotation[None, :, :]
        # rows of J: effector e (m), DOF (n), then point, x axis, y axis (3 each)
        spin = np.broadcast_to(axes, (m, n, 3))
        lever = points[:, None, :] - pivots[None, :, :]
        point_rows = np.where(rotation, _cross3(spin, lever), axes[None])
        scale = (
            np.sqrt(coefficient[:, None] * self._kappa)[:, None, :]
            * self._moves_variables.T[:, :, None]
        )
        parts = [point_rows * scale[:, :, :1]]
        if self._axes_weighted:
            x_rows = np.where(rotation, _cross3(spin, x[:, None, :]), 0.0)
            y_rows = np.where(rotation, _cross3(spin, y[:, None, :]), 0.0)
            parts += [x_rows * scale[:, :, 1:2], y_rows * scale[:, :, 2:]]
        jacobian = np.concatenate(parts, axis=2)
        stacked = jacobian.transpose(1, 0, 2).reshape(n, -1)
        result: FloatArray = stacked @ stacked.T
        return result

    def _combine(self, weighted: FloatArray) -> tuple[float, FloatArray]:
        total = 0.0
        coefficient = np.zeros(len(weighted))
        for term in self.terms:
            members = term.members
            if term.disjunctive:
                best = members[int(np.argmin(weighted[list(members)]))]
                total += term.weight * float(weighted[best])
                coefficient[best] = term.weight * self._weights[best]
            else:
                total += float(weighted[members[0]])
                coefficient[members[0]] = self._weights[members[0]]
        return total, coefficient


def _levi_civita() -> FloatArray:
    tensor = np.zeros((3, 3, 3))
    for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        tensor[j, k, i] = 1.0
        tensor[k, j, i] = -1.0
    return tensor.reshape(9, 3)


_EPSILON = _levi_civita()
"""ε_jki as a (9, 3) matrix: (a ⊗ b) flattened times it is a × b."""


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise cross product of (k, 3) arrays: two calls, faster than ``np.cross``."""
    result: FloatArray = (a[:, :, None] * b[:, None, :]).reshape(-1, 9) @ _EPSILON
    return result


def _cross3(a: FloatArray, b: FloatArray) -> FloatArray:
    """Cross products over the last axis of broadcastable (..., 3) arrays."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


def _axis_torque(
    x: FloatArray, y: FloatArray, d_x: FloatArray | None, d_y: FloatArray | None
) -> FloatArray | None:
    if d_x is None and d_y is None:
        return None
    torque = np.zeros_like(x)
    if d_x is not None:
        torque += cross(x, d_x)
    if d_y is not None:
        torque += cross(y, d_y)
    return torque
