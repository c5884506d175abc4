"""Where the levels' descent starts: a weighted solve whose held goals are moved by their pull.

A descent by levels (:mod:`..optimizer.levels`) holds each level exactly while it lowers
the one below: every round linearises the held levels, moves along their tangent and
restores them. Where the lowest level cannot be met, its Kuhn–Tucker point lies along a
valley of the held levels' surface, and the rounds cross that valley at a linear rate. A
weighted problem reaches the same valley in far fewer iterations: each held goal
``LEAD_WEIGHT`` times heavier than the lowest level, solved as one level by the plain
descent (the kernel's Gauss–Newton iterations). The lowest level's pull then
moves a held goal's point off its target by about its force over that weight; moving the
target the other way by that much, and solving again, brings it back: the method of
multipliers (Hestenes 1969; Powell 1969), the target's shift standing for the held goal's
multiplier. Each pass divides the held goals' error by about the weight; a few passes
leave it at the descents' rounding, and the levels' descent from there is a restoring
and a round or two. The levels' descent still decides: it starts where the lead ends,
holds every level exactly and accepts only what lowers each level without cost to those
above.

The lead is taken where every held goal is a position (pins are, unless they hold the
axes too) in a problem without an ``AnyOf``: a position's target moves by a vector. Other
held goals keep the levels' descent from the solve's start.

The lead only chooses where the levels start; it must not choose a held level's valley.
Where the levels' descent from its end leaves a held level unmet (one that cannot be met
has valleys, and in the lead's first pass the lower level's pull chose among them), or a
level worse than the solve's start has it (a pin the lead pulled off into a valley its
restoring stalls in, a budget spent before the pins are back), the method descends by
levels from the solve's start with what the budget has left (:func:`lost`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Protocol

import numpy as np

from .._checks import FloatArray
from ..goals import Goal, Position
from ..optimizer.budget import Budget
from ..optimizer.levels import HOLD
from ..optimizer.metric import GaussNewtonStep
from ..optimizer.tasks import leaves_by_level
from ..problem import Problem
from ..result import Descent, Status
from .base import Leg, Scaled, levels_of, weight_scale

__all__ = [
    "LEAD",
    "LEAD_FALL",
    "LEAD_MET",
    "LEAD_PASSES",
    "LEAD_RESERVE",
    "LEAD_SHARE",
    "LEAD_WEIGHT",
    "led",
    "lost",
]

LEAD = True
"""Whether the levels' descents start where the lead ends (off only to compare without it)."""

LEAD_WEIGHT = 100.0
"""How many times the lowest level's smallest weight each held level's smallest weighs in
the lead: the held points give way a hundredth as far as the lowest level's own, and the
problem stays as well conditioned as a figure with weighted pins (:data:`solver.PIN_WEIGHT`)."""
LEAD_PASSES = 6
"""Most solves of the lead: the first with the targets as set, then each with them moved."""
LEAD_RESERVE = 10
"""Iterations of a descent the lead leaves to the levels' descent, which restores the held
levels first (a few Gauss–Newton steps from the lead's end): a budget cut short still
holds them (the anytime order). A descent of fewer than twice as many takes no lead."""
LEAD_SHARE = 0.5
"""The share of a descent's time left that the lead may spend, for the same reason."""
LEAD_FALL = 0.1
"""A pass that leaves the held goals' largest error above this share of the last pass's
ends the lead: they are then at the descents' rounding, or in conflict with each other."""
LEAD_MET = 1e-7
"""A held level counts as met where the levels' descent from the lead ends when each of its
goals is within this share of the longest chain (its G within that squared): a held level
that is not met there may be in another valley than its own descent from the start finds,
chosen by the lower level's pull in the lead (:func:`lost`)."""
_ROUNDING = 1e-9
"""How much worse, as a share of itself, a level may end than at the start and still count
as no worse (:func:`lost`): the held levels' own rounding."""


class Descends(Protocol):
    """What the lead asks of a method: :class:`.goldfarb.Goldfarb`'s plain descent."""

    def compiled(self, problem: Problem, scaled: Scaled) -> GaussNewtonStep | None: ...

    def goals(
        self,
        problem: Problem,
        scaled: Scaled,
        start: FloatArray,
        budget: Budget,
        step: GaussNewtonStep | None,
    ) -> Descent: ...

    def unstuck(self, leg: Leg, first: Descent, step: GaussNewtonStep | None) -> Descent: ...


def led(method: Descends, leg: Leg) -> tuple[Leg, int, int]:
    """``leg`` started where the lead ends (see the module), with the budget it left.

    Returns:
        That leg, and the iterations and evaluations the lead spent; ``leg`` itself and
        none where the lead is not taken: one level only, a held goal that is not a
        position, or an ``AnyOf`` in the problem.
    """
    problem, budget = leg.problem, leg.budget
    leaves = problem.leaves
    levels = leaves_by_level(problem)
    held = [int(i) for rows in levels[:-1] for i in rows]
    most = budget.max_iterations - LEAD_RESERVE
    if (
        not LEAD
        or most < LEAD_RESERVE
        or not held
        or any(term.disjunctive for term in problem.terms)
        or any(type(leaves[i].goal) is not Position for i in held)
    ):
        return leg, 0, 0
    lowest = weight_scale(problem.only(levels[-1]))
    factors: dict[int, float] = {}
    for rows in levels[:-1]:
        factor = LEAD_WEIGHT * lowest / weight_scale(problem.only(rows))
        factors.update((int(i), factor) for i in rows)
    heavier = problem.weighed(factors)
    lightest = min(1.0, *factors.values())
    targets = {i: _point(leaves[i].goal) for i in held}
    shifted = dict(targets)
    start, spent, evaluations = leg.start, 0, 0
    deadline = budget.deadline
    if deadline is not None:
        now = time.perf_counter()
        deadline = now + LEAD_SHARE * max(deadline - now, 0.0)
    # G_all / w of the lead at most this meets the goals, though a held leaf weigh less
    goal = None if budget.goal_value is None else budget.goal_value * lightest
    scaled = leg.scaled  # its weight scale, so that the stop tests are the levels' own
    last = np.inf
    for _ in range(LEAD_PASSES):
        lead = heavier.with_goals({i: Position(shifted[i]) for i in held})
        left = Budget(budget.tolerance, most - spent, deadline, goal)
        step = method.compiled(lead, scaled)
        inner = replace(leg, problem=lead, scaled=scaled, reporter=None, budget=left)
        found = method.unstuck(inner, method.goals(lead, scaled, start, left, step), step)
        spent += found.iterations
        evaluations += found.evaluations
        start = found.phi
        points = problem.effector_states(scaled.space.theta(found.phi))[0]
        off = {i: points[i] - targets[i] for i in held}
        error = max(float(np.linalg.norm(v)) for v in off.values())
        if error > LEAD_FALL * last or error == 0.0:
            break
        last = error
        if spent >= most or time.perf_counter() >= (deadline or np.inf):
            break
        shifted = {i: shifted[i] - off[i] for i in held}
    rest = Budget(
        budget.tolerance, budget.max_iterations - spent, budget.deadline, budget.goal_value
    )
    return replace(leg, start=start, budget=rest), spent, evaluations


def _point(goal: Goal) -> FloatArray:
    assert isinstance(goal, Position)
    return goal.point


def lost(leg: Leg, descent: Descent) -> bool:
    """Whether ``descent``, by levels from the lead's end, gives way to one from ``leg.start``.

    Where a held level is not met at its end (:data:`LEAD_MET`) though the budget was not
    spent: a held level that cannot be met has valleys, and the lead's weighted first
    pass, where the lower level pulls too, may have chosen a worse one than its own
    descent finds; a lower level must never cost a higher one. And where a level ends
    worse than at ``leg.start``, the first level that differs by more than rounding
    deciding: the descent from ``leg.start`` ends no worse than the start on any level.
    """
    problem = leg.problem
    longest = max(problem.longest_chain, 1.0)
    held = len(leaves_by_level(problem)) - 1
    spent = descent.status in (Status.MAX_ITERATIONS, Status.TIME_LIMIT)
    if not spent and any(end > (LEAD_MET * longest) ** 2 for end in descent.levels[:held]):
        return True
    slack = (HOLD * longest) ** 2
    for level, end in zip(levels_of(leg, curvature=False), descent.levels, strict=True):
        start = float(level.objective(leg.start)[0])
        if end > start * (1.0 + _ROUNDING) + slack:
            return True
        if end < start * (1.0 - _ROUNDING) - slack:
            return False
    return False
