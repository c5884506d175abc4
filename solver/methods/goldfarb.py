"""The default method: Goldfarb's projected BFGS, as in Zhao & Badler 1994.

Goldfarb 1969 on Rosen's gradient projection (Rosen 1960); the step routine is
:mod:`solver.optimizer.goldfarb`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .._checks import FloatArray
from ..exceptions import SolverInputError
from ..goals import HalfSpace
from ..kernel import SettleStatus
from ..optimizer.budget import Budget, Reporter
from ..optimizer.compiled_gauss_newton import (
    ActiveBounds,
    active_bounds,
    gauss_newton_descent,
)
from ..optimizer.goldfarb import descend
from ..optimizer.levels import descend_levels, has_levels
from ..optimizer.metric import GaussNewtonStep
from ..optimizer.projection import active_rows, multipliers
from ..optimizer.relax import ComfortAim, Rounds, Settler, relax
from ..optimizer.tasks import leaves_by_level
from ..problem import Problem
from ..result import Descent, Status
from .base import Leg, Method, Scaled, levels_of, moving_unmet, weight_scale

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

        A problem with pins or priority levels descends level by level, comfort the last
        (:mod:`solver.optimizer.levels`); any other takes one descent of G_all, relaxed
        toward comfort in the goals' null space where the solve has comfort
        (:mod:`solver.optimizer.relax`).
        """
        if has_levels(leg.problem):
            kept = self.fences_kept(leg)
            if isinstance(kept, Descent):
                return kept
            return self.by_levels(replace(leg, budget=kept))
        step = self.compiled(leg.problem, leg.scaled)
        first = self.goals(leg.problem, leg.scaled, leg.start, leg.budget, step, leg.reporter)
        first = self.unstuck(leg, first, step)
        return self.relaxed(leg.problem, leg.scaled, first, leg.budget, step)

    def fences_kept(self, leg: Leg) -> Descent | Budget:
        """The levels' descent in one level's time where the levels above the last are fences.

        Levels of half-space goals alone (Balance's) are at their least, G = 0, wherever
        their points are inside. So the last level is solved first as if they were not there
        (one descent, relaxed toward comfort); if it ends with every point inside, that pose
        is also the levels' lexicographic optimum. Otherwise, or where the levels are others,
        the budget the levels' descent has left.
        """
        problem, budget = leg.problem, leg.budget
        leaves, levels = problem.leaves, leaves_by_level(problem)
        fences = levels[:-1]
        if not fences or not all(
            isinstance(leaves[int(i)].goal, HalfSpace) and not leaves[int(i)].pinned
            for rows in fences
            for i in rows
        ):
            return budget
        below = problem.only(levels[-1])
        scaled = Scaled(leg.scaled.space, weight_scale(below))
        step = self.compiled(below, scaled)
        inner = replace(leg, problem=below, scaled=scaled, reporter=None)
        first = self.goals(below, scaled, leg.start, budget, step)
        found = self.relaxed(below, scaled, self.unstuck(inner, first, step), budget, step)
        ranked = levels_of(leg, curvature=False)
        if any(level.objective(found.phi)[0] != 0.0 for level in ranked[: len(fences)]):
            left = max(budget.max_iterations - found.iterations, 1)
            return Budget(budget.tolerance, left, budget.deadline, budget.goal_value)
        space = leg.scaled.space
        value, gradient = leg.scaled.objective(problem)(found.phi)
        active = active_rows(found.phi, space)
        if leg.reporter is not None:
            leg.reporter(found.phi, value)
        return replace(
            found,
            value=value,
            gradient=gradient,
            active=tuple(int(j) for j in active),
            multipliers=multipliers(gradient, active, space),
            levels=tuple(float(level.objective(found.phi)[0]) for level in ranked),
        )

    def unstuck(self, leg: Leg, first: Descent, step: GaussNewtonStep | None) -> Descent:
        """``first``, or where it stalled short of the goals, a descent from it bent.

        A limb straight on a bound (an elbow at its 0° hinge limit) is a singular start:
        its goal's gradient has no part that the bound lets move, and the line search
        finds no decrease. Each variable on a bound that moves a goal left unmet
        (:func:`bent`) starts :data:`BEND` inside it instead, the other variables where
        ``first`` ended, so that limbs whose goals are met keep their pose; the lower of
        the two descents on G is kept, with both descents' counts.
        """
        problem, scaled, budget = leg.problem, leg.scaled, leg.budget
        if first.status is not Status.STALLED or budget.met(first.value):
            return first
        start = bent(problem, scaled, first)
        if start is None:
            return first
        left = Budget(
            budget.tolerance,
            max(budget.max_iterations - first.iterations, 1),
            budget.deadline,
            budget.goal_value,
        )
        again = self.goals(problem, scaled, start, left, step, leg.reporter)
        kept = again if again.value < first.value else first
        return replace(
            kept,
            iterations=first.iterations + again.iterations,
            evaluations=first.evaluations + again.evaluations,
        )

    def compiled(self, problem: Problem, scaled: Scaled) -> GaussNewtonStep | None:
        """The kernel's Gauss–Newton iterations the descents take, or None.

        See :meth:`Scaled.gauss_newton_step`; the identity start takes none.
        """
        return scaled.gauss_newton_step(problem) if self.start_metric == "gauss_newton" else None

    def goals(
        self,
        problem: Problem,
        scaled: Scaled,
        start: FloatArray,
        budget: Budget,
        step: GaussNewtonStep | None,
        reporter: Reporter | None = None,
    ) -> Descent:
        """One descent of G_all from ``start`` (a problem of one level, no comfort).

        The kernel's iterations are ``step`` (:meth:`compiled`).
        """
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
            hessian=scaled.hessian(problem),
            gauss_newton_step=step,
        )

    def relaxed(
        self,
        problem: Problem,
        scaled: Scaled,
        first: Descent,
        budget: Budget,
        step: GaussNewtonStep | None,
    ) -> Descent:
        """``first`` relaxed toward the solve's comfort, or ``first`` without comfort.

        The goals are restored with the kernel's iterations ``step`` (:meth:`compiled`);
        comfort's Newton rounds are the kernel's where it evaluates the problem.
        """
        aim = scaled.comfort_aim(problem)
        if aim is None:
            return first

        def restore(phi: FloatArray, left: Budget) -> Descent:
            space = scaled.space
            phi = np.clip(phi, space.lower, space.upper)
            if step is not None and left.goal_value is not None:
                active = active_bounds(phi, space.a_eq, space.b_eq, space.rows_in, space.b_in)
                if active is not None:
                    quick = self.kernel_descent(problem, step, phi, active, left)
                    if quick is not None:
                        return quick
            return self.goals(problem, scaled, phi, left, step)

        settler: Settler | None = None
        # the kernel's plan for comfort's rounds, at any size (they factor no Woodbury start)
        compiled = step if step is not None else scaled.gauss_newton_step(problem, sized=False)
        if compiled is not None and not scaled.space.a_eq.shape[0]:
            rounds = compiled

            def settler(
                first: Descent, aim: ComfortAim, constants: dict[str, float], budget: Budget
            ) -> Rounds | None:
                return compiled_settle(rounds, first, aim, constants, budget)

        longest = float(np.max(problem.chain_lengths, initial=1.0))
        return relax(
            first,
            aim,
            scaled.space,
            scaled.curvature(problem),
            restore,
            budget,
            longest,
            scaled.objective(problem),
            settler,
        )

    def quick(self, problem: Problem, scaled: Scaled, budget: Budget) -> Descent | None:
        """Gauss–Newton steps by the kernel alone, where they are the whole descent, or None.

        From a start where only bounds are active, on goals the kernel evaluates
        (:meth:`Problem.compiled_goals <solver.Problem.compiled_goals>`), with the
        Gauss–Newton start, a goal value, and no levels
        (:func:`.optimizer.compiled_gauss_newton.gauss_newton_descent`), then relaxed
        toward the solve's comfort if it has one (:meth:`relaxed`); see
        :meth:`Method.quick <solver.methods.base.Method.quick>`.
        """
        if self.start_metric != "gauss_newton" or budget.goal_value is None or has_levels(problem):
            return None
        space = scaled.space
        phi0 = space.phi(space.base)
        active = active_bounds(phi0, space.a_eq, space.b_eq, space.rows_in, space.b_in)
        if active is None:
            return None
        step = scaled.gauss_newton_step(problem)
        if step is None:
            return None
        descent = self.kernel_descent(problem, step, phi0, active, budget)
        if descent is None:
            return None
        return self.relaxed(problem, scaled, descent, budget, step)

    @staticmethod
    def kernel_descent(
        problem: Problem,
        step: GaussNewtonStep,
        phi0: FloatArray,
        active: ActiveBounds,
        budget: Budget,
    ) -> Descent | None:
        """The kernel's Gauss–Newton descent from ``phi0``, or None where it is not the whole."""
        assert budget.goal_value is not None
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


def compiled_settle(
    gauss_newton_step: GaussNewtonStep,
    first: Descent,
    aim: ComfortAim,
    constants: dict[str, float],
    budget: Budget,
) -> Rounds | None:
    """:func:`.relax.settle`'s rounds by the kernel (``rk_settle``), or None.

    None where the kernel finds a normal matrix not positive definite (numpy's rounds then
    run). The problem is the kernel's Gauss–Newton plan's: goals the kernel evaluates and no
    equality rows.
    """
    found = gauss_newton_step.library.settle(
        gauss_newton_step.bound(),
        first.phi,
        first.value,
        first.gradient,
        aim.target,
        aim.masses,
        constants,
        max_iterations=budget.max_iterations - first.iterations,
        seconds=None if budget.deadline is None else budget.deadline - time.perf_counter(),
    )
    if found.status is SettleStatus.GENERAL:
        return None
    return Rounds(
        found.point,
        found.value,
        found.gradient,
        found.evaluations,
        found.iterations,
        found.status is SettleStatus.SETTLED,
    )


BEND = 0.05
"""How far inside its bound a stalled descent's straight limb starts again, in φ (a rotation
of scale 1: radians)."""


def bent(problem: Problem, scaled: Scaled, first: Descent) -> FloatArray | None:
    """``first``'s end, each variable on a bound that moves an unmet goal :data:`BEND` inside.

    None where there is none (:func:`.base.moving_unmet` tells the variables that move an
    unmet goal). A move that would leave another limit row is not made.
    """
    space = scaled.space
    found = moving_unmet(problem, scaled, first.phi)
    if found is None:
        return None
    moving = found[0]
    variables, signs = space.rows_in.bounds()
    slack = space.rows_in @ first.phi - space.b_in
    on = np.flatnonzero((variables >= 0) & (slack <= 1e-12))
    on = on[moving[variables[on]]]
    if not on.size:
        return None
    start = first.phi.copy()
    room = space.upper - space.lower
    for row in on:
        j = variables[row]
        start[j] += signs[row] * min(BEND, 0.5 * float(room[j]))
    return start if space.keeps(start) else None
