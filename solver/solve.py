"""``solve``: minimise G_all within the joint limits, anytime, with seeded restarts.

``solve`` checks its input, moves far targets in, runs the chosen method through the
restart driver (:mod:`solver.restarts`) and says what the pose is worth (the verdict).
Two steps beyond Zhao & Badler 1994 happen on the way:

- The descents minimise G_all / w, w the smallest weight of a constraint in G_all
  (:func:`solver.methods.base.weight_scale`), so that the scale of the weights does not
  matter: the stop tests are absolute, and a problem whose weights were all multiplied
  by one factor takes the same steps. The smallest weight, not the largest: divided by
  the largest, a light goal beside a heavy one would weigh next to nothing and stop
  short of its target.
- The descents minimise G_all with each target moved to within
  :data:`~solver.reach.FAR_REACH` times its chain's reach of the chain's pivot
  (:func:`within_reach`): a goal a billion metres out would otherwise
  outweigh a met goal so far that the met goal's term falls below rounding. Moved in,
  the far goal pulls the same way; the result and its verdict are G_all's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_scalar, whole
from .exceptions import SolverInputError
from .limits import outside_limits
from .methods import METHODS, Method, Scaled, as_method
from .methods.base import weight_scale
from .optimizer.budget import Budget
from .optimizer.compiled_gauss_newton import Resume
from .optimizer.space import ReducedSpace
from .problem import Problem
from .restarts import Limits, descent_iterations, descents, in_g_all_scale
from .result import Descent, Outcome, SolveResult, Status

__all__ = ["METHODS", "solve", "unwound", "within_reach"]


def solve(
    problem: Problem,
    theta0: ArrayLike,
    *,
    method: str | Method = "goldfarb",
    time_limit: float | None = None,
    tolerance: float = 1e-10,
    max_iterations: int = 1000,
    restarts: int = 8,
    seed: int = 0,
    goal_tolerance: float | None = None,
    callback: Callable[[FloatArray, float], None] | None = None,
) -> SolveResult:
    """Minimise ``problem``'s G_all from ``theta0`` without ever leaving the limits.

    The default method is Goldfarb's projected BFGS on Rosen's gradient projection
    (Goldfarb 1969; Rosen 1960), as in Zhao & Badler 1994. When a descent ends with
    G_all above ``tolerance`` (a goal not met: a local minimum, often on a limit
    boundary, or an unreachable goal), up to ``restarts`` further descents start from
    other feasible starts (:mod:`solver.restarts`) and the best result is kept. Drags
    pass ``restarts=0`` so that the pose moves continuously from ``theta0``.

    Args:
        problem: The figure, its constraints and its comfort (:attr:`Problem.comfort`,
            honoured by the methods that solve by levels, ``"goldfarb"`` and
            ``"lbfgsb"``; the others leave it out).
        theta0: Start pose, shape (n_dofs,), within the limits (to 1e-9) that the solve
            holds (:attr:`Problem.moving_limits`: those on some variable DOF; a DOF the
            solve never moves may sit outside its own limits).
        method: The method with its options, :class:`~solver.methods.Goldfarb` (the
            default; by ``priority`` level, pins first, where the problem has them),
            :class:`~solver.methods.Lbfgsb`, :class:`~solver.methods.Dls`
            (damped least squares by ``priority`` level, pins first) or
            :class:`~solver.methods.JacobianTranspose`; or one's name in :data:`METHODS`
            for its defaults. All keep every limit and the time limit; ``tolerance`` is
            each one's stop test, and restarts run for all.
        time_limit: Wall-clock budget [s] checked at the start of every iteration once
            a first step has been taken (a budget shorter than one step still buys
            one); when it runs out the best iterate so far is returned with status
            :attr:`Status.TIME_LIMIT`. None: no limit.
        tolerance: ε of the Kuhn–Tucker test (‖projected gradient‖ and multipliers, in
            the scaled variables) and the value above which restarts run, both of
            G_all divided by its smallest weight: multiplying every weight by one
            factor changes neither the steps nor the stops.
        max_iterations: Most iterations over all descents; with restarts, one descent
            takes at most max(200, 4 × variables) of them.
        restarts: Most restarts; 0 = one local descent.
        seed: Seed of the restarts' random starts (results are deterministic).
        goal_tolerance: Stop as soon as G_all ≤ this value, with :attr:`Status.CONVERGED`:
            every goal is then met to within it (G_all ≥ 0 is a sum of weighted
            potentials; see :meth:`Problem.goal_tolerance` for one from lengths). None:
            only the Kuhn–Tucker test at ``tolerance`` ends a descent.
        callback: Called with (θ, G_all) at every iterate of every descent.

    Returns:
        The best pose found; see :class:`solver.SolveResult`.

    Raises:
        SolverInputError: For a bad option, a ``theta0`` of the wrong length or with
            NaN, a start pose outside the limits, or a figure changed after the
            problem was built.
    """
    started = time.perf_counter()
    if not isinstance(problem, Problem):
        raise SolverInputError(f"solve needs a solver.Problem, got {type(problem).__name__}")
    problem.check_current()
    chosen = as_method(method).checked(problem)
    aim = problem.comfort if chosen.honours_comfort else None
    theta_start = problem.figure.check_theta(theta0, "theta0")
    _check_options(time_limit, tolerance, max_iterations, restarts, seed, goal_tolerance)
    _check_start(problem, theta_start)
    near = within_reach(problem, theta_start)
    space = ReducedSpace.build(near, theta_start)
    weight = weight_scale(near)
    limits = Limits(
        tolerance=tolerance,
        max_iterations=max_iterations,
        deadline=None if time_limit is None else started + float(time_limit),
        goal_value=None if goal_tolerance is None else goal_tolerance / weight,
        restarts=restarts,
        seed=seed,
    )
    if space.n == 0:
        outcome, runs = _locked(near, space, theta_start), 0
    else:
        scaled = Scaled(space, weight, aim)
        outcome, runs = _search(chosen, problem, near, scaled, theta_start, limits, callback)
    theta = _within_bounds(problem, space, unwound(problem, space.theta(outcome.phi), theta_start))
    met = goal_tolerance if goal_tolerance is not None else tolerance * weight
    return _result(
        problem,
        space,
        theta,
        outcome,
        chosen,
        runs=runs,
        started=started,
        tolerance=tolerance,
        met=met,
    )


def _check_start(problem: Problem, theta: FloatArray) -> None:
    """Raise unless ``theta`` is within the limits the solve holds (to 1e-9).

    Raises:
        SolverInputError: Naming the limit violated most.
    """
    violated = outside_limits(problem.moving_limits, theta)
    if violated is not None:
        label, amount = violated
        raise SolverInputError(
            f"start pose is outside the limits: {label} is violated by {amount:.6g}; "
            "clamp the pose into its limits first",
            item=label,
        )


def _search(
    method: Method,
    problem: Problem,
    near: Problem,
    scaled: Scaled,
    theta_start: FloatArray,
    limits: Limits,
    callback: Callable[[FloatArray, float], None] | None,
) -> tuple[Descent, int]:
    """The solve's best descent and its number of restarts, of a problem with free DOFs.

    ``near`` is ``problem`` with its far targets moved in (:func:`within_reach`); the
    quick path (:func:`_quick`) is tried on ``problem`` itself without a callback.
    """
    report = callback
    if callback is not None and near is not problem:
        report = _reporting(problem, callback)
    quick = None if near is not problem or report else _quick(method, near, scaled, limits)
    if isinstance(quick, Descent):
        return quick, 0
    outcome, runs = descents(method, near, scaled, limits, report, quick)
    if near is not problem:
        outcome = _no_worse(method, problem, scaled, theta_start, outcome, limits, callback)
    return outcome, runs


def _result(
    problem: Problem,
    space: ReducedSpace,
    theta: FloatArray,
    outcome: Descent,
    method: Method,
    *,
    runs: int,
    started: float,
    tolerance: float,
    met: float,
) -> SolveResult:
    """The solve's result at its pose ``theta``, which ``outcome`` ended at.

    Args:
        problem: The solve's problem.
        space: The reduced space of its descents.
        theta: The pose, shape (n_dofs,).
        outcome: The best descent.
        method: The method that ran.
        runs: The restarts run.
        started: The solve's start (``time.perf_counter()``).
        tolerance: The solve's ``tolerance``.
        met: The G_all at or below which every goal is met.
    """
    value, gradient = problem.evaluate(theta)
    active = tuple(int(space.in_rows[j]) for j in outcome.active)
    held_by = tuple(
        problem.limits.in_labels[int(space.in_rows[j])]
        for j, multiplier in zip(outcome.active, outcome.multipliers, strict=True)
        if multiplier > tolerance
    )
    verdict, unreachable = _verdict(
        problem, theta, value, outcome.status, met, pins=method.holds_pins
    )
    return SolveResult(
        x=theta,
        fun=value,
        jac=gradient,
        nit=outcome.iterations,
        nfev=outcome.evaluations,
        status=outcome.status,
        message=outcome.message,
        active_set=tuple(problem.limits.in_labels[j] for j in active),
        active=active,
        max_violation=problem.moving_limits.max_violation(theta),
        projected_gradient=outcome.projected_gradient,
        elapsed=time.perf_counter() - started,
        restarts=runs,
        outcome=verdict,
        unreachable=unreachable,
        held_by=held_by,
        readds=outcome.readds,
    )


QUICK = True
"""Whether a solve first tries :func:`_quick` (off only to test that it changes nothing)."""


def _quick(
    method: Method, problem: Problem, scaled: Scaled, limits: Limits
) -> Descent | Resume | None:
    """The solve's descents where the method's quick path (:meth:`Method.quick`) is all.

    The quick path's descent is the solve's first, with its budget; where it meets the
    goals or runs out of time it is the solve's only one (restarts follow only a descent
    that ends above the goals with time left), and it is returned as
    :func:`.restarts.descents` would return it. A warm drag event or bake frame takes
    this path and skips the general one's set-up. Otherwise where the path left off, for
    the first descent to go on from (a compromise's first iterations), or None.
    """
    if not QUICK:
        return None
    budget = Budget(
        limits.tolerance,
        descent_iterations(limits, scaled.space.n),
        limits.deadline,
        limits.goal_value,
    )
    descent = method.quick(problem, scaled, budget)
    return in_g_all_scale(descent, scaled.weight) if isinstance(descent, Descent) else descent


def _within_bounds(problem: Problem, space: ReducedSpace, theta: FloatArray) -> FloatArray:
    """``theta`` (a new array) with each DOF the solve moved within its own bounds, exactly.

    Every method keeps its iterates within the limits, the bounds among them to
    rounding of φ = θ/s; this clamp, of rounding size, makes the pose a solve returns
    keep each DOF's bounds exactly on any machine. The polygons' and groups' rows are
    kept to rounding (at most :data:`~solver.limits.FEASIBLE`).
    """
    variables = space.variables
    lower, upper = problem.derived.bounds_of(problem.figure, variables)
    theta[variables] = theta[variables].clip(lower, upper)  # (np.clip's wrappers cost more)
    return theta


def _no_worse(
    method: Method,
    problem: Problem,
    scaled: Scaled,
    theta_start: FloatArray,
    outcome: Descent,
    limits: Limits,
    callback: Callable[[FloatArray, float], None] | None,
) -> Descent:
    """``outcome``, or where it ends above the start on the goals as set, a better descent.

    The descents minimise G_all with far targets moved in; near the start that G can
    fall while the goals' own G rises. One descent of the goals as set from the start
    then never ends above it (every method's descent is monotone in G_all), if any
    iteration is left; of the two, the lower on the goals' own G is kept, with both
    descents' counts.
    """
    space = scaled.space
    value = problem.evaluate(space.theta(outcome.phi))[0]
    left = limits.max_iterations - outcome.iterations
    if left <= 0 or value <= problem.evaluate(theta_start)[0]:
        return outcome
    once = replace(limits, max_iterations=left, restarts=0)
    again = descents(method, problem, scaled, once, callback)[0]
    kept = again if problem.evaluate(space.theta(again.phi))[0] <= value else outcome
    return replace(
        kept,
        iterations=outcome.iterations + again.iterations,
        evaluations=outcome.evaluations + again.evaluations,
    )


def _locked(problem: Problem, space: ReducedSpace, theta: FloatArray) -> Descent:
    """The descent of a problem with no free DOF: it stays where it starts."""
    value, gradient = problem.evaluate(theta)
    return Descent(
        phi=space.phi(theta),
        value=value,
        gradient=gradient[space.variables],
        status=Status.CONVERGED,
        message=Status.CONVERGED.message(
            "no free DOFs: every DOF in the chains is locked or tied to fixed DOFs"
        ),
        iterations=0,
        evaluations=1,
        active=(),
        projected_gradient=0.0,
        multipliers=np.empty(0),
    )


def _verdict(
    problem: Problem, theta: FloatArray, value: float, status: Status, met: float, *, pins: bool
) -> tuple[Outcome, tuple[int, ...]]:
    """What the pose is worth, and which constraints are proved out of reach.

    "Not reachable" needs a proof (a negative reach margin) and a Kuhn–Tucker point;
    a goal unmet without one is a local minimum, or unfinished when the budget ran out.
    ``pins``: whether the pins hold exactly (``"dls"``), so their margins prove too.
    """
    if value <= met:
        return Outcome.MET, ()
    margins = problem.reach_margins(theta, pins=pins)
    scale = max(1.0, problem.longest_chain)
    unreachable = tuple(k for k, margin in enumerate(margins) if margin < -1e-9 * scale)
    if status is not Status.CONVERGED:
        return Outcome.UNFINISHED, unreachable
    return (Outcome.NOT_REACHABLE if unreachable else Outcome.LOCAL_MINIMUM), unreachable


def _reporting(
    problem: Problem, callback: Callable[[FloatArray, float], None]
) -> Callable[[FloatArray, float], None]:
    """``callback`` given ``problem``'s own G_all, for descents of its moved-in targets."""

    def report(theta: FloatArray, value: float) -> None:
        callback(theta, problem.evaluate(theta)[0])

    return report


def within_reach(problem: Problem, theta: FloatArray) -> Problem:
    """``problem`` with each target farther than its chain's reach allows moved in.

    :meth:`Reach.within <solver.reach.Reach.within>` says which goals lie beyond
    :data:`~solver.reach.FAR_REACH` times their ball; ``problem`` itself is returned
    when none does. A centre of mass's goal stays (its reach is no ball).
    """
    goals = [leaf.goal for leaf in problem.leaves]
    moved = problem.reach.within(theta, goals, problem.goal_points)
    moved = {k: goal for k, goal in moved.items() if not problem.parts.massed[k]}
    return problem.with_goals(moved) if moved else problem


def unwound(problem: Problem, theta: FloatArray, start: FloatArray) -> FloatArray:
    """``theta`` with each free rotation within half a turn of its start value.

    A rotation with no bound and in no limit row turns the figure the same by any whole
    number of turns; the pose nearest the start is kept, so no method winds a joint up
    (25 rad after a far goal) and Blender's single precision keeps the angle exact.
    """
    free = problem.free_rotation_indices
    if not len(free):
        return theta
    change = theta[free] - start[free]
    if float(np.abs(change).max()) < np.pi:  # within half a turn already (a drag's events)
        return theta
    result = theta.copy()
    result[free] = theta[free] - 2.0 * np.pi * np.round(change / (2.0 * np.pi))
    return result


def _check_options(
    time_limit: float | None,
    tolerance: float,
    max_iterations: int,
    restarts: int,
    seed: int,
    goal_tolerance: float | None,
) -> None:
    if time_limit is not None and finite_scalar(time_limit, "time_limit") <= 0.0:
        raise SolverInputError(f"time_limit must be > 0 seconds or None, got {time_limit}")
    if finite_scalar(tolerance, "tolerance") <= 0.0:
        raise SolverInputError(f"tolerance must be > 0, got {tolerance}")
    whole(max_iterations, "max_iterations", 1)
    whole(restarts, "restarts", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise SolverInputError(f"seed must be an integer, got {seed!r}")
    if goal_tolerance is not None and finite_scalar(goal_tolerance, "goal_tolerance") < 0.0:
        raise SolverInputError(f"goal_tolerance must be ≥ 0 or None, got {goal_tolerance}")
