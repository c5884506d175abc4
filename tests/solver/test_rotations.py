from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import SolverInputError
from solver.rotations import EULER_ORDERS, euler_matrix, matrix_euler, quaternion_matrix

angles = st.lists(st.floats(-math.pi, math.pi), min_size=3, max_size=3)


def rotation(axis, angle):
    c, s = math.cos(angle), math.sin(angle)
    return {
        0: np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
        1: np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
        2: np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
    }[axis]


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_euler_matrix_applies_the_first_axis_first(order):
    values = np.array([0.3, -0.5, 0.7])
    expected = np.eye(3)
    for a in order:
        axis = "XYZ".index(a)
        expected = rotation(axis, values[axis]) @ expected
    assert np.allclose(euler_matrix(values, order), expected, atol=1e-15)


@pytest.mark.parametrize("order", EULER_ORDERS)
@given(values=angles)
def test_matrix_euler_recovers_the_rotation(order, values):
    r = euler_matrix(values, order)
    back = matrix_euler(r, order)
    assert np.allclose(euler_matrix(back, order), r, atol=1e-12)
    near = matrix_euler(r, order, compat=values)
    assert np.allclose(euler_matrix(near, order), r, atol=1e-12)


@pytest.mark.parametrize("order", EULER_ORDERS)
@given(values=angles)
def test_compat_returns_the_given_angles_away_from_gimbal_lock(order, values):
    middle = values["XYZ".index(order[1])]
    if abs(abs(middle) - math.pi / 2) < 1e-3:
        return
    r = euler_matrix(values, order)
    assert np.allclose(matrix_euler(r, order, compat=values), values, atol=1e-9)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_gimbal_lock_keeps_the_first_angle_of_compat(order):
    values = np.zeros(3)
    values["XYZ".index(order[0])] = 0.4
    values["XYZ".index(order[1])] = math.pi / 2
    values["XYZ".index(order[2])] = -0.2
    r = euler_matrix(values, order)
    back = matrix_euler(r, order, compat=values)
    assert np.allclose(euler_matrix(back, order), r, atol=1e-12)
    assert np.allclose(back, values, atol=1e-9)


def test_quaternion_matrix_matches_axis_angle():
    angle = 0.8
    q = (2.0 * math.cos(angle / 2), 0.0, 0.0, 2.0 * math.sin(angle / 2))  # not unit: normalised
    assert np.allclose(quaternion_matrix(q), rotation(2, angle), atol=1e-15)


def test_rotations_raise_if_order_is_unknown():
    with pytest.raises(SolverInputError, match="Euler order must be one of XYZ"):
        euler_matrix((0, 0, 0), "XXY")


def test_quaternion_matrix_raises_if_quaternion_is_zero():
    with pytest.raises(SolverInputError, match="quaternion is zero"):
        quaternion_matrix((0, 0, 0, 0))


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_euler_quaternions_match_euler_matrix_in_every_order(order):
    from solver.rotations import euler_quaternions

    rng = np.random.default_rng(11)
    values = rng.uniform(-math.pi, math.pi, (20, 3))  # about X, Y, Z
    axes = np.array([["XYZ".index(a) for a in order]] * len(values))
    turns = np.take_along_axis(values, axes, axis=1)  # in the order applied
    quaternions = euler_quaternions(turns, axes)
    assert quaternions.shape == (20, 4)
    assert np.allclose(np.linalg.norm(quaternions, axis=1), 1.0)
    for q, v in zip(quaternions, values, strict=True):
        assert np.allclose(quaternion_matrix(q), euler_matrix(v, order), atol=1e-12)


def test_euler_quaternions_of_one_turn_is_the_half_angle_quaternion():
    from solver.rotations import euler_quaternions

    q = euler_quaternions([[0.0, 0.8, 0.0]], [[0, 2, 1]])
    assert np.allclose(q, [[math.cos(0.4), 0.0, 0.0, math.sin(0.4)]])
    assert np.allclose(quaternion_matrix(q[0]), rotation(2, 0.8))


def test_euler_quaternions_of_no_rotations_is_empty():
    from solver.rotations import euler_quaternions

    assert euler_quaternions(np.zeros((0, 3)), np.zeros((0, 3), int)).shape == (0, 4)


def test_is_similarity_accepts_rotations_times_uniform_scale_only():
    from solver.rotations import is_similarity

    turn = euler_matrix((0.3, -1.1, 2.0), "ZXY")
    assert is_similarity(turn)
    assert is_similarity(1.7 * turn)
    assert is_similarity(np.float32(2.5) * turn.astype(np.float32))  # single precision
    assert not is_similarity(turn @ np.diag((1.0, 2.0, 1.0)))  # non-uniform scale
    assert not is_similarity(turn @ np.diag((1.0, 1.0, -1.0)))  # mirrored
    assert not is_similarity(turn @ np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0, 0, 1.0]]))
    assert not is_similarity(np.zeros((3, 3)))
