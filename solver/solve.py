"""``solve``: minimise G_all within the joint limits, anytime, with seeded restarts.

Two steps beyond Zhao & Badler 1994 live here:

- The descents minimise G_all / w, w the smallest weight of a constraint in G_all
  (:func:`weight_scale`), so that the scale of the weights does not matter: the
  Kuhn–Tucker test's ε, the restarts' threshold and the projector start's first step
  are absolute, and with G_all itself a problem whose weights were all multiplied by
  1e6 took three times the iterations to another pose, or stalled. Divided by w, the
  same problem takes the same steps whatever the factor; the result reports G_all,
  its gradient, the projected gradient and the multipliers unscaled. The smallest
  weight, not the largest: divided by the largest, a light goal beside a heavy one
  weighs 1e-6 and the Kuhn–Tucker test stops it 1e-5 of a limb short (the problem
  bank's reachable targets met to 1e-6 fell from 95% to 72%).
- Restarts start alternately spread over the feasible set and near the best pose so
  far (:mod:`.optimizer.feasible`). Before them, each AnyOf member that does not count
  where the first descent ends is tried from the start with the set held to it
  (:meth:`Problem.with_member`); and a best descent cut off by the per-descent cap goes
  on between two restarts (:func:`_descents`).
- The descents minimise G_all with each target moved to within :data:`FAR_REACH` times
  its chain's reach of the chain's pivot (:func:`within_reach`). A goal 1e15 m out
  otherwise outweighs a met goal by 1e30 and leaves its term below rounding: the
  met goal drifted 0.18–0.23 m off on its own chain. Moved in, the far goal pulls in
  the same direction as before; the result and its verdict are G_all's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_scalar
from .exceptions import SolverInputError
from .goals import Goal
from .limits import outside_limits
from .methods import METHODS, method_options, run_method
from .optimizer.feasible import Box, Starts
from .optimizer.goldfarb import descend
from .optimizer.result import Descent, Outcome, SolveResult, Status, replaces
from .optimizer.space import ReducedSpace
from .problem import Problem

__all__ = ["FAR_REACH", "METHODS", "START_METRICS", "solve", "weight_scale", "within_reach"]

START_METRICS = ("gauss_newton", "identity")
"""Names accepted by ``solve(start_metric=...)``."""

_DESCENT_ITERATIONS = 200
"""Least iterations of one descent when restarts may follow (else 4 per variable)."""


FAR_REACH = 2.0
"""Targets farther than this many times their chain's reach from its pivot are moved in."""

_OUT_OF_BUDGET = (Status.TIME_LIMIT, Status.MAX_ITERATIONS)
"""Statuses of a last descent that ran out of budget: they outrank a best one's."""


def solve(
    problem: Problem,
    theta0: ArrayLike,
    time_limit: float | None = None,
    tolerance: float = 1e-10,
    max_iterations: int = 1000,
    restarts: int = 8,
    seed: int = 0,
    *,
    method: str = "goldfarb",
    start_metric: str = "gauss_newton",
    callback: Callable[[FloatArray, float], None] | None = None,
    goal_tolerance: float | None = None,
    tikhonov: float | None = None,
    theta_ref: ArrayLike | None = None,
    subdivide: int | None = None,
    memory: int | None = None,
    damping: float | None = None,
    step_size: float | None = None,
    falloff: float | None = None,
    cutoff: int | None = None,
    slope: float | None = None,
) -> SolveResult:
    """Minimise ``problem``'s G_all from ``theta0`` without ever leaving the limits.

    A descent is Goldfarb's BFGS on Rosen's gradient projection (Goldfarb 1969; Rosen
    1960), as in Zhao & Badler 1994. When it ends with G_all above ``tolerance`` (a goal
    not met: a local minimum, often on a limit boundary, or an unreachable goal), up
    to ``restarts`` further descents start from seeded feasible starts, alternately
    spread over the whole feasible set (stratified across the restarts) and near the
    best pose so far (:class:`.optimizer.feasible.Starts`), and the best result is kept.
    Drags pass ``restarts=0`` so that the pose moves continuously from ``theta0``.

    Args:
        problem: The figure and its constraints.
        theta0: Start pose, shape (n_dofs,), within the limits (to 1e-9) that the solve
            holds (:attr:`Problem.moving_limits`: those on some variable DOF; a DOF the
            solve never moves may sit outside its own limits).
        time_limit: Wall-clock budget [s] checked at the start of every iteration once
            a first step has been taken (a budget shorter than one step still buys
            one); when it runs out the best iterate so far is returned with status
            :attr:`Status.TIME_LIMIT`. None: no limit.
        tolerance: ε of the Kuhn–Tucker test (‖projected gradient‖ and multipliers, in
            the scaled variables) and the value above which restarts run, both of
            G_all divided by its smallest weight (:func:`weight_scale`): multiplying
            every weight by one factor changes neither the steps nor the stops.
        max_iterations: Most iterations over all descents; with restarts, one descent
            takes at most max(200, 4 × variables) of them.
        restarts: Most restarts; 0 = one local descent.
        seed: Seed of the restarts' random starts (results are deterministic).
        method: The method, one of :data:`METHODS` (see :mod:`solver.methods`):
            ``"goldfarb"`` (the default, above), ``"lbfgsb"`` (seed 002),
            ``"dls"`` (seeds 002, 004: damped least squares by ``priority`` level, pins
            first) or ``"jacobian_transpose"`` (seed 003). All keep every limit and
            the time limit; ``tolerance`` is each one's stop test, and restarts run
            for all.
        start_metric: How the inverse-Hessian estimate H starts and restarts (see
            :data:`START_METRICS`): ``"gauss_newton"`` (default) inverts the damped
            Gauss–Newton curvature of the goals on the null space of the active limits,
            so the first steps are damped least-squares steps; ``"identity"`` is the
            projector ``I − A(AᵀA)⁻¹Aᵀ`` of Zhao & Badler 1994. Either way every later
            step is Goldfarb's projected BFGS.
        callback: Called with (θ, G_all) at every iterate of every descent.
        goal_tolerance: Stop as soon as G_all ≤ this value, with :attr:`Status.CONVERGED`:
            every goal is then met to within it (G_all ≥ 0 is a sum of weighted
            potentials; see :meth:`Problem.goal_tolerance` for one from lengths). None:
            only the Kuhn–Tucker test at ``tolerance`` ends a descent.
        tikhonov: ``"lbfgsb"`` only: weight of ``‖θ − θ_ref‖²`` added to G_all (0).
        theta_ref: ``"lbfgsb"`` only: θ_ref, shape (n_dofs,) (the start pose).
        subdivide: ``"lbfgsb"`` only: M intermediate goals solved in turn (0).
        memory: ``"lbfgsb"`` only: (s, y) pairs kept (10).
        damping: ``"dls"`` only: λ_max [length] (0.05 × the longest chain).
        step_size: ``"jacobian_transpose"`` only: the constant step e (None: the
            Gauss–Newton model's step along the pull).
        falloff: ``"jacobian_transpose"`` only: joint weight per segment of tree
            distance from a handle, in (0, 1] (0.9).
        cutoff: ``"jacobian_transpose"`` only: joints more than this many segments
            from a handle do not move for it (None).
        slope: ``"jacobian_transpose"`` only: the 15-step slope stop's threshold (1e-4).

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
    if method not in METHODS:
        raise SolverInputError(f"unknown method {method!r}; choose one of {METHODS}")
    if start_metric not in START_METRICS:
        raise SolverInputError(
            f"unknown start_metric {start_metric!r}; choose one of {START_METRICS}"
        )
    theta_start = problem.figure.check_theta(theta0, "theta0")
    if method != "goldfarb" and start_metric != "gauss_newton":
        raise SolverInputError(f"start_metric is an option of 'goldfarb' only, not of {method!r}")
    options = method_options(
        method,
        {
            "tikhonov": tikhonov,
            "theta_ref": theta_ref,
            "subdivide": subdivide,
            "memory": memory,
            "damping": damping,
            "step_size": step_size,
            "falloff": falloff,
            "cutoff": cutoff,
            "slope": slope,
        },
        problem.n_dofs,
    )
    _check_options(time_limit, tolerance, max_iterations, restarts, seed)
    if goal_tolerance is not None and finite_scalar(goal_tolerance, "goal_tolerance") < 0.0:
        raise SolverInputError(f"goal_tolerance must be ≥ 0 or None, got {goal_tolerance}")
    violated = outside_limits(problem.moving_limits, theta_start)
    if violated is not None:
        label, amount = violated
        raise SolverInputError(
            f"start pose is outside the limits: {label} is violated by {amount:.6g}; "
            "clamp the pose into its limits first",
            item=label,
        )
    near = within_reach(problem, theta_start)
    if callback is not None and near is not problem:
        callback = _reporting(problem, callback)
    deadline = None if time_limit is None else started + float(time_limit)
    space = ReducedSpace.build(near, theta_start)
    weight = weight_scale(near)

    if space.n == 0:
        value, gradient = near.evaluate(theta_start)
        outcome = Descent(
            phi=space.phi(theta_start),
            value=value,
            gradient=gradient[space.variables],
            status=Status.CONVERGED,
            message=Status.CONVERGED.message("no free DOFs: every DOF in the chains is locked"),
            iterations=0,
            evaluations=1,
            active=(),
            projected_gradient=0.0,
            multipliers=np.empty(0),
        )
        runs = 0
    elif method != "goldfarb":
        outcome, runs = run_method(
            method,
            options,
            near,
            space,
            callback,
            weight=weight,
            deadline=deadline,
            tolerance=tolerance,
            max_iterations=max_iterations,
            restarts=restarts,
            goal_value=None if goal_tolerance is None else goal_tolerance / weight,
            starts=lambda: _starts(near, space, space.phi(space.base), restarts, seed),
        )
    else:
        outcome, runs = _descents(
            near,
            space,
            callback,
            deadline=deadline,
            tolerance=tolerance,
            max_iterations=max_iterations,
            restarts=restarts,
            seed=seed,
            weight=weight,
            gauss_newton=start_metric == "gauss_newton",
            goal_tolerance=goal_tolerance,
        )
    theta = unwound(problem, space.theta(outcome.phi), theta_start)
    value, gradient = problem.evaluate(theta)
    active = tuple(int(space.in_rows[j]) for j in outcome.active)
    held_by = tuple(
        problem.limits.in_labels[int(space.in_rows[j])]
        for j, multiplier in zip(outcome.active, outcome.multipliers, strict=True)
        if multiplier > tolerance
    )
    met = goal_tolerance if goal_tolerance is not None else tolerance * weight
    verdict, unreachable = _verdict(
        problem, theta, value, outcome.status, met, pins=method == "dls"
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
    scale = max(1.0, float(np.max(problem.chain_lengths, initial=0.0)))
    unreachable = tuple(k for k, margin in enumerate(margins) if margin < -1e-9 * scale)
    if status is not Status.CONVERGED:
        return Outcome.UNFINISHED, unreachable
    return (Outcome.NOT_REACHABLE if unreachable else Outcome.LOCAL_MINIMUM), unreachable


def _descents(
    problem: Problem,
    space: ReducedSpace,
    callback: Callable[[FloatArray, float], None] | None,
    *,
    deadline: float | None,
    tolerance: float,
    max_iterations: int,
    restarts: int,
    seed: int,
    weight: float,
    gauss_newton: bool,
    goal_tolerance: float | None,
) -> tuple[Descent, int]:
    """The first descent and the restarts after it (see :func:`solve`).

    ``weight``: :func:`weight_scale` of the problem (the descents see G_all / weight);
    ``gauss_newton``: whether H starts from the goals' Gauss–Newton curvature.

    Returns:
        The best descent, with the iterations and evaluations of all of them and the
        status of the last one where it ran out of time or iterations; and the number
        of restarts run.
    """
    # The descents see G_all / weight over φ: its gradient is s ∘ ∇G_all / weight.
    scale = space.scale / weight
    root = space.scale / np.sqrt(weight)
    unscaled = bool(np.all(scale == 1.0))

    def objective_of(held: Problem) -> Callable[[FloatArray], tuple[float, FloatArray]]:
        def objective(phi: FloatArray) -> tuple[float, FloatArray]:
            value, gradient = held.evaluate_variables(space.theta(phi))
            return value / weight, gradient if unscaled else gradient * scale

        return objective

    def curvature_of(held: Problem) -> Callable[[FloatArray], FloatArray]:
        def curvature(phi: FloatArray) -> FloatArray:
            factor = held.gauss_newton_factor(space.theta(phi))
            return factor if unscaled else factor * root[:, None]

        return curvature

    reporter = None
    if callback is not None:
        report = callback

        def reporter(phi: FloatArray, value: float) -> None:
            report(space.theta(phi), value * weight)

    goal_value = None if goal_tolerance is None else goal_tolerance / weight
    phi0 = space.phi(space.base)
    starts: Starts | None = None
    # A descent that crawls must not use up the restarts' budget.
    per_descent = max_iterations if restarts == 0 else max(_DESCENT_ITERATIONS, 4 * space.n)
    spent = [0, 0, 0]  # iterations, evaluations, re-adds

    def run(start: FloatArray, held: Problem = problem, quiet: bool = False) -> Descent:
        """One descent of ``held`` (the problem, or it with an AnyOf held to a member)."""
        result = descend(
            objective_of(held),
            start,
            space.a_eq,
            space.b_eq,
            space.rows_in,
            space.b_in,
            tolerance=tolerance,
            max_iterations=min(max_iterations - spent[0], per_descent),
            deadline=deadline,
            callback=None if quiet else reporter,
            curvature=curvature_of(held) if gauss_newton else None,
            goal_value=goal_value,
        )
        spent[0] += result.iterations
        spent[1] += result.evaluations
        spent[2] += result.readds
        return result

    def finished(best: Descent, last: Descent) -> bool:
        out_of_time = deadline is not None and time.perf_counter() >= deadline
        return (
            best.value <= tolerance
            or (goal_value is not None and best.value <= goal_value)
            or last.status is Status.TIME_LIMIT
            or out_of_time
            or spent[0] >= max_iterations
        )

    best = last = run(phi0)
    plans = _plans(problem, space, best, restarts)
    done = 0
    runs = 0
    while done < len(plans) and not finished(best, last):
        plan = plans[done]
        done += 1
        if plan == _RESUME:
            # The best descent was cut off by the per-descent cap, not stopped: it goes
            # on from where it stood (H started afresh), between two restarts.
            last = run(best.phi)
        else:
            runs += 1
            if isinstance(plan, tuple):
                # An AnyOf held to one member from the start, then the problem itself
                # from where that ends (the set's G is its least member's: never more).
                last = run(run(phi0, problem.with_member(*plan), quiet=True).phi)
            else:
                assert isinstance(plan, int)
                if starts is None:
                    starts = _starts(problem, space, phi0, restarts, seed)
                last = run(starts.start(plan, best.phi))
        # A resumed descent goes on from the best pose: never worse, and its status
        # (converged, say) is the one that now holds there.
        if (last.value <= best.value) if plan == _RESUME else replaces(last, best, phi0):
            best = last
        if plan != _RESUME and best.status is Status.MAX_ITERATIONS:
            plans.insert(done, _RESUME)
    total_iterations, total_evaluations, readds = spent
    ending = best
    if best.status is not Status.CONVERGED and best is not last and last.status in _OUT_OF_BUDGET:
        ending = last
    message = ending.message
    if weight != 1.0:
        message += f" (of G_all / {weight:.6g}, its smallest weight)"
    outcome = replace(
        best,
        value=best.value * weight,
        gradient=best.gradient * weight,
        status=ending.status,
        message=message,
        iterations=total_iterations,
        evaluations=total_evaluations,
        readds=readds,
        projected_gradient=best.projected_gradient * weight,
        multipliers=best.multipliers * weight,
    )
    return outcome, runs


Plan = tuple[int, int] | int
"""What a restart of :func:`_descents` does: hold AnyOf term t to leaf j ``(t, j)``,
start from seeded start k ≥ 1 of :class:`.optimizer.feasible.Starts`, or
:data:`_RESUME`."""
_RESUME = 0
"""A plan: go on with the best descent, cut off by its per-descent cap."""


def _plans(problem: Problem, space: ReducedSpace, first: Descent, restarts: int) -> list[Plan]:
    """What the restarts after ``first`` start from, in order, at most ``restarts``.

    First, each AnyOf member that does not count at ``first``'s pose, the set held to it
    (a descent follows the member whose weighted G is least; another member, heavier
    where it starts, may be the one that can be met: it is tried from the start); then
    seeded starts 1, 2, … of :class:`.optimizer.feasible.Starts`.
    """
    if restarts == 0:
        return []
    chosen = problem.chosen_members(space.theta(first.phi))
    members: list[Plan] = []
    for term, counting in chosen.items():
        members += [(term, member) for member in problem.terms[term].members if member != counting]
    members = members[:restarts]
    seeded: list[Plan] = list(range(1, restarts - len(members) + 1))
    return members + seeded


def weight_scale(problem: Problem) -> float:
    """The smallest positive weight a leaf has in G_all (an ``AnyOf``'s times its member's).

    The descents minimise G_all divided by it, so that multiplying every weight by one
    factor changes neither their steps nor their stops: 1 for a problem without a
    positive weight.
    """
    smallest = np.inf
    weights = [leaf.weight for leaf in problem.leaves]
    for term in problem.terms:
        factor = term.weight if term.disjunctive else 1.0
        for member in term.members:
            if factor * weights[member] > 0.0:
                smallest = min(smallest, factor * weights[member])
    return float(smallest) if np.isfinite(smallest) else 1.0


def _starts(
    problem: Problem, space: ReducedSpace, phi0: FloatArray, restarts: int, seed: int
) -> Starts:
    """The restarts' starts (see :class:`.optimizer.feasible.Starts`).

    Spread starts cover the bounds, and a full turn either side of the start for an
    unbounded rotation; an unbounded translation stays at the start.
    """
    dofs = problem.figure.dofs
    turn = np.array([np.pi if dofs[j].kind == "rotation" else 0.0 for j in space.variables])
    box = Box.around(phi0, space.lower, space.upper, turn / space.scale)
    limits = (space.lower, space.upper, space.a_eq, space.a_in, space.b_in)
    return Starts(phi0, box, limits, restarts, seed)


def _reporting(
    problem: Problem, callback: Callable[[FloatArray, float], None]
) -> Callable[[FloatArray, float], None]:
    """``callback`` given ``problem``'s own G_all, for descents of its moved-in targets."""

    def report(theta: FloatArray, value: float) -> None:
        callback(theta, problem.evaluate(theta)[0])

    return report


def within_reach(problem: Problem, theta: FloatArray) -> Problem:
    """``problem`` with each target moved to within :data:`FAR_REACH` reaches of its pivot.

    The reach ball of each leaf (:meth:`Problem.reach_balls`, fixed by the DOFs that do
    not vary) scales by :data:`FAR_REACH`; a goal whose target set lies beyond it moves
    straight toward the centre onto it (:meth:`Goal.within <solver.goals.Goal.within>`).
    Returns ``problem`` itself when no target is that far.
    """
    centres, radii = problem.reach_balls(theta)
    moved: dict[int, Goal] = {}
    for j, (leaf, centre, radius) in enumerate(zip(problem.leaves, centres, radii, strict=True)):
        if np.isfinite(radius):
            goal = leaf.goal.within(centre, FAR_REACH * float(radius))
            if goal is not leaf.goal:
                moved[j] = goal
    return problem.with_goals(moved) if moved else problem


def unwound(problem: Problem, theta: FloatArray, start: FloatArray) -> FloatArray:
    """``theta`` with each free rotation within half a turn of its start value.

    A rotation with no bound and in no limit row turns the figure the same by any whole
    number of turns; the pose nearest the start is kept, so no method winds a joint up
    (25 rad after a far goal) and Blender's single precision keeps the angle exact.
    """
    figure = problem.figure
    free = problem.variable_mask & figure.kinematics.dof_rotation & ~figure.limits.held
    if not free.any():
        return theta
    result = theta.copy()
    turns = np.round((theta[free] - start[free]) / (2.0 * np.pi))
    result[free] = theta[free] - 2.0 * np.pi * turns
    return result


def _check_options(
    time_limit: float | None, tolerance: float, max_iterations: int, restarts: int, seed: int
) -> None:
    if time_limit is not None and finite_scalar(time_limit, "time_limit") <= 0.0:
        raise SolverInputError(f"time_limit must be > 0 seconds or None, got {time_limit}")
    if finite_scalar(tolerance, "tolerance") <= 0.0:
        raise SolverInputError(f"tolerance must be > 0, got {tolerance}")
    for name, number, least in (("max_iterations", max_iterations, 1), ("restarts", restarts, 0)):
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or number < least:
            raise SolverInputError(f"{name} must be an integer ≥ {least}, got {number!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise SolverInputError(f"seed must be an integer, got {seed!r}")
