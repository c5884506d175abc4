"""A descent stalled short of its goals starts again with its straight limbs bent
(``solver.methods.goldfarb.bent`` and ``Goldfarb.unstuck``): only the joints on a bound
that move a goal left unmet move, inward, and the better descent is kept."""

from __future__ import annotations

import numpy as np
import pytest
from problems import translation

from solver import Constraint, Dof, Effector, Figure, Problem, goals
from solver.methods import Goldfarb
from solver.methods.base import Leg, Scaled, weight_scale
from solver.methods.goldfarb import BEND, bent
from solver.optimizer.budget import Budget
from solver.optimizer.space import ReducedSpace
from solver.result import Descent, Status

UPPER, FORE = 0.3, 0.25


def two_arms() -> Figure:
    """Two arms from one root, each a ball shoulder and an elbow hinge whose lower bound
    (0) is the straight arm, both straight along +Y (left) and −Y (right)."""
    figure = Figure()
    figure.add_segment("root", None, np.eye(4), [])
    for side, sign in (("l", 1.0), ("r", -1.0)):
        shoulder = [Dof.rotation(axis, lower=-2.0, upper=2.0) for axis in "xzy"]
        figure.add_segment(f"upper_{side}", "root", np.eye(4), shoulder)
        elbow = translation(0.0, sign * UPPER, 0.0)
        hinge = Dof.rotation("x", lower=0.0, upper=2.5)
        figure.add_segment(f"fore_{side}", f"upper_{side}", elbow, [hinge])
    return figure


def hand(side: str) -> Effector:
    return Effector(f"fore_{side}", (0.0, (1.0 if side == "l" else -1.0) * FORE, 0.0))


def problem_and_start() -> tuple[Problem, np.ndarray]:
    """The left hand's goal in reach only with the elbow bent; the right hand's met where
    the straight right arm points."""
    figure = two_arms()
    theta = np.zeros(figure.n_dofs)
    problem = Problem(
        figure,
        [
            Constraint(hand("l"), goals.Position((0.05, 0.35, 0.1))),
            Constraint(hand("r"), goals.Position((0.0, -(UPPER + FORE), 0.0))),
        ],
    )
    return problem, theta


def stalled(problem: Problem, theta: np.ndarray) -> tuple[Descent, Scaled]:
    """A descent that stopped where it started, short of the goals: as one stalled there."""
    space = ReducedSpace.build(problem, theta)
    scaled = Scaled(space, weight_scale(problem), None)
    phi = space.phi(theta)
    value, gradient = scaled.objective(problem)(phi)
    descent = Descent(
        phi=phi,
        value=value,
        gradient=gradient,
        status=Status.STALLED,
        message=Status.STALLED.message("the line search found no decrease"),
        iterations=1,
        evaluations=1,
        active=(),
        projected_gradient=float(np.linalg.norm(gradient)),
        multipliers=np.zeros(0),
    )
    return descent, scaled


def test_only_the_unmet_limbs_joints_on_a_bound_bend_inward() -> None:
    problem, theta = problem_and_start()
    first, scaled = stalled(problem, theta)
    start = bent(problem, scaled, first)
    assert start is not None
    space = scaled.space
    moved = space.theta(start) - theta
    figure = problem.figure
    left_elbow = figure.segment("fore_l").dof_indices[0]
    right_elbow = figure.segment("fore_r").dof_indices[0]
    assert moved[left_elbow] == pytest.approx(BEND)  # inward: bent, within [0, 2.5]
    assert moved[right_elbow] == 0.0  # its goal is met: the right arm keeps its pose
    others = np.delete(np.arange(figure.n_dofs), [left_elbow])
    assert np.all(moved[others] == 0.0)  # the shoulders are on no bound


def test_a_met_problem_or_one_off_no_bound_is_not_bent() -> None:
    problem, theta = problem_and_start()
    first, scaled = stalled(problem, theta)
    met = problem.with_goals({0: goals.Position((0.0, UPPER + FORE, 0.0))})
    met_first, met_scaled = stalled(met, theta)
    assert bent(met, met_scaled, met_first) is None  # no goal left unmet
    off = theta.copy()
    off[problem.figure.segment("fore_l").dof_indices[0]] = 0.4  # the left elbow bent already
    off_first, off_scaled = stalled(problem, off)
    assert bent(problem, off_scaled, off_first) is None  # no joint of the left arm on a bound
    assert bent(problem, scaled, first) is not None


def test_unstuck_keeps_the_lower_descent_and_every_count() -> None:
    problem, theta = problem_and_start()
    first, scaled = stalled(problem, theta)
    budget = Budget(1e-10, 500, None, problem.goal_tolerance(1e-7) / scaled.weight)
    method = Goldfarb()
    leg = Leg(problem, scaled, first.phi, budget, None, True)
    ended = method.unstuck(leg, first, method.compiled(problem, scaled))
    assert ended.value < first.value
    assert budget.met(ended.value)  # the bent elbow reaches the goal
    assert ended.iterations > first.iterations
    right = problem.figure.segment("fore_r").dof_indices[0]
    assert scaled.space.theta(ended.phi)[right] == pytest.approx(0.0, abs=1e-9)
