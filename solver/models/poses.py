"""Random poses inside a figure's joint limits, and the figure's effective DOF count."""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray
from ..exceptions import SolverInputError
from ..figure import Figure
from ..limits import LinearLimits

__all__ = ["interior_pose", "n_effective_dofs", "random_feasible_pose"]

_REJECTION_TRIES = 10_000
_UNBOUNDED_STEP = 10.0
"""Largest hit-and-run move along a direction the limits do not bound [rad or m]."""


def n_effective_dofs(figure: Figure) -> int:
    """Number of DOFs less the rank of the linear equalities (joint groups).

    Args:
        figure: The figure.

    Returns:
        ``n_dofs − rank(A_eq)``: the dimension of the pose space the limits allow.
    """
    a_eq = figure.limits.a_eq
    if not a_eq.shape[0]:
        return figure.n_dofs
    return figure.n_dofs - int(np.linalg.matrix_rank(a_eq, tol=1e-10))


def interior_pose(figure: Figure) -> FloatArray:
    """A pose strictly inside every inequality that satisfies every equality.

    Tries ``figure.zero_pose()`` and then the middle of the bounds (unbounded DOFs at
    0), each moved onto the equalities by the least-norm correction.

    Args:
        figure: The figure.

    Returns:
        The pose, shape (n_dofs,).

    Raises:
        SolverInputError: If neither candidate is strictly inside the limits.
    """
    limits = figure.limits
    lower, upper = figure.lower, figure.upper
    middle = np.where(np.isfinite(lower) & np.isfinite(upper), 0.5 * (lower + upper), 0.0)
    middle = np.where(np.isfinite(lower) & ~np.isfinite(upper), lower + 1.0, middle)
    middle = np.where(~np.isfinite(lower) & np.isfinite(upper), upper - 1.0, middle)
    for candidate in (figure.zero_pose(), middle):
        pose = _onto_equalities(limits, candidate)
        if _strictly_inside(limits, pose):
            return pose
    raise SolverInputError(
        "no strictly feasible pose found at θ = 0 or the middle of the bounds; "
        "the limits may leave no interior"
    )


def random_feasible_pose(
    figure: Figure, rng: np.random.Generator, *, spread: float = 1.0, steps: int | None = None
) -> FloatArray:
    """A random pose strictly inside all bounds and limit polygons, on all equalities.

    Without equalities and with every DOF bounded, the pose is uniform over the limits
    (rejection sampling from the bounds' box). Otherwise it is the end of a hit-and-run
    walk from :func:`interior_pose` in the null space of the equalities.

    Args:
        figure: The figure.
        rng: Random generator (seeded by the caller).
        spread: In (0, 1]: the pose is pulled toward :func:`interior_pose` by this factor
            (the limits are convex, so the result stays strictly inside).
        steps: Hit-and-run moves; default 20 times the number of effective DOFs.

    Returns:
        The pose, shape (n_dofs,).

    Raises:
        SolverInputError: For a spread outside (0, 1] or limits without an interior.
    """
    if not 0.0 < spread <= 1.0:
        raise SolverInputError(f"random_feasible_pose: spread must be in (0, 1], got {spread}")
    limits = figure.limits
    centre = interior_pose(figure)
    lower, upper = figure.lower, figure.upper
    sample: FloatArray | None = None
    if not limits.a_eq.shape[0] and np.all(np.isfinite(lower) & np.isfinite(upper)):
        for _ in range(_REJECTION_TRIES):
            candidate = rng.uniform(lower, upper)
            if _strictly_inside(limits, candidate):
                sample = candidate
                break
    if sample is None:
        sample = _hit_and_run(limits, centre, rng, steps or 20 * n_effective_dofs(figure))
    result: FloatArray = centre + spread * (sample - centre)
    return result


def _onto_equalities(limits: LinearLimits, pose: FloatArray) -> FloatArray:
    if not limits.a_eq.shape[0]:
        return pose
    residual = limits.a_eq @ pose - limits.b_eq
    correction, *_ = np.linalg.lstsq(limits.a_eq, residual, rcond=None)
    moved: FloatArray = pose - correction
    return moved


def _strictly_inside(limits: LinearLimits, pose: FloatArray) -> bool:
    if limits.a_eq.shape[0] and np.max(np.abs(limits.a_eq @ pose - limits.b_eq)) > 1e-12:
        return False
    return bool(np.all(limits.a_in @ pose - limits.b_in > 0.0))


def _hit_and_run(
    limits: LinearLimits, start: FloatArray, rng: np.random.Generator, steps: int
) -> FloatArray:
    n = start.shape[0]
    basis = np.eye(n)
    if limits.a_eq.shape[0]:
        _, singular, vt = np.linalg.svd(limits.a_eq)
        rank = int(np.sum(singular > 1e-10 * max(float(singular.max()), 1e-300)))
        basis = vt[rank:]
    if not basis.shape[0]:
        return start.copy()
    rows = limits.a_in @ basis.T  # rates of the inequalities along each basis direction
    point = start.copy()
    slack = limits.a_in @ point - limits.b_in
    for _ in range(steps):
        direction = rng.standard_normal(basis.shape[0])
        direction /= np.linalg.norm(direction)
        rates = rows @ direction
        low, high = -_UNBOUNDED_STEP, _UNBOUNDED_STEP
        down, up = rates < -1e-14, rates > 1e-14
        if np.any(down):
            high = min(high, float(np.min(slack[down] / -rates[down])))
        if np.any(up):
            low = max(low, float(np.max(-slack[up] / rates[up])))
        step = rng.uniform(low, high)
        moved = slack + step * rates
        if np.all(moved > 0.0):
            point = point + step * (basis.T @ direction)
            slack = moved
    if not _strictly_inside(limits, point):  # rounding at the very edge: step back inside
        point = start + (1.0 - 1e-9) * (point - start)
    return point
