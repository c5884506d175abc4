"""Jacobian transpose (Grimes & Pentney 2001): the 15-step slope stop and tree-distance weights."""

from __future__ import annotations

import numpy as np
from problems import planar_arm, tip

from solver import Constraint, JacobianTranspose, Problem, goals, solve
from solver.optimizer.jacobian_transpose import WINDOW
from tests.fixtures.models import tube_task

LENGTHS = [0.3, 0.25, 0.2, 0.15]


def chain_problem(target: tuple[float, float]) -> Problem:
    fig = planar_arm(LENGTHS)
    return Problem(fig, [Constraint(tip(fig, LENGTHS), goals.Position((*target, 0.0)))])


def test_the_slope_of_the_last_fifteen_steps_stops_the_descent() -> None:
    problem = chain_problem((0.0, 1.2))  # beyond the 0.9 reach: G levels off above 0
    result = solve(
        problem,
        np.array([0.4, -0.3, 0.2, 0.1]),
        method="jacobian_transpose",
        restarts=0,
        max_iterations=5000,
    )
    assert result.status == "converged"
    assert f"slope of the last {WINDOW} steps" in result.message
    assert result.nit < 5000


def test_a_handle_moves_distant_joints_less_with_falloff() -> None:
    problem = chain_problem((-0.4, 0.5))
    theta0 = np.zeros(4) + 0.1

    def moves(**options: float) -> np.ndarray:
        result = solve(
            problem, theta0, method=JacobianTranspose(**options), restarts=0, max_iterations=3
        )
        return np.abs(result.x - theta0)

    even = moves(falloff=1.0)
    steep = moves(falloff=0.3)
    # The root is three segments from the handle's: 0.3³ of its pull.
    assert steep[0] / steep[3] < even[0] / even[3]


def test_a_cutoff_keeps_joints_beyond_it_still() -> None:
    problem = chain_problem((-0.4, 0.5))
    theta0 = np.zeros(4) + 0.1
    result = solve(problem, theta0, method=JacobianTranspose(cutoff=1), restarts=0)
    np.testing.assert_array_equal(result.x[:2], theta0[:2])
    assert np.any(result.x[2:] != theta0[2:])


def test_a_constant_step_size_is_the_seeds_e() -> None:
    problem = chain_problem((-0.4, 0.5))
    result = solve(
        problem,
        np.zeros(4) + 0.1,
        method=JacobianTranspose(step_size=0.5, falloff=1.0),
        restarts=0,
        max_iterations=3000,
    )
    assert result.fun < problem.objective(np.zeros(4) + 0.1)[0] * 1e-3


def test_the_pull_slides_along_the_limits_it_is_on_and_the_tube_task_is_met() -> None:
    # Zhao & Badler's tube: the pull presses the grouped spine's joints into their
    # limits; clipped back onto them each step, the descent crawled to a stop at 0.24.
    figure, constraints, theta0 = tube_task(grouped=True)
    problem = Problem(figure, constraints)
    result = solve(problem, theta0, method="jacobian_transpose")
    assert np.sqrt(result.fun) <= 1e-3
    assert result.max_violation <= 1e-9
