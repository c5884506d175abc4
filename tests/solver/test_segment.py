"""DOFs: axes, bounds, rigidity and kinds; bad input raises solver.SolverInputError."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from helpers import (
    BAD_NUMBERS,
    raises_input_error,
)

from solver import Dof

# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("make", [Dof.rotation, Dof.translation])
def test_dof_raises_if_axis_is_zero(make: object) -> None:
    with raises_input_error("zero vector"):
        make((0.0, 0.0, 0.0))  # type: ignore[operator]


@pytest.mark.parametrize("axis", ["w", "xy", ""])
def test_dof_raises_if_axis_name_is_unknown(axis: str) -> None:
    with raises_input_error(r"unknown axis .*choose 'x', 'y', 'z' or a 3-vector"):
        Dof.rotation(axis)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_dof_raises_if_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("axis holds NaN or infinite"):
        Dof.rotation((bad, 1.0, 0.0))


def test_dof_raises_if_axis_has_wrong_shape() -> None:
    with raises_input_error(r"axis must have shape \(3,\)"):
        Dof.rotation((1.0, 0.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda bad: Dof.rotation("x", lower=bad, upper=1.0, name="elbow"),
            "DOF 'elbow' lower bound must be finite",
        ),
        (lambda bad: Dof.translation("x", upper=bad), "DOF upper bound must be finite"),
        (lambda bad: Dof.rotation("x", rigidity=bad), "rigidity must be finite"),
    ],
    ids=["lower", "upper", "rigidity"],
)
def test_dof_raises_if_a_number_is_not_finite(
    make: Callable[[float], Dof], message: str, bad: float
) -> None:
    with raises_input_error(message):
        make(bad)


def test_dof_raises_if_lower_is_above_upper() -> None:
    with raises_input_error("DOF 'knee': lower bound 1.0 is above upper bound -1.0"):
        Dof.rotation("x", lower=1.0, upper=-1.0, name="knee")


@pytest.mark.parametrize("rigidity", [-0.1, 1.5, 2.0])
def test_dof_raises_if_rigidity_is_outside_0_1(rigidity: float) -> None:
    with raises_input_error(r"rigidity must be in \[0, 1\]"):
        Dof.rotation("x", rigidity=rigidity)


def test_dof_raises_if_kind_is_unknown() -> None:
    with raises_input_error("DOF kind must be 'rotation' or 'translation'"):
        Dof("twist", (1.0, 0.0, 0.0))  # type: ignore[arg-type]


# -- axes, kinds and rigidity -----------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "expected"),
    [
        ("x", (1.0, 0.0, 0.0)),
        ("Y", (0.0, 1.0, 0.0)),
        ("-z", (0.0, 0.0, -1.0)),
        ("+x", (1.0, 0.0, 0.0)),
        ((0.0, 3.0, 4.0), (0.0, 0.6, 0.8)),
        (np.array([0.0, 0.0, -2.0]), (0.0, 0.0, -1.0)),
    ],
)
def test_dof_axis_is_normalised(axis: object, expected: tuple[float, float, float]) -> None:
    dof = Dof.rotation(axis)  # type: ignore[arg-type]
    np.testing.assert_allclose(dof.axis, expected, atol=1e-15)


def test_dof_kinds_and_defaults() -> None:
    rotation = Dof.rotation("x")
    translation = Dof.translation("y", lower=0.0, upper=0.1)
    assert rotation.kind == "rotation"
    assert translation.kind == "translation"
    assert rotation.lower is None and rotation.upper is None
    assert rotation.rigidity == 0.0
    assert (translation.lower, translation.upper) == (0.0, 0.1)


@pytest.mark.parametrize(
    ("rigidity", "scale", "locked"), [(0.0, 1.0, False), (0.25, 0.75, False), (1.0, 0.0, True)]
)
def test_dof_rigidity_maps_to_scale_one_minus_r(
    rigidity: float, scale: float, locked: bool
) -> None:
    dof = Dof.rotation("x", rigidity=rigidity)
    assert dof.scale == pytest.approx(scale)
    assert dof.locked is locked


def test_dof_is_immutable() -> None:
    dof = Dof.rotation("x")
    with pytest.raises(AttributeError):
        dof.lower = 1.0  # type: ignore[misc]
