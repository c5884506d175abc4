"""Damped least squares: bounded steps near a singular stretch, priority levels, pins."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from problems import planar_arm, tip

import solver
from solver import Constraint, Dls, Effector, Problem, goals, pin, solve
from solver.optimizer.tasks import damped_inverse
from tests.fixtures.bank import bank, build
from tests.fixtures.bank_checks import goal_errors
from tests.fixtures.models import human_figure, limb_effectors, limb_length, random_feasible_pose

LENGTHS = [0.3, 0.25, 0.2]


def test_the_damped_inverse_is_bounded_by_one_over_twice_lambda_when_singular() -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 1e-6]])
    inverse, basis = damped_inverse(matrix, 0.1)
    assert np.linalg.norm(inverse, 2) <= 1.0 / (2 * 0.1 * np.sqrt(1 - (1e-6 / 0.4) ** 2)) + 1e-12
    assert basis.shape == (2, 2)
    far, _ = damped_inverse(np.diag([1.0, 0.5]), 0.1)  # σ_min ≥ 4λ: undamped
    np.testing.assert_allclose(far, np.diag([1.0, 2.0]))


def test_dls_joint_speed_stays_bounded_near_a_singular_stretch() -> None:
    fig = planar_arm(LENGTHS[:2])
    problem = Problem(fig, [Constraint(tip(fig, LENGTHS[:2]), goals.Position((0.0, 0.6, 0.0)))])
    theta0 = np.array([0.0, 1e-4])  # stretched out along +Y; the goal is 5 cm beyond
    residual = 0.6 - 0.55
    damping = 0.05
    poses = [theta0]
    solve(
        problem,
        theta0,
        method=Dls(damping=damping),
        restarts=0,
        max_iterations=20,
        callback=lambda theta, value: poses.append(theta.copy()),
    )
    steps = [float(np.linalg.norm(b - a)) for a, b in itertools.pairwise(poses)]
    assert max(steps) <= residual / (2 * damping) * 1.01
    # Undamped, the first step's elbow turn is the residual over σ_min ≈ 0.25 × 1e-4.
    assert residual / (0.25 * 1e-4) > 100 * max(steps)


def conflicting(priority_hand: int, priority_elbow: int) -> Problem:
    fig = planar_arm(LENGTHS)
    hand = Constraint(tip(fig, LENGTHS), goals.Position((-0.3, 0.4, 0.0)), priority=priority_hand)
    elbow = Effector("link1")  # the elbow joint, pulled where the hand goal forbids
    pull = Constraint(elbow, goals.Position((0.4, -0.2, 0.0)), priority=priority_elbow)
    return Problem(fig, [hand, pull])


def test_dls_meets_a_level_zero_goal_exactly_while_a_conflicting_level_one_goal_is_not() -> None:
    problem = conflicting(0, 1)
    result = solve(problem, np.array([0.1, 0.2, 0.3]), method="dls", restarts=0)
    points = problem.effector_states(result.x)[0]
    assert np.linalg.norm(points[0] - (-0.3, 0.4, 0.0)) <= 1e-8
    assert np.linalg.norm(points[1] - (0.4, -0.2, 0.0)) > 0.1
    # Weighted together (one level), neither goal is met.
    blended = solve(conflicting(0, 0), np.array([0.1, 0.2, 0.3]), method="dls", restarts=0)
    together = conflicting(0, 0).effector_states(blended.x)[0]
    assert np.linalg.norm(together[0] - (-0.3, 0.4, 0.0)) > 1e-3


def test_dls_swaps_the_winner_with_the_priorities() -> None:
    problem = conflicting(1, 0)
    result = solve(problem, np.array([0.1, 0.2, 0.3]), method="dls", restarts=0)
    points = problem.effector_states(result.x)[0]
    elbow_reach = np.linalg.norm(points[1] - (0.4, -0.2, 0.0))
    assert elbow_reach == pytest.approx(np.linalg.norm((0.4, -0.2)) - LENGTHS[0], abs=1e-6)


def test_dls_holds_a_pin_while_another_goal_pulls() -> None:
    lengths = [0.3, 0.25, 0.2, 0.15]
    fig = planar_arm(lengths)
    theta0 = np.array([0.3, 1.0, 1.0, 0.8])
    held = pin(fig, theta0, "link3", (0.0, 0.15, 0.0))
    place = held.goal.point.copy()
    pull = Constraint(Effector("link1"), goals.Position((0.3, 0.1, 0.0)))
    problem = Problem(fig, [held, pull])
    drift = []
    result = solve(
        problem,
        theta0,
        method="dls",
        restarts=0,
        callback=lambda theta, value: drift.append(
            np.linalg.norm(problem.effector_states(theta)[0][0] - place)
        ),
    )
    # each step's pin is put back (the compensation of Greeff, Haber & Seidel 2005)
    assert max(drift) <= 1e-5
    assert np.linalg.norm(problem.effector_states(result.x)[0][0] - place) <= 1e-9
    # As close as a pin of overwhelming weight lets Goldfarb's method get.
    heavy = Problem(fig, [pin(fig, theta0, "link3", (0.0, 0.15, 0.0), weight=1e6), pull])
    best = solve(heavy, theta0, restarts=0)
    assert problem.potentials(result.x)[1] == pytest.approx(heavy.potentials(best.x)[1], rel=1e-4)


def test_the_damping_fades_with_a_residual_below_lambda() -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 0.01]])
    far, _ = damped_inverse(matrix, 0.1)
    near, _ = damped_inverse(matrix, 0.1, residual=1e-8)
    assert near[1, 1] > 0.99 * 100.0  # nearly the exact inverse: Gauss–Newton's end
    assert far[1, 1] < 2.0  # a residual beyond λ: fully damped
    np.testing.assert_allclose(damped_inverse(matrix, 0.1, residual=1.0)[0], far)


@pytest.mark.parametrize("index", [0, 2, 4, 13])
def test_dls_reaches_human_targets_where_many_limits_clamp_the_step(index: int) -> None:
    # Targets of bench.solver.methods' task (a) on which every step from rest meets more
    # limits than a fixed number of clamps: the step was cut to nothing far from them.
    figure = human_figure()
    effectors = limb_effectors(figure)
    names = [s.name for s in figure.segments]
    rng = np.random.default_rng(0)
    for _ in range(index + 1):
        pose = random_feasible_pose(figure, rng)
    world = figure.forward(pose)
    constraints = []
    lengths = []
    for name in ("hand.L", "hand.R", "foot.L", "foot.R"):
        effector = effectors[name]
        frame = world[names.index(effector.segment)]
        point = frame[:3, :3] @ effector.point + frame[:3, 3]
        constraints.append(Constraint(effector, goals.Position(point), name=name))
        lengths.append(limb_length(name))
    problem = Problem(figure, constraints)
    result = solve(problem, np.zeros(figure.n_dofs), method="dls", restarts=0)
    errors = np.sqrt(np.maximum(problem.potentials(result.x), 0.0)) / np.array(lengths)
    assert errors.max() <= 1e-6
    assert result.max_violation <= 1e-9


def test_dls_stops_on_the_smallest_weights_scale() -> None:
    # A bank case with weights from 1 to 1e6. Measured against the largest weight,
    # G_all ≤ tolerance counted a weight-1 goal 3.3e-6 × chain off as met.
    case = next(c for c in bank("ci") if c.name == "tree-17")
    problem, theta0 = build(case, solver)
    result = solve(problem, theta0, method="dls", restarts=0)
    assert goal_errors(problem, result.x).max() <= 1e-6
