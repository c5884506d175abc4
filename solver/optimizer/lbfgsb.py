"""Limited-memory BFGS with bounds (Byrd, Lu, Nocedal & Zhu 1995) for inverse kinematics.

Tikhonov-regularised inverse kinematics by nonlinear programming (the L-BFGS-B paper
among the project's sources, from Seoul National University) minimises
``G_all + tikhonov · ‖θ − θ_ref‖²`` under the joint bounds with L-BFGS-B. This is that
method on numpy alone, over the scaled variables φ:

- The direction is the two-loop recursion's ``−H g`` over the last ``memory`` pairs
  (s, y) (Nocedal 1980), with the variables held at a bound that the gradient pushes
  against taken out of it (L-BFGS-B's free variables at the Cauchy point, simplified
  to the bound-binding test of projected L-BFGS).
- The search runs along the projected path ``restore(φ + t·d)`` with backtracking from
  t = 1 to Armijo's sufficient decrease, measured on the projected point, so every
  iterate is feasible and the objective never increases. L-BFGS-B projects onto the
  bounds; Reach's polygons and equalities are kept the same way: the path is projected
  onto them too (:func:`.projection.restore`), and the direction is first made to
  keep the equalities (projected onto their null space).
- It stops when the projected gradient ``‖restore(φ − g) − φ‖∞`` is at most
  ``tolerance`` (a Kuhn–Tucker point of the bounds, polygons and equalities), when
  three steps in a row lower the objective by less than 1e-12 of it (scipy's
  ``ftol``), when the goals are met, at the budget, or when the search finds no
  decrease.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from .._checks import FloatArray
from ..result import Descent, Status
from .budget import Budget, Reporter, finished
from .projection import restore
from .space import ReducedSpace

__all__ = ["MEMORY", "descend_lbfgsb"]

MEMORY = 10
"""Default number of (s, y) pairs kept."""

_ARMIJO = 1e-4
_FLAT = 1e-12
"""Three steps in a row that lower the objective by less than this fraction of it end
the descent (scipy's ``ftol`` test of L-BFGS-B)."""
_HALVINGS = 40

Objective = Callable[[FloatArray], tuple[float, FloatArray, float]]
"""φ ↦ (searched value, its gradient, goal part G_all / w) — they differ by Tikhonov's term."""


def descend_lbfgsb(
    objective: Objective,
    phi0: FloatArray,
    space: ReducedSpace,
    budget: Budget,
    *,
    memory: int = MEMORY,
    callback: Reporter | None = None,
) -> Descent:
    """One L-BFGS-B descent from the feasible φ0 (see the module's description).

    Args:
        objective: The searched function and its goal part.
        phi0: Feasible start, shape (n,).
        space: The variables' limits.
        budget: The stops; its tolerance bounds the projected gradient of a
            Kuhn–Tucker point (``goal_value`` is tested on the goal part).
        memory: Pairs kept.
        callback: Called with (φ, goal part) at every iterate.

    Returns:
        The last iterate (the best: values never increase); ``value`` is the goal part.
    """
    phi = phi0.copy()
    value, gradient, goals = objective(phi)
    evaluations = 1
    pairs: deque[tuple[FloatArray, FloatArray, float]] = deque(maxlen=memory)
    iterations = 0
    status, detail = Status.CONVERGED, ""
    projected = np.inf
    flat = 0
    tolerance = budget.tolerance
    while True:
        if budget.goal_value is not None and goals <= budget.goal_value:
            detail = "the goals are met"
            break
        moved = restore(phi - gradient, space)
        if moved is None:  # far outside: the gradient on the equalities' null space instead
            moved = phi - (gradient - space.a_eq.T @ (space.a_eq @ gradient))
        projected = float(np.max(np.abs(moved - phi), initial=0.0))
        if projected <= tolerance:
            detail = "the projected gradient vanished"
            break
        spent = budget.spent(iterations)
        if spent is not None:
            status = spent
            break
        direction = _direction(phi, gradient, pairs, space)
        if not pairs:
            direction = direction / max(1.0, float(np.max(np.abs(direction))))
        step = 1.0
        accepted = None
        for _ in range(_HALVINGS):
            trial = restore(phi + step * direction, space)
            if trial is not None:
                trial_value, trial_gradient, trial_goals = objective(trial)
                evaluations += 1
                decrease = _ARMIJO * float(gradient @ (trial - phi))
                if trial_value <= value + decrease and trial_value <= value:
                    accepted = (trial, trial_value, trial_gradient, trial_goals)
                    break
            step *= 0.5
        if accepted is None:
            status, detail = Status.STALLED, "no decrease along the projected path"
            break
        trial, trial_value, trial_gradient, trial_goals = accepted
        s = trial - phi
        y = trial_gradient - gradient
        curvature = float(s @ y)
        if curvature > 1e-12 * float(np.linalg.norm(s) * np.linalg.norm(y)):
            pairs.append((s, y, 1.0 / curvature))
        flat = flat + 1 if value - trial_value <= _FLAT * max(abs(value), tolerance) else 0
        phi, value, gradient, goals = trial, trial_value, trial_gradient, trial_goals
        iterations += 1
        if callback is not None:
            callback(phi, goals)
        if flat >= 3:
            detail = "the objective stopped decreasing"
            break
    return finished(phi, goals, status, detail, (iterations, evaluations), gradient, projected)


def _direction(
    phi: FloatArray,
    gradient: FloatArray,
    pairs: deque[tuple[FloatArray, FloatArray, float]],
    space: ReducedSpace,
) -> FloatArray:
    """``−H g`` on the free variables, keeping the equalities; −g where that fails."""
    binding = ((phi <= space.lower + 1e-12) & (gradient > 0.0)) | (
        (phi >= space.upper - 1e-12) & (gradient < 0.0)
    )
    free = ~binding
    q = np.where(free, gradient, 0.0)
    alphas: list[float] = []
    for s, y, rho in reversed(pairs):
        alpha = rho * float(s @ q)
        alphas.append(alpha)
        q = q - alpha * y
    if pairs:
        s, y, rho = pairs[-1]
        q = q * (1.0 / (rho * float(y @ y)))
    for (s, y, rho), alpha in zip(pairs, reversed(alphas), strict=True):
        beta = rho * float(y @ q)
        q = q + (alpha - beta) * s
    direction = np.where(free, -q, 0.0)
    if space.a_eq.shape[0]:
        direction = direction - space.a_eq.T @ (space.a_eq @ direction)
    if float(gradient @ direction) >= -1e-16 * float(
        np.linalg.norm(gradient) * np.linalg.norm(direction)
    ):
        pairs.clear()
        direction = np.where(free, -gradient, 0.0)
        if space.a_eq.shape[0]:
            direction = direction - space.a_eq.T @ (space.a_eq @ direction)
    result: FloatArray = direction
    return result
