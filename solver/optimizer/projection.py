"""Keeping the step methods inside the limits over the scaled variables φ.

The methods beside Goldfarb's take steps that know only the bounds (L-BFGS-B), or no
limits at all (damped least squares, the Jacobian transpose). Their iterates are kept
feasible here, in the reduced space's unit rows (``E φ = e``, ``A φ ≥ b``, bounds among
the rows): a step is cut where it meets a limit (:func:`step_limit`, the ratio test),
and a point outside is moved back inside (:func:`restore`): onto the equalities, into
the bounds, onto the most violated row, in turn, until no limit is violated by more
than 1e-12 (rounds over φ with the equalities kept, which may refuse, where
:func:`solver.limits.clamp_to_limits` projects exactly). A point that does not come
back within the rounds is refused (None), so a method keeps its last feasible iterate
instead.
"""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray, IntArray
from ..linalg import lstsq
from .space import ReducedSpace

__all__ = ["active_rows", "multipliers", "restore", "step_limit", "violation"]

_ROUNDS = 60
"""Most projection rounds of :func:`restore`."""

FEASIBLE = 1e-10
"""Largest violation :func:`restore` accepts (the solver promises 1e-9)."""


MAX_TURN = np.pi / 4
"""Largest turn [rad] of any joint in one Jacobian-transpose step. The pull grows with
the residual, so a goal 10 m off would spin joints whole turns in one step; Buss & Kim
(2005) cap each joint's change at π/4 the same way."""


def violation(phi: FloatArray, space: ReducedSpace) -> float:
    """The largest violation of a limit at φ."""
    worst = 0.0
    if space.a_in.shape[0]:
        worst = max(worst, float(np.max(space.b_in - space.a_in @ phi)))
    if space.a_eq.shape[0]:
        worst = max(worst, float(np.max(np.abs(space.a_eq @ phi - space.b_eq))))
    return worst


def restore(phi: FloatArray, space: ReducedSpace) -> FloatArray | None:
    """φ moved inside the limits, or None when the rounds do not get it there.

    Args:
        phi: A point, shape (n,).
        space: The limits.
    """
    point = _onto_equalities(np.clip(phi, space.lower, space.upper), space)
    for _ in range(_ROUNDS):
        slack = space.b_in - space.a_in @ point if space.a_in.shape[0] else np.zeros(0)
        worst = float(slack.max(initial=0.0))
        equal = (
            float(np.max(np.abs(space.a_eq @ point - space.b_eq))) if space.a_eq.shape[0] else 0.0
        )
        if worst <= 1e-12 and equal <= 1e-12:
            return point
        if worst > 1e-12:
            k = int(np.argmax(slack))
            point = point + space.a_in[k] * (worst + 1e-13)
        point = _onto_equalities(np.clip(point, space.lower, space.upper), space)
    return point if violation(point, space) <= FEASIBLE else None


def _onto_equalities(phi: FloatArray, space: ReducedSpace) -> FloatArray:
    if not space.a_eq.shape[0]:
        return phi
    result: FloatArray = phi - space.a_eq.T @ (space.a_eq @ phi - space.b_eq)
    return result


def step_limit(phi: FloatArray, step: FloatArray, space: ReducedSpace) -> tuple[float, int]:
    """The largest t ≥ 0 with ``φ + t·step`` inside every inequality, and its row.

    Returns:
        ``(t, row)``: t = inf and row −1 when no row stops the step.
    """
    if not space.a_in.shape[0]:
        return np.inf, -1
    rate = space.a_in @ step
    slack = space.a_in @ phi - space.b_in
    falling = rate < -1e-14
    if not np.any(falling):
        return np.inf, -1
    ratios = np.full(rate.shape, np.inf)
    ratios[falling] = np.maximum(slack[falling], 0.0) / -rate[falling]
    row = int(np.argmin(ratios))
    return float(ratios[row]), row


def active_rows(phi: FloatArray, space: ReducedSpace, slack: float = 1e-9) -> IntArray:
    """Indices of the inequality rows within ``slack`` of their bound at φ."""
    if not space.a_in.shape[0]:
        return np.zeros(0, np.intp)
    return np.flatnonzero(space.a_in @ phi - space.b_in <= slack)


def multipliers(gradient: FloatArray, rows: IntArray, space: ReducedSpace) -> FloatArray:
    """Least-squares multipliers λ of active rows ``rows`` for ``gradient`` (with equalities).

    ``g ≈ Eᵀμ + A_rowsᵀλ``: a positive λ means the row holds the descent back.
    """
    if not rows.size:
        return np.zeros(0)
    matrix = np.concatenate([space.a_eq, space.a_in[rows]]).T
    solution = lstsq(matrix, gradient)
    result: FloatArray = solution[space.a_eq.shape[0] :]
    return result
