"""Effectors, constraints and AnyOf sets: bad input raises solver.SolverInputError."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BAD_NUMBERS, raises_input_error
from problems import hand_constraint

from solver import AnyOf, CentreOfMass, Constraint, Effector, goals

X = (1.0, 0.0, 0.0)
Y = (0.0, 1.0, 0.0)


# -- effectors -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_effector_raises_if_point_is_not_finite(bad: float) -> None:
    with raises_input_error("Effector on 'hand': point holds NaN or infinite"):
        Effector("hand", point=(0.0, bad, 0.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_effector_raises_if_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("Effector on 'hand' y axis holds NaN or infinite"):
        Effector("hand", y_axis=(0.0, bad, 0.0))


def test_effector_raises_if_axes_are_not_orthogonal() -> None:
    s = np.sqrt(0.5)
    with raises_input_error(
        r"Effector on 'hand': x and y axes must be orthogonal, got x·y = 0.7071"
    ):
        Effector("hand", x_axis=(1.0, 0.0, 0.0), y_axis=(s, s, 0.0))


@pytest.mark.parametrize(
    ("x_axis", "y_axis", "which"),
    [((2.0, 0.0, 0.0), Y, "x"), (X, (0.0, 0.5, 0.0), "y"), (X, (0.0, 0.0, 0.0), "y")],
)
def test_effector_raises_if_an_axis_is_not_unit(x_axis: tuple, y_axis: tuple, which: str) -> None:
    with raises_input_error(f"Effector on 'hand': {which} axis must be a unit vector"):
        Effector("hand", x_axis=x_axis, y_axis=y_axis)


def test_effector_raises_if_point_has_wrong_shape() -> None:
    with raises_input_error(r"point must have shape \(3,\)"):
        Effector("hand", point=(0.0, 1.0))


@pytest.mark.parametrize("segment", ["", None, 7])
def test_effector_raises_if_segment_is_not_a_name(segment: object) -> None:
    with raises_input_error("Effector: segment must be a segment name"):
        Effector(segment)  # type: ignore[arg-type]


# -- constraints and AnyOf sets ---------------------------------------------------------


@pytest.mark.parametrize("weight", [-1.0, -1e-12])
def test_constraint_raises_if_weight_is_negative(weight: float) -> None:
    with raises_input_error("Constraint on 'hand': weight must be ≥ 0"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), weight=weight)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_constraint_raises_if_weight_is_not_finite(bad: float) -> None:
    with raises_input_error("reach on 'hand': weight must be finite"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), weight=bad, name="reach")


def test_constraint_raises_if_effector_is_not_an_effector() -> None:
    with raises_input_error("effector must be a solver.Effector"):
        Constraint("hand", goals.Position((0, 0, 0)))  # type: ignore[arg-type]


def test_constraint_raises_if_goal_is_not_a_goal() -> None:
    with raises_input_error("goal must be one of solver.goals .*Position.*HalfSpace"):
        Constraint(Effector("hand"), (0.0, 0.0, 0.0))  # type: ignore[arg-type]


def test_with_goal_keeps_all_but_the_goal_and_checks_the_goal_alone() -> None:
    first = Constraint(
        Effector("hand"), goals.Position((0, 0, 0)), 2.5, "arm", 1, pinned=True, name="reach"
    )
    other = first.with_goal(goals.Aim((1.0, 0.0, 0.0)))
    assert isinstance(other.goal, goals.Aim) and isinstance(first.goal, goals.Position)
    kept = ("effector", "weight", "chain_start", "priority", "pinned", "name")
    assert all(getattr(other, a) == getattr(first, a) for a in kept)
    with raises_input_error("reach: goal must be one of solver.goals"):
        first.with_goal((0.0, 0.0, 0.0))  # type: ignore[arg-type]
    mass = Constraint(CentreOfMass({"hand": 1.0}), goals.Position((0, 0, 0)), name="balance")
    with raises_input_error("balance: a goal on the centre of mass acts on its point alone"):
        mass.with_goal(goals.Orientation((1, 0, 0), (0, 1, 0)))


@pytest.mark.parametrize("start", ["", 5])
def test_constraint_raises_if_chain_start_is_not_a_name(start: object) -> None:
    with raises_input_error("chain_start must be a segment name or None"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), chain_start=start)  # type: ignore[arg-type]


def test_any_of_raises_if_weight_is_negative() -> None:
    with raises_input_error("AnyOf weight must be ≥ 0"):
        AnyOf([hand_constraint()], weight=-0.5)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_any_of_raises_if_weight_is_not_finite(bad: float) -> None:
    with raises_input_error("AnyOf weight must be finite"):
        AnyOf([hand_constraint()], weight=bad)


def test_any_of_raises_if_empty() -> None:
    with raises_input_error("AnyOf needs at least one constraint"):
        AnyOf([])


def test_any_of_raises_if_a_member_is_not_a_constraint() -> None:
    with raises_input_error("AnyOf member 1 must be a solver.Constraint"):
        AnyOf([hand_constraint(), AnyOf([hand_constraint()])])  # type: ignore[list-item]


def test_any_of_raises_if_constraints_is_a_bare_constraint() -> None:
    with raises_input_error("AnyOf"):
        AnyOf(hand_constraint())  # type: ignore[arg-type]
