"""Bad goal parameters raise solver.SolverInputError naming the item."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    BAD_NUMBERS,
    raises_input_error,
)

from solver import goals
from solver.goals import commensurate

X = (1.0, 0.0, 0.0)
Y = (0.0, 1.0, 0.0)


GOAL_MAKERS = {
    "Position": lambda p: goals.Position(p),
    "Orientation": None,
    "PositionOrientation": lambda p: goals.PositionOrientation(p, X, Y),
    "Aim": lambda p: goals.Aim(p),
    "Line": lambda p: goals.Line(p, (0.0, 0.0, 1.0)),
    "Plane": lambda p: goals.Plane(p, (0.0, 0.0, 1.0)),
    "HalfSpace": lambda p: goals.HalfSpace(p, (0.0, 0.0, 1.0)),
}


@pytest.mark.parametrize("bad", BAD_NUMBERS)
@pytest.mark.parametrize("kind", [k for k, v in GOAL_MAKERS.items() if v is not None])
def test_goal_raises_if_point_is_not_finite(kind: str, bad: float) -> None:
    with raises_input_error(f"{kind} goal point holds NaN or infinite"):
        GOAL_MAKERS[kind]((0.0, 0.0, bad))  # type: ignore[misc]


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda v: goals.Line((0, 0, 0), v), "Line goal direction"),
        (lambda v: goals.Plane((0, 0, 0), v), "Plane goal normal"),
        (lambda v: goals.HalfSpace((0, 0, 0), v), "HalfSpace goal normal"),
    ],
)
def test_geometric_goal_raises_if_axis_is_zero(make: object, what: str) -> None:
    with raises_input_error(f"{what} is a zero vector"):
        make((0.0, 0.0, 0.0))  # type: ignore[operator]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_plane_raises_if_normal_is_not_finite(bad: float) -> None:
    with raises_input_error("Plane goal normal holds NaN or infinite"):
        goals.Plane((0, 0, 0), (0.0, bad, 1.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_orientation_raises_if_an_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("Orientation goal x axis holds NaN or infinite"):
        goals.Orientation((bad, 0.0, 0.0), Y)


def test_orientation_raises_if_axes_are_not_orthonormal() -> None:
    with raises_input_error("Orientation goal: x and y axes must be orthogonal"):
        goals.Orientation(X, X)
    with raises_input_error("Orientation goal: y axis must be a unit vector"):
        goals.Orientation(X, (0.0, 3.0, 0.0))


def test_position_orientation_raises_if_axes_are_not_orthonormal() -> None:
    with raises_input_error("Orientation goal: x and y axes must be orthogonal"):
        goals.PositionOrientation((0, 0, 0), X, (1.0, 0.0, 0.0))


@pytest.mark.parametrize("name", ["c_dx", "c_dy"])
@pytest.mark.parametrize("value", [-0.1, np.nan])
def test_orientation_raises_if_weight_is_negative_or_nan(name: str, value: float) -> None:
    with raises_input_error(f"Orientation goal {name} must be"):
        goals.Orientation(X, Y, **{name: value})


@pytest.mark.parametrize("value", [-0.1, np.inf])
def test_aim_raises_if_c_d_is_negative_or_infinite(value: float) -> None:
    with raises_input_error("Aim goal c_d must be"):
        goals.Aim((0, 0, 1), c_d=value)


@pytest.mark.parametrize("value", [-0.1, 1.1])
def test_position_orientation_raises_if_w_position_is_outside_0_1(value: float) -> None:
    with raises_input_error(r"w_position must be in \[0, 1\]"):
        goals.PositionOrientation((0, 0, 0), X, Y, w_position=value)


def test_position_orientation_raises_if_w_position_is_nan() -> None:
    with raises_input_error("w_position must be finite"):
        goals.PositionOrientation((0, 0, 0), X, Y, w_position=np.nan)


@pytest.mark.parametrize(
    ("degrees", "length", "message"),
    [
        (0.0, 0.01, r"degrees must be in \(0, 360\)"),
        (360.0, 0.01, r"degrees must be in \(0, 360\)"),
        (-5.0, 0.01, r"degrees must be in \(0, 360\)"),
        (5.0, 0.0, "length must be > 0"),
        (5.0, -1.0, "length must be > 0"),
        (np.nan, 0.01, "degrees must be finite"),
        (5.0, np.inf, "length must be finite"),
    ],
)
def test_commensurate_raises_if_angle_or_length_is_out_of_range(
    degrees: float, length: float, message: str
) -> None:
    with raises_input_error(f"commensurate: {message}"):
        commensurate(degrees, length)


def test_goal_potential_raises_if_state_is_not_finite() -> None:
    with raises_input_error("point holds NaN"):
        goals.Position((0, 0, 0)).potential((np.nan, 0, 0), X, Y)
