"""Pins: a segment's point held where it is, and the reach it leaves the chain below."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import raises_input_error
from problems import planar_arm, tip

from solver import PIN_WEIGHT, Constraint, Problem, goals, pin, solve

LENGTHS = [0.3, 0.25, 0.2]


def test_a_pin_holds_the_point_where_it_is_now() -> None:
    fig = planar_arm(LENGTHS)
    theta = np.array([0.3, -0.5, 0.8])
    held = pin(fig, theta, "link1")
    elbow = fig.forward(theta)[1][:3, 3]
    assert isinstance(held.goal, goals.Position)
    np.testing.assert_allclose(held.goal.point, elbow)
    assert held.pinned and held.priority == 0 and held.weight == PIN_WEIGHT
    assert held.name == "Pin on link1"


def test_a_pin_with_orientation_holds_the_segments_axes() -> None:
    fig = planar_arm(LENGTHS)
    theta = np.array([0.3, -0.5, 0.8])
    held = pin(fig, theta, "link2", (0.0, 0.2, 0.0), orientation=True)
    assert isinstance(held.goal, goals.PositionOrientation)
    frame = fig.forward(theta)[2]
    np.testing.assert_allclose(held.goal.orientation.y, frame[:3, 1])


def test_pin_raises_if_the_segment_is_unknown() -> None:
    with raises_input_error("wrist"):
        pin(planar_arm(LENGTHS), np.zeros(3), "wrist")


def elbow_pinned(target: tuple[float, float]) -> tuple[Problem, np.ndarray]:
    fig = planar_arm(LENGTHS)
    theta = np.array([0.4, 0.3, 0.2])
    hand = Constraint(tip(fig, LENGTHS), goals.Position((*target, 0.0)))
    return Problem(fig, [pin(fig, theta, "link1"), hand]), theta


def test_a_pinned_elbow_leaves_the_hand_the_forearms_reach() -> None:
    # Greeff et al. eq. (4): with the elbow pinned the reach is the lower arm's length.
    problem, theta = elbow_pinned((0.2, 0.65))
    elbow = problem.leaves[0].goal.point
    expected = LENGTHS[1] + LENGTHS[2] - float(np.linalg.norm(np.array([0.2, 0.65, 0.0]) - elbow))
    margins = problem.reach_margins(theta)
    assert margins[1] == pytest.approx(expected, abs=1e-12)
    free = problem.reach_margins(theta, pins=False)
    assert free[1] == pytest.approx(sum(LENGTHS) - float(np.hypot(0.2, 0.65)), abs=1e-12)
    assert margins[1] < 0.0 < free[1]


def test_the_pinned_margin_is_negative_exactly_beyond_the_forearms_reach() -> None:
    problem, theta = elbow_pinned((0.2, 0.65))
    elbow = problem.leaves[0].goal.point
    for distance in (0.3, 0.449, 0.451, 0.6):
        target = elbow + distance * np.array([0.6, 0.8, 0.0])
        moved = problem.with_goals({1: goals.Position(target)})
        assert (moved.reach_margins(theta)[1] < 0.0) == (distance > 0.45)


def test_dls_calls_a_goal_beyond_the_pinned_reach_not_reachable() -> None:
    problem, theta = elbow_pinned((0.2, 0.65))
    result = solve(problem, theta, method="dls", restarts=0)
    assert result.outcome == "not_reachable"
    assert result.unreachable == (1,)
    assert (
        np.linalg.norm(problem.effector_states(result.x)[0][0] - problem.leaves[0].goal.point)
        <= 1e-9
    )
