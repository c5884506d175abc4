"""Reach margins: the ball each effector stays in, and each goal's margin against it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import planar_arm, random_problem, tip, translation

from solver import AnyOf, Constraint, Dof, Effector, Figure, Problem, goals

# -- soundness: no pose of the variables leaves the ball -------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(1, 4))
def test_no_pose_of_the_variables_leaves_the_ball(seed: int, n_segments: int, n_goals: int) -> None:
    problem, theta = random_problem(seed, n_segments, n_goals)
    centres, radii = problem.reach.balls(theta)
    figure = problem.figure
    rng = np.random.default_rng(seed)
    variables = problem.variables
    rotation = figure.kinematics.dof_rotation[variables]
    for _ in range(20):
        other = theta.copy()
        # Rotations anywhere; translations anywhere within their bounds.
        drawn = rng.uniform(-2 * math.pi, 2 * math.pi, variables.size)
        inside = rng.uniform(figure.lower[variables], figure.upper[variables])
        other[variables] = np.where(rotation, drawn, inside)
        points = problem.effector_states(other)[0]
        distances = np.linalg.norm(points - centres, axis=1)
        assert np.all(distances <= radii * (1 + 1e-12) + 1e-12)


def test_the_ball_of_a_free_planar_arm_is_its_full_reach() -> None:
    lengths = [0.5, 0.3, 0.2]
    fig = planar_arm(lengths)
    problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position((0.0, 0.0, 0.0)))])
    centres, radii = problem.reach.balls(np.array([0.3, -0.2, 0.4]))
    np.testing.assert_allclose(centres[0], 0.0, atol=1e-15)
    assert radii[0] == pytest.approx(1.0, rel=1e-12)


def test_a_chain_start_puts_the_pivot_at_its_joint_which_fixed_dofs_place() -> None:
    lengths = [0.5, 0.3, 0.2]
    fig = planar_arm(lengths)
    constraint = Constraint(tip(fig, lengths), goals.Position((0.0, 0.0, 0.0)), chain_start="link1")
    problem = Problem(fig, [constraint])
    theta = np.array([math.pi / 2, 0.0, 0.0])  # the fixed shoulder turns the elbow to −x
    centres, radii = problem.reach.balls(theta)
    np.testing.assert_allclose(centres[0], (-0.5, 0.0, 0.0), atol=1e-12)
    assert radii[0] == pytest.approx(0.5, rel=1e-12)


def test_nothing_moving_leaves_a_ball_of_radius_zero_at_the_effector() -> None:
    fig = Figure()
    fig.add_segment("base", None, np.eye(4), [Dof.rotation("z", rigidity=1.0)])
    fig.add_segment("arm", "base", translation(0.0, 1.0, 0.0), [])
    effector = Effector("arm", (0.0, 0.5, 0.0))
    problem = Problem(fig, [Constraint(effector, goals.Position((0, 0, 0)))])
    centres, radii = problem.reach.balls(np.zeros(1))
    np.testing.assert_allclose(centres[0], (0.0, 1.5, 0.0))
    assert radii[0] == 0.0
    assert problem.reach_margins(np.zeros(1))[0] == pytest.approx(-1.5)


def test_a_translation_lengthens_the_reach_by_its_largest_excursion_or_to_infinity() -> None:
    for upper, expected in ((0.25, 1.0 + 0.25), (None, math.inf)):
        fig = Figure()
        fig.add_segment("base", None, np.eye(4), [Dof.rotation("z")])
        slide = Dof.translation("y", lower=-0.1, upper=upper)
        fig.add_segment("arm", "base", translation(0.0, 1.0, 0.0), [slide])
        effector = Effector("arm", (0.0, 0.0, 0.0))
        problem = Problem(fig, [Constraint(effector, goals.Position((0, 0, 0)))])
        assert problem.reach.balls(np.zeros(2))[1][0] == pytest.approx(expected)


# -- each goal's margin against the ball -------------------------------------------------


def _arm_problem(*targets: goals.Goal | list[goals.Goal]) -> Problem:
    lengths = [0.6, 0.4]
    fig = planar_arm(lengths)
    effector = tip(fig, lengths)
    items: list[Constraint | AnyOf] = []
    for target in targets:
        if isinstance(target, list):
            items.append(AnyOf([Constraint(effector, g) for g in target]))
        else:
            items.append(Constraint(effector, target))
    return Problem(fig, items)


def test_each_goal_types_margin_is_its_target_sets_depth_in_the_ball() -> None:
    up = (0.0, 0.0, 1.0)
    problem = _arm_problem(
        goals.Position((1.5, 0.0, 0.0)),
        goals.Position((0.0, 0.4, 0.0)),
        goals.PositionOrientation((0.0, 0.0, 1.25), (1, 0, 0), (0, 1, 0)),
        goals.PositionOrientation((0.0, 0.0, 9.0), (1, 0, 0), (0, 1, 0), w_position=0.0),
        goals.Line((0.0, 0.0, 1.2), (1.0, 0.0, 0.0)),
        goals.Plane((0.0, 0.0, -1.1), up),
        goals.HalfSpace((0.0, 0.0, 1.3), up),
        goals.HalfSpace((0.0, 0.0, -1.3), up),
        goals.Orientation((1, 0, 0), (0, 1, 0)),
        goals.Aim((5.0, 0.0, 0.0)),
        [goals.Position((3.0, 0.0, 0.0)), goals.Position((0.0, 1.2, 0.0))],
    )
    margins = problem.reach_margins(np.zeros(2))
    expected = (-0.5, 0.6, -0.25, math.inf, -0.2, -0.1, -0.3, 2.3, math.inf, math.inf, -0.2)
    assert margins == pytest.approx(expected, abs=1e-12)


def test_margins_check_theta() -> None:
    problem = _arm_problem(goals.Position((1.5, 0.0, 0.0)))
    with pytest.raises(Exception, match="theta"):
        problem.reach_margins(np.array([0.0, math.nan]))


def test_the_balls_do_not_depend_on_the_pose_of_the_variables() -> None:
    for seed in range(20):
        problem, theta = random_problem(seed, 8, 3)
        rng = np.random.default_rng(seed)
        other = theta.copy()
        figure = problem.figure
        variables = problem.variables
        other[variables] = rng.uniform(
            np.maximum(figure.lower[variables], -2.0), np.minimum(figure.upper[variables], 2.0)
        )
        for mine, theirs in zip(
            problem.reach.balls(theta), problem.reach.balls(other), strict=True
        ):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


def test_kept_balls_follow_the_fixed_dofs_and_are_shared_with_moved_goals() -> None:
    fig = planar_arm([0.5, 0.4, 0.3])
    constraint = Constraint(
        tip(fig, [0.5, 0.4, 0.3]), goals.Position((0.2, 0.3, 0.0)), chain_start="link1"
    )
    problem = Problem(fig, [constraint])
    first = problem.reach.balls(np.array([0.0, 0.1, 0.2]))
    moved = problem.with_goals({0: goals.Position((0.5, 0.0, 0.0))})
    again = moved.reach.balls(np.array([0.0, -0.7, 0.9]))  # only variables changed
    assert again[0] is first[0]
    turned = moved.reach.balls(np.array([0.6, 0.1, 0.2]))  # the fixed link0 turned
    fresh = Problem(fig, [constraint]).reach.balls(np.array([0.6, 0.0, 0.0]))
    np.testing.assert_allclose(turned[0], fresh[0])
    assert not np.allclose(turned[0], first[0])
    with pytest.raises(ValueError):
        turned[0][0, 0] = 1.0  # kept balls are read-only
