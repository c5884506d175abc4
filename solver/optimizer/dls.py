"""Damped least squares with task priority and pins (seeds 002 and 004).

Each iteration linearises every goal as a task ``R + A δ`` (:mod:`.tasks`) and solves
the levels in order (Siciliano & Slotine 1991; Baerlocher & Boulic 1998, 2004):

    δ₀ = 0, N₀ = I (after the hard rows, below)
    δ_k = δ_{k−1} + (A_k N_{k−1})^{+λ} (−R_k − A_k δ_{k−1})
    N_k = N_{k−1} − (A_k N_{k−1})⁺ (A_k N_{k−1})

so a level moves only in the null space of the levels above it. The levels are: the
pins, then ``priority`` 0, 1, … (:func:`.tasks.leaves_by_level`); each level's rows are
divided by the square root of its largest weight, so only weights within a level
trade against each other.

Damping (Nakamura & Hanafusa 1986; Wampler 1986; adaptive as in Maciejewski & Klein
1988): ``(A N)^{+λ} = V diag(σ / (σ² + λ²)) Uᵀ`` with

    λ² = λ_max² (1 − (σ_min / ε)²)  when σ_min < ε,  else 0,  ε = 4 λ_max

σ_min the smallest non-zero singular value of the level's rows in the null space above:
far from a singular pose the step is the exact least-squares step; near one (a limb
stretched out, σ_min → 0) every component is bounded by ``1/(2λ)`` per unit of
residual, so joints never spin. λ_max is the ``damping`` option (a length, default
:data:`DAMPING` × the longest chain).

Joint limits are kept after each step as Baerlocher & Boulic's clamping loop does:
the limit rows that stop the step (the ratio test) join the hard rows at the top —
equalities and rows moved exactly onto their bound — and the step is solved again
(at most :data:`_CLAMPS` times); what is left is cut at the first limit, and the point
restored exactly (:func:`.projection.restore`). A step is kept when it makes the
highest level it changes better (lexicographic order; a level's change below
``tolerance`` × 1e-6, or within ``tolerance`` of zero, is none), else halved: the
null-space steps of low levels disturb the upper levels only to second order, so
halving always lets them through, and the next step's top level corrects it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._checks import FloatArray, IntArray
from .budget import Budget, Reporter, finished
from .projection import restore, step_limit
from .result import Descent, Status
from .space import ReducedSpace
from .tasks import TaskModel, stack

__all__ = ["DAMPING", "damped_inverse", "descend_dls"]

DAMPING = 0.05
"""Default λ_max as a fraction of the longest chain length."""

_CLAMPS = 8
_HALVINGS = 12
_POLISH = 4


def damped_inverse(matrix: FloatArray, damping: float) -> tuple[FloatArray, FloatArray]:
    """The adaptively damped pseudo-inverse of ``matrix`` and its row-space basis.

    Args:
        matrix: Shape (k, n).
        damping: λ_max ≥ 0.

    Returns:
        ``(inverse, basis)``: shapes (n, k) and (r, n), r the numerical rank; ``basisᵀ
        basis`` projects onto the row space.
    """
    if not matrix.size:
        return np.zeros(matrix.shape[::-1]), np.zeros((0, matrix.shape[1]))
    u, sigma, vt = np.linalg.svd(matrix, full_matrices=False)
    keep = sigma > 1e-10 * max(float(sigma.max(initial=0.0)), 1e-300)
    if not np.any(keep):
        return np.zeros(matrix.shape[::-1]), np.zeros((0, matrix.shape[1]))
    u, sigma, vt = u[:, keep], sigma[keep], vt[keep]
    threshold = 4.0 * damping
    smallest = float(sigma.min())
    lam2 = damping**2 * (1.0 - (smallest / threshold) ** 2) if smallest < threshold else 0.0
    inverse: FloatArray = (vt.T * (sigma / (sigma**2 + lam2))) @ u.T
    return inverse, vt


def descend_dls(
    model: TaskModel,
    levels: Sequence[IntArray],
    phi0: FloatArray,
    space: ReducedSpace,
    budget: Budget,
    *,
    damping: float,
    callback: Reporter | None = None,
) -> Descent:
    """Damped least-squares steps by priority level from the feasible φ0.

    Args:
        model: The goals as tasks.
        levels: Leaf indices per level, highest first.
        phi0: Feasible start, shape (n,).
        space: The variables' limits.
        budget: The stops. A level's error change below 1e-6 of its tolerance is no
            change, and three steps in a row without a change end the descent.
        damping: λ_max (a length).
        callback: Called at every iterate.

    Returns:
        The last iterate; ``value`` is G_all divided by its largest weight.
    """
    weights = model.coefficients(np.ones(len(model.problem.leaves)))
    level_weight = [max(float(weights[level].max(initial=0.0)), 1e-300) for level in levels]
    scale = max(level_weight)
    phi = phi0.copy()
    values, tasks = model.evaluate(phi)
    evaluations = 1
    errors = _errors(model, values, levels, level_weight)
    iterations = 0
    still = 0
    status, detail = Status.CONVERGED, ""
    tolerance = budget.tolerance
    while True:
        stop = budget.check(float(model.coefficients(values) @ values) / scale, iterations)
        if stop is not None:
            status, detail = stop
            break
        by_leaf = {task.leaf: task for task in tasks}
        stacked = []
        for level, weight in zip(levels, level_weight, strict=True):
            residual, rows = stack([by_leaf[int(i)] for i in level if int(i) in by_leaf], space.n)
            root = np.sqrt(weight)
            stacked.append((residual / root, rows / root))
        delta = _clamped_step(phi, stacked, space, damping)
        held = 0
        while held < len(levels) - 1 and errors[held] <= tolerance:
            held += 1
        accepted = None
        verdict = 0
        for _ in range(_HALVINGS):
            if float(np.max(np.abs(delta), initial=0.0)) <= 1e-14:
                break
            trial = restore(phi + delta, space)
            if trial is not None:
                trial_values, trial_tasks = model.evaluate(trial)
                evaluations += 1
                if held:
                    trial, trial_values, extra = _polish(
                        model, levels[:held], level_weight[:held], trial, trial_values, space
                    )
                    if extra:
                        trial_values, trial_tasks = model.evaluate(trial)
                    evaluations += extra
                trial_errors = _errors(model, trial_values, levels, level_weight)
                verdict = _compare(trial_errors, errors, tolerance)
                if verdict >= 0:
                    accepted = (trial, trial_values, trial_tasks, trial_errors)
                    break
            delta = delta * 0.5
        if accepted is None:
            detail = "no step improves the levels in priority order"
            break
        trial, values, tasks, errors = accepted
        phi = trial
        iterations += 1
        if callback is not None:
            callback(phi, float(model.coefficients(values) @ values) / scale)
        still = still + 1 if verdict == 0 else 0
        if still >= 3:
            detail = "no level changes any more"
            break
    if status is Status.CONVERGED:
        errors = _errors(model, values, levels, level_weight)
        met = 0
        while met < len(levels) and errors[met] <= tolerance:
            met += 1
        phi, values, extra = _polish(model, levels[:met], level_weight[:met], phi, values, space)
        evaluations += extra
    total = float(model.coefficients(values) @ values) / scale
    return finished(phi, total, status, detail, (iterations, evaluations))


def _polish(
    model: TaskModel,
    levels: Sequence[IntArray],
    weights: Sequence[float],
    phi: FloatArray,
    values: FloatArray,
    space: ReducedSpace,
) -> tuple[FloatArray, FloatArray, int]:
    """Undamped Gauss–Newton steps on ``levels`` alone (the met top levels).

    A step of the lower levels moves in the null space of the met levels only to first
    order, and leaves them off by the second order of the step (seed 004's pinned
    wrist, moved by the shoulder). These steps bring them back, each in the null space
    of the levels above it, for as long as that lowers their errors (at most
    :data:`_POLISH`): the compensation of Greeff et al.'s Table 1, by least squares.

    Returns:
        φ, the potentials there, and the evaluations made.
    """
    evaluations = 0
    if not levels:
        return phi, values, evaluations
    for _ in range(_POLISH):
        errors = _errors(model, values, levels, weights)
        if float(errors.sum()) <= 0.0:
            break
        _, tasks = model.evaluate(phi)
        by_leaf = {task.leaf: task for task in tasks}
        stacked = []
        for level, weight in zip(levels, weights, strict=True):
            residual, rows = stack([by_leaf[int(i)] for i in level if int(i) in by_leaf], space.n)
            stacked.append((residual / np.sqrt(weight), rows / np.sqrt(weight)))
        trial = restore(phi + _clamped_step(phi, stacked, space, 0.0), space)
        if trial is None:
            break
        trial_values, _ = model.evaluate(trial)
        evaluations += 1
        trial_errors = _errors(model, trial_values, levels, weights)
        if float(trial_errors.sum()) >= float(errors.sum()):
            break
        phi, values = trial, trial_values
    return phi, values, evaluations


def _errors(
    model: TaskModel, values: FloatArray, levels: Sequence[IntArray], weights: Sequence[float]
) -> FloatArray:
    coefficient = model.coefficients(values)
    return np.array(
        [
            float(coefficient[level] @ values[level]) / weight
            for level, weight in zip(levels, weights, strict=True)
        ]
    )


def _compare(new: FloatArray, old: FloatArray, tolerance: float) -> int:
    """+1 when ``new`` is better in lexicographic order, −1 worse, 0 the same.

    A level's change counts only above ``tolerance`` × 1e-6 plus 1e-9 of its error, and
    not at all while the level stays met (at most ``tolerance``).
    """
    for a, b in zip(new, old, strict=True):
        if abs(a - b) <= tolerance * 1e-6 + 1e-9 * b or max(a, b) <= tolerance:
            continue
        return 1 if a < b else -1
    return 0


def _clamped_step(
    phi: FloatArray,
    levels: Sequence[tuple[FloatArray, FloatArray]],
    space: ReducedSpace,
    damping: float,
) -> FloatArray:
    """The prioritised step with the limits that stop it clamped (see the module)."""
    blocked: list[int] = []
    delta = _step(phi, levels, space, damping, blocked)
    for _ in range(_CLAMPS):
        limit, row = step_limit(phi, delta, space)
        if limit >= 1.0 or row < 0 or row in blocked:
            break
        blocked.append(row)
        delta = _step(phi, levels, space, damping, blocked)
    limit, _ = step_limit(phi, delta, space)
    result: FloatArray = delta * min(1.0, limit)
    return result


def _step(
    phi: FloatArray,
    levels: Sequence[tuple[FloatArray, FloatArray]],
    space: ReducedSpace,
    damping: float,
    blocked: list[int],
) -> FloatArray:
    n = space.n
    hard = np.concatenate([space.a_eq, space.a_in[blocked]])
    target = np.concatenate(
        [np.zeros(space.a_eq.shape[0]), space.b_in[blocked] - space.a_in[blocked] @ phi]
    )
    delta = np.zeros(n)
    null = np.eye(n)
    if hard.shape[0]:
        inverse, basis = damped_inverse(hard, 0.0)
        delta = inverse @ target
        null = null - basis.T @ basis
    for residual, rows in levels:
        if not rows.shape[0]:
            continue
        projected = rows @ null
        inverse, basis = damped_inverse(projected, damping)
        delta = delta + inverse @ (-residual - rows @ delta)
        null = null - basis.T @ basis
    return delta
