"""Goals of several types evaluated together equal each goal evaluated alone."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import GOAL_TYPES, random_frame, random_goal

from solver import goals
from solver.goals.stacked import StackedGoals


@pytest.mark.parametrize("seed", range(5))
def test_stacked_values_and_gradients_match_one_goal_at_a_time(seed: int) -> None:
    rng = np.random.default_rng(900 + seed)
    kinds = [str(kind) for kind in rng.choice(GOAL_TYPES, size=6)]
    points = rng.normal(size=(6, 3))
    frames = [random_frame(rng) for _ in kinds]
    x = np.array([f[0] for f in frames])
    y = np.array([f[1] for f in frames])
    members = [random_goal(kind, rng, points[i]) for i, kind in enumerate(kinds)]
    values, d_point, torque = StackedGoals(members)(points, x, y)
    for i, goal in enumerate(members):
        alone = goal.evaluate(points[i], x[i], y[i])
        assert values[i] == pytest.approx(alone.value, rel=1e-12, abs=1e-15)
        np.testing.assert_allclose(d_point[i], alone.d_point, rtol=1e-12, atol=1e-15)
        expected = np.cross(x[i], alone.d_x) + np.cross(y[i], alone.d_y)
        got = np.zeros(3) if torque is None else torque[i]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_point_goals_have_no_torque_and_no_axis_curvature() -> None:
    members = [goals.Position((0.0, 0.0, 1.0)), goals.Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))]
    stacked = StackedGoals(members)
    points = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    axes = np.tile(np.eye(3)[:1], (2, 1))
    values, d_point, torque = stacked(points, axes, axes)
    np.testing.assert_allclose(values, [1.0, 4.0])
    np.testing.assert_allclose(d_point, [[0.0, 0.0, -2.0], [0.0, 0.0, 4.0]])
    assert torque is None
    assert stacked.curvature.shape == (2, 3)
    assert not stacked.axes_weighted
    assert StackedGoals([goals.Aim((1.0, 0.0, 0.0))]).axes_weighted
