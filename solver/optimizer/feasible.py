"""Seeded feasible perturbations for restarts: hit-and-run inside the limits."""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray

__all__ = ["perturb"]


def perturb(
    phi: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    radius: float,
    rng: np.random.Generator,
) -> FloatArray:
    """A random feasible point near ``phi``.

    Every variable moves by a step uniform in ``[−radius, radius]``, clipped into its
    bounds; the move is projected onto the null space of the equalities and shortened
    where it would cross another limit (a polygon edge). Two hit-and-run moves along
    random directions follow, so that narrow limits do not pin the point.

    Args:
        phi: Feasible start, shape (n,).
        lower: Lower bounds of the variables (−inf where none), shape (n,).
        upper: Upper bounds of the variables (+inf where none), shape (n,).
        a_eq: Orthonormal equality rows, shape (k, n).
        a_in: Unit inequality rows (``a_in φ ≥ b_in``), shape (m, n).
        b_in: Shape (m,).
        radius: Largest move per variable, in φ units ([rad] for unscaled rotations).
        rng: Random generator (seeded by the caller).

    Returns:
        A point that satisfies every limit ``phi`` satisfies, shape (n,).
    """
    n = int(phi.shape[0])
    target = np.clip(phi + rng.uniform(-radius, radius, n), lower, upper)
    point = _toward(phi, target - phi, a_eq, a_in, b_in, 1.0)
    for _ in range(2):
        point = _toward(point, rng.standard_normal(n), a_eq, a_in, b_in, radius, rng)
    return point


def _toward(
    point: FloatArray,
    direction: FloatArray,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    reach: float,
    rng: np.random.Generator | None = None,
) -> FloatArray:
    """Move along ``direction`` (in the equalities' null space) as far as the limits allow.

    Without ``rng`` the move goes to ``reach`` times the direction, shortened at the
    first limit; with ``rng`` the direction is normalised and the step drawn uniformly
    from the feasible interval within ``[−reach, reach]`` (a hit-and-run move).
    """
    if a_eq.shape[0]:
        direction = direction - a_eq.T @ (a_eq @ direction)
    norm = float(np.linalg.norm(direction))
    if norm < 1e-12:
        return point
    if rng is not None:
        direction = direction / norm
    rates = a_in @ direction
    slack = np.maximum(a_in @ point - b_in, 0.0)
    low, high = (-reach, reach) if rng is not None else (0.0, reach)
    going_down = rates < -1e-12
    going_up = rates > 1e-12
    if np.any(going_down):
        high = min(high, float(np.min(slack[going_down] / -rates[going_down])))
    if np.any(going_up) and rng is not None:
        low = max(low, float(np.max(-slack[going_up] / rates[going_up])))
    if high <= low:
        return point
    step = rng.uniform(low, high) if rng is not None else high
    moved: FloatArray = point + step * direction
    return moved
