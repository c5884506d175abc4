"""The restart driver: a method's first descent and the restarts after it, best kept.

Every method runs through :func:`descents`: one plan of what each restart starts from
(:func:`plans`), one stop test, one reporter and one budget. When the first descent
ends with the goals unmet (a local minimum, often on a limit boundary, or an
unreachable goal) and some goal could still come nearer (:func:`at_least`), each AnyOf
member that does not count where it ends is tried from the start with the set held to
it (:meth:`Problem.with_member`), then seeded starts alternate between spread over the
feasible set and near the best pose so far (:class:`.optimizer.feasible.Starts`); a best
descent cut off by the per-descent cap goes on between two restarts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ._checks import BoolArray, FloatArray
from .goals import HalfSpace, Line, Plane, Position
from .methods.base import Leg, Method, Scaled, moving_unmet
from .optimizer.budget import Budget
from .optimizer.compiled_gauss_newton import Resume
from .optimizer.feasible import Box, Starts
from .optimizer.projection import active_rows, multipliers
from .optimizer.space import ReducedSpace
from .problem import Problem
from .result import RESTART_GAIN, Descent, Status, ranks, replaces

__all__ = [
    "AT_LEAST",
    "DESCENT_ITERATIONS",
    "LEAST",
    "RESUME",
    "Limits",
    "Plan",
    "at_least",
    "descent_iterations",
    "descents",
    "in_g_all_scale",
    "kept",
    "met_only",
    "plans",
]

DESCENT_ITERATIONS = 200
"""Least iterations of one descent when restarts may follow (else 4 per variable): a
descent that crawls must not use up the restarts' budget."""

_OUT_OF_BUDGET = (Status.TIME_LIMIT, Status.MAX_ITERATIONS)
"""Statuses of a last descent that ran out of budget: they outrank a best one's."""

Plan = tuple[int, int] | int
"""What a restart does: hold AnyOf term t to leaf j ``(t, j)``, start from seeded start
k ≥ 1 of :class:`.optimizer.feasible.Starts`, or :data:`RESUME`."""
RESUME = 0
"""A plan: go on with the best descent, cut off by its per-descent cap."""
AT_LEAST = True
"""Whether restarts end where every goal is at its least (off only to test what they find)."""
LEAST = (Position, Line, Plane, HalfSpace)
"""The goals whose potential is the squared distance of the effector point from a target
set: a reach margin m < 0 (:meth:`Problem.leaf_reach_margins`) bounds it below by m²."""


@dataclass(frozen=True)
class Limits:
    """A solve's budget and stops, common to all its descents.

    Attributes:
        tolerance: Each method's stop test, of G_all / w; at most this counts as met.
        max_iterations: Most iterations over all descents.
        deadline: ``time.perf_counter()`` value to stop at, or None.
        goal_value: G_all / w at which the goals count as met (None: only ``tolerance``).
        restarts: Most restarts.
        seed: Seed of the restarts' random starts.
    """

    tolerance: float
    max_iterations: int
    deadline: float | None
    goal_value: float | None
    restarts: int
    seed: int


class _Driver:
    """The state of one solve's descents: what they spent and the starts made so far."""

    def __init__(
        self,
        method: Method,
        problem: Problem,
        scaled: Scaled,
        limits: Limits,
        callback: Callable[[FloatArray, float], None] | None,
    ) -> None:
        self.method, self.problem, self.scaled, self.limits = method, problem, scaled, limits
        self.reporter = scaled.reporter(callback)
        self.phi0 = scaled.space.phi(scaled.space.base)
        self.per_descent = descent_iterations(limits, scaled.space.n)
        self.iterations = self.evaluations = self.readds = 0
        self.starts: Starts | None = None
        self.still: tuple[Descent, BoolArray] | None = None
        self.least: tuple[Descent, bool] | None = None

    def run(
        self,
        start: FloatArray,
        held: Problem | None = None,
        *,
        first: bool = False,
        resume: Resume | None = None,
    ) -> Descent:
        """One descent from ``start`` of the problem, or of it ``held`` (not reported).

        ``resume``: where its first iterations left off (:attr:`Leg.resume`).
        """
        limits = self.limits
        budget = Budget(
            limits.tolerance,
            min(limits.max_iterations - self.iterations, self.per_descent),
            limits.deadline,
            limits.goal_value,
        )
        reporter = None if held is not None else self.reporter
        problem = self.problem if held is None else held
        leg = Leg(problem, self.scaled, start, budget, reporter, first, resume)
        result = self.method.descend(leg)
        self.iterations += result.iterations
        self.evaluations += result.evaluations
        self.readds += result.readds
        return result

    def finished(self, best: Descent, last: Descent) -> bool:
        """The one stop test: goals met or at their least, or time or iterations spent."""
        limits = self.limits
        out_of_time = limits.deadline is not None and time.perf_counter() >= limits.deadline
        return (
            best.value <= limits.tolerance
            or (limits.goal_value is not None and best.value <= limits.goal_value)
            or last.status is Status.TIME_LIMIT
            or out_of_time
            or self.iterations >= limits.max_iterations
            or self.at_least(best)
        )

    def at_least(self, best: Descent) -> bool:
        """:func:`at_least` of ``best``, found once per best descent."""
        if self.least is None or self.least[0] is not best:
            found = (
                AT_LEAST
                and best.status is not Status.MAX_ITERATIONS
                and at_least(
                    self.problem,
                    self.scaled,
                    best,
                    self.limits.tolerance,
                    pins=self.method.holds_pins,
                )
            )
            self.least = (best, found)
        return self.least[1]

    def restart(self, plan: Plan, best: Descent) -> Descent:
        """The descent of one restart's ``plan``."""
        if isinstance(plan, tuple):
            # An AnyOf held to one member from the start, then the problem itself from
            # where that ends (the set's G is its least member's: never more).
            return self.run(self.run(self.phi0, self.problem.with_member(*plan)).phi)
        if self.starts is None:
            self.starts = _starts(
                self.problem, self.scaled, self.phi0, self.limits.restarts, self.limits.seed
            )
        if self.still is None or self.still[0] is not best:  # once per best descent
            self.still = (best, met_only(self.problem, self.scaled, best, self.limits.tolerance))
        start = self.starts.start(plan, best.phi)
        return self.run(kept(self.scaled.space, self.still[1], best, start))


def descents(
    method: Method,
    problem: Problem,
    scaled: Scaled,
    limits: Limits,
    callback: Callable[[FloatArray, float], None] | None,
    resume: Resume | None = None,
) -> tuple[Descent, int]:
    """The first descent of ``method`` and the restarts after it; the best is kept.

    ``resume``: where the method's quick path left off in the first descent, to go on from.

    Returns:
        The best descent, its value, gradient, projected gradient and multipliers those
        of G_all (unscaled), with the iterations and evaluations of all descents and
        the status of the last one where it ran out of time or iterations while the best
        had not converged; and the number of restarts run.
    """
    driver = _Driver(method, problem, scaled, limits, callback)
    best = last = driver.run(driver.phi0, first=True, resume=resume)
    planned = plans(problem, scaled, best, limits.restarts)
    done = runs = 0
    while done < len(planned) and not driver.finished(best, last):
        plan = planned[done]
        done += 1
        if plan == RESUME:
            # The best descent was cut off by the per-descent cap, not stopped: it goes
            # on from where it stood (afresh), between two restarts; never worse, and
            # its status (converged, say) is the one that now holds there.
            last = driver.run(best.phi)
            if ranks(last, best, limits.tolerance) >= 0:
                best = last
            continue
        runs += 1
        last = driver.restart(plan, best)
        if replaces(last, best, driver.phi0, limits.tolerance):
            best = last
        if best.status is Status.MAX_ITERATIONS:
            planned.insert(done, RESUME)
    ending = best
    if best.status is not Status.CONVERGED and best is not last and last.status in _OUT_OF_BUDGET:
        ending = last
    return _unscaled(driver, best, ending), runs


def _unscaled(driver: _Driver, best: Descent, ending: Descent) -> Descent:
    """``best`` in G_all's own scale, with the totals and ``ending``'s status."""
    gradient, active, lambdas = best.gradient, best.active, best.multipliers
    if not driver.method.finds_multipliers:
        space = driver.scaled.space
        gradient = driver.scaled.objective(driver.problem)(best.phi)[1]
        active = tuple(int(k) for k in active_rows(best.phi, space))
        lambdas = multipliers(gradient, np.array(active, dtype=np.intp), space)
    totals = replace(
        best,
        gradient=gradient,
        status=ending.status,
        message=ending.message,
        iterations=driver.iterations,
        evaluations=driver.evaluations,
        readds=driver.readds,
        active=active,
        multipliers=lambdas,
    )
    return in_g_all_scale(totals, driver.scaled.weight)


def in_g_all_scale(descent: Descent, weight: float) -> Descent:
    """A descent of G_all / w (``weight``: w) in G_all's own scale."""
    if weight == 1.0:
        return descent  # (the same numbers)
    return descent.revised(
        value=descent.value * weight,
        gradient=descent.gradient * weight,
        message=f"{descent.message} (of G_all / {weight:.6g}, its smallest weight)",
        projected_gradient=descent.projected_gradient * weight,
        multipliers=descent.multipliers * weight,
    )


def descent_iterations(limits: Limits, n: int) -> int:
    """The most iterations the first descent of ``n`` variables takes.

    All of them without restarts, else ``max(DESCENT_ITERATIONS, 4n)``, so that the
    restarts are left some.
    """
    if limits.restarts == 0:
        return limits.max_iterations
    return min(limits.max_iterations, max(DESCENT_ITERATIONS, 4 * n))


def plans(problem: Problem, scaled: Scaled, first: Descent, restarts: int) -> list[Plan]:
    """What the restarts after ``first`` start from, in order, at most ``restarts``.

    First, each AnyOf member that does not count at ``first``'s pose, the set held to it
    (a descent follows the member whose weighted G is least; another member, heavier
    where it starts, may be the one that can be met: it is tried from the start); then
    seeded starts 1, 2, … of :class:`.optimizer.feasible.Starts`.
    """
    if restarts == 0:
        return []
    chosen = problem.chosen_members(scaled.space.theta(first.phi))
    members: list[Plan] = []
    for term, counting in chosen.items():
        members += [(term, member) for member in problem.terms[term].members if member != counting]
    members = members[:restarts]
    seeded: list[Plan] = list(range(1, restarts - len(members) + 1))
    return members + seeded


def at_least(
    problem: Problem, scaled: Scaled, best: Descent, tolerance: float, *, pins: bool
) -> bool:
    """Whether no pose brings any goal nearer than ``best`` leaves it: restarts end.

    Each goal is met, or proved out of reach (a reach margin m < 0, given the pins where
    the method holds them, ``pins``) with its point as near its target set as the proof
    allows: its potential, that squared distance (:data:`LEAST`'s goals), within
    :data:`~solver.result.RESTART_GAIN` of m². Then G_all and each priority level are at
    their least, so no restart can rank better on the goals (:func:`.result.ranks`): as
    with goals met, comfort, below every goal, is relaxed where the descent ended and not
    searched for elsewhere. "Met" is the stop test's: the goals' excess over their least
    weighs at most ``tolerance`` in G_all / w. A problem with an ``AnyOf`` restarts as
    before (its members are tried in turn).
    """
    if any(term.disjunctive for term in problem.terms):
        return False
    theta = scaled.space.theta(best.phi)
    potentials = problem.potentials(theta)
    margins = problem.leaf_reach_margins(theta, pins=pins)
    exact = np.array([type(leaf.goal) in LEAST for leaf in problem.leaves], dtype=bool)
    least = np.where(exact & (margins < 0.0), margins * margins, 0.0)
    excess = np.maximum(potentials - least * (1.0 + RESTART_GAIN), 0.0)
    return float(problem.weighting.leaves @ excess) <= tolerance * scaled.weight


def met_only(problem: Problem, scaled: Scaled, best: Descent, tolerance: float) -> BoolArray:
    """The variables that move met goals only at ``best``.

    A goal above ``tolerance`` (the stop test's G_all / w) counts as unmet
    (:func:`.methods.base.moving_unmet`).
    """
    found = moving_unmet(problem, scaled, best.phi, tolerance * scaled.weight)
    if found is None:
        return np.zeros(scaled.space.n, dtype=bool)
    unmet, met = found
    still: BoolArray = met & ~unmet
    return still


def kept(space: ReducedSpace, still: BoolArray, best: Descent, start: FloatArray) -> FloatArray:
    """``start`` with the ``still`` variables put back where ``best`` has them.

    A restart searches for the goals left unmet and leaves the limbs whose goals are met
    as they were (:func:`met_only`); ``start`` itself where putting them back would leave
    a limit row (a polygon or a group joining the two kinds).
    """
    if not still.any():
        return start
    mixed: FloatArray = np.where(still, best.phi, start)
    return mixed if space.keeps(mixed) else start


def _starts(problem: Problem, scaled: Scaled, phi0: FloatArray, restarts: int, seed: int) -> Starts:
    """The restarts' starts (see :class:`.optimizer.feasible.Starts`).

    Spread starts cover the bounds, and a full turn either side of the start for an
    unbounded rotation; an unbounded translation stays at the start.
    """
    space = scaled.space
    dofs = problem.figure.dofs
    turn = np.array([np.pi if dofs[j].kind == "rotation" else 0.0 for j in space.variables])
    box = Box.around(phi0, space.lower, space.upper, turn / space.scale)
    bounds = (space.lower, space.upper, space.a_eq, space.a_in, space.b_in)
    return Starts(phi0, box, bounds, restarts, seed)
