"""Goals far beyond reach pull as one just beyond it does, and cost the met goals nothing."""

from __future__ import annotations

import numpy as np
import pytest

from solver import Constraint, Outcome, Problem, goals, solve
from solver.reach import FAR_REACH
from solver.solve import within_reach

DIRECTION = np.array([0.3, -0.8, 0.5]) / np.linalg.norm([0.3, -0.8, 0.5])
METHODS = ("goldfarb", "lbfgsb", "dls", "jacobian_transpose")


def _hand_and_foot(distance: float, *, root: bool) -> tuple[Problem, np.ndarray]:
    """A hand goal ``distance`` out and a foot goal met at the rest pose.

    ``root``: both chains run from the pelvis, which moves; else each limb moves alone.
    """
    from tests.fixtures.models import human_figure, limb_effectors

    figure = human_figure(root_translation=root)
    effectors = limb_effectors(figure)
    rest = np.zeros(figure.n_dofs)
    foot = Problem(figure, [Constraint(effectors["foot.L"], goals.Position((0, 0, 0)))])
    sole = foot.effector_states(rest)[0][0]
    hand = goals.Position(tuple(distance * DIRECTION))
    constraints = [
        Constraint(effectors["hand.L"], hand, chain_start=None if root else "upper_arm.L"),
        Constraint(
            effectors["foot.L"],
            goals.Position(tuple(sole)),
            chain_start=None if root else "thigh.L",
        ),
    ]
    return Problem(figure, constraints), sole


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("distance", [10.0, 1e6, 1e15])
def test_a_far_goal_leaves_a_met_goal_on_another_chain_met(method: str, distance: float) -> None:
    # goldfarb pulled the met foot 0.77 mm off at 1e6 m and 4.8 cm at 1e9 m, and ran out
    # of iterations from 1e9 m on
    problem, sole = _hand_and_foot(distance, root=False)
    result = solve(problem, np.zeros(problem.n_dofs), method=method)
    foot = problem.effector_states(result.x)[0][1]
    assert np.linalg.norm(foot - sole) <= 1e-9
    assert result.outcome is Outcome.NOT_REACHABLE
    assert result.unreachable == (0,)
    hand = problem.effector_states(result.x)[0][0]
    shoulder = problem.reach.balls(result.x)[0][0]
    pointing = (hand - shoulder) @ DIRECTION / np.linalg.norm(hand - shoulder)
    assert pointing > 0.99  # the arm points at the goal


@pytest.mark.parametrize("method", ["goldfarb", "lbfgsb"])
def test_a_far_goals_pull_on_shared_joints_does_not_grow_with_its_distance(method: str) -> None:
    # with both limbs hanging from a pelvis that moves, the hand goal trades the foot
    # away as a weighted sum does, but no more at 1e15 m than at 1e3 m (the foot went
    # 1.35 m off at 1e3 m, 1.51 m at 1e9 m and 1.47 m at 1e15 m)
    offsets = []
    for distance in (1e3, 1e9, 1e15):
        problem, sole = _hand_and_foot(distance, root=True)
        result = solve(problem, np.zeros(problem.n_dofs), method=method, seed=3)
        offsets.append(np.linalg.norm(problem.effector_states(result.x)[0][1] - sole))
    assert offsets[1] == pytest.approx(offsets[0], abs=1e-3)
    assert offsets[2] == pytest.approx(offsets[1], abs=1e-6)


def test_within_reach_moves_only_targets_beyond_far_reach() -> None:
    problem, _ = _hand_and_foot(1e15, root=False)
    theta = np.zeros(problem.n_dofs)
    near = within_reach(problem, theta)
    centres, radii = problem.reach.balls(theta)
    np.testing.assert_array_equal(near.leaves[1].goal.point, problem.leaves[1].goal.point)
    moved = near.leaves[0].goal
    assert np.linalg.norm(moved.point - centres[0]) == pytest.approx(FAR_REACH * radii[0])
    beyond = centres[0] + 0.99 * FAR_REACH * radii[0] * DIRECTION  # out of reach, not far
    close = problem.with_goals({0: goals.Position(tuple(beyond))})
    assert within_reach(close, theta) is close


@pytest.mark.parametrize("method", METHODS)
def test_far_targets_never_leave_the_goals_own_g_above_the_start(method: str) -> None:
    """The descents see the targets moved in; the goals as set still end no worse.

    On this problem the moved-in targets lead every method to a pose worse than the
    start on the goals as set, unless the solve descends on those goals once more.
    """
    from problems import random_problem

    problem, theta0 = random_problem(1004, 1, 3)
    assert within_reach(problem, theta0) is not problem
    result = solve(problem, theta0, method=method, restarts=1, max_iterations=150)
    assert result.fun <= problem.objective(theta0)[0]
    assert result.nit <= 150
