"""The default method: Goldfarb's projected BFGS, as in Zhao & Badler 1994.

Goldfarb 1969 on Rosen's gradient projection (Rosen 1960); the step routine is
:mod:`solver.optimizer.goldfarb`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..exceptions import SolverInputError
from ..optimizer.budget import Budget
from ..optimizer.compiled_gauss_newton import active_bounds, gauss_newton_descent
from ..optimizer.goldfarb import descend
from ..optimizer.levels import descend_levels, has_levels
from ..problem import Problem
from ..result import Descent
from .base import Leg, Method, Scaled, levels_of

__all__ = ["START_METRICS", "Goldfarb"]

START_METRICS = ("gauss_newton", "identity")
"""Names accepted by ``Goldfarb(start_metric=...)``."""


@dataclass(frozen=True)
class Goldfarb(Method):
    """Goldfarb's projected BFGS within the limits, the Kuhn–Tucker test its stop.

    Pins hold exactly and each ``priority`` level is solved at no cost to the levels
    above (:mod:`solver.optimizer.levels`).

    Attributes:
        start_metric: How the inverse-Hessian estimate H starts and restarts:
            ``"gauss_newton"`` inverts the damped Gauss–Newton curvature of the goals on
            the null space of the active limits, so the first steps are damped
            least-squares steps; ``"identity"`` is the projector ``I − A(AᵀA)⁻¹Aᵀ`` of
            Zhao & Badler 1994. Either way every later step is Goldfarb's projected BFGS.
    """

    name: ClassVar[str] = "goldfarb"
    finds_multipliers: ClassVar[bool] = True
    holds_pins: ClassVar[bool] = True
    honours_comfort: ClassVar[bool] = True

    start_metric: str = "gauss_newton"

    def __post_init__(self) -> None:
        if self.start_metric not in START_METRICS:
            raise SolverInputError(
                f"unknown start_metric {self.start_metric!r}; choose one of {START_METRICS}",
                item="start_metric",
            )

    def descend(self, leg: Leg) -> Descent:
        """One descent (see :meth:`Method.descend <solver.methods.base.Method.descend>`).

        A problem with pins or priority levels, or a solve with comfort, descends level by
        level (:mod:`solver.optimizer.levels`); any other takes one descent of G_all.
        """
        if has_levels(leg.problem) or leg.scaled.comfort is not None:
            return self.by_levels(leg)
        space = leg.scaled.space
        return descend(
            leg.scaled.objective(leg.problem),
            leg.start,
            space.a_eq,
            space.b_eq,
            space.rows_in,
            space.b_in,
            tolerance=leg.budget.tolerance,
            max_iterations=leg.budget.max_iterations,
            deadline=leg.budget.deadline,
            callback=leg.reporter,
            curvature=leg.scaled.curvature(leg.problem)
            if self.start_metric == "gauss_newton"
            else None,
            goal_value=leg.budget.goal_value,
            hessian=leg.scaled.hessian(leg.problem),
            gauss_newton_step=leg.scaled.gauss_newton_step(leg.problem)
            if self.start_metric == "gauss_newton"
            else None,
        )

    def quick(self, problem: Problem, scaled: Scaled, budget: Budget) -> Descent | None:
        """Gauss–Newton steps by the kernel alone, where they are the whole descent, or None.

        From a start where only bounds are active, on position goals the kernel
        evaluates, with the Gauss–Newton start, a goal value, and neither levels nor
        comfort (:func:`.optimizer.compiled_gauss_newton.gauss_newton_descent`); see
        :meth:`Method.quick <solver.methods.base.Method.quick>`.
        """
        if (
            self.start_metric != "gauss_newton"
            or scaled.comfort is not None
            or budget.goal_value is None
            or has_levels(problem)
        ):
            return None
        space = scaled.space
        phi0 = space.phi(space.base)
        active = active_bounds(phi0, space.a_eq, space.b_eq, space.rows_in, space.b_in)
        if active is None:
            return None
        step = scaled.gauss_newton_step(problem)
        if step is None:
            return None
        descent = gauss_newton_descent(
            step,
            phi0,
            active,
            tolerance=budget.tolerance,
            max_iterations=budget.max_iterations,
            deadline=budget.deadline,
            goal_value=budget.goal_value,
        )
        if descent is None:
            return None
        last = step.plan.last()  # usually at the end: the solve's own evaluation there is kept
        if last is not None:
            problem.keep_compiled(*last)
        return descent

    def by_levels(self, leg: Leg) -> Descent:
        """One descent by priority levels, pins first, each level holding those above.

        Comfort, if any, is the last level, below every goal.
        """
        gauss_newton = self.start_metric == "gauss_newton"
        problem, scaled = leg.problem, leg.scaled
        return descend_levels(
            problem,
            scaled.space,
            levels_of(leg, curvature=gauss_newton),
            scaled.objective(problem),
            leg.start,
            leg.budget,
            leg.reporter,
        )
