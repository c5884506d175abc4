"""Comfort by rounds in the goals' null space, where the goals are one level.

Comfort's potential ``C(φ) = Σ m_j (φ_j − τ_j)²`` (:mod:`solver.comfort`) is a quadratic,
so on a plane its minimiser is one linear solve, not a descent.

After the goals' descent, :func:`settle`'s Newton rounds take C's minimiser on the plane
where the goals' Gauss–Newton model holds (met, or at its least where the goals cannot be
met), which keeps the goals to first order: one evaluation of G, ∇G and the goals'
Gauss–Newton factor a round, in the kernel where it applies (``rk_settle``). The goals'
own descent then ends where :func:`settle` brought G back to its start's.

Where that end is worse on the goals than the start, or C no lower, each round instead:

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
   (within :data:`HOLD_SHARE` of G and :data:`.levels.HOLD` of the longest chain) and C
   is lower; otherwise halves Δ, at most :data:`HALVINGS` times.

Those rounds end when C falls by less than :data:`STILL` of itself, when no halving is
kept, or when the budget is spent. This is the gradient projection for nonlinear
constraints (Rosen 1961) that :mod:`.levels` runs for any level, with the tangent's
descent replaced by C's exact minimiser there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray, IntArray
from ..linalg import lstsq, svd
from ..result import Descent, Status
from .budget import Budget
from .levels import HOLD
from .projection import active_rows
from .space import ReducedSpace

__all__ = [
    "DEPTH",
    "HALVINGS",
    "HOLD_SHARE",
    "MET",
    "ROUNDS",
    "SMALL",
    "STILL",
    "ComfortAim",
    "Rounds",
    "Settler",
    "ceiling_of",
    "comfort_step",
    "kept_at_once",
    "near_of",
    "next_radius",
    "relax",
    "settle",
    "settle_constants",
]

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
Objective = Callable[[FloatArray], tuple[float, FloatArray]]
"""φ ↦ (G, ∇G)."""


@dataclass(frozen=True)
class ComfortAim:
    """Comfort over φ: ``C(φ) = Σ m (φ − τ)²`` on the free DOFs.

    Attributes:
        target: τ, shape (n,).
        masses: m ≥ 0, shape (n,).
        heaviest: The largest m, where known (masses kept from aim to aim), else None.
    """

    target: FloatArray
    masses: FloatArray
    heaviest: float | None = None

    def largest(self) -> float:
        """The largest m (0 without variables)."""
        if self.heaviest is not None:
            return self.heaviest
        return float(self.masses.max(initial=0.0))

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
    objective: Objective | None = None,
    settler: Settler | None = None,
    weights: float = 1.0,
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
        objective: φ ↦ (G, ∇G), the goals' objective: with it, goals that ``first``
            meets relax by :func:`settle`'s Newton rounds first.
        settler: The compiled :func:`settle`, tried before numpy's.
        weights: The goals' weights in G summed, over the smallest: G where every goal
            is off by one unit of length (:data:`MET` is a share of the longest chain).

    Returns:
        The last kept descent, with every count of the rounds and, as ``levels``, the
        goals' G / w and C there (restarts rank by the goals first).
    """
    best = first
    iterations, evaluations = first.iterations, first.evaluations
    ceiling = ceiling_of(first.value, longest)
    goal_value = budget.goal_value
    if goal_value is not None and first.value <= goal_value:
        goal_value = min(goal_value, ceiling)  # met goals stay as met as the descent left them
    if objective is not None and first.status in (Status.CONVERGED, Status.STALLED):
        near = near_of(ceiling, longest, weights)
        newton = _newton_rounds(
            first,
            aim,
            space,
            objective,
            curvature,
            restore,
            budget,
            ceiling,
            longest,
            near,
            settler,
        )
        if newton is not None:
            return newton
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
    return best.revised(
        iterations=iterations,
        evaluations=evaluations,
        levels=(best.value, comfort),
    )


def ceiling_of(value: float, longest: float) -> float:
    """G at or below which goals a descent left at G = ``value`` are as met as it left them.

    ``longest``: the longest chain's length (:data:`.levels.HOLD` is a share of it).
    """
    return value * (1.0 + HOLD_SHARE) + (HOLD * max(1.0, longest)) ** 2


def near_of(ceiling: float, longest: float, weights: float) -> float:
    """G at or below which the rounds' end is kept without a restoring descent.

    ``ceiling`` (:func:`ceiling_of`) and every goal's :data:`MET` of the longest chain;
    ``weights``: as :func:`relax`'s.
    """
    return ceiling + weights * (MET * longest) ** 2


def kept_at_once(
    first: tuple[FloatArray, int, int],
    rounds: Rounds,
    kept: tuple[list[int], FloatArray, float],
    aim: ComfortAim,
    near: float,
    ended: tuple[Status, str],
) -> Descent | None:
    """:func:`relax`'s result where its rounds' end is kept, from rows found beside them.

    ``first``: the goals' descent's end, its iterations and evaluations (a descent that
    met the goals, ended with ``ended``'s status and message); ``rounds``: comfort's
    rounds from there, a round kept; ``kept``: the rows their end rests on (bounds on
    distinct variables without equality rows, or none), their multipliers and the norm of
    the gradient off them and the equalities (as :func:`_kept_rounds` finds them, the
    kernel's :meth:`Kernel.quick <solver.kernel.Kernel.quick>`); ``near``: :func:`near_of`'s. The
    same :class:`Descent` as :func:`relax` makes there (:func:`_newton_rounds`); None where
    relax would not keep that end (a restoring descent follows).
    """
    phi, iterations, evaluations = first
    start, comfort = aim.value(phi), aim.value(rounds.phi)
    if not (rounds.value <= near and comfort < start):
        return None
    rows, multipliers, projected = kept
    return Descent(
        phi=rounds.phi,
        value=rounds.value,
        gradient=rounds.gradient,
        status=ended[0],
        message=ended[1],
        iterations=iterations + rounds.iterations,
        evaluations=evaluations + rounds.evaluations,
        active=tuple(rows),
        projected_gradient=projected,
        multipliers=multipliers,
        readds=0,
        levels=(rounds.value, comfort),
    )


def _trials(
    phi: FloatArray,
    slack: FloatArray,
    step: FloatArray,
    history: list[tuple[FloatArray, FloatArray]],
    space: ReducedSpace,
    held: IntArray,
) -> list[FloatArray]:
    """The moves a round tries in turn: the mixed one (:func:`_mixed`), the step, halved."""
    trials = [step * 0.5**k for k in range(HALVINGS + 1)]
    mixed = _mixed(phi, step, history)
    if mixed is not None:
        trials.insert(0, _cut(slack, mixed, space, np.zeros(0, dtype=np.intp)))
    return trials


def _mixed(
    phi: FloatArray,
    step: FloatArray,
    history: list[tuple[FloatArray, FloatArray]],
    damped: bool = False,
) -> FloatArray | None:
    """Anderson's mixing of the last rounds' steps with this one's, or None.

    The rounds are a fixed-point iteration φ ← φ + Δ(φ) that converges linearly where
    the goals' surface bends (each step models C's curvature, not the surface's, and
    overshoots or falls short by a steady ratio). Anderson's mixing of the last rounds
    (Anderson 1965; Walker & Ni 2011) finds the combination of their steps that cancels
    most of the current one, a secant model of that missing curvature. Its least squares
    are numpy's, or ``damped`` normal equations (:func:`_damped_solve`, as the kernel's).
    """
    if not history:
        return None
    points = np.array([point for point, _ in history] + [phi])
    steps = np.array([previous for _, previous in history] + [step])
    moves, turns = np.diff(points, axis=0).T, np.diff(steps, axis=0).T
    mix = _damped_solve(turns.T @ turns, turns.T @ step) if damped else lstsq(turns, step)
    mixed: FloatArray = step - (moves + turns) @ mix
    if np.all(np.isfinite(mixed)) and np.any(mixed):
        return mixed
    return None


def _spent(budget: Budget, iterations: int) -> bool:
    """Whether the rounds' budget is spent after ``iterations`` steps in all."""
    if iterations >= budget.max_iterations:
        return True
    return budget.deadline is not None and time.perf_counter() >= budget.deadline


def comfort_step(
    phi: FloatArray, aim: ComfortAim, space: ReducedSpace, factor: FloatArray
) -> FloatArray:
    """C's minimiser from φ where the columns of ``factor`` and the touched limits hold.

    The step of a round (:func:`_step`), for the levels' comfort below held levels
    (:mod:`.levels`), whose rows are ``factor``'s columns.
    """
    return _step(phi, aim, space, factor)[0]


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
            basis, values, _ = svd(columns, full_matrices=False)
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


DAMPING = 1e-4
"""The Newton rounds' metric is ``M + λ I`` with λ this share of the largest mass: a DOF
comfort does not weigh still moves no further than it must."""
NEAR = 1e-3
"""Between Newton rounds the goals may be off by this share of the longest chain."""
MOVE = 0.25
"""The Newton rounds' first trust radius: the largest change of a variable in a round."""
ROUNDS = 8
"""Most Newton rounds (:func:`settle`) of one relaxation: each round's step toward comfort
is cut at a trust radius, so that far from comfort a round gains little; a drag's next
event starts where the last one ended and takes its rounds from there."""
PROJECTIONS = 4
"""Most steps onto the goals after the Newton rounds."""
ROUNDING = 1e-10
"""A Newton round that lowers the merit by less than this share of C ends the rounds: the
rounds converge linearly, and the rounds past this share move the pose by a few
microradians at most, each at the cost of two evaluations."""
FINE = 1e-9
"""A Newton round's step no longer than this in every variable ends the rounds."""
MET = 1e-8
"""The Newton rounds' end, or the goals' descent from there, is kept where G exceeds
``ceiling`` (the first descent's G to rounding) by at most every goal off by this share
of the longest chain (each goal's weight times its square, summed): 10 nm on a 1 m chain,
far below what a view of the pose shows. A descent's stop test leaves goals a few
nanometres off, where the rounds' end may be a little further than the start was."""
PENALTY = 4.0
"""The Newton rounds keep a step that lowers ``C + ν √(2 (G − ceiling))``, ν this many
times the largest ‖y‖ of the rounds so far (twice y is C's multipliers: an exact
penalty)."""


@dataclass(frozen=True)
class Rounds:
    """Where :func:`settle`'s rounds and steps onto the goals ended.

    Attributes:
        phi: The end, (n,).
        value: G there.
        gradient: ∇G there, (n,).
        evaluations: Evaluations of G and its curvature.
        iterations: Rounds taken.
        moved: Whether a round was kept (else ``phi`` is the start).
    """

    phi: FloatArray
    value: float
    gradient: FloatArray
    evaluations: int
    iterations: int
    moved: bool


Settler = Callable[[Descent, ComfortAim, dict[str, float], Budget], "Rounds | None"]
"""(the goals' descent, comfort, :func:`settle_constants`, the budget) ↦ the compiled
:func:`settle`'s rounds, or None where they do not apply."""


def settle_constants(aim: ComfortAim, ceiling: float, longest: float) -> dict[str, float]:
    """:func:`settle`'s constants: the kernel's ``Settle`` fields but comfort's arrays.

    Args:
        aim: Comfort.
        ceiling: G at or below which the goals are as met as the goals' descent left them.
        longest: The longest chain's length.
    """
    return {
        "damping": DAMPING * aim.largest(),
        "nearby": ceiling + (NEAR * longest) ** 2,
        "ceiling": ceiling,
        "radius": MOVE,
        "penalty": PENALTY,
        "small": FINE,
        "rounding": ROUNDING,
        "gram": GRAM,
        "push": _PUSH,
        "rounds": ROUNDS,
        "halvings": HALVINGS,
        "depth": DEPTH,
        "projections": PROJECTIONS,
    }


def settle(
    first: Descent,
    aim: ComfortAim,
    space: ReducedSpace,
    objective: Objective,
    curvature: Callable[[FloatArray], FloatArray],
    constants: dict[str, float],
    budget: Budget,
) -> Rounds:
    """Comfort's Newton rounds from ``first``'s end.

    Each round takes C's minimiser on the plane where the goals' Gauss–Newton model is
    met (:func:`_newton_step`), so that one evaluation of G, ∇G and F a round does what a
    tangent step and a restoring descent do. A step is kept where the goals stay within
    ``nearby`` and the merit ``C + ν √(2 (G − ceiling))`` falls (an exact penalty: the
    rounds' points are off the goals by the second order of their steps; a G within the
    ceiling counts as met), else halved; a round after one that kept its step whole first
    tries Anderson's mix of the last rounds (:func:`_mixed`; after a halved step the rounds
    are too far from C's minimum for their secant to hold, and the mix is mostly refused).
    The trust radius (the largest change of a variable) follows :func:`next_radius`.
    After the rounds, steps onto the goals alone (the least move in the same metric) bring
    G to ``ceiling``, while each lowers it (one that raises G, where the goals' plane is
    no model of their surface, is not kept). The kernel's ``rk_settle`` computes the same.
    """
    phi, value, gradient = first.phi, first.value, first.gradient
    damping, nearby, ceiling = constants["damping"], constants["nearby"], constants["ceiling"]
    comfort = aim.value(phi)
    iterations = evaluations = 0
    moved = False
    radius, penalty = constants["radius"], 0.0
    history: list[tuple[FloatArray, FloatArray]] = []  # the last rounds' points and steps
    whole = True  # the last round kept its mix or its step at the trust radius
    for _ in range(int(constants["rounds"])):
        step, multipliers = _newton_step(phi, gradient, aim, space, curvature(phi), damping, True)
        iterations += 1
        largest = float(np.max(np.abs(step), initial=0.0))
        if largest <= constants["small"]:
            break
        penalty = max(penalty, constants["penalty"] * float(np.linalg.norm(multipliers)))
        merit = comfort + penalty * np.sqrt(2.0 * max(value - ceiling, 0.0))
        halvings = int(constants["halvings"])
        moves = [step * min(1.0, radius / largest) * 0.5**k for k in range(halvings + 1)]
        mixed = _mixed(phi, step, history, damped=True) if whole else None
        radial = 0  # the first trial at the trust radius: after the mix, where there is one
        if mixed is not None:
            mixed = _along_equalities(space, mixed)
            slack = space.rows_in @ phi - space.b_in
            mixed = _cut(slack, mixed, space, np.zeros(0, dtype=np.intp))
            widest = float(np.max(np.abs(mixed)))
            if widest > 0.0:
                moves.insert(0, mixed * min(1.0, radius / widest))
                radial = 1
        kept = None
        for tried, move in enumerate(moves):
            trial = _within(space, phi + move)
            trial_value, trial_gradient = objective(trial)
            evaluations += 1
            if trial_value > ceiling:  # a second-order correction onto the goals
                back, _ = _newton_step(
                    trial, trial_gradient, aim, space, curvature(trial), damping, False
                )
                trial = _within(space, trial + back)
                trial_value, trial_gradient = objective(trial)
                evaluations += 1
            lower = aim.value(trial)
            trial_merit = lower + penalty * np.sqrt(2.0 * max(trial_value - ceiling, 0.0))
            if trial_value <= nearby and trial_merit < merit:
                kept = trial, trial_value, trial_gradient, lower, trial_merit
                whole = tried <= radial
                promised = merit - aim.value(phi + move)
                length = float(np.max(np.abs(move)))
                radius = next_radius(radius, length, whole, merit - trial_merit, promised)
                break
        if kept is None:
            break
        depth = int(constants["depth"])
        history = [*history[1 - depth :], (phi, step)] if depth > 0 else []
        phi, value, gradient, comfort = kept[:4]
        moved = True
        if merit - kept[4] <= constants["rounding"] * comfort or _spent(
            budget, first.iterations + iterations
        ):
            break
    for _ in range(int(constants["projections"]) if moved else 0):
        if value <= ceiling:
            break
        step, _ = _newton_step(phi, gradient, aim, space, curvature(phi), damping, False)
        trial = _within(space, phi + step)
        trial_value, trial_gradient = objective(trial)
        evaluations += 1
        if not trial_value < value:  # a step that raises G is not kept
            break
        phi, value, gradient = trial, trial_value, trial_gradient
    return Rounds(phi, value, gradient, evaluations, iterations, moved)


def next_radius(radius: float, length: float, whole: bool, gain: float, promised: float) -> float:
    """The Newton rounds' trust radius after a round kept a move of largest change ``length``.

    Where a longer move was refused (not ``whole``), the move kept: the next round starts
    from what this one kept, not from what it refused (a refused trial costs two
    evaluations, with its correction onto the goals). Then halved where the merit's
    ``gain`` is under a quarter of what C's tangent model ``promised``, at least doubled
    where it is over three quarters.
    """
    if not whole:
        radius = length
    if gain < 0.25 * promised:
        return 0.5 * length
    if gain > 0.75 * promised:
        return max(radius, 2.0 * length)
    return radius


def _newton_rounds(
    first: Descent,
    aim: ComfortAim,
    space: ReducedSpace,
    objective: Objective,
    curvature: Callable[[FloatArray], FloatArray],
    restore: Restore,
    budget: Budget,
    ceiling: float,
    longest: float,
    near: float,
    settler: Settler | None,
) -> Descent | None:
    """``first`` relaxed by :func:`settle` (the ``settler``'s where it applies), or None.

    Where the rounds end at G ≤ ``near`` (``ceiling`` and every goal's :data:`MET` of the
    longest chain), that end is the result (:func:`_kept_rounds`); else the goals'
    own descent from there, which gives the result its active set and multipliers. Where
    no round is kept, ``first`` is the result. None where neither end is at G ≤ ``near``
    with C lower than at ``first``: the rounds of :func:`relax` then run instead.
    """
    constants = settle_constants(aim, ceiling, longest)
    rounds = None if settler is None else settler(first, aim, constants, budget)
    if rounds is None:
        rounds = settle(first, aim, space, objective, curvature, constants, budget)
    iterations = first.iterations + rounds.iterations
    if not rounds.moved:  # comfort is least at first's end already
        return first.revised(
            iterations=iterations,
            evaluations=first.evaluations + rounds.evaluations,
            levels=(first.value, aim.value(first.phi)),
        )
    start = aim.value(first.phi)
    ended = aim.value(rounds.phi)
    if rounds.value <= near and ended < start:
        return _kept_rounds(first, rounds, ended, space, iterations)
    left = Budget(
        budget.tolerance, max(budget.max_iterations - iterations, 1), budget.deadline, ceiling
    )
    met = restore(rounds.phi, left)
    lower = aim.value(met.phi)
    if met.value > near or lower >= start:
        return None
    return met.revised(
        iterations=iterations + met.iterations,
        evaluations=first.evaluations + rounds.evaluations + met.evaluations,
        levels=(met.value, lower),
    )


def _kept_rounds(
    first: Descent, rounds: Rounds, comfort: float, space: ReducedSpace, iterations: int
) -> Descent:
    """The rounds' end as the relaxation's result, where it meets the goals already.

    ``comfort`` is C there. Its active rows are those it rests on, their multipliers and
    the projected gradient the least-squares fit of ∇G on those rows and the equalities
    (a restoring descent from there would take no step).
    """
    active = active_rows(rounds.phi, space)
    gradient = rounds.gradient
    variables, signs = space.rows_in.bounds()
    held = variables[active]
    if not space.a_eq.shape[0] and bool((held >= 0).all()) and len(set(held)) == len(held):
        fit = signs[active] * gradient[held]  # bounds on distinct variables: each its own
        projected = gradient.copy()
        projected[held] = 0.0
    elif not len(active):  # the equalities alone, orthonormal: their fit is ∇G's part on them
        fit = np.empty(0)
        projected = gradient - space.a_eq.T @ (space.a_eq @ gradient)
    else:
        rows = np.concatenate([space.a_eq, space.a_in[active]])
        fit = lstsq(rows.T, gradient)[space.a_eq.shape[0] :]
        projected = gradient - rows.T @ np.concatenate([np.zeros(len(space.a_eq)), fit])
    return first.revised(
        phi=rounds.phi,
        value=rounds.value,
        gradient=rounds.gradient,
        iterations=iterations,
        evaluations=first.evaluations + rounds.evaluations,
        active=tuple(int(row) for row in active),
        projected_gradient=math.sqrt(projected.dot(projected)),  # (numpy's norm, as it is)
        multipliers=fit,
        levels=(rounds.value, comfort),
    )


def _newton_step(
    phi: FloatArray,
    gradient: FloatArray,
    aim: ComfortAim,
    space: ReducedSpace,
    factor: FloatArray,
    damping: float,
    comfort: bool,
) -> tuple[FloatArray, FloatArray]:
    """A Newton round's step from φ onto the goals' Gauss–Newton plane, cut at a limit.

    The step is the least move in the metric ``H = M + λ I`` toward comfort (``comfort``;
    else the least move) onto the plane where the goals' Gauss–Newton model is met,
    ``Fᵀ Δ = −c`` (``F c = ∇G``), the equalities kept, cut at the first limit row it
    meets. Each limit row φ rests on that the step would push outward is held: a bound by leaving
    its variable still, another row as one more equality. With A the columns held (F, the
    equality rows, the held rows) and their right-hand sides r (−c, then zeros), the step
    is ``Δ = H⁻¹ (−M (φ − τ) + A y)`` with ``(Aᵀ H⁻¹ A) y = Aᵀ H⁻¹ M (φ − τ) + r``, each
    normal matrix damped by :data:`GRAM` of its largest diagonal entry. Returns the step
    and y's part on F: the multipliers of ``½ C`` on the goals' plane.
    """
    n = len(phi)
    variables, _ = space.rows_in.bounds()
    slack = space.rows_in @ phi - space.b_in
    touched = np.flatnonzero(slack <= 1e-12)
    residual = _damped_solve(factor.T @ factor, factor.T @ _off_rows(space, touched, gradient))
    metric = aim.masses + damping
    pull = aim.masses * (phi - aim.target) if comfort else np.zeros(n)
    free = np.ones(n, dtype=bool)
    rows: list[int] = []  # limit rows held that are no bound
    held: list[int] = []  # every limit row held
    while True:
        columns = np.concatenate([factor, space.a_eq.T, space.a_in[rows].T], axis=1)
        columns[~free] = 0.0
        right = np.concatenate([-residual, np.zeros(columns.shape[1] - len(residual))])
        inverse = np.where(free, 1.0 / metric, 0.0)
        weighted = columns * inverse[:, None]
        y = _damped_solve(columns.T @ weighted, weighted.T @ pull + right)
        step = inverse * (columns @ y - pull)
        rates = space.a_in[touched] @ step
        pushed = [int(row) for row in touched[rates < -_PUSH] if row not in held]
        if not pushed:
            break
        for row in pushed:
            held.append(row)
            if variables[row] >= 0:
                free[variables[row]] = False
            else:
                rows.append(row)
    return _cut(slack, step, space, np.array(held, dtype=np.intp)), y[: factor.shape[1]]


GRAM = 1e-12
"""The Newton rounds' normal matrices are damped by this share of their largest diagonal
entry: a redundant goal or held row adds nothing where it would divide by zero."""


def _within(space: ReducedSpace, point: FloatArray) -> FloatArray:
    """``point`` within the limits it left by rounding.

    Each bound is clipped, then the point projected at once onto the equalities and each
    other row it is past, along the variables off their bounds. A round's step keeps the
    rows it holds to rounding; over many rounds, Anderson's mixes among them, that
    rounding would add up.
    """
    point = np.clip(point, space.lower, space.upper)
    variables, _ = space.rows_in.bounds()
    past = np.flatnonzero((variables < 0) & (space.rows_in @ point - space.b_in < 0.0))
    rows = np.concatenate([space.a_eq, space.a_in[past]])
    if rows.shape[0]:  # onto all of them at once, along the variables off their bounds
        sides = np.concatenate([space.b_eq, space.b_in[past]])
        along = rows * ((point > space.lower) & (point < space.upper))
        point = point - along.T @ _damped_solve(along @ along.T, rows @ point - sides)
    return np.clip(point, space.lower, space.upper)


def _off_rows(space: ReducedSpace, touched: IntArray, gradient: FloatArray) -> FloatArray:
    """∇G less its part across the equality rows and the limit rows φ rests on.

    The goals' residual c (``F c = ∇G``) is then one the plane can meet while those rows
    hold: at goals met ∇G is nought anyway, and where they cannot be met the rest of ∇G is
    what the rows hold against (a bound's variable, left still, drops out; another row
    by its projection).
    """
    variables, _ = space.rows_in.bounds()
    bounds, rows = touched[variables[touched] >= 0], touched[variables[touched] < 0]
    off = gradient.copy()
    off[variables[bounds]] = 0.0
    hard = np.concatenate([space.a_eq, space.a_in[rows]])
    if hard.shape[0]:
        hard = hard.copy()
        hard[:, variables[bounds]] = 0.0
        off -= hard.T @ _damped_solve(hard @ hard.T, hard @ off)
    return off


def _along_equalities(space: ReducedSpace, move: FloatArray) -> FloatArray:
    """``move`` less its part off the equality rows' null space.

    Each step keeps the equalities to rounding; a mix of steps (:func:`_mixed`) would
    multiply that rounding round after round.
    """
    rows = space.a_eq
    if not rows.shape[0]:
        return move
    along: FloatArray = move - rows.T @ lstsq(rows @ rows.T, rows @ move)
    return along


def _damped_solve(matrix: FloatArray, right: FloatArray) -> FloatArray:
    """``(S + μ I)⁻¹ r`` with μ :data:`GRAM` of S's largest diagonal entry (S symmetric)."""
    if not len(right):
        return right
    diagonal = np.diagonal(matrix)
    damping = max(GRAM * float(np.max(diagonal, initial=0.0)), 1e-300)
    solved = np.linalg.solve(matrix + damping * np.eye(len(right)), right)
    return np.asarray(solved, dtype=np.float64)
