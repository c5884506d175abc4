"""Comfort by rounds in the goals' null space, where the goals are one level.

Comfort's potential ``C(φ) = Σ m_j (φ_j − τ_j)²`` (:mod:`solver.comfort`) is a quadratic,
so along the goals' tangent its minimiser is one linear solve, not a descent. After the
goals' own descent, each round:

1. Linearises what must hold at φ: the goals' Gauss–Newton factor F (``F Fᵀ`` their
   curvature; a step with ``Fᵀ Δ = 0`` leaves every residual as it is to first order), the
   equality rows, and the limit rows a free step would push past (the active set of the
   step, grown while the step still pushes a touched row outward).
2. Takes Δ, the minimiser of ``C(φ + Δ)`` on that null space: in the metric of the
   masses, ``Δ = −M^(−1/2) (I − Q Qᵀ) M^(1/2) (φ − τ)``, Q an orthonormal basis of
   ``M^(−1/2) [F, rows]`` from its singular values (a redundant goal row does no harm),
   cut at the first limit it meets.
3. Restores the goals with their own descent from ``φ + Δ`` (the step leaves them off by
   its second order): the kernel's Gauss–Newton iterations where they apply.
4. Keeps the restored point when the goals end no worse than where the rounds began
   (within :data:`HOLD_SHARE` of G and :data:`.levels.HOLD` of the longest chain: met
   goals stay as exactly met as the goals' descent left them) and C is lower; otherwise
   halves Δ, at most :data:`HALVINGS` times.

The rounds end when C falls by less than :data:`STILL` of itself, when no halving is
kept, or when the budget is spent. This is the gradient projection for nonlinear
constraints (Rosen 1961) that :mod:`.levels` runs for any level, with the tangent's
descent replaced by C's exact minimiser there, so a drag event's comfort costs a few
restorations, not a descent per round.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .._checks import FloatArray, IntArray
from ..result import Descent, Status
from .budget import Budget
from .levels import HOLD
from .space import ReducedSpace

__all__ = ["DEPTH", "HALVINGS", "HOLD_SHARE", "SMALL", "STILL", "ComfortAim", "relax"]

HOLD_SHARE = 1e-9
"""How much worse, as a share of itself, the goals' G may end than where the rounds began:
rounding of a restoring descent that is never exact to the bit."""
STILL = 1e-9
"""A round that lowers C by less than this share of it ends the rounds."""
HALVINGS = 4
"""Most halvings of a round's step whose restored point is not kept."""
DEPTH = 5
"""Most rounds Anderson's mixing draws on (:func:`_trials`)."""
SMALL = 1e-9
"""A round's step no longer than this in every variable ends the rounds."""
_RANK = 1e-10
"""Singular values of the held rows below this share of the largest are redundant."""
_PUSH = 1e-12
"""A step that moves a touched limit row outward by more than this holds it."""

Restore = Callable[[FloatArray, Budget], Descent]
"""φ ↦ the goals' descent from φ within the budget."""


@dataclass(frozen=True)
class ComfortAim:
    """Comfort over φ: ``C(φ) = Σ m (φ − τ)²`` on the free DOFs.

    Attributes:
        target: τ, shape (n,).
        masses: m ≥ 0, shape (n,).
    """

    target: FloatArray
    masses: FloatArray

    def value(self, phi: FloatArray) -> float:
        """C at φ."""
        off = phi - self.target
        return float(self.masses @ (off * off))

    def potential(self, phi: FloatArray) -> tuple[float, FloatArray]:
        """C at φ and its gradient (a level's objective, :mod:`.levels`)."""
        off = phi - self.target
        return float(self.masses @ (off * off)), 2.0 * self.masses * off


def relax(
    first: Descent,
    aim: ComfortAim,
    space: ReducedSpace,
    curvature: Callable[[FloatArray], FloatArray],
    restore: Restore,
    budget: Budget,
    longest: float,
) -> Descent:
    """The goals' descent ``first`` relaxed toward comfort in the goals' null space.

    Args:
        first: The goals' descent from the solve's start: its end is the rounds' start.
        aim: Comfort over φ.
        space: The reduced space (its equality and limit rows).
        curvature: φ ↦ F, the goals' Gauss–Newton factor over φ, shape (n, k).
        restore: The goals' descent from a point within a budget.
        budget: The stops the rounds share with ``first``.
        longest: The longest chain's length: :data:`.levels.HOLD` is a share of it.

    Returns:
        The last kept descent, with every count of the rounds and, as ``levels``, the
        goals' G / w and C there (restarts rank by the goals first).
    """
    best = first
    iterations, evaluations = first.iterations, first.evaluations
    ceiling = first.value * (1.0 + HOLD_SHARE) + (HOLD * max(1.0, longest)) ** 2
    goal_value = budget.goal_value
    if goal_value is not None and first.value <= goal_value:
        goal_value = min(goal_value, ceiling)  # met goals stay as met as the descent left them
    comfort = aim.value(best.phi)
    history: list[tuple[FloatArray, FloatArray]] = []  # the last rounds' points and steps
    while first.status in (Status.CONVERGED, Status.STALLED) and comfort > 0.0:
        step, held, slack = _step(best.phi, aim, space, curvature(best.phi))
        evaluations += 1
        if float(np.max(np.abs(step), initial=0.0)) <= SMALL:
            break
        kept = None
        for trial_step in _trials(best.phi, slack, step, history, space, held):
            left = Budget(
                budget.tolerance,
                max(budget.max_iterations - iterations, 1),
                budget.deadline,
                goal_value,
            )
            trial = restore(best.phi + trial_step, left)
            iterations += trial.iterations
            evaluations += trial.evaluations
            lower = aim.value(trial.phi)
            if trial.value <= ceiling and lower < comfort:
                kept = trial, lower
                break
            if _spent(budget, iterations):
                break
        if kept is None:
            break
        history = [*history[1 - DEPTH :], (best.phi, step)] if DEPTH > 1 else []
        best, gained = kept[0], comfort - kept[1]
        comfort = kept[1]
        if gained <= STILL * (comfort + gained) or _spent(budget, iterations):
            break
    # The status is the goals' (the last kept descent's): comfort cut short by the budget
    # leaves the goals as finished as they were.
    return replace(
        best,
        iterations=iterations,
        evaluations=evaluations,
        levels=(best.value, comfort),
    )


def _trials(
    phi: FloatArray,
    slack: FloatArray,
    step: FloatArray,
    history: list[tuple[FloatArray, FloatArray]],
    space: ReducedSpace,
    held: IntArray,
) -> list[FloatArray]:
    """The moves a round tries in turn: the accelerated one, the step, then halved.

    The rounds are a fixed-point iteration φ ← restored(φ + Δ(φ)) that converges linearly
    where the goals' surface bends (the tangent's step models C's curvature, not the
    surface's, and overshoots or falls short by a steady ratio). Anderson's mixing of the
    last rounds (Anderson 1965; Walker & Ni 2011) finds the combination of their steps
    that cancels most of the current one, a secant model of that missing curvature, and
    is tried first.
    """
    trials = [step * 0.5**k for k in range(HALVINGS + 1)]
    if history:
        points = np.array([point for point, _ in history] + [phi])
        steps = np.array([previous for _, previous in history] + [step])
        moves, turns = np.diff(points, axis=0).T, np.diff(steps, axis=0).T
        mix, *_ = np.linalg.lstsq(turns, step, rcond=None)
        mixed = step - (moves + turns) @ mix
        if np.all(np.isfinite(mixed)) and np.any(mixed):
            trials.insert(0, _cut(slack, mixed, space, np.zeros(0, dtype=np.intp)))
    return trials


def _spent(budget: Budget, iterations: int) -> bool:
    """Whether the rounds' budget is spent after ``iterations`` steps in all."""
    if iterations >= budget.max_iterations:
        return True
    return budget.deadline is not None and time.perf_counter() >= budget.deadline


def _step(
    phi: FloatArray, aim: ComfortAim, space: ReducedSpace, factor: FloatArray
) -> tuple[FloatArray, IntArray, FloatArray]:
    """C's minimiser from φ on the goals' and the touched limits' null space, cut at a limit.

    Returns:
        The step, the limit rows it holds, and every row's slack at φ.
    """
    root = np.sqrt(np.maximum(aim.masses, 1e-12))
    toward = root * (phi - aim.target)  # M^(1/2) (φ − τ)
    slack = space.rows_in @ phi - space.b_in
    touched = np.flatnonzero(slack <= 1e-12)
    held = np.zeros(0, dtype=np.intp)
    fixed = [factor, space.a_eq.T]
    while True:
        columns = np.concatenate([*fixed, space.a_in[held].T], axis=1) / root[:, None]
        step = -toward
        if columns.shape[1]:
            basis, values, _ = np.linalg.svd(columns, full_matrices=False)
            basis = basis[:, values > _RANK * values[0]] if values[0] > 0.0 else basis[:, :0]
            step = basis @ (basis.T @ toward) - toward
        step = step / root
        if not touched.size:
            break
        pushed = touched[space.a_in[touched] @ step < -_PUSH]
        pushed = pushed[~np.isin(pushed, held)]
        if not pushed.size:
            break
        held = np.concatenate([held, pushed])
    return _cut(slack, step, space, held), held, slack


def _cut(slack: FloatArray, step: FloatArray, space: ReducedSpace, held: IntArray) -> FloatArray:
    """``step`` cut at the first limit row it meets, from the point the rows' ``slack`` is at.

    The ``held`` rows it keeps are not cut at.
    """
    rates = space.rows_in @ step
    going = rates < -_PUSH
    going[held] = False
    if np.any(going):
        cut = float(np.min(np.maximum(slack[going], 0.0) / -rates[going]))
        if cut < 1.0:
            return cut * step
    return step
