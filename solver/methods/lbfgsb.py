"""L-BFGS-B on G_all plus a pull toward a reference pose, optionally in stages.

L-BFGS-B itself is Zhu, Byrd, Lu & Nocedal 1994; the Tikhonov pull and the intermediate
goals follow its use for inverse kinematics.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array, nonnegative, whole
from ..goals.base import Goal
from ..optimizer.budget import Budget
from ..optimizer.lbfgsb import MEMORY, descend_lbfgsb
from ..optimizer.levels import descend_levels, has_levels
from ..optimizer.space import ReducedSpace
from ..problem import Problem
from ..result import Descent, Status
from ..rows import LimitRows
from .base import Leg, Method, Scaled, levels_of

__all__ = ["Lbfgsb"]


@dataclass(frozen=True, eq=False)
class Lbfgsb(Method):
    """Limited-memory BFGS with bounds on ``G_all + tikhonov · ‖θ − θ_ref‖²``.

    A problem with pins or priority levels, or a solve with comfort, is solved level by
    level (:mod:`solver.optimizer.levels`), each round an L-BFGS-B descent along the
    tangent of the levels above; ``tikhonov`` and ``subdivide`` are then left out (the
    levels already say what gives way to what).

    Attributes:
        tikhonov: Weight of ``‖θ − θ_ref‖²`` [1/rad²], ≥ 0.
        theta_ref: θ_ref, shape (n_dofs,), or None for the start pose.
        subdivide: M intermediate goals solved in turn before the goal itself (on the
            first descent): each target moves along the straight line from its
            effector's place at the start, ``p_k = r₀ + k/(M + 1) (p − r₀)``.
        memory: (s, y) pairs kept.
    """

    name: ClassVar[str] = "lbfgsb"
    holds_pins: ClassVar[bool] = True
    honours_comfort: ClassVar[bool] = True

    tikhonov: float = 0.0
    theta_ref: ArrayLike | None = None
    subdivide: int = 0
    memory: int = MEMORY

    def __post_init__(self) -> None:
        object.__setattr__(self, "tikhonov", nonnegative(self.tikhonov, "tikhonov"))
        object.__setattr__(self, "subdivide", whole(self.subdivide, "subdivide", 0))
        object.__setattr__(self, "memory", whole(self.memory, "memory", 1))
        if self.theta_ref is not None:
            object.__setattr__(self, "theta_ref", finite_array(self.theta_ref, "theta_ref"))

    def checked(self, problem: Problem) -> Self:
        """These options, θ_ref checked against the figure's DOFs."""
        if self.theta_ref is not None:
            finite_array(self.theta_ref, "theta_ref", (problem.n_dofs,))
        return self

    def descend(self, leg: Leg) -> Descent:
        """One descent (see :meth:`Method.descend <solver.methods.base.Method.descend>`)."""
        if has_levels(leg.problem) or leg.scaled.comfort is not None:
            return self._by_levels(leg)
        stages = _stages(
            leg.problem, leg.scaled.space, leg.start, self.subdivide if leg.first else 0
        )
        iterations = evaluations = 0
        run: Descent | None = None
        for stage in stages:
            stop = Budget(
                leg.budget.tolerance,
                max(leg.budget.max_iterations - iterations, 1),
                leg.budget.deadline,
                leg.budget.goal_value if stage is leg.problem else None,
            )
            run = descend_lbfgsb(
                self._regularised(stage, leg.scaled),
                leg.start if run is None else run.phi,
                leg.scaled.space,
                stop,
                memory=self.memory,
                callback=leg.reporter,
            )
            iterations += run.iterations
            evaluations += run.evaluations
            if run.status is Status.TIME_LIMIT:
                break
        assert run is not None
        return replace(run, iterations=iterations, evaluations=evaluations)

    def _by_levels(self, leg: Leg) -> Descent:
        """One descent by priority levels, each round L-BFGS-B along the held tangent."""
        space, memory = leg.scaled.space, self.memory

        def inner(
            objective: Callable[[FloatArray], tuple[float, FloatArray]],
            phi: FloatArray,
            a_eq: FloatArray,
            b_eq: FloatArray,
            a_in: FloatArray | LimitRows,
            b_in: FloatArray,
            *,
            tolerance: float,
            max_iterations: int,
            deadline: float | None,
            goal_value: float | None,
            **_: object,
        ) -> Descent:
            rows = space.a_in if isinstance(a_in, LimitRows) else a_in
            local = replace(
                space,
                a_eq=a_eq,
                b_eq=b_eq,
                a_in=rows,
                b_in=b_in,
                rows_in=space.rows_in if rows is space.a_in else LimitRows(rows, sparse=False),
            )

            def searched(point: FloatArray) -> tuple[float, FloatArray, float]:
                value, gradient = objective(point)
                return value, gradient, value

            budget = Budget(tolerance, max_iterations, deadline, goal_value)
            return descend_lbfgsb(searched, phi, local, budget, memory=memory)

        return descend_levels(
            leg.problem,
            space,
            levels_of(leg, curvature=False),
            leg.scaled.objective(leg.problem),
            leg.start,
            leg.budget,
            leg.reporter,
            inner,
        )

    def _regularised(
        self, problem: Problem, scaled: Scaled
    ) -> Callable[[FloatArray], tuple[float, FloatArray, float]]:
        """(G_all + tikhonov ‖θ − θ_ref‖²) / w over φ, its gradient, and G_all / w."""
        space, weight = scaled.space, scaled.weight
        reference = space.base if self.theta_ref is None else np.asarray(self.theta_ref)
        ref = reference[space.variables]
        tikhonov = self.tikhonov
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
    """``count`` intermediate problems, then the problem itself.

    Each goal with a target point (all but orientation goals; not pins) moves it along
    the straight line from its effector's place at the start: the k-th of ``count + 1``
    equal steps.
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
