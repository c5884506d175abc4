"""Restarts explore the feasible set: a hand pose a descent from rest misses is found."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Constraint, Problem, goals, solve
from tests.fixtures import bvh

CHAIN = ("LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand")
C5 = goals.commensurate(5.0, 0.01)


def hand_problem(pose: dict[str, tuple[float, float, float]]) -> tuple[Problem, np.ndarray]:
    """The BVH skeleton's left hand held at its place and turn in ``pose`` (the add-on's
    position + orientation goal), with the chain from the shoulder; and that pose's θ."""
    figure = bvh.figure()
    theta = bvh.pose_theta(figure, pose)
    frame = figure.forward(theta)[figure.segment("LeftHand").index]
    effector = bvh.hand_effector()
    point = frame[:3, :3] @ np.asarray(effector.point) + frame[:3, 3]
    goal = goals.PositionOrientation(point, frame[:3, 0], frame[:3, 1], c_dx=C5, c_dy=C5)
    problem = Problem(figure, [Constraint(effector, goal, chain_start=CHAIN[0])])
    return problem, theta


def hand_error(problem: Problem, theta: np.ndarray, target: np.ndarray) -> tuple[float, float]:
    """Distance [m] and angle [deg] between the hand at ``theta`` and at ``target``."""
    figure = problem.figure
    k = figure.segment("LeftHand").index
    point = np.asarray(bvh.hand_effector().point)
    have, want = figure.forward(theta)[k], figure.forward(target)[k]
    distance = np.linalg.norm(
        have[:3, :3] @ point + have[:3, 3] - want[:3, :3] @ point - want[:3, 3]
    )
    cosine = (np.trace(have[:3, :3].T @ want[:3, :3]) - 1.0) / 2.0
    return float(distance), math.degrees(math.acos(float(np.clip(cosine, -1.0, 1.0))))


@pytest.mark.parametrize("pose", bvh.MISSED_POSES, ids=["across", "behind"])
def test_a_descent_from_rest_stops_well_off_the_bvh_hand_pose(pose) -> None:
    problem, theta = hand_problem(pose)
    assert problem.objective(theta)[0] <= 1e-20  # the pose meets the goal, inside the limits
    assert problem.limits.max_violation(theta) == 0.0
    result = solve(problem, problem.figure.zero_pose(), restarts=0)
    distance, angle = hand_error(problem, result.theta, theta)
    assert distance > 0.05 or angle > 10.0


@pytest.mark.parametrize("pose", bvh.MISSED_POSES, ids=["across", "behind"])
def test_default_restarts_find_the_bvh_hand_pose(pose) -> None:
    problem, theta = hand_problem(pose)
    result = solve(problem, problem.figure.zero_pose())
    distance, angle = hand_error(problem, result.theta, theta)
    assert result.max_violation <= 1e-9
    assert distance <= 1e-6 * sum(bvh.bone_lengths()[name] for name in CHAIN[1:])
    assert angle <= 1e-3


def test_restarts_keep_the_start_side_pose_when_the_gain_is_rounding() -> None:
    # a goal out of reach; the neck's twist turns the effector, 1e-9 off its axis, by a
    # gain of 1e-10 of G: restarts used to take a neck turned 174° for it
    from solver import Dof, Effector, Figure
    from solver.result import RESTART_GAIN

    figure = Figure()
    figure.add_segment(
        "hips",
        dofs=[Dof.rotation("x", lower=-0.5, upper=0.5), Dof.rotation("y", lower=-0.5, upper=0.5)],
    )
    neck = np.eye(4)
    neck[2, 3] = 0.5
    figure.add_segment("neck", parent="hips", rest=neck, dofs=[Dof.rotation("z")])
    tip = Effector("neck", point=(-1e-9, 0.0, 0.3))
    problem = Problem(figure, [Constraint(tip, goals.Position((2.0, 0.0, 3.0)))])
    alone = solve(problem, np.zeros(3), restarts=0)
    restarted = solve(problem, np.zeros(3), restarts=8, seed=3)
    assert restarted.fun <= alone.fun * (1.0 + RESTART_GAIN)
    assert abs(restarted.x[2]) <= 1e-9  # the neck is not turned


@pytest.mark.parametrize("pose", bvh.MISSED_POSES, ids=["across", "behind"])
def test_restarts_leave_a_limb_whose_goals_are_met_as_it_was(pose) -> None:
    # the left hand's pose is found by restarts; the right hand, met where it starts, is
    # no part of that search: its arm keeps its pose exactly
    problem, theta = hand_problem(pose)
    figure = problem.figure
    start = figure.zero_pose()
    right = figure.segment("RightHand").index
    frame = figure.forward(start)[right]
    effector = bvh.hand_effector("Right")
    point = frame[:3, :3] @ np.asarray(effector.point) + frame[:3, 3]
    goal = goals.PositionOrientation(point, frame[:3, 0], frame[:3, 1], c_dx=C5, c_dy=C5)
    both = Problem(
        figure, [*problem.constraints, Constraint(effector, goal, chain_start="RightShoulder")]
    )
    result = solve(both, start)
    distance, angle = hand_error(both, result.theta, theta)
    assert distance <= 1e-6 * sum(bvh.bone_lengths()[name] for name in CHAIN[1:])
    assert angle <= 1e-3
    arm = [
        j
        for name in ("RightShoulder", "RightArm", "RightForeArm", "RightHand")
        for j in figure.segment(name).dof_indices
    ]
    np.testing.assert_array_equal(result.theta[arm], start[arm])
