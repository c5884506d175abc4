"""The methods beside Goldfarb's: their options, and their descents and restarts.

``solve(method=...)`` runs one of :data:`METHODS`; each takes its own options as
keyword arguments (:data:`METHOD_OPTIONS`), and an option given to a method that does
not take it is an error. Every method starts from the same reduced space (scaled free
DOFs, the limits as unit rows) and returns a :class:`~.optimizer.result.Descent` that
:func:`solver.solve` turns into the one :class:`~solver.SolveResult`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ._checks import FloatArray, finite_array, finite_scalar
from .exceptions import SolverInputError
from .goals.base import Goal
from .optimizer.budget import Budget
from .optimizer.dls import DAMPING, descend_dls
from .optimizer.feasible import Starts
from .optimizer.jacobian_transpose import FALLOFF, SLOPE, descend_transpose, tree_weights
from .optimizer.lbfgsb import MEMORY, descend_lbfgsb
from .optimizer.projection import active_rows, multipliers
from .optimizer.result import Descent, Status, replaces
from .optimizer.space import ReducedSpace
from .optimizer.tasks import TaskModel, leaves_by_level
from .problem import Problem

__all__ = ["METHODS", "METHOD_OPTIONS", "MethodOptions", "method_options", "run_method"]

METHODS = ("goldfarb", "lbfgsb", "dls", "jacobian_transpose")
"""Names accepted by ``solve(method=...)``."""

METHOD_OPTIONS: dict[str, tuple[str, ...]] = {
    "goldfarb": ("start_metric",),
    "lbfgsb": ("tikhonov", "theta_ref", "subdivide", "memory"),
    "dls": ("damping",),
    "jacobian_transpose": ("step_size", "falloff", "cutoff", "slope"),
}
"""The keyword options each method takes (``start_metric`` has a default for all)."""


@dataclass(frozen=True)
class MethodOptions:
    """One method's options with their defaults filled in.

    Attributes:
        tikhonov: ``"lbfgsb"``: weight of ``‖θ − θ_ref‖²`` [1/rad²], ≥ 0.
        theta_ref: ``"lbfgsb"``: θ_ref, shape (n_dofs,), or None for the start pose.
        subdivide: ``"lbfgsb"``: M intermediate goals before the goal itself.
        memory: ``"lbfgsb"``: (s, y) pairs kept.
        damping: ``"dls"``: λ_max [length], or None for 0.05 × the longest chain.
        step_size: ``"jacobian_transpose"``: the constant e, or None for the model's step.
        falloff: ``"jacobian_transpose"``: joint weight per segment of tree distance.
        cutoff: ``"jacobian_transpose"``: joints farther than this many segments from
            a handle do not move for it (None: no cut-off).
        slope: ``"jacobian_transpose"``: the slope stop's threshold.
    """

    tikhonov: float = 0.0
    theta_ref: FloatArray | None = None
    subdivide: int = 0
    memory: int = MEMORY
    damping: float | None = None
    step_size: float | None = None
    falloff: float = FALLOFF
    cutoff: int | None = None
    slope: float = SLOPE


def method_options(method: str, given: dict[str, object], n_dofs: int) -> MethodOptions:
    """Check the options given (those not None) against ``method``'s and fill defaults.

    Raises:
        SolverInputError: For an option ``method`` does not take, or a bad value.
    """
    for name, value in given.items():
        if value is not None and name not in METHOD_OPTIONS[method]:
            takers = [m for m, names in METHOD_OPTIONS.items() if name in names]
            raise SolverInputError(
                f"method {method!r} does not take option {name!r} (taken by {', '.join(takers)}); "
                f"{method!r} takes {METHOD_OPTIONS[method] or 'none'}",
                item=name,
            )
    options = MethodOptions()
    values: dict[str, object] = {}
    for name in ("tikhonov", "step_size", "falloff", "slope", "damping"):
        value = given.get(name)
        if value is not None:
            number = finite_scalar(value, name)  # type: ignore[arg-type]
            if number < 0.0 or (name in ("step_size", "falloff", "slope") and number == 0.0):
                raise SolverInputError(f"{name} must be > 0 (tikhonov, damping: ≥ 0), got {value}")
            if name == "falloff" and number > 1.0:
                raise SolverInputError(f"falloff must be in (0, 1], got {value}")
            values[name] = number
    for name, least in (("subdivide", 0), ("memory", 1), ("cutoff", 0)):
        value = given.get(name)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise SolverInputError(f"{name} must be an integer ≥ {least}, got {value!r}")
            values[name] = int(value)
    reference = given.get("theta_ref")
    if reference is not None:
        values["theta_ref"] = finite_array(reference, "theta_ref", (n_dofs,))  # type: ignore[arg-type]
    return replace(options, **values)  # type: ignore[arg-type]


def run_method(
    method: str,
    options: MethodOptions,
    problem: Problem,
    space: ReducedSpace,
    callback: Callable[[FloatArray, float], None] | None,
    *,
    weight: float,
    deadline: float | None,
    tolerance: float,
    max_iterations: int,
    restarts: int,
    goal_value: float | None,
    starts: Callable[[], Starts],
) -> tuple[Descent, int]:
    """The first descent of a method and its restarts; the best is kept.

    Args:
        method: One of :data:`METHODS` but ``"goldfarb"``.
        options: Its options.
        problem: The problem.
        space: Its reduced space at the start pose.
        callback: Called with (θ, G_all) at every iterate.
        weight: The smallest weight (:func:`solver.solve.weight_scale`; G_all is divided by it).
        deadline: ``time.perf_counter()`` value to stop at.
        tolerance: Stop test of the method (see each).
        max_iterations: Most iterations over all descents.
        restarts: Most restarts.
        goal_value: G_all / weight at which the goals count as met.
        starts: Makes the restarts' starts (called once, at the first restart: one
            seeded sequence of starts for the whole solve).

    Returns:
        The best descent, with the iterations of all, and the restarts run.
    """
    reporter = None
    if callback is not None:
        report = callback

        def reporter(phi: FloatArray, value: float) -> None:
            report(space.theta(phi), value * weight)

    phi0 = space.phi(space.base)
    best: Descent | None = None
    made: Starts | None = None
    total_iterations = total_evaluations = runs = 0
    for attempt in range(restarts + 1):
        if attempt == 0:
            start = phi0
        else:
            assert best is not None
            made = made or starts()
            start = made.start(attempt, best.phi)
        budget = max_iterations - total_iterations
        run = _descend(
            method,
            options,
            problem,
            space,
            start,
            reporter,
            weight=weight,
            deadline=deadline,
            tolerance=tolerance,
            max_iterations=budget,
            goal_value=goal_value,
            subdivide=attempt == 0,
        )
        runs = attempt
        total_iterations += run.iterations
        total_evaluations += run.evaluations
        if best is None or replaces(run, best, phi0):
            best = run
        met = best.value <= tolerance or (goal_value is not None and best.value <= goal_value)
        out_of_time = deadline is not None and time.perf_counter() >= deadline
        if met or out_of_time or total_iterations >= max_iterations:
            break
    assert best is not None
    theta = space.theta(best.phi)
    value, gradient = problem.evaluate_variables(theta)
    gradient = gradient * space.scale
    active = active_rows(best.phi, space)
    lambdas = multipliers(gradient, active, space)
    status = best.status
    if best is not run and best.status is Status.CONVERGED and run.status is Status.TIME_LIMIT:
        status = run.status
    return (
        replace(
            best,
            value=value,
            gradient=gradient,
            status=status,
            iterations=total_iterations,
            evaluations=total_evaluations,
            active=tuple(int(k) for k in active),
            multipliers=lambdas,
        ),
        runs,
    )


def _descend(
    method: str,
    options: MethodOptions,
    problem: Problem,
    space: ReducedSpace,
    start: FloatArray,
    callback: Callable[[FloatArray, float], None] | None,
    *,
    weight: float,
    deadline: float | None,
    tolerance: float,
    max_iterations: int,
    goal_value: float | None,
    subdivide: bool,
) -> Descent:
    if method == "lbfgsb":
        stages = _stages(problem, space, start, options.subdivide if subdivide else 0)
        iterations = evaluations = 0
        run: Descent | None = None
        for stage in stages:
            stop = Budget(
                tolerance,
                max(max_iterations - iterations, 1),
                deadline,
                goal_value if stage is problem else None,
            )
            run = descend_lbfgsb(
                _regularised(stage, space, options, weight),
                start if run is None else run.phi,
                space,
                stop,
                memory=options.memory,
                callback=callback,
            )
            iterations += run.iterations
            evaluations += run.evaluations
            if run.status is Status.TIME_LIMIT:
                break
        assert run is not None
        return replace(run, iterations=iterations, evaluations=evaluations)
    model = TaskModel(problem, space)
    budget = Budget(tolerance, max_iterations, deadline, goal_value)
    if method == "dls":
        damping = options.damping
        if damping is None:
            damping = DAMPING * float(np.max(problem.chain_lengths, initial=1.0))
        return descend_dls(
            model,
            leaves_by_level(problem),
            start,
            space,
            budget,
            damping=damping,
            callback=callback,
        )
    weights = tree_weights(model, options.falloff, options.cutoff)
    return descend_transpose(
        model,
        weights,
        start,
        space,
        budget,
        scale=weight,
        step_size=options.step_size,
        slope=options.slope,
        callback=callback,
    )


def _regularised(
    problem: Problem, space: ReducedSpace, options: MethodOptions, weight: float
) -> Callable[[FloatArray], tuple[float, FloatArray, float]]:
    """(G_all + tikhonov ‖θ − θ_ref‖²) / w over φ, its gradient, and G_all / w."""
    reference = space.base if options.theta_ref is None else options.theta_ref
    ref = reference[space.variables]
    tikhonov = options.tikhonov
    scale = space.scale

    def objective(phi: FloatArray) -> tuple[float, FloatArray, float]:
        value, gradient = problem.evaluate_variables(space.theta(phi))
        gradient = gradient * scale
        goals = value / weight
        if tikhonov == 0.0:
            return goals, gradient / weight, goals
        offset = scale * phi - ref
        penalty = tikhonov * float(offset @ offset)
        return (
            goals + penalty / weight,
            (gradient + 2.0 * tikhonov * offset * scale) / weight,
            goals,
        )

    return objective


def _stages(problem: Problem, space: ReducedSpace, start: FloatArray, count: int) -> list[Problem]:
    """Seed 002's subdivision: ``count`` intermediate problems, then the problem itself.

    Each goal with a target point (all but orientation goals; not pins) moves it along
    the straight line from its effector's place at the start: the k-th of ``count + 1``
    equal steps, ``p_k = r₀ + k/(count + 1) (p − r₀)``.
    """
    if count == 0:
        return [problem]
    points = problem.effector_states(space.theta(start))[0]
    stages: list[Problem] = []
    for k in range(1, count + 1):
        fraction = k / (count + 1)
        replacements: dict[int, Goal] = {}
        for i, leaf in enumerate(problem.leaves):
            target = getattr(leaf.goal, "point", None)
            if leaf.pinned or target is None:
                continue
            goal = copy.copy(leaf.goal)
            goal.point = points[i] + fraction * (target - points[i])  # type: ignore[attr-defined]
            replacements[i] = goal
        stages.append(problem.with_goals(replacements))
    stages.append(problem)
    return stages
