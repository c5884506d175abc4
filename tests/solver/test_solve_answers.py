"""``solver.solve``'s known answers on small figures: arms, polygons, rigidity, groups."""

from __future__ import annotations

import math

import numpy as np
import pytest
from problems import planar_arm, tip, translation

from solver import (
    Constraint,
    Dof,
    Effector,
    Figure,
    Problem,
    goals,
    solve,
)


def test_two_link_arm_reaches_the_law_of_cosines_solution() -> None:
    lengths = [1.0, 0.8]
    fig = Figure()
    fig.add_segment("link0", None, np.eye(4), [Dof.rotation("z", lower=-math.pi, upper=math.pi)])
    fig.add_segment(
        "link1", "link0", translation(0, 1.0, 0), [Dof.rotation("z", lower=0.0, upper=math.pi)]
    )
    target = np.array([-0.9, 1.1, 0.0])
    problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position(target))])
    result = solve(problem, np.zeros(2), restarts=0)
    assert result.status == "converged"
    distance = float(np.linalg.norm(target))
    elbow = math.pi - math.acos((1.0 + 0.64 - distance**2) / (2 * 1.0 * 0.8))
    assert result.x[1] == pytest.approx(elbow, abs=1e-8)
    reached = fig.forward(result.x)[1] @ np.array([0, 0.8, 0, 1])
    np.testing.assert_allclose(reached[:3], target, atol=1e-8)


def test_three_link_arm_with_orientation_has_the_unique_solution() -> None:
    lengths = [0.5, 0.4, 0.3]
    fig = planar_arm(lengths, lower=-2.5, upper=2.5)
    truth = np.array([0.3, -0.8, 1.1])
    frame = fig.forward(truth)[2]
    point = frame[:3, :3] @ np.array([0, 0.3, 0]) + frame[:3, 3]
    goal = goals.PositionOrientation(point, frame[:3, 0], frame[:3, 1], w_position=0.5)
    problem = Problem(fig, [Constraint(tip(fig, lengths), goal)])
    result = solve(problem, np.zeros(3))
    assert result.status == "converged"
    assert result.fun < 1e-16
    # planar 3R with position and heading: two branches; the limits and the seeded
    # search find one of them, and the heading is exact on both
    heading = float(result.x.sum())
    assert heading == pytest.approx(truth.sum(), abs=1e-7)


def test_unreachable_target_stretches_the_arm_toward_it() -> None:
    lengths = [1.0, 1.0]
    fig = planar_arm(lengths)
    target = np.array([3.0, 3.0, 0.0])
    problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position(target))])
    result = solve(problem, np.array([0.2, 0.3]))
    assert result.status == "converged"
    reach = float(np.linalg.norm(target)) - 2.0
    assert result.fun == pytest.approx(reach**2, rel=1e-9)
    assert abs(result.x[1]) < 1e-4  # straight elbow
    end = fig.forward(result.x)[1] @ np.array([0, 1, 0, 1])
    direction = end[:3] / np.linalg.norm(end[:3])
    np.testing.assert_allclose(direction, target / np.linalg.norm(target), atol=1e-6)


def test_goal_already_met_means_no_motion_and_one_iteration_at_most() -> None:
    lengths = [1.0, 0.7, 0.4]
    fig = planar_arm(lengths)
    theta0 = np.array([0.2, -0.4, 0.9])
    frame = fig.forward(theta0)[2]
    target = frame[:3, :3] @ np.array([0, 0.4, 0]) + frame[:3, 3]
    problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position(target))])
    value0, _ = problem.objective(theta0)
    result = solve(problem, theta0)
    assert result.status == "converged"
    assert result.nit <= 1
    assert result.fun <= value0
    np.testing.assert_allclose(result.x, theta0, atol=1e-12)


def test_target_reachable_only_on_a_polygon_edge() -> None:
    """A 2-DOF joint (θ0 about z, θ1 about x) inside a polygon that cuts a corner with
    the edge θ0 + θ1 = 0.6; the target's only in-limit solution lies on that edge (its
    other branch is far outside). The descent from the far side of the polygon runs
    into the edge, holds it active and slides along it to the target."""
    vertices = [(-0.5, 0.0), (0.6, 0.0), (0.0, 0.6), (-0.5, 0.6)]
    fig = Figure()
    fig.add_segment("link0", None, np.eye(4), [Dof.rotation("z"), Dof.rotation("x")])
    fig.add_segment("link1", "link0", translation(0, 1.0, 0), [])
    fig.add_polygon_limit("link0", (0, 1), vertices)
    on_edge = np.array([0.25, 0.35])
    frame = fig.forward(on_edge)[1]
    target = frame[:3, :3] @ np.array([0, 0.5, 0]) + frame[:3, 3]
    effector = Effector("link1", (0.0, 0.5, 0.0))
    problem = Problem(fig, [Constraint(effector, goals.Position(target))])
    result = solve(problem, np.array([-0.4, 0.05]), restarts=0)
    assert result.status == "converged"
    assert result.fun < 1e-18
    np.testing.assert_allclose(result.x, on_edge, atol=1e-8)
    assert "polygon of link0[0, 1] edge 1" in result.active_set
    assert result.max_violation <= 1e-9


def test_rigid_dof_moves_less_than_a_free_one() -> None:
    lengths = [0.6, 0.6, 0.6]

    def first_joint_motion(rigidity: float) -> float:
        fig = Figure()
        parent = None
        for k in range(3):
            rest = translation(0, lengths[k - 1] if k else 0, 0)
            r = rigidity if k == 0 else 0.0
            fig.add_segment(f"link{k}", parent, rest, [Dof.rotation("z", rigidity=r)])
            parent = f"link{k}"
        target = np.array([0.9, 0.9, 0.0])
        problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position(target))])
        result = solve(problem, np.array([0.0, 0.3, 0.3]), restarts=0)
        assert result.fun < 1e-16
        return abs(float(result.x[0]))

    assert first_joint_motion(0.9) < 0.5 * first_joint_motion(0.0)


def test_locked_dof_never_moves() -> None:
    fig = Figure()
    fig.add_segment("a", None, np.eye(4), [Dof.rotation("z", rigidity=1.0), Dof.rotation("x")])
    fig.add_segment("b", "a", translation(0, 1, 0), [Dof.rotation("z")])
    problem = Problem(fig, [Constraint(Effector("b", (0, 1, 0)), goals.Position((1.0, 0.5, 0.3)))])
    theta0 = np.array([0.4, 0.0, 0.0])
    result = solve(problem, theta0)
    assert result.x[0] == 0.4
    assert 0 not in problem.variables


def test_a_dof_tied_to_dofs_outside_every_chain_stays_where_it_is() -> None:
    # a, b, c down a chain; the chain starts at b; c's turn is tied to a's (outside it)
    fig = Figure()
    fig.add_segment("a", None, np.eye(4), [Dof.rotation("z")])
    fig.add_segment("b", "a", translation(0, 1, 0), [Dof.rotation("z")])
    fig.add_segment("c", "b", translation(0, 1, 0), [Dof.rotation("z")])
    fig.add_linear_equality({("c", 0): 1.0, ("a", 0): -1.0})
    effector = Effector("c", (0, 1, 0))
    goal = goals.Position((0.8, 2.2, 0.0))
    problem = Problem(fig, [Constraint(effector, goal, chain_start="b")])
    assert list(problem.variables) == [1]  # c has no freedom left: a is fixed
    theta0 = np.array([0.1, 0.0, 0.1 + 1e-7])  # read back with a rounding between a and c
    result = solve(problem, theta0)
    assert result.x[0] == theta0[0] and result.x[2] == theta0[2]  # bit for bit
    assert result.x[1] != 0.0
    # a chain of c alone has no free DOF: the solve ends where it starts and says why
    alone = solve(Problem(fig, [Constraint(effector, goal, chain_start="c")]), theta0)
    assert alone.nit == 0 and np.array_equal(alone.x, theta0)
    assert "tied to fixed DOFs" in alone.message
    # a chain from the root frees both, and the equality holds again
    problem = Problem(fig, [Constraint(effector, goal)])
    assert list(problem.variables) == [0, 1, 2]
    result = solve(problem, np.array([0.1, 0.0, 0.1]))
    assert abs(result.x[2] - result.x[0]) <= 1e-9


def test_joint_group_equalities_hold_at_every_iterate() -> None:
    fig = Figure()
    parent = None
    for k in range(6):
        name = f"v{k}"
        fig.add_segment(
            name,
            parent,
            translation(0, 0.1 if k else 0, 0),
            [Dof.rotation("x", lower=-0.3, upper=0.3)],
        )
        parent = name
    ratios = [1.0, 0.8, 0.6, 0.5, 0.4, 0.2]
    for k in range(1, 6):
        fig.add_linear_equality({("v0", 0): ratios[k], (f"v{k}", 0): -ratios[0]})
    effector = Effector("v5", (0, 0.1, 0))
    problem = Problem(fig, [Constraint(effector, goals.Position((0, 0.3, 0.45)))])
    seen: list[np.ndarray] = []
    result = solve(problem, np.zeros(6), callback=lambda theta, value: seen.append(theta))
    for theta in seen:
        np.testing.assert_allclose(theta, theta[0] * np.array(ratios), atol=1e-9)
    np.testing.assert_allclose(result.x, result.x[0] * np.array(ratios), atol=1e-9)
    assert result.max_violation <= 1e-9
