"""The default method: Goldfarb's projected BFGS, as in Zhao & Badler 1994.

Goldfarb 1969 on Rosen's gradient projection (Rosen 1960); the step routine is
:mod:`solver.optimizer.goldfarb`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._checks import FloatArray
from ..exceptions import SolverInputError
from ..optimizer.budget import Budget, Reporter
from ..optimizer.goldfarb import descend
from ..problem import Problem
from ..result import Descent
from .base import Method, Scaled

__all__ = ["START_METRICS", "Goldfarb"]

START_METRICS = ("gauss_newton", "identity")
"""Names accepted by ``Goldfarb(start_metric=...)``."""


@dataclass(frozen=True)
class Goldfarb(Method):
    """Goldfarb's projected BFGS within the limits, the Kuhn–Tucker test its stop.

    Attributes:
        start_metric: How the inverse-Hessian estimate H starts and restarts:
            ``"gauss_newton"`` inverts the damped Gauss–Newton curvature of the goals on
            the null space of the active limits, so the first steps are damped
            least-squares steps; ``"identity"`` is the projector ``I − A(AᵀA)⁻¹Aᵀ`` of
            Zhao & Badler 1994. Either way every later step is Goldfarb's projected BFGS.
    """

    name: ClassVar[str] = "goldfarb"
    finds_multipliers: ClassVar[bool] = True

    start_metric: str = "gauss_newton"

    def __post_init__(self) -> None:
        if self.start_metric not in START_METRICS:
            raise SolverInputError(
                f"unknown start_metric {self.start_metric!r}; choose one of {START_METRICS}",
                item="start_metric",
            )

    def descend(
        self,
        problem: Problem,
        scaled: Scaled,
        start: FloatArray,
        budget: Budget,
        reporter: Reporter | None,
        *,
        first: bool,
    ) -> Descent:
        """One descent (see :meth:`Method.descend <solver.methods.base.Method.descend>`)."""
        space = scaled.space
        return descend(
            scaled.objective(problem),
            start,
            space.a_eq,
            space.b_eq,
            space.rows_in,
            space.b_in,
            tolerance=budget.tolerance,
            max_iterations=budget.max_iterations,
            deadline=budget.deadline,
            callback=reporter,
            curvature=scaled.curvature(problem) if self.start_metric == "gauss_newton" else None,
            goal_value=budget.goal_value,
        )
