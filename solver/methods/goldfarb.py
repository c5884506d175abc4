"""The default method: Goldfarb's projected BFGS, as in Zhao & Badler 1994.

Goldfarb 1969 on Rosen's gradient projection (Rosen 1960); the step routine is
:mod:`solver.optimizer.goldfarb`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .._checks import FloatArray, IntArray
from ..exceptions import SolverInputError
from ..goals import Goal, HalfSpace, Plane
from ..kernel import Settled, SettleStatus
from ..optimizer.budget import Budget, Reporter
from ..optimizer.compiled_gauss_newton import (
    ActiveBounds,
    Faces,
    Resume,
    descent_end,
    gauss_newton_descent,
    met_message,
    settled_descent,
    start_rows,
)
from ..optimizer.goldfarb import descend
from ..optimizer.levels import Level, descend_levels, has_levels
from ..optimizer.metric import GaussNewtonStep
from ..optimizer.projection import active_rows, multipliers
from ..optimizer.relax import (
    HOLD_SHARE,
    NEAR,
    ComfortAim,
    Rounds,
    Settler,
    ceiling_of,
    kept_at_once,
    near_of,
    relax,
    settle_constants,
)
from ..optimizer.space import ReducedSpace
from ..optimizer.tasks import leaves_by_level
from ..problem import Problem
from ..result import Descent, Status
from .base import Leg, Method, Scaled, levels_of, moving_unmet, weight_scale
from .lead import led, lost

__all__ = ["START_METRICS", "Goldfarb"]

SETTLED = True
"""Whether :meth:`Goldfarb.quick` takes its descent and comfort's rounds in one kernel call
(:meth:`Goldfarb.settled`; off only to test that it changes nothing)."""

START_METRICS = ("gauss_newton", "identity")
"""Names accepted by ``Goldfarb(start_metric=...)``."""
FENCE_PASSES = 5
"""Most solves of the last level beside its fences (:meth:`Goldfarb.fences_kept`): the
first with each at its place, then with those a point ended outside of moved in."""
FENCE_DEPTH = 1e-6
"""How far inside a fence, as a share of the longest chain, a moved fence aims its point:
above the linear model's error, far below what a view of the pose shows."""
FENCE_BAND = 1e-4
"""A fence whose point lies within this share of the longest chain of it is held as a plane
while the pose relaxes toward comfort (:meth:`Goldfarb.fenced_level`)."""
FENCE_SLOPE = 0.1
"""The least slope :func:`next_shift` takes of a point's height against its fence's shift."""
FENCE_WEIGHT = 10.0
"""A fence weighs this many times its own weight in the last level's solve: goals pull its
point past it a tenth as far as past a goal of their weight, and the solve stays about as
well conditioned as the goals' own."""


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

        A problem with pins or priority levels descends level by level
        (:mod:`solver.optimizer.levels`), from where a weighted lead ends (:mod:`.lead`),
        then toward comfort (:meth:`relaxed_levels`); any other takes one descent of
        G_all, relaxed toward comfort in the goals' null space where the solve has comfort
        (:mod:`solver.optimizer.relax`).
        """
        if has_levels(leg.problem):
            if leg.scaled.comfort is not None and not _sided(leg.problem):
                return self.relaxed_levels(leg)
            return self.levelled(leg)
        step = self.compiled(leg.problem, leg.scaled)
        first = self.goals(
            leg.problem, leg.scaled, leg.start, leg.budget, step, leg.reporter, leg.resume
        )
        first = self.unstuck(leg, first, step)
        return self.relaxed(leg.problem, leg.scaled, first, leg.budget, step)

    def relaxed_levels(self, leg: Leg) -> Descent:
        """The levels' descent of the goals (:meth:`levelled`), then comfort below them.

        Where every goal ends met, each level is at its least, 0, wherever every goal stays
        met: the levels are then one, and comfort relaxes as below one level of goals
        (:meth:`relaxed`: the kernel's Newton rounds, each goal kept met). Otherwise comfort
        alone descends from there as the last level, each goal level held where it ended;
        where the goals spent the budget, it waits. Restarts rank the levels, comfort last.
        """
        problem, scaled, budget = leg.problem, leg.scaled, leg.budget
        goals = self.levelled(replace(leg, scaled=replace(scaled, comfort=None)))
        if goals.status not in (Status.CONVERGED, Status.STALLED):
            relaxed = goals  # the budget is spent: comfort, the lowest level, waits
        elif budget.met(goals.value):
            relaxed = self.relaxed(problem, scaled, goals, budget, self.compiled(problem, scaled))
        else:  # comfort alone descends, below the goal levels held where they ended
            left = replace(budget, max_iterations=budget.max_iterations - goals.iterations)
            comfort = self.by_levels(replace(leg, start=goals.phi, budget=left), first=-1)
            return replace(
                comfort,
                iterations=goals.iterations + comfort.iterations,
                evaluations=goals.evaluations + comfort.evaluations,
            )
        levels = levels_of(leg, curvature=False)
        return replace(
            relaxed, levels=tuple(float(level.objective(relaxed.phi)[0]) for level in levels)
        )

    def levelled(self, leg: Leg) -> Descent:
        """One descent by levels from where the lead ends, or from the start where it lost."""
        kept = self.fences_kept(leg)
        if isinstance(kept, Descent):
            return kept
        started, iterations, evaluations = led(self, kept)
        descent = self.by_levels(started, kept.start)
        iterations += descent.iterations
        evaluations += descent.evaluations
        if started is not kept and lost(kept, descent):
            budget = kept.budget
            left = replace(budget, max_iterations=max(budget.max_iterations - iterations, 1))
            descent = self.by_levels(replace(kept, budget=left))
            iterations += descent.iterations
            evaluations += descent.evaluations
        return replace(descent, iterations=iterations, evaluations=evaluations)

    def fences_kept(self, leg: Leg) -> Descent | Leg:
        """The levels' descent in a few solves of one level where the levels above are fences.

        Levels of half-space goals alone (Balance's fences) are at their least, G = 0,
        wherever their points are inside. So the last level is solved with the fences
        beside its goals, each :data:`FENCE_WEIGHT` times its own weight, and relaxed toward
        comfort (:meth:`fenced_level`). Where that meets the goals with every point inside, every
        fence's G is 0 and the pose is the levels' lexicographic optimum; so it is where
        every point ends strictly inside (no fence pulls). Where goals pull a point past its
        fence (goals the fence keeps out of reach), the fence's half-space moves inside
        until the point ends just inside the fence (:func:`next_shift`): the method of
        multipliers (Hestenes 1969; Powell 1969), the shift standing for the fence's
        multiplier. The first of at most :data:`FENCE_PASSES` passes that ends so is kept
        where it meets the goals, or a goal is proved out of reach (:func:`beyond`).
        Otherwise (goals unmet that some pose may meet, as another branch of an arm's
        reach would), the levels' descent from the last pass's pose, which it can only
        better, with the budget left; where the levels are others, from the solve's start.
        """
        problem, budget = leg.problem, leg.budget
        leaves, levels = problem.leaves, leaves_by_level(problem)
        fences = [int(i) for rows in levels[:-1] for i in rows]
        if not fences or not all(
            isinstance(leaves[i].goal, HalfSpace) and not leaves[i].pinned for i in fences
        ):
            return leg
        ranked = levels_of(leg, curvature=False)
        depth = FENCE_DEPTH * max(problem.longest_chain, 1.0)
        shifts = dict.fromkeys(fences, 0.0)  # fence leaf: how far inside itself it is moved
        ended: dict[int, tuple[float, float]] = {}  # its last pass's shift and point's height
        spent = 0
        found: Descent | None = None
        for _ in range(FENCE_PASSES):
            left = Budget(
                budget.tolerance,
                max(budget.max_iterations - spent, 1),
                budget.deadline,
                budget.goal_value,
            )
            start = leg.start if found is None else found.phi
            found = self.fenced_level(leg, levels[-1], shifts, start, left)
            spent += found.iterations
            theta = leg.scaled.space.theta(found.phi)
            heights = fence_heights(problem, theta)
            inside = all(
                level.objective(found.phi)[0] <= (level.goal or 0.0)
                for level in ranked[: len(levels) - 1]
            )
            # goals unmet are at their least where no fence pushes (every point strictly
            # inside, no fence moved in), or where no pose meets them (one proved out of reach)
            free = all(heights[i] > 0.0 and not shifts[i] for i in fences)
            if inside and (free or left.met(found.value) or beyond(problem, levels[-1], theta)):
                return self.fenced(leg, replace(found, iterations=spent), ranked)
            if inside:
                break  # goals unmet beside a fence: the levels' descent may meet them
            if spent >= budget.max_iterations or time.perf_counter() >= (budget.deadline or np.inf):
                break
            for i in fences:
                if heights[i] < 0.0 or shifts[i]:
                    ended[i], shifts[i] = (
                        (shifts[i], heights[i]),
                        next_shift(shifts[i], heights[i], ended.get(i), depth),
                    )
        rest = Budget(
            budget.tolerance,
            max(budget.max_iterations - spent, 1),
            budget.deadline,
            budget.goal_value,
        )
        start = leg.start if found is None else found.phi
        return replace(leg, start=start, budget=rest)

    def fenced_level(
        self,
        leg: Leg,
        level: IntArray,
        shifts: dict[int, float],
        start: FloatArray,
        budget: Budget,
    ) -> Descent:
        """``level``'s goals beside the fences, solved as one level and relaxed toward comfort.

        Each fence leaf in ``shifts`` is a half-space that far inside the fence, weighing
        :data:`FENCE_WEIGHT` times the fence. A half-space pulls nothing while its point is
        inside, so comfort's steps, which keep to what pulls (:mod:`.optimizer.relax`),
        would carry a point on its boundary out; for the relaxation, each fence whose point
        the descent left within :data:`FENCE_BAND` of it becomes the plane through that
        point, and comfort acts along it.
        """
        problem, leaves = leg.problem, leg.problem.leaves
        rows = np.concatenate([level, np.array(list(shifts), np.intp)])
        fences: dict[int, HalfSpace] = {}
        for i, shift in shifts.items():
            fence = leaves[i].goal
            assert isinstance(fence, HalfSpace)
            fences[i] = HalfSpace(fence.point + shift * fence.normal, fence.normal)
        heavier = problem.weighed(dict.fromkeys(shifts, FENCE_WEIGHT))
        below = heavier.with_goals(fences).only(rows)
        scaled = replace(leg.scaled, weight=weight_scale(below))  # its comfort kept
        step = self.compiled(below, scaled)
        inner = replace(leg, problem=below, scaled=scaled, reporter=None, budget=budget)
        first = self.unstuck(inner, self.goals(below, scaled, start, budget, step), step)
        if scaled.comfort is None:
            return first
        band = FENCE_BAND * max(problem.longest_chain, 1.0)
        heights = fence_heights(below, scaled.space.theta(first.phi))
        planes: dict[int, Goal] = {
            i: Plane(fences[i].point + heights[i] * fences[i].normal, fences[i].normal)
            for i in shifts
            if heights[i] <= band
        }
        if planes:
            below = heavier.with_goals({**fences, **planes}).only(rows)
            step = self.compiled(below, scaled)
            value, gradient = scaled.objective(below)(first.phi)
            first = replace(first, value=value, gradient=gradient)
        return self.relaxed(below, scaled, first, budget, step)

    @staticmethod
    def fenced(leg: Leg, found: Descent, ranked: list[Level]) -> Descent:
        """``found`` as the levels' descent of ``leg``: its value, rows and levels theirs."""
        space = leg.scaled.space
        value, gradient = leg.scaled.objective(leg.problem)(found.phi)
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
        resume: Resume | None = None,
    ) -> Descent:
        """One descent of G_all from ``start`` (a problem of one level, no comfort).

        The kernel's iterations are ``step`` (:meth:`compiled`); ``resume``: where its
        descent from ``start`` left off, to go on from.
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
            resume=resume,
        )

    def relaxed(
        self,
        problem: Problem,
        scaled: Scaled,
        first: Descent,
        budget: Budget,
        step: GaussNewtonStep | None,
        rounds: Rounds | None = None,
    ) -> Descent:
        """``first`` relaxed toward the solve's comfort, or ``first`` without comfort.

        The goals are restored with the kernel's iterations ``step`` (:meth:`compiled`);
        comfort's Newton rounds are the kernel's where it evaluates the problem, or
        ``rounds``: those the kernel took from ``first`` already (:meth:`settled`).
        """
        aim = scaled.comfort_aim(problem)
        if aim is None:
            return first

        def restore(phi: FloatArray, left: Budget) -> Descent:
            space = scaled.space
            phi = np.clip(phi, space.lower, space.upper)
            if step is not None and left.goal_value is not None:
                found = start_rows(phi, space.a_eq, space.b_eq, space.rows_in, space.b_in)
                if found is not None:
                    quick = self.kernel_descent(problem, step, phi, *found, left, space)
                    if isinstance(quick, Descent):
                        return quick
                    return self.goals(problem, scaled, phi, left, step, resume=quick)
            return self.goals(problem, scaled, phi, left, step)

        settler: Settler | None = None
        # the kernel's plan for comfort's rounds, at any size (they factor no Woodbury start)
        compiled = step if step is not None else scaled.gauss_newton_step(problem, sized=False)
        if compiled is not None:
            plan, space, taken = compiled, scaled.space, rounds

            def settler(
                first: Descent, aim: ComfortAim, constants: dict[str, float], budget: Budget
            ) -> Rounds | None:
                if taken is not None:
                    return taken
                settled = compiled_settle(plan, first, aim, constants, budget, space)
                _keep_last(problem, plan)
                return settled

        return relax(
            first,
            aim,
            scaled.space,
            scaled.curvature(problem),
            restore,
            budget,
            max(problem.longest_chain, 1.0),
            scaled.objective(problem),
            settler,
            problem.weighting.relative,
        )

    def quick(self, problem: Problem, scaled: Scaled, budget: Budget) -> Descent | Resume | None:
        """Gauss–Newton steps by the kernel alone, where they are the whole descent.

        Otherwise where they left off (the general descent goes on from there), or None.

        From a start where no active row touches a bound's variable but the bound's own
        (:func:`.optimizer.compiled_gauss_newton.start_rows`), on goals the kernel evaluates
        (:meth:`Problem.compiled_goals <solver.Problem.compiled_goals>`), with the
        Gauss–Newton start and no levels
        (:func:`.optimizer.compiled_gauss_newton.gauss_newton_descent`), then relaxed
        toward the solve's comfort if it has one (:meth:`relaxed`); see
        :meth:`Method.quick <solver.methods.base.Method.quick>`. Without a goal value the
        kernel's steps end the descent only at a Kuhn–Tucker point with the goals met, or
        on the time; otherwise they are its first iterations, and the general descent goes
        on from there.
        """
        if self.start_metric != "gauss_newton" or has_levels(problem):
            return None
        space = scaled.space
        phi0 = space.phi(space.base)
        found = start_rows(phi0, space.a_eq, space.b_eq, space.rows_in, space.b_in)
        if found is None:
            return None
        step = scaled.gauss_newton_step(problem, kept=True)
        if step is None:
            return None
        aim = scaled.comfort_aim(problem) if SETTLED and found[1] is None else None
        if aim is not None:
            return self.settled(problem, scaled, step, phi0, found[0], budget, aim)
        # comfort's rounds, where they follow, keep their own last evaluation instead
        keep = scaled.comfort is None
        descent = self.kernel_descent(problem, step, phi0, *found, budget, space, keep=keep)
        if not isinstance(descent, Descent):
            return descent
        return self.relaxed(problem, scaled, descent, budget, step)

    def settled(
        self,
        problem: Problem,
        scaled: Scaled,
        step: GaussNewtonStep,
        phi0: FloatArray,
        active: ActiveBounds,
        budget: Budget,
        aim: ComfortAim,
    ) -> Descent | Resume | None:
        """:meth:`quick` from a start where bounds alone are active, comfort set.

        The kernel's descent and comfort's rounds from its end in one call
        (:func:`.optimizer.compiled_gauss_newton.settled_descent`). Where the kernel found
        the rows the rounds' end rests on and the relaxation keeps it, that is the result
        (:func:`.optimizer.relax.kept_at_once`); otherwise the descent's end is what
        :meth:`kernel_descent` gives, relaxed (:meth:`relaxed`) from the rounds the kernel
        took already: the same descent either way.
        """
        space = scaled.space
        longest = max(problem.longest_chain, 1.0)
        goal_value = -math.inf if budget.goal_value is None else budget.goal_value
        equalities = (space.a_eq, space.b_eq) if len(space.b_eq) else None
        # the kernel makes the ceiling and nearby from the descent's G: ceiling_of's term
        # past G's share is its value at G = 0
        constants = settle_constants(aim, 0.0, longest)
        hold, near = ceiling_of(0.0, longest), (NEAR * longest) ** 2
        comfort = (
            aim.target,
            aim.masses,
            constants,
            HOLD_SHARE,
            hold,
            near,
            space.a_eq,
            space.b_eq,
        )
        quick, plan = settled_descent(
            step,
            phi0,
            active,
            comfort,
            tolerance=budget.tolerance,
            max_iterations=budget.max_iterations,
            deadline=budget.deadline,
            goal_value=goal_value,
            equalities=equalities,
        )
        found, settled, kept = quick
        if settled is not None:
            _keep_last(problem, step)  # the rounds' last evaluation, as :meth:`relaxed` keeps it
        if settled is not None and kept is not None and settled.status is SettleStatus.SETTLED:
            kept_near = near_of(
                ceiling_of(found.value, longest), longest, problem.weighting.relative
            )
            first = (found.point, found.iterations, found.evaluations)
            ended = (Status.CONVERGED, met_message(found.value, goal_value))
            descent = kept_at_once(first, _rounds(settled), kept, aim, kept_near, ended)
            if descent is not None:
                return descent
        begun = descent_end(
            step,
            plan,
            found,
            active,
            tolerance=budget.tolerance,
            goal_value=goal_value,
            equalities=equalities,
        )
        if not isinstance(begun, Descent):
            return begun
        if settled is None or settled.status is SettleStatus.GENERAL:
            # no rounds ran, or the kernel's found a normal matrix not positive definite
            # (relaxed asks it again and then runs numpy's, as it does without this call)
            return self.relaxed(problem, scaled, begun, budget, step)
        return self.relaxed(problem, scaled, begun, budget, step, _rounds(settled))

    @staticmethod
    def kernel_descent(
        problem: Problem,
        step: GaussNewtonStep,
        phi0: FloatArray,
        active: ActiveBounds,
        faces: Faces | None,
        budget: Budget,
        space: ReducedSpace,
        *,
        keep: bool = True,
    ) -> Descent | Resume | None:
        """The kernel's Gauss–Newton descent from ``phi0``, or where it left off short of it.

        None where it left off at once.

        ``space``'s equality rows stay active throughout, as the active bounds and the
        other active rows (``faces``, or None: none) do.
        ``keep``: the kernel's last evaluation becomes ``problem``'s own
        (:func:`_keep_last`), so that the solve does not evaluate its end again. A budget
        without a goal value stops at none (G ≥ 0 is never at most −∞).
        """
        descent = gauss_newton_descent(
            step,
            phi0,
            active,
            tolerance=budget.tolerance,
            max_iterations=budget.max_iterations,
            deadline=budget.deadline,
            goal_value=-math.inf if budget.goal_value is None else budget.goal_value,
            equalities=(space.a_eq, space.b_eq) if len(space.b_eq) else None,
            faces=faces,
        )
        if keep and isinstance(descent, Descent):
            _keep_last(problem, step)
        return descent

    def by_levels(self, leg: Leg, origin: FloatArray | None = None, first: int = 0) -> Descent:
        """One descent by priority levels, pins first, each level holding those above.

        Comfort, if any, is the last level, below every goal. ``origin``: where the solve
        began, reported as its start where ``leg`` starts at a lead's end; ``first``: the
        first level descended, those above held where ``leg`` starts (counted from the
        last as a negative index counts: −1 is comfort alone).
        """
        gauss_newton = self.start_metric == "gauss_newton"
        problem, scaled = leg.problem, leg.scaled
        levels = levels_of(leg, curvature=gauss_newton)
        return descend_levels(
            problem,
            scaled.space,
            levels,
            scaled.objective(problem),
            leg.start,
            leg.budget,
            leg.reporter,
            origin=origin,
            first=first % len(levels),
        )


def _rounds(settled: Settled) -> Rounds:
    """The kernel's rounds as :func:`.optimizer.relax.settle`'s."""
    return Rounds(
        settled.point,
        settled.value,
        settled.gradient,
        settled.evaluations,
        settled.iterations,
        settled.status is SettleStatus.SETTLED,
    )


def _sided(problem: Problem) -> bool:
    """Whether ``problem`` has a half-space goal.

    A half-space pulls nothing while met, so comfort's rounds toward met goals would carry
    its point out; Balance's fences relax their own way (:meth:`Goldfarb.fenced_level`).
    """
    return any(isinstance(leaf.goal, HalfSpace) for leaf in problem.leaves)


def _keep_last(problem: Problem, step: GaussNewtonStep) -> None:
    """Keep the kernel's last evaluation of ``step``'s descent as ``problem``'s own.

    Usually at the descent's or the rounds' end: the solve's own evaluation there is then
    not made again.
    """
    last = step.plan.last()
    if last is not None:
        problem.keep_compiled(*last)


def compiled_settle(
    gauss_newton_step: GaussNewtonStep,
    first: Descent,
    aim: ComfortAim,
    constants: dict[str, float],
    budget: Budget,
    space: ReducedSpace | None = None,
) -> Rounds | None:
    """:func:`.relax.settle`'s rounds by the kernel (``rk_settle``), or None.

    None where the kernel finds a normal matrix not positive definite (numpy's rounds then
    run). The problem is the kernel's Gauss–Newton plan's: goals the kernel evaluates, its
    limit rows, and ``space``'s equality rows (a joint group's, a control rig's shares),
    which every round keeps.
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
        a_eq=None if space is None else space.a_eq,
        b_eq=None if space is None else space.b_eq,
    )
    return None if found.status is SettleStatus.GENERAL else _rounds(found)


def beyond(problem: Problem, level: IntArray, theta: FloatArray) -> bool:
    """Whether a goal of ``level`` is proved out of reach (:meth:`Problem.leaf_reach_margins`).

    No pose meets it, so the levels' descent could not either: the passes' Kuhn–Tucker
    point beside the fences is kept. Their pose's free DOFs do not move the proof: it
    rests on the chains' fixed pivots and the pins.
    """
    margins = problem.leaf_reach_margins(theta)
    return bool(np.any(margins[level] < 0.0))


def fence_heights(problem: Problem, theta: FloatArray) -> dict[int, float]:
    """How far each half-space goal's point lies inside its plane (< 0: outside), by leaf."""
    points = problem.effector_states(theta)[0]
    heights = {}
    for i, leaf in enumerate(problem.leaves):
        if isinstance(leaf.goal, HalfSpace):
            heights[i] = float(leaf.goal.normal @ (points[i] - leaf.goal.point))
    return heights


def next_shift(
    shift: float, height: float, previous: tuple[float, float] | None, depth: float
) -> float:
    """How far inside a fence to move it so that its point ends ``depth`` inside the fence.

    The point's height is taken as linear in the shift: its slope the secant through the
    last two passes where they differ, else 1 (the method of multipliers' update), never
    below :data:`FENCE_SLOPE` (a point that hardly follows its fence is moved no further
    than that share would ask). A fence is never moved outward.
    """
    slope = 1.0
    if previous is not None and previous[0] != shift:
        slope = (height - previous[1]) / (shift - previous[0])
    return max(shift + (depth - height) / min(max(slope, FENCE_SLOPE), 1.0), 0.0)


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
