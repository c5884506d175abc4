"""Prioritised least-squares steps over tasks, the limits clamped, and the polish.

A step solves the priority levels in order, each in the null space of the levels
above (Siciliano & Slotine 1991; Baerlocher & Boulic 1998, 2004), with every limit row
that stops it clamped as a hard row at the top (:func:`clamped_step`). The polish
(:func:`polish`) takes such undamped steps on met levels alone to bring them back after
a lower level's step moved them to second order. Damped least squares
(:mod:`.dls`) steps with them; Goldfarb's method by levels (:mod:`.levels`) restores
the levels it holds with the polish.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._checks import FloatArray, IntArray
from .projection import multipliers, restore
from .space import ReducedSpace
from .tasks import Task, TaskModel, damped_inverse, stack

__all__ = ["ON_BOUND", "POLISH", "clamped_step", "level_errors", "polish", "stacked_levels"]

ON_BOUND = 1e-12
"""A limit row with at most this slack is on its bound."""
POLISH = 4
"""Most steps of :func:`polish` unless told."""


def polish(
    model: TaskModel,
    levels: Sequence[IntArray],
    weights: Sequence[float],
    at: tuple[FloatArray, FloatArray, list[Task]],
    space: ReducedSpace,
    rounds: int = POLISH,
    enough: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, list[Task], int]:
    """Undamped Gauss–Newton steps on ``levels`` alone (the met top levels).

    A step of the lower levels moves in the null space of the met levels only to first
    order, and leaves them off by the second order of the step (Greeff, Haber & Seidel
    2005's pinned wrist, moved by the shoulder). These steps bring them back, each in
    the null space of the levels above it, for as long as that lowers their errors (at most
    ``rounds``): the compensation of Greeff et al.'s Table 1, by least squares.
    ``at`` is φ with the model's potentials and tasks there; the steps also stop once
    every level's error is at most ``enough`` (one bound per level), if given.

    Returns:
        φ, the potentials and tasks there, and the evaluations made.
    """
    phi, values, tasks = at
    evaluations = 0
    if not levels:
        return phi, values, tasks, evaluations
    for _ in range(rounds):
        errors = level_errors(model, values, levels, weights)
        if float(errors.sum()) <= 0.0 or (enough is not None and np.all(errors <= enough)):
            break
        step = clamped_step(phi, stacked_levels(tasks, levels, weights, space.n), space, 0.0)
        trial = restore(phi + step, space)
        if trial is None:
            break
        trial_values, trial_tasks = model.evaluate(trial)
        evaluations += 1
        trial_errors = level_errors(model, trial_values, levels, weights)
        if float(trial_errors.sum()) >= float(errors.sum()):
            break
        phi, values, tasks = trial, trial_values, trial_tasks
    return phi, values, tasks, evaluations


def stacked_levels(
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


def level_errors(
    model: TaskModel, values: FloatArray, levels: Sequence[IntArray], weights: Sequence[float]
) -> FloatArray:
    """Each level's weighted potentials summed over its own weight, shape (levels,)."""
    coefficient = model.coefficients(values)
    return np.array(
        [
            float(coefficient[level] @ values[level]) / weight
            for level, weight in zip(levels, weights, strict=True)
        ]
    )


def clamped_step(
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
            crossing = np.flatnonzero((slack <= ON_BOUND) & (rate < -1e-14))
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
