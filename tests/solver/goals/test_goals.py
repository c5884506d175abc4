"""Goal potentials and their gradients against their formulas (Zhao & Badler 1994, §5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import (
    GOAL_TYPES,
    central_difference,
    random_frame,
    random_goal,
    random_unit,
    relative_error,
)
from reference import reference_potential, rodrigues

from solver import goals
from solver.goals import C5, Goal, GoalValue, commensurate

SEEDS = range(10)
X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])
Z = np.array([0.0, 0.0, 1.0])


def _random_state(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y = random_frame(rng)
    return rng.normal(scale=0.5, size=3), x, y


# -- potentials ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", GOAL_TYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_potential_matches_reference_formula(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    r, x, y = _random_state(rng)
    goal = random_goal(kind, rng, r + rng.normal(scale=0.3, size=3))
    expected = reference_potential(goal, r, x, y)
    value = goal.evaluate(r, x, y).value
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert goal.potential(r, x, y) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert value >= 0.0


@pytest.mark.parametrize("kind", GOAL_TYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_gradient_matches_finite_differences_of_state(kind: str, seed: int) -> None:
    # ∂P/∂r, ∂P/∂x_e and ∂P/∂y_e by central differences of the reference formula.
    rng = np.random.default_rng(1000 + seed)
    r, x, y = _random_state(rng)
    goal = random_goal(kind, rng, r)
    state = np.concatenate([r, x, y])

    def potential(s: np.ndarray) -> float:
        return reference_potential(goal, s[:3], s[3:6], s[6:])

    expected = central_difference(potential, state)
    result = goal.evaluate(r, x, y)
    assert isinstance(result, GoalValue)
    gradient = np.concatenate([result.d_point, result.d_x, result.d_y])
    assert relative_error(expected, gradient) <= 1e-6


@pytest.mark.parametrize("kind", GOAL_TYPES)
def test_goal_is_a_goal_and_has_a_readable_repr(kind: str) -> None:
    goal = random_goal(kind, np.random.default_rng(0))
    assert isinstance(goal, Goal)
    assert repr(goal).startswith(kind)


# -- known values ----------------------------------------------------------------------


def test_position_is_zero_at_the_point_and_squared_distance_elsewhere() -> None:
    goal = goals.Position((1.0, 2.0, 3.0))
    assert goal.potential((1.0, 2.0, 3.0), X, Y) == 0.0
    assert goal.potential((1.0, 2.0, 5.0), X, Y) == pytest.approx(4.0)
    np.testing.assert_allclose(goal.evaluate(np.array([1.0, 2.0, 5.0]), X, Y).d_point, 4 * Z)


def test_orientation_is_zero_when_axes_match() -> None:
    x, y = random_frame(np.random.default_rng(3))
    goal = goals.Orientation(x, y)
    assert goal.potential(np.zeros(3), x, y) == pytest.approx(0.0, abs=1e-30)


def test_orientation_with_zero_c_dy_ignores_y() -> None:
    goal = goals.Orientation(X, Y, c_dx=0.2, c_dy=0.0)
    rng = np.random.default_rng(4)
    for _ in range(5):
        turn = rodrigues(X, rng.uniform(-np.pi, np.pi))  # about the x axis: y moves freely
        result = goal.evaluate(np.zeros(3), turn @ X, turn @ Y)
        assert result.value == pytest.approx(0.0, abs=1e-30)
        np.testing.assert_array_equal(result.d_y, np.zeros(3))


def test_orientation_with_zero_c_dx_ignores_x() -> None:
    goal = goals.Orientation(X, Y, c_dx=0.0, c_dy=0.3)
    turn = rodrigues(Y, 1.0)
    assert goal.potential(np.zeros(3), turn @ X, turn @ Y) == pytest.approx(0.0, abs=1e-30)


def test_orientation_of_opposite_axes() -> None:
    goal = goals.Orientation(X, Y, c_dx=0.5, c_dy=0.25)
    # ‖−x − x‖² = 4, ‖−y − y‖² = 4.
    assert goal.potential(np.zeros(3), -X, -Y) == pytest.approx(0.25 * 4 + 0.0625 * 4)


def test_commensurate_5_degrees_as_1_cm() -> None:
    assert commensurate(5, 0.01) == pytest.approx(0.1146, abs=1e-4)
    assert commensurate(5, 0.01) == pytest.approx(0.01 / (2 * math.sin(math.radians(2.5))))
    assert pytest.approx(commensurate(5, 0.01)) == C5


def test_commensurate_scales_with_length_and_falls_with_angle() -> None:
    assert commensurate(10, 0.02) == pytest.approx(0.02 / (2 * math.sin(math.radians(5))))
    assert commensurate(5, 0.02) == pytest.approx(2 * commensurate(5, 0.01))
    assert commensurate(60, 1.0) == pytest.approx(1.0)  # 2 sin 30° = 1
    assert commensurate(10, 0.01) < commensurate(5, 0.01)


def test_five_degree_turn_of_an_axis_costs_as_much_as_one_centimetre() -> None:
    rng = np.random.default_rng(5)
    point = rng.normal(size=3)
    one_cm = goals.Position(point).potential(point + 0.01 * random_unit(rng), X, Y)
    assert one_cm == pytest.approx(1e-4)
    turn = rodrigues(Z, math.radians(5))
    x_only = goals.Orientation(X, Y, c_dx=C5, c_dy=0.0)
    assert x_only.potential(point, turn @ X, turn @ Y) == pytest.approx(one_cm, rel=1e-12)
    aim = goals.Aim(point + 2.0 * Y)  # default c_d = C5
    assert aim.potential(point, turn @ X, turn @ Y) == pytest.approx(one_cm, rel=1e-12)


def test_default_weights_are_c5() -> None:
    orientation = goals.Orientation(X, Y)
    assert orientation.c_dx == orientation.c_dy == C5
    assert goals.Aim(Z).c_d == C5
    both = goals.PositionOrientation(Z, X, Y)
    assert both.orientation.c_dx == both.orientation.c_dy == C5
    assert both.w_position == 0.5


def test_position_orientation_is_the_weighted_sum() -> None:
    rng = np.random.default_rng(6)
    r, x, y = _random_state(rng)
    p = rng.normal(size=3)
    gx, gy = random_frame(rng)
    both = goals.PositionOrientation(p, gx, gy, w_position=0.3, c_dx=0.2, c_dy=0.1)
    position = goals.Position(p).potential(r, x, y)
    orientation = goals.Orientation(gx, gy, c_dx=0.2, c_dy=0.1).potential(r, x, y)
    assert both.potential(r, x, y) == pytest.approx(0.3 * position + 0.7 * orientation)
    assert both.w_orientation == pytest.approx(0.7)
    only_position = goals.PositionOrientation(p, gx, gy, w_position=1.0)
    assert only_position.potential(r, x, y) == pytest.approx(position)
    only_orientation = goals.PositionOrientation(p, gx, gy, w_position=0.0, c_dx=0.2, c_dy=0.1)
    assert only_orientation.potential(r, x, y) == pytest.approx(orientation)


def test_aim_is_zero_when_y_points_at_the_target() -> None:
    goal = goals.Aim((0.0, 5.0, 0.0), c_d=0.3)
    assert goal.potential(np.zeros(3), X, Y) == pytest.approx(0.0, abs=1e-30)
    # Pointing away: ‖w − v‖ = 2.
    assert goal.potential(np.zeros(3), X, -Y) == pytest.approx(0.09 * 4.0)
    # The distance to the target does not matter, only the direction.
    assert goal.potential(np.array([0.0, 4.0, 0.0]), X, Z) == pytest.approx(0.09 * 2.0)
    assert goal.potential(np.array([0.0, -9.0, 0.0]), X, Z) == pytest.approx(0.09 * 2.0)


def test_aim_at_its_own_point_is_zero() -> None:
    goal = goals.Aim((1.0, 2.0, 3.0))
    result = goal.evaluate(np.array([1.0, 2.0, 3.0]), X, Y)
    assert result.value == 0.0
    assert np.all(np.isfinite(result.d_point))


def test_line_potential_is_squared_distance_to_the_line() -> None:
    goal = goals.Line((1.0, 1.0, 0.0), (0.0, 0.0, 7.0))
    np.testing.assert_allclose(goal.direction, Z)
    assert goal.potential((1.0, 1.0, 42.0), X, Y) == pytest.approx(0.0, abs=1e-30)
    assert goal.potential((4.0, 5.0, -3.0), X, Y) == pytest.approx(25.0)


def test_plane_potential_is_squared_height_on_both_sides() -> None:
    goal = goals.Plane((0.0, 0.0, 1.0), (0.0, 0.0, 2.0))
    np.testing.assert_allclose(goal.normal, Z)
    assert goal.potential((3.0, -2.0, 1.0), X, Y) == 0.0
    assert goal.potential((3.0, -2.0, 3.0), X, Y) == pytest.approx(4.0)
    assert goal.potential((3.0, -2.0, -1.0), X, Y) == pytest.approx(4.0)


def test_half_space_is_zero_inside_and_squared_depth_outside() -> None:
    goal = goals.HalfSpace((0.0, 0.0, 1.0), (0.0, 0.0, 1.0))
    inside = goal.evaluate(np.array([5.0, 5.0, 3.0]), X, Y)
    assert inside.value == 0.0
    np.testing.assert_array_equal(inside.d_point, np.zeros(3))
    on_plane = goal.evaluate(np.array([5.0, 5.0, 1.0]), X, Y)
    assert on_plane.value == 0.0
    outside = goal.evaluate(np.array([5.0, 5.0, -2.0]), X, Y)
    assert outside.value == pytest.approx(9.0)
    np.testing.assert_allclose(outside.d_point, (0.0, 0.0, -6.0))


@pytest.mark.parametrize("kind", ["Position", "Line", "Plane", "HalfSpace"])
def test_point_goals_ignore_the_axes(kind: str) -> None:
    rng = np.random.default_rng(7)
    r = rng.normal(size=3)
    goal = random_goal(kind, rng, r)
    x1, y1 = random_frame(rng)
    x2, y2 = random_frame(rng)
    first, second = goal.evaluate(r, x1, y1), goal.evaluate(r, x2, y2)
    assert first.value == second.value
    np.testing.assert_array_equal(first.d_x, np.zeros(3))
    np.testing.assert_array_equal(first.d_y, np.zeros(3))


def test_orientation_goals_ignore_the_point() -> None:
    rng = np.random.default_rng(8)
    gx, gy = random_frame(rng)
    x, y = random_frame(rng)
    goal = goals.Orientation(gx, gy)
    first = goal.evaluate(rng.normal(size=3), x, y)
    second = goal.evaluate(rng.normal(size=3), x, y)
    assert first.value == second.value
    np.testing.assert_array_equal(first.d_point, np.zeros(3))


def test_goals_copy_their_parameters() -> None:
    point = np.array([1.0, 2.0, 3.0])
    goal = goals.Position(point)
    point[0] = 100.0
    assert goal.potential((1.0, 2.0, 3.0), X, Y) == 0.0


# -- targets moved within a sphere -----------------------------------------------------


@pytest.mark.parametrize("kind", GOAL_TYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_within_moves_a_far_target_onto_the_sphere_in_the_same_direction(
    kind: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    goal = random_goal(kind, rng)
    centre, radius = rng.normal(scale=3.0, size=3), rng.uniform(0.1, 1.0)
    moved = goal.within(centre, radius)
    if goal.reach_margin(centre, radius) >= 0.0:
        assert moved is goal  # a target already within is kept
        return
    assert type(moved) is type(goal)
    assert moved.reach_margin(centre, radius) == pytest.approx(0.0, abs=1e-12)
    # seen from the centre, the pull on the point keeps its direction
    x, y = random_frame(rng)
    before = goal.evaluate(centre, x, y)
    after = moved.evaluate(centre, x, y)
    cosine = before.d_point @ after.d_point
    cosine /= np.linalg.norm(before.d_point) * np.linalg.norm(after.d_point)
    assert cosine == pytest.approx(1.0, abs=1e-12)
    # and the axes are pulled as before
    np.testing.assert_allclose(after.d_x, before.d_x, atol=1e-12)
    np.testing.assert_allclose(after.d_y, before.d_y, atol=1e-12)


@pytest.mark.parametrize("kind", ["Orientation", "Aim"])
def test_within_keeps_goals_without_a_positional_target(kind: str) -> None:
    goal = random_goal(kind, np.random.default_rng(0))
    assert goal.within(np.full(3, 1e9), 0.0) is goal


def test_within_keeps_a_half_space_whose_side_holds_the_centre() -> None:
    goal = goals.HalfSpace((0.0, 0.0, -1e6), Z)  # everything above z = −1e6 m
    assert goal.within(np.zeros(3), 0.5) is goal
    above = goals.HalfSpace((0.0, 0.0, 1e6), Z)  # everything above z = 1e6 m
    moved = above.within(np.zeros(3), 0.5)
    assert isinstance(moved, goals.HalfSpace)
    np.testing.assert_allclose(moved.point, (0.0, 0.0, 0.5))
    np.testing.assert_allclose(moved.normal, Z)
