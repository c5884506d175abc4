"""L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995): Tikhonov's term and the goal subdivision."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from problems import planar_arm, tip

from solver import Constraint, Lbfgsb, Problem, goals, solve

LENGTHS = [0.3, 0.25, 0.2]
TARGET = np.array([-0.35, 0.35, 0.0])


def arm_problem() -> Problem:
    fig = planar_arm(LENGTHS)
    return Problem(fig, [Constraint(tip(fig, LENGTHS), goals.Position(TARGET))])


def test_a_larger_tikhonov_weight_keeps_the_pose_nearer_the_reference() -> None:
    problem = arm_problem()
    theta0 = np.array([0.2, -0.4, 0.3])
    reference = np.array([0.5, 0.5, 0.5])
    distances = []
    for weight in (0.0, 1e-3, 1e-2, 1e-1):
        result = solve(
            problem, theta0, method=Lbfgsb(tikhonov=weight, theta_ref=reference), restarts=0
        )
        assert result.max_violation <= 1e-9
        distances.append(float(np.linalg.norm(result.x - reference)))
    assert all(b < a for a, b in itertools.pairwise(distances))


def test_tikhonov_defaults_its_reference_to_the_start_pose() -> None:
    problem = arm_problem()
    theta0 = np.array([0.2, -0.4, 0.3])
    free = solve(problem, theta0, method="lbfgsb", restarts=0)
    held = solve(problem, theta0, method=Lbfgsb(tikhonov=0.05), restarts=0)
    assert np.linalg.norm(held.x - theta0) < np.linalg.norm(free.x - theta0)


def test_subdivision_reaches_every_intermediate_goal_in_order() -> None:
    problem = arm_problem()
    theta0 = np.zeros(3)
    start = problem.effector_states(theta0)[0][0]
    count = 3
    stops = [start + k / (count + 1) * (TARGET - start) for k in range(1, count + 2)]
    path: list[np.ndarray] = []
    result = solve(
        problem,
        theta0,
        method=Lbfgsb(subdivide=count),
        restarts=0,
        callback=lambda theta, value: path.append(problem.effector_states(theta)[0][0]),
    )
    assert result.outcome == "met"
    reached = []
    for stop in stops:
        near = [k for k, point in enumerate(path) if np.linalg.norm(point - stop) <= 1e-5]
        assert near, f"{stop} never reached"
        reached.append(near[0])
    assert reached == sorted(reached)
    assert len(set(reached)) == count + 1


def test_subdivision_counts_the_iterations_of_every_stage() -> None:
    problem = arm_problem()
    whole = solve(problem, np.zeros(3), method="lbfgsb", restarts=0)
    split = solve(problem, np.zeros(3), method=Lbfgsb(subdivide=4), restarts=0)
    assert split.nit > whole.nit
    assert split.fun == pytest.approx(0.0, abs=1e-12)
