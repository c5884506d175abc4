"""Straight limbs bend: a start on a hinge's bound with a flat gradient is no stall."""

from __future__ import annotations

import numpy as np
import pytest
from problems import tip

from solver import Constraint, Dof, Figure, Problem, goals, solve
from solver.methods.base import Scaled
from solver.optimizer.bend import BEND, bent
from solver.optimizer.space import ReducedSpace

LENGTHS = [0.3, 0.25]


def straight_arm(distance: float) -> Problem:
    """A straight two-link arm along +Y (θ = 0), its elbow on the bound 0 of a hinge that
    bends toward +θ only, its tip's goal ``distance`` from the shoulder along the arm."""
    figure = Figure()
    rest = np.eye(4)
    figure.add_segment("link0", None, rest, [Dof.rotation("z", lower=-np.pi, upper=np.pi)])
    rest = np.eye(4)
    rest[1, 3] = LENGTHS[0]
    figure.add_segment("link1", "link0", rest, [Dof.rotation("z", lower=0.0, upper=2.5)])
    goal = goals.Position((0.0, distance, 0.0))
    return Problem(figure, [Constraint(tip(figure, LENGTHS), goal)])


@pytest.mark.parametrize("restarts", [0, 8])
def test_a_straight_arm_on_its_bound_bends_to_a_nearer_goal(restarts: int) -> None:
    problem = straight_arm(0.4)
    result = solve(problem, np.zeros(2), restarts=restarts)
    assert result.outcome == "met"
    reach = problem.effector_states(result.x)[0][0]
    assert np.linalg.norm(reach - (0.0, 0.4, 0.0)) <= 1e-9
    assert result.x[1] > 0.5  # bent the one way its hinge allows
    assert result.max_violation <= 1e-12


def test_only_flat_variables_on_a_bound_start_bent_and_only_while_goals_are_unmet() -> None:
    problem = straight_arm(0.4)
    theta = np.zeros(2)
    space = ReducedSpace.build(problem, theta)
    objective = Scaled(space, 1.0).objective(problem)
    phi = space.phi(theta)
    moved = bent(objective, space, phi, 0.0)
    assert moved[1] == pytest.approx(BEND)  # the elbow, inside its bound
    assert moved[0] == phi[0]  # the shoulder is on no bound
    assert bent(objective, space, phi, objective(phi)[0]) is phi  # met: nothing moves
    # a goal beside the straight arm pulls the elbow at first order: no bend needed
    beside = straight_arm(0.4).with_goals({0: goals.Position((0.1, 0.5, 0.0))})
    aside = Scaled(space, 1.0).objective(beside)
    assert bent(aside, space, phi, 0.0) is phi


def test_a_drag_toward_the_shoulder_follows_from_the_first_event() -> None:
    problem = straight_arm(0.55)
    theta = np.zeros(2)
    for distance in np.linspace(0.54, 0.45, 10):
        problem = problem.with_goals({0: goals.Position((0.0, float(distance), 0.0))})
        result = solve(problem, theta, restarts=0, goal_tolerance=problem.goal_tolerance(1e-9))
        theta = result.x
        reach = problem.effector_states(theta)[0][0]
        assert np.linalg.norm(reach - (0.0, distance, 0.0)) <= 1e-9 * sum(LENGTHS)
