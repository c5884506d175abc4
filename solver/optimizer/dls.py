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
from .prioritised import clamped_step, level_errors, polish, stacked_levels
from .projection import restore
from .space import ReducedSpace
from .tasks import Task, TaskModel

__all__ = ["DAMPING", "descend_dls"]

DAMPING = 0.05
"""Default λ_max as a fraction of the longest chain length."""

_STILL = 1e-6
"""A level's relative change below this is none: three such steps end the descent."""
_HALVINGS = 12


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
    errors = level_errors(model, values, levels, level_weight)
    iterations = 0
    still = 0
    status, detail = Status.CONVERGED, ""
    tolerance = budget.tolerance
    while True:
        stop = budget.check(float(model.coefficients(values) @ values) / scale, iterations)
        if stop is not None:
            status, detail = stop
            break
        pulls = stacked_levels(_near(tasks, reach), levels, level_weight, space.n)
        delta = clamped_step(phi, pulls, space, damping)
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
                    trial, trial_values, trial_tasks, extra = polish(
                        model,
                        levels[:held],
                        level_weight[:held],
                        (trial, trial_values, trial_tasks),
                        space,
                    )
                    evaluations += extra
                trial_errors = level_errors(model, trial_values, levels, level_weight)
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
        errors = level_errors(model, values, levels, level_weight)
        met = 0
        while met < len(levels) and errors[met] <= tolerance:
            met += 1
        phi, values, tasks, extra = polish(
            model, levels[:met], level_weight[:met], (phi, values, tasks), space
        )
        evaluations += extra
    total = float(model.coefficients(values) @ values) / scale
    return finished(phi, total, status, detail, (iterations, evaluations))


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
