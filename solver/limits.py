"""Linear joint limits: ``A_eq θ = b_eq`` and ``A_in θ ≥ b_in``, every row a unit vector."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._checks import BoolArray, FloatArray, IntArray
from .exceptions import SolverInputError
from .linalg import lstsq, svd
from .rows import LimitRows

__all__ = [
    "FEASIBLE",
    "LinearLimits",
    "SparseRow",
    "clamp_to_limits",
    "outside_limits",
    "polygon_rows",
    "project_onto_limits",
]


@dataclass(frozen=True)
class SparseRow:
    """One linear limit ``Σ c_j θ_j ≥ rhs`` (or ``= rhs``) over a few DOFs.

    Attributes:
        terms: (θ index, coefficient) pairs.
        rhs: Right-hand side.
        label: Names the limit in messages and the active set.
    """

    terms: tuple[tuple[int, float], ...]
    rhs: float
    label: str

    def dense(self, n: int) -> FloatArray:
        """The coefficients as a row of length ``n``."""
        row = np.zeros(n)
        for index, value in self.terms:
            row[index] = value
        return row


@dataclass(frozen=True)
class LinearLimits:
    """Joint limits as linear constraints over θ (Zhao & Badler 1994, eq. 23).

    Attributes:
        a_eq: Equality rows, shape (k, n), unit.
        b_eq: Equality right-hand sides, shape (k,).
        eq_labels: One label per equality row.
        a_in: Inequality rows (``a_in @ θ ≥ b_in``), shape (m, n), unit.
        b_in: Inequality right-hand sides, shape (m,).
        in_labels: One label per inequality row, e.g. ``"forearm[0] ≥ 0"``.
    """

    a_eq: FloatArray = field(repr=False)
    b_eq: FloatArray = field(repr=False)
    eq_labels: tuple[str, ...]
    a_in: FloatArray = field(repr=False)
    b_in: FloatArray = field(repr=False)
    in_labels: tuple[str, ...]

    @classmethod
    def from_rows(
        cls, n: int, inequalities: Sequence[SparseRow], equalities: Sequence[SparseRow]
    ) -> LinearLimits:
        """Dense limits over ``n`` DOFs; inequality rows must be unit, equalities are scaled."""
        eq_rows: list[FloatArray] = []
        eq_offsets: list[float] = []
        for equality in equalities:
            row = equality.dense(n)
            norm = float(np.linalg.norm(row))
            eq_rows.append(row / norm)
            eq_offsets.append(equality.rhs / norm)
        a_in = np.zeros((len(inequalities), n))
        terms = [(k, j, c) for k, row in enumerate(inequalities) for j, c in row.terms]
        rows = np.array([k for k, _, _ in terms], np.intp)
        columns = np.array([j for _, j, _ in terms], np.intp)
        values = np.array([c for _, _, c in terms], np.float64)
        a_in[rows, columns] = values  # scattered: most rows are bounds, one nonzero each
        limits = cls(
            a_eq=np.array(eq_rows, dtype=np.float64).reshape(len(eq_rows), n),
            b_eq=np.array(eq_offsets, dtype=np.float64),
            eq_labels=tuple(e.label for e in equalities),
            a_in=a_in,
            b_in=np.array([r.rhs for r in inequalities], dtype=np.float64),
            in_labels=tuple(r.label for r in inequalities),
        )
        nonzero = values != 0.0
        limits._know_rows(rows[nonzero], columns[nonzero], values[nonzero])
        return limits

    def _know_rows(self, rows: IntArray, columns: IntArray, values: FloatArray) -> None:
        """Give :attr:`rows_in` from ``a_in``'s nonzeros, known already (no pass over it)."""
        self.__dict__["rows_in"] = LimitRows.of_nonzeros(self.a_in, rows, columns, values)

    def touching(self, dofs: BoolArray) -> LinearLimits:
        """The rows with a nonzero coefficient on some DOF of ``dofs`` (a mask, (n,)).

        The other rows hold only DOFs outside ``dofs``: a solve that moves only
        ``dofs`` can neither break nor mend them.
        """
        eq = np.flatnonzero(np.any(self.a_eq[:, dofs] != 0.0, axis=1))
        rows, columns, values = self.rows_in.nonzeros()
        touches = np.zeros(len(self.b_in), dtype=bool)
        touches[rows[dofs[columns]]] = True
        ineq = np.flatnonzero(touches)
        limits = LinearLimits(
            a_eq=self.a_eq[eq],
            b_eq=self.b_eq[eq],
            eq_labels=tuple(self.eq_labels[k] for k in eq),
            a_in=self.a_in[ineq],
            b_in=self.b_in[ineq],
            in_labels=tuple(self.in_labels[k] for k in ineq),
        )
        position = np.full(len(self.b_in), -1, np.intp)
        position[ineq] = np.arange(ineq.size)
        kept = touches[rows]
        limits._know_rows(position[rows[kept]], columns[kept], values[kept])
        return limits

    def violations(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Per-row violations (≥ 0) of the equalities and inequalities at ``theta``."""
        eq = np.abs(self.a_eq @ theta - self.b_eq)
        ineq = np.maximum(self.b_in - self.rows_in @ theta, 0.0)
        return eq, ineq

    @cached_property
    def rows_in(self) -> LimitRows:
        """:attr:`a_in` as :class:`~solver.rows.LimitRows` (products by its nonzeros)."""
        return LimitRows(self.a_in)

    @cached_property
    def held(self) -> BoolArray:
        """Whether each DOF has a coefficient in some row (a bound, a polygon, a group)."""
        used: BoolArray = np.any(self.a_in != 0.0, axis=0) | np.any(self.a_eq != 0.0, axis=0)
        return used

    @cached_property
    def coupled(self) -> tuple[BoolArray, BoolArray]:
        """Whether each equality, and each inequality, has a coefficient on some DOF."""
        return np.any(self.a_eq != 0.0, axis=1), np.any(self.a_in != 0.0, axis=1)

    def max_violation(self, theta: FloatArray) -> float:
        """The largest violation of any limit at ``theta`` (0 when feasible).

        The rows' largest shortfall, not clipped at 0 row by row first: the same number.
        The last one is kept: a solve's result measures its pose, and the next drag event's
        solve checks it again as its start.
        """
        theta = np.asarray(theta, dtype=np.float64)  # (the array itself where it is one)
        key = (theta.shape, theta.tobytes())
        kept = self.__dict__.get("_last_violation")
        if kept is not None and kept[0] == key:
            last: float = kept[1]
            return last
        largest = float((self.b_in - self.rows_in @ theta).max(initial=0.0))
        if len(self.b_eq):
            largest = max(largest, float(np.abs(self.a_eq @ theta - self.b_eq).max()))
        self.__dict__["_last_violation"] = key, largest  # (frozen: kept beside its fields)
        return largest

    def worst(self, theta: FloatArray) -> tuple[str, float]:
        """Label and amount of the most violated limit at ``theta``."""
        eq, ineq = self.violations(theta)
        best = ("", 0.0)
        if eq.size:
            k = int(eq.argmax())
            if eq[k] > best[1]:
                best = (self.eq_labels[k], float(eq[k]))
        if ineq.size:
            k = int(ineq.argmax())
            if ineq[k] > best[1]:
                best = (self.in_labels[k], float(ineq[k]))
        return best


def polygon_rows(vertices: FloatArray, what: str) -> tuple[FloatArray, FloatArray]:
    """Inequalities ``row · p ≥ offset`` (unit rows) of a convex polygon's inside.

    Args:
        vertices: Shape (m, 2), m ≥ 3, convex, either winding.
        what: Name of the polygon, used in messages.

    Returns:
        ``(rows, offsets)`` with shapes (m, 2) and (m,); row k belongs to the edge from
        vertex k to vertex k + 1.

    Raises:
        SolverInputError: For a wrong shape, fewer than 3 vertices, a repeated vertex,
            collinear consecutive vertices, zero area, or a non-convex polygon.
    """
    if vertices.ndim != 2 or vertices.shape[1] != 2:
        raise SolverInputError(
            f"{what}: vertices must be (value, value) pairs, got shape {vertices.shape}",
            item=what,
        )
    m = len(vertices)
    if m < 3:
        raise SolverInputError(f"{what}: a polygon needs at least 3 vertices, got {m}", item=what)
    edges = np.roll(vertices, -1, axis=0) - vertices
    lengths = np.linalg.norm(edges, axis=1)
    scale = float(np.max(np.abs(vertices))) + 1e-300
    if np.any(lengths <= 1e-12 * max(scale, 1.0)):
        k = int(np.argmin(lengths))
        raise SolverInputError(
            f"{what}: degenerate polygon, vertices {k} and {(k + 1) % m} coincide", item=what
        )
    area2 = float(
        np.sum(vertices[:, 0] * np.roll(vertices[:, 1], -1))
        - np.sum(vertices[:, 1] * np.roll(vertices[:, 0], -1))
    )
    if abs(area2) <= 1e-12 * float(np.max(lengths)) ** 2:
        raise SolverInputError(f"{what}: degenerate polygon with zero area", item=what)
    sign = 1.0 if area2 > 0.0 else -1.0
    turns = sign * (edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1))
    tolerance = 1e-12 * lengths * np.roll(lengths, -1)
    if np.any(np.abs(turns) <= tolerance):
        k = int(np.argmin(np.abs(turns)))
        raise SolverInputError(
            f"{what}: degenerate polygon, vertices {k}, {(k + 1) % m} and {(k + 2) % m} "
            "are collinear",
            item=what,
        )
    if np.any(turns < 0.0):
        k = int(np.argmin(turns))
        raise SolverInputError(
            f"{what}: the polygon is not convex at vertex {(k + 1) % m}; limit polygons must "
            "be convex",
            item=what,
        )
    angles = np.arctan2(edges[:, 1], edges[:, 0])
    total = np.sum(np.mod(np.roll(angles, -1) - angles + np.pi, 2 * np.pi) - np.pi)
    if abs(abs(total) - 2 * np.pi) > 1e-6:
        raise SolverInputError(
            f"{what}: the polygon winds around more than once (self-intersecting); limit "
            "polygons must be convex",
            item=what,
        )
    normals = sign * np.stack([-edges[:, 1], edges[:, 0]], axis=1) / lengths[:, None]
    offsets = np.einsum("ij,ij->i", normals, vertices)
    return normals, offsets


FEASIBLE = 1e-9
"""Largest violation of any limit a start pose may have ([rad] or length)."""


def outside_limits(limits: LinearLimits, theta: FloatArray) -> tuple[str, float] | None:
    """The most violated limit, if ``theta`` is outside the limits by more than :data:`FEASIBLE`.

    This is the check a start pose must pass.

    Args:
        limits: The figure's limits.
        theta: Joint values, shape (n,).

    Returns:
        ``(label, amount)`` of the most violated limit, or None when ``theta`` is feasible.
    """
    if limits.max_violation(theta) <= FEASIBLE:  # (the usual case, without the labels)
        return None
    label, amount = limits.worst(theta)
    return (label, amount) if amount > FEASIBLE else None


def clamp_to_limits(
    theta: FloatArray,
    limits: LinearLimits,
    lower: FloatArray,
    upper: FloatArray,
    *,
    free: BoolArray | None = None,
) -> FloatArray:
    """``theta`` moved to the nearest pose inside the limits (least squares in θ).

    The bounds are clipped first; when rows couple DOFs (polygons, joint groups), the
    nearest pose is then found exactly by :func:`project_onto_limits`, so the result is
    inside every limit to 1e-12 (a chain of equalities defeats projecting onto one row
    at a time, which can stall outside by far more).

    Args:
        theta: Joint values, shape (n,).
        limits: The limits (bounds included as rows).
        lower: Lower bounds, shape (n,), −inf where unbounded.
        upper: Upper bounds, shape (n,), +inf where unbounded.
        free: The DOFs that may move (a mask, shape (n,)); default: all. The others keep
            their values, and rows that hold only them are left as they are.

    Returns:
        The clamped θ, shape (n,).
    """
    movable = None if free is None else np.asarray(free, dtype=bool)
    clamped = np.clip(theta, lower, upper)
    if movable is not None:
        clamped = np.where(movable, clamped, theta)
    if _violation(limits, clamped, movable) <= _INSIDE:
        return clamped
    return project_onto_limits(theta, limits, free=movable)


_INSIDE = 1e-12
"""Violation below which a clipped pose counts as inside the limits ([rad] or length)."""


def _violation(limits: LinearLimits, theta: FloatArray, free: BoolArray | None) -> float:
    """The largest violation of a row that holds some free DOF (None: every DOF is free)."""
    eq, ineq = limits.violations(theta)
    if free is None:
        eq_rows, in_rows = limits.coupled
    else:
        eq_rows = np.any(limits.a_eq[:, free] != 0.0, axis=1)
        in_rows = np.any(limits.a_in[:, free] != 0.0, axis=1)
    return float(max(eq[eq_rows].max(initial=0.0), ineq[in_rows].max(initial=0.0)))


def project_onto_limits(
    theta: FloatArray, limits: LinearLimits, *, free: BoolArray | None = None
) -> FloatArray:
    """The pose inside the limits nearest to ``theta`` (Euclidean), moving only ``free``.

    Only the DOFs joined to a violated row through rows move: each such group (a joint
    with its polygon, the joints of a group) is projected exactly, as a least-distance
    problem (Lawson & Hanson 1974, ch. 23): the equalities are kept by moving in their
    null space, the inequalities by non-negative least squares. Where the rows admit no
    pose at all, the group keeps ``theta``'s values.

    Args:
        theta: Joint values, shape (n,).
        limits: The limits (bounds included as rows).
        free: The DOFs that may move (a mask, shape (n,)); default: all.

    Returns:
        The projected θ, shape (n,).
    """
    movable = np.ones(theta.shape, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    result = np.array(theta, dtype=np.float64)
    eq, ineq = limits.violations(result)
    seeds = np.flatnonzero(
        np.any(limits.a_eq[eq > 0.0] != 0.0, axis=0)
        | np.any(limits.a_in[ineq > 0.0] != 0.0, axis=0)
    )
    done = np.zeros(theta.shape, dtype=bool)
    for seed in seeds:
        if done[seed] or not movable[seed]:
            continue
        group, eq_rows, in_rows = _joined(limits, movable, int(seed))
        done[group] = True
        result[group] = _nearest(limits, result, group, eq_rows, in_rows)
    return result


def _joined(
    limits: LinearLimits, movable: BoolArray, seed: int
) -> tuple[IntArray, IntArray, IntArray]:
    """The free DOFs joined to ``seed`` through rows, and the rows that hold them."""
    group = np.zeros(movable.shape, dtype=bool)
    group[seed] = True
    while True:
        eq_rows = np.flatnonzero(np.any(limits.a_eq[:, group] != 0.0, axis=1))
        in_rows = np.flatnonzero(np.any(limits.a_in[:, group] != 0.0, axis=1))
        reached = np.any(limits.a_eq[eq_rows] != 0.0, axis=0) | np.any(
            limits.a_in[in_rows] != 0.0, axis=0
        )
        grown = group | (reached & movable)
        if np.array_equal(grown, group):
            return np.flatnonzero(group), eq_rows, in_rows
        group = grown


def _nearest(
    limits: LinearLimits, theta: FloatArray, group: IntArray, eq_rows: IntArray, in_rows: IntArray
) -> FloatArray:
    """The values of ``group`` nearest to θ's that keep the rows, the other DOFs held."""
    start = theta[group]
    held = theta.copy()
    held[group] = 0.0
    e = limits.a_eq[np.ix_(eq_rows, group)]
    e_rhs = limits.b_eq[eq_rows] - limits.a_eq[eq_rows] @ held
    a = limits.a_in[np.ix_(in_rows, group)]
    a_rhs = limits.b_in[in_rows] - limits.a_in[in_rows] @ held
    # the equalities: the nearest point on them, and moves along their null space
    base, basis = start, np.eye(group.size)
    if eq_rows.size:
        base = start - lstsq(e, e @ start - e_rhs)
        _, singular, vt = svd(e)
        rank = int(np.sum(singular > 1e-12 * max(float(singular[0]), 1.0)))
        basis = vt[rank:].T
    if not in_rows.size or basis.shape[1] == 0:
        return base
    # least distance: the shortest z with (a·basis) z ≥ a_rhs − a·base
    g, h = a @ basis, a_rhs - a @ base
    if np.all(h <= 0.0):
        return base
    stacked = np.vstack((g.T, h))
    target = np.zeros(stacked.shape[0])
    target[-1] = 1.0
    residual: FloatArray = stacked @ _nnls(stacked, target) - target
    if abs(residual[-1]) <= 1e-14:  # the rows admit no pose
        return start
    nearest: FloatArray = base + basis @ (-residual[:-1] / residual[-1])
    return nearest


def _nnls(matrix: FloatArray, target: FloatArray) -> FloatArray:
    """Min ‖matrix · u − target‖ over u ≥ 0 (Lawson & Hanson's active-set algorithm)."""
    n = matrix.shape[1]
    u = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    tolerance = 1e-12 * max(1.0, float(np.abs(matrix).max(initial=0.0)))
    for _ in range(3 * n + 10):
        gradient = matrix.T @ (target - matrix @ u)
        if passive.all() or np.where(passive, -np.inf, gradient).max() <= tolerance:
            break
        passive[int(np.argmax(np.where(passive, -np.inf, gradient)))] = True
        for _ in range(3 * n + 10):
            trial = np.zeros(n)
            trial[passive] = lstsq(matrix[:, passive], target)
            if np.all(trial[passive] > tolerance):
                u = trial
                break
            blocking = passive & (trial <= tolerance)
            drop = u[blocking] - trial[blocking]
            ratios = np.divide(u[blocking], drop, out=np.zeros(drop.shape), where=drop > 0.0)
            u = u + float(ratios.min()) * (trial - u)
            passive &= u > tolerance
            u[~passive] = 0.0
    return u
