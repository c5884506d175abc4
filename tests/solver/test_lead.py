"""The levels' descent started where a weighted lead ends (the method of multipliers)."""

from __future__ import annotations

import numpy as np
import pytest
from problems import random_problem

from solver import AnyOf, Constraint, Problem, goals, pin, solve
from solver.methods import lead
from solver.optimizer.tasks import leaves_by_level
from tests.fixtures.models import human_figure, limb_effectors, random_feasible_pose

LIMBS = ("hand.L", "hand.R", "foot.L", "foot.R")


def reaching(figure, pose: np.ndarray, *, pinned: bool, away: float = 3.0) -> Problem:
    """Both hands and feet where ``pose`` has them, the left hand's goal ``away`` m up and a
    level below the others (or the feet pinned, every goal at level 0)."""
    effectors = limb_effectors(figure)
    probe = Problem(figure, [Constraint(effectors[n], goals.Position(np.zeros(3))) for n in LIMBS])
    points = dict(zip(LIMBS, probe.effector_states(pose)[0], strict=True))
    points["hand.L"] = points["hand.L"] + np.array([0.0, 0.0, away])
    constraints = []
    for name in LIMBS:
        effector = effectors[name]
        if pinned and name.startswith("foot"):
            constraints.append(pin(figure, pose, effector.segment, effector.point, name=name))
            continue
        priority = 1 if not pinned and name == "hand.L" else 0
        constraints.append(
            Constraint(effector, goals.Position(points[name]), name=name, priority=priority)
        )
    return Problem(figure, constraints)


def level_values(problem: Problem, theta: np.ndarray) -> list[float]:
    potentials = problem.potentials(theta)
    return [float(potentials[rows].sum()) for rows in leaves_by_level(problem)]


def solved(problem: Problem, start: np.ndarray, *, on: bool, **options: object):
    was = lead.LEAD
    lead.LEAD = on
    try:
        return solve(problem, start, **options)
    finally:
        lead.LEAD = was


@pytest.mark.parametrize("pinned", [False, True])
def test_the_lead_holds_the_levels_above_exactly_and_ends_the_lowest_as_low(pinned: bool) -> None:
    """Over poses, the left hand ends as near its goal as by the levels' descent alone.

    Both are local searches with restarts: on a pose either may find the better valley
    (the lead's weighted descent ranks its own), and which one shifts with the arithmetic
    (the kernel or numpy, one CPU's BLAS or another's), so the comparison is over six
    poses: the hand's distances' geometric mean at most 1 % larger, and no pose more than
    5 % farther.
    """
    figure = human_figure()
    rest = np.zeros(figure.n_dofs)
    ratios = []
    for index in range(6):
        pose = random_feasible_pose(figure, np.random.default_rng(index))
        problem = reaching(figure, pose, pinned=pinned)
        with_lead = level_values(problem, solved(problem, rest, on=True).x)
        without = level_values(problem, solved(problem, rest, on=False).x)
        assert with_lead[0] <= 1e-20  # the held level met to rounding, pins where they were
        ratios.append(with_lead[1] / without[1])
    assert float(np.exp(np.mean(np.log(ratios)))) <= 1.01, ratios
    assert max(ratios) <= 1.05, ratios


def test_a_drag_with_pins_keeps_them_and_follows_as_the_levels_alone_do() -> None:
    figure = human_figure()
    pose = random_feasible_pose(figure, np.random.default_rng(3))
    effectors = limb_effectors(figure)
    feet = [
        pin(figure, pose, effectors[n].segment, effectors[n].point, name=n)
        for n in ("foot.L", "foot.R")
    ]
    hand = effectors["hand.L"]
    start = Problem(figure, [*feet, Constraint(hand, goals.Position(np.zeros(3)))])
    origin = start.effector_states(pose)[0][2]
    poses = {True: pose.copy(), False: pose.copy()}
    for k in range(12):
        target = origin + np.array([0.0, 0.1 * k, -0.05 * k])  # out of reach from k ≈ 8
        problem = Problem(figure, [*feet, Constraint(hand, goals.Position(target))])
        for on in (True, False):
            poses[on] = solved(problem, poses[on], on=on, restarts=0).x
        led, alone = (level_values(problem, poses[on]) for on in (True, False))
        assert led[0] <= 1e-20
        assert led[1] <= alone[1] * (1 + 1e-6) + 1e-20


@pytest.mark.parametrize("iterations", [10, 25, 45, 100])
def test_a_budget_cut_short_still_holds_the_pins(iterations: int) -> None:
    """The lead leaves the levels' descent iterations to restore the held levels with (the
    anytime order); a budget too small for both takes no lead."""
    figure = human_figure()
    pose = random_feasible_pose(figure, np.random.default_rng(5))
    problem = reaching(figure, pose, pinned=True)
    result = solved(problem, pose, on=True, max_iterations=iterations, restarts=0)
    assert result.nit <= iterations
    assert level_values(problem, result.x)[0] <= 1e-16


def test_no_lead_where_a_held_goal_is_not_a_position_or_an_any_of_is_posed() -> None:
    figure = human_figure()
    pose = random_feasible_pose(figure, np.random.default_rng(7))
    effectors = limb_effectors(figure)
    foot, hand = effectors["foot.L"], effectors["hand.L"]
    held_axes = pin(figure, pose, foot.segment, foot.point, orientation=True, name="foot")
    reach = Constraint(hand, goals.Position([0.0, 0.0, 4.0]), name="hand")
    either = AnyOf(
        [
            Constraint(hand, goals.Position([0.0, 0.0, 4.0])),
            Constraint(hand, goals.Position([0.0, 4.0, 0.0])),
        ]
    )
    footed = pin(figure, pose, foot.segment, foot.point, name="foot")
    for problem in (Problem(figure, [held_axes, reach]), Problem(figure, [footed, either])):
        with_lead = solved(problem, pose, on=True, restarts=0)
        without = solved(problem, pose, on=False, restarts=0)
        np.testing.assert_array_equal(with_lead.x, without.x)
    # where it is taken, the pose differs (the lead's start is another)
    plain = Problem(figure, [footed, reach])
    assert not np.array_equal(
        solved(plain, pose, on=True, restarts=0).x, solved(plain, pose, on=False, restarts=0).x
    )


def test_a_pin_the_levels_cannot_restore_from_the_leads_end_is_solved_from_the_start() -> None:
    """A random 7-segment chain, a point pinned and four goals below it: the lead leaves the
    pin 6.6 cm off in a valley where its restoring stalls; the levels from the solve's start
    hold it, and the solve ends as it does without the lead."""
    base, theta = random_problem(143, 7, 4)
    figure = base.figure
    segment = figure.segments[int(np.random.default_rng(143).integers(len(figure.segments)))]
    held = pin(figure, theta, segment.name, (0.0, 0.1, 0.0), weight=3.0)
    weighed = [
        Constraint(item.effector, item.goal, weight, item.chain_start)
        if isinstance(item, Constraint)
        else item
        for item, weight in zip(base.constraints, (1.0, 5.0, 0.2, 2.0), strict=False)
    ]
    problem = Problem(figure, [held, *weighed])
    found = solved(problem, theta, on=True, restarts=0)
    alone = solved(problem, theta, on=False, restarts=0)
    assert np.linalg.norm(problem.effector_states(found.x)[0][0] - held.goal.point) <= 1e-9
    assert found.outcome == alone.outcome and found.fun == pytest.approx(alone.fun, rel=1e-9)
    assert found.nit > alone.nit  # the lead's iterations and the levels' from its end count
