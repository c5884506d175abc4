"""Restarts explore the feasible set: a hand pose a descent from rest misses is found."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import tip

from solver import Constraint, Dof, Effector, Figure, Problem, goals, pin, restarts, solve
from solver.optimizer.tasks import leaves_by_level
from solver.result import RESTART_GAIN
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


def arm(lengths: list[float], bounds: list[tuple[float, float]]) -> Figure:
    """:func:`problems.planar_arm` with each joint's own bounds."""
    figure = Figure()
    parent = None
    for k, (lower, upper) in enumerate(bounds):
        rest = np.eye(4)
        rest[1, 3] = lengths[k - 1] if k else 0.0
        figure.add_segment(f"link{k}", parent, rest, [Dof.rotation("z", lower=lower, upper=upper)])
        parent = f"link{k}"
    return figure


def pinned_arm(lower: float = -math.pi) -> tuple[Problem, np.ndarray]:
    """A planar arm, its elbow pinned, the hand's goal beyond the forearm's reach.

    ``lower``: the hand joint's lower bound (above 0, the hand cannot straighten to
    point at the goal, and the goal is not at its least).
    """
    lengths = [0.5, 0.3, 0.2]
    figure = arm(lengths, [(-math.pi, math.pi), (-math.pi, math.pi), (lower, math.pi)])
    theta = np.array([0.4, 0.3, 0.5])
    hand = Constraint(tip(figure, lengths), goals.Position((0.9, 0.9, 0.0)))
    return Problem(figure, [pin(figure, theta, "link1"), hand]), theta


def test_restarts_end_where_every_goal_is_met_or_as_near_as_its_proof_allows() -> None:
    # the forearm points at the goal from the pinned elbow: no start brings it nearer
    problem, theta = pinned_arm()
    result = solve(problem, theta)
    assert result.outcome == "not_reachable"
    assert result.restarts == 0
    distance = float(np.sqrt(problem.potentials(result.x)[1]))
    assert distance == pytest.approx(-problem.reach_margins(theta)[1], rel=1e-9)
    previous, restarts.AT_LEAST = restarts.AT_LEAST, False
    try:
        searched = solve(problem, theta)
    finally:
        restarts.AT_LEAST = previous
    assert searched.restarts == 8
    assert result.fun <= searched.fun * (1.0 + RESTART_GAIN)


def test_restarts_run_where_a_goal_out_of_reach_may_come_nearer() -> None:
    # the hand's bound keeps it from pointing at the goal: the proof's distance
    # is not reached, and the restarts look for a nearer pose as before
    problem, theta = pinned_arm(lower=0.3)
    result = solve(problem, theta)
    assert result.outcome == "not_reachable"
    distance = float(np.sqrt(problem.potentials(result.x)[1]))
    assert distance > -problem.reach_margins(theta)[1] * (1.0 + 1e-6)
    assert result.restarts == 8


def _arm_problem(seed: int) -> tuple[Problem, np.ndarray]:
    """A planar arm with random lengths and bounds, goals near and beyond its reach,
    sometimes a pin and a second priority level."""
    rng = np.random.default_rng(seed)
    lengths = list(rng.uniform(0.2, 0.6, size=int(rng.integers(3, 6))))
    if rng.random() < 0.5:
        bounds = [(-math.pi, math.pi)] * len(lengths)
    else:
        bounds = [(-rng.uniform(0.3, 3.0), rng.uniform(0.3, 3.0)) for _ in lengths]
    figure = arm(lengths, bounds)
    theta = np.array([rng.uniform(lower, upper) * 0.5 for lower, upper in bounds])
    reach = sum(lengths)
    angle = rng.uniform(0.0, 2.0 * math.pi)
    far = reach * rng.uniform(0.5, 1.6) * np.array([math.cos(angle), math.sin(angle), 0.0])
    constraints = [Constraint(tip(figure, lengths), goals.Position(far))]
    middle = f"link{int(rng.integers(1, len(lengths)))}"
    if rng.random() < 0.5:
        constraints.append(pin(figure, theta, middle))
    else:
        plane = goals.Plane(rng.normal(size=3) * 0.3, (*rng.normal(size=2), 0.0))
        constraints.append(Constraint(Effector(middle), plane, priority=int(rng.integers(0, 2))))
    return Problem(figure, constraints), theta


def _levels(problem: Problem, theta: np.ndarray) -> list[float]:
    weighted = problem.weighting.leaves * problem.potentials(theta)
    return [float(weighted[rows].sum()) for rows in leaves_by_level(problem)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_restarts_that_end_at_the_least_leave_no_level_higher(seed: int) -> None:
    problem, theta = _arm_problem(seed)
    ended = solve(problem, theta, restarts=4)
    previous, restarts.AT_LEAST = restarts.AT_LEAST, False
    try:
        searched = solve(problem, theta, restarts=4)
    finally:
        restarts.AT_LEAST = previous
    assert ended.max_violation <= 1e-9
    if ended.restarts == searched.restarts:
        np.testing.assert_array_equal(ended.x, searched.x)  # the stop never came into it
        return
    for own, other in zip(_levels(problem, ended.x), _levels(problem, searched.x), strict=True):
        assert own <= other * (1.0 + 1e-7) + 1e-10
