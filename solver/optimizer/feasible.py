"""Seeded feasible perturbations for restarts: hit-and-run inside the limits."""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray

__all__ = ["perturb"]


def perturb(
    phi: FloatArray,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    radius: float,
    rng: np.random.Generator,
    steps: int = 3,
) -> FloatArray:
    """A random feasible point near ``phi`` (hit-and-run, ``steps`` moves).

    Each move picks a random direction in the null space of the equalities and a step
    uniform in the feasible interval along it, clipped to ``[−radius, radius]``. The
    result satisfies every limit that ``phi`` satisfies.

    Args:
        phi: Feasible start, shape (n,).
        a_eq: Orthonormal equality rows, shape (k, n).
        a_in: Unit inequality rows (``a_in φ ≥ b_in``), shape (m, n).
        b_in: Shape (m,).
        radius: Largest move per step, in φ units ([rad] for unscaled rotations).
        rng: Random generator (seeded by the caller).
        steps: Number of moves.

    Returns:
        A feasible point, shape (n,).
    """
    point = phi.copy()
    n = point.shape[0]
    for _ in range(steps):
        direction = rng.standard_normal(n)
        if a_eq.shape[0]:
            direction -= a_eq.T @ (a_eq @ direction)
        norm = float(np.linalg.norm(direction))
        if norm < 1e-12:
            return point
        direction /= norm
        rates = a_in @ direction
        slack = np.maximum(a_in @ point - b_in, 0.0)
        low, high = -radius, radius
        going_down = rates < -1e-12
        going_up = rates > 1e-12
        if np.any(going_down):
            high = min(high, float(np.min(slack[going_down] / -rates[going_down])))
        if np.any(going_up):
            low = max(low, float(np.max(-slack[going_up] / rates[going_up])))
        if high > low:
            point = point + rng.uniform(low, high) * direction
    return point
