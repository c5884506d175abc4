"""Damped least squares with task priority and pins (Greeff, Haber & Seidel 2005).

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

    λ² = λ_max² (1 − (σ_min / ε)²) · min(1, ‖r‖ / λ_max)  when σ_min < ε,  else 0,
    ε = 4 λ_max

σ_min the smallest non-zero singular value of the level's rows in the null space above
and r the residual the level's step is to remove: far from a singular pose the step is
the exact least-squares step; near one (a limb stretched out, σ_min → 0) with the
target a limb's fraction away, every component is bounded by ``1/(2λ)`` per unit of
residual, so joints never spin; and as the residual falls below λ_max the damping
fades with it (no joint step above ½√(‖r‖/λ_max)), so a reachable goal is met with
Gauss–Newton's fast end rather than a damped crawl. λ_max is the ``damping`` option
(a length, default :data:`DAMPING` × the longest chain).

Joint limits are kept after each step by clamping and solving again (Baerlocher &
Boulic's clamping loop, made an active set): the limit row that stops the step first,
with every row already on its bound that the step would cross, joins the hard rows at
the top — equalities and rows moved exactly onto their bound — and the step is solved
again in what is left; this repeats until no row stops the step. Then a clamped row
whose multiplier shows it holding the step back from moving inward (the residual
falls away from its bound) is released and the step solved again, each row released
at most once per step (a step from rest may meet a score of limits at once). What is
left is cut at the first limit not clamped, and the point restored exactly
(:func:`.projection.restore`). A step is kept when it makes the highest level it
changes better (lexicographic order; a level's change below ``tolerance`` × 1e-6 plus
:data:`_STILL` of its error, or within ``tolerance`` of zero, is none), else halved:
the null-space steps of low levels disturb the upper levels only to second order, so
halving always lets them through, and the next step's top level corrects it. Three
steps in a row without a change end the descent, so a local minimum ends it and the
restarts run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .._checks import FloatArray, IntArray
from ..result import Descent, Status
from .budget import Budget, Reporter, finished
from .projection import multipliers, restore
from .space import ReducedSpace
from .tasks import Task, TaskModel, damped_inverse, stack

__all__ = ["DAMPING", "descend_dls"]

DAMPING = 0.05
"""Default λ_max as a fraction of the longest chain length."""

_ON_BOUND = 1e-12
"""A limit row with at most this slack is on its bound."""
_STILL = 1e-6
"""A level's relative change below this is none: three such steps end the descent."""
_HALVINGS = 12
_POLISH = 4


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
        The last iterate; ``value`` is G_all divided by its smallest positive weight
        (the scale of every method's stops: with the largest, a goal of weight 1 beside
        goals of weight 1e6 counted as met 1e3 times farther off).
    """
    weights = model.coefficients(np.ones(len(model.problem.leaves)))
    level_weight = [max(float(weights[level].max(initial=0.0)), 1e-300) for level in levels]
    positive = weights[weights > 0.0]
    scale = float(positive.min()) if positive.size else 1.0
    reach = model.problem.chain_lengths * np.sqrt(weights)
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
        pulls = _stacked(_near(tasks, reach), levels, level_weight, space.n)
        delta = _clamped_step(phi, pulls, space, damping)
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
                    trial, trial_values, trial_tasks, extra = _polish(
                        model,
                        levels[:held],
                        level_weight[:held],
                        (trial, trial_values, trial_tasks),
                        space,
                    )
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
        phi, values, tasks, extra = _polish(
            model, levels[:met], level_weight[:met], (phi, values, tasks), space
        )
        evaluations += extra
    total = float(model.coefficients(values) @ values) / scale
    return finished(phi, total, status, detail, (iterations, evaluations))


def _polish(
    model: TaskModel,
    levels: Sequence[IntArray],
    weights: Sequence[float],
    at: tuple[FloatArray, FloatArray, list[Task]],
    space: ReducedSpace,
) -> tuple[FloatArray, FloatArray, list[Task], int]:
    """Undamped Gauss–Newton steps on ``levels`` alone (the met top levels).

    A step of the lower levels moves in the null space of the met levels only to first
    order, and leaves them off by the second order of the step (Greeff, Haber & Seidel
    2005's pinned wrist, moved by the shoulder). These steps bring them back, each in
    the null space of the levels above it, for as long as that lowers their errors (at most
    :data:`_POLISH`): the compensation of Greeff et al.'s Table 1, by least squares.
    ``at`` is φ with the model's potentials and tasks there.

    Returns:
        φ, the potentials and tasks there, and the evaluations made.
    """
    phi, values, tasks = at
    evaluations = 0
    if not levels:
        return phi, values, tasks, evaluations
    for _ in range(_POLISH):
        errors = _errors(model, values, levels, weights)
        if float(errors.sum()) <= 0.0:
            break
        step = _clamped_step(phi, _stacked(tasks, levels, weights, space.n), space, 0.0)
        trial = restore(phi + step, space)
        if trial is None:
            break
        trial_values, trial_tasks = model.evaluate(trial)
        evaluations += 1
        trial_errors = _errors(model, trial_values, levels, weights)
        if float(trial_errors.sum()) >= float(errors.sum()):
            break
        phi, values, tasks = trial, trial_values, trial_tasks
    return phi, values, tasks, evaluations


def _stacked(
    tasks: list[Task], levels: Sequence[IntArray], weights: Sequence[float], n: int
) -> list[tuple[FloatArray, FloatArray]]:
    """Each level's residuals and rows from the tasks, over √ of the level's weight."""
    by_leaf = {task.leaf: task for task in tasks}
    stacked = []
    for level, weight in zip(levels, weights, strict=True):
        residual, rows = stack([by_leaf[int(i)] for i in level if int(i) in by_leaf], n)
        root = np.sqrt(weight)
        stacked.append((residual / root, rows / root))
    return stacked


def _near(tasks: list[Task], reach: FloatArray) -> list[Task]:
    """The tasks with each residual no longer than its chain's length (times √weight).

    A goal far beyond reach then pulls as one a chain length away would.

    A step grows with the residual, so a goal 10 m off spun joints whole turns in one
    step (25 rad at 10 m, 1.4e6 rad at 1e6 m); Buss & Kim (2005) clamp the error the
    same way.
    """
    near = []
    for task in tasks:
        length = float(np.linalg.norm(task.residual))
        limit = float(reach[task.leaf])
        if length > limit > 0.0:
            task = replace(task, residual=task.residual * (limit / length))
        near.append(task)
    return near


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

    A level's change counts only above ``tolerance`` × 1e-6 plus :data:`_STILL` of its error, and
    not at all while the level stays met (at most ``tolerance``).
    """
    for a, b in zip(new, old, strict=True):
        if abs(a - b) <= tolerance * 1e-6 + _STILL * b or max(a, b) <= tolerance:
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
    slack = space.a_in @ phi - space.b_in if space.a_in.shape[0] else np.zeros(0)
    released: set[int] = set()
    for _ in range(2 * space.a_in.shape[0] + 1):
        limit, row = _first_limit(phi, delta, space, blocked)
        if limit < 1.0:
            # The row that stops the step first, and with it every row already on its
            # bound that the step would cross: all are clamped at once.
            rate = space.a_in @ delta
            crossing = np.flatnonzero((slack <= _ON_BOUND) & (rate < -1e-14))
            new = [int(k) for k in crossing if int(k) not in blocked]
            blocked.extend(new if row in new else [row, *new])
        else:
            free = _holding_out(delta, levels, space, blocked)
            if free < 0 or free in released:
                break
            released.add(free)
            blocked.remove(free)
        delta = _step(phi, levels, space, damping, blocked)
    limit, _ = _first_limit(phi, delta, space, blocked)
    result: FloatArray = delta * min(1.0, limit)
    return result


def _first_limit(
    phi: FloatArray, delta: FloatArray, space: ReducedSpace, blocked: list[int]
) -> tuple[float, int]:
    """:func:`.projection.step_limit` over the rows not clamped.

    A clamped row moves exactly onto its bound in exact arithmetic; its rate's rounding
    (1e-14) must not cut the step to nothing. Ratios within 1e-12 of 1 are 1.
    """
    if not space.a_in.shape[0]:
        return np.inf, -1
    rate = space.a_in @ delta
    rate[blocked] = 0.0
    falling = rate < -1e-14
    if not np.any(falling):
        return np.inf, -1
    ratios = np.full(rate.shape, np.inf)
    slack = space.a_in[falling] @ phi - space.b_in[falling]
    ratios[falling] = np.maximum(slack, 0.0) / -rate[falling]
    row = int(np.argmin(ratios))
    limit = float(ratios[row])
    return (np.inf, -1) if limit >= 1.0 - 1e-12 else (limit, row)


def _holding_out(
    delta: FloatArray,
    levels: Sequence[tuple[FloatArray, FloatArray]],
    space: ReducedSpace,
    blocked: list[int],
) -> int:
    """The clamped row whose release lowers the levels' residual most, or −1.

    At the clamped step the residual's gradient is a combination of the clamped rows
    (and the equalities); a row with a negative multiplier holds the step back from
    going inward, away from its bound, where the residual falls: it is not a limit
    the step meets, and clamping it only stalls the step.
    """
    if not blocked:
        return -1
    gradient = np.zeros(space.n)
    for residual, rows in levels:
        if rows.shape[0]:
            gradient += rows.T @ (residual + rows @ delta)
    scale = float(np.linalg.norm(gradient))
    if scale <= 1e-14:
        return -1
    weights = multipliers(gradient, np.array(blocked, np.intp), space)
    worst = int(np.argmin(weights))
    return blocked[worst] if weights[worst] < -1e-9 * scale else -1


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
        right = -residual - rows @ delta
        inverse, basis = damped_inverse(projected, damping, float(np.linalg.norm(right)))
        delta = delta + inverse @ right
        null = null - basis.T @ basis
    return delta
