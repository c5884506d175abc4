from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import SolverInputError, rotations
from solver.rotations import (
    EULER_ORDERS,
    euler_matrix,
    linear_scale,
    matrices_euler,
    matrix_euler,
    matrix_quaternion,
    quaternion_euler,
    quaternion_matrices,
    quaternion_matrix,
)

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
@given(
    quaternion=st.lists(st.floats(-2.0, 2.0), min_size=4, max_size=4).filter(
        lambda q: sum(v * v for v in q) > 1e-6
    ),
    compat=st.one_of(st.none(), st.lists(st.floats(-30.0, 30.0), min_size=3, max_size=3)),
)
def test_quaternion_euler_is_matrix_euler_of_its_matrix_to_the_bit(order, quaternion, compat):
    expected = matrix_euler(quaternion_matrix(quaternion), order, compat)
    assert quaternion_euler(quaternion, order, compat).tobytes() == expected.tobytes()


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_quaternion_euler_at_gimbal_lock_keeps_the_first_angle_of_compat(order):
    values = np.zeros(3)
    values["XYZ".index(order[0])] = 0.4
    values["XYZ".index(order[1])] = -math.pi / 2
    values["XYZ".index(order[2])] = 0.3
    turn = matrix_quaternion(euler_matrix(values, order))
    back = quaternion_euler(turn, order, compat=values + 2.0 * math.pi)
    assert np.allclose(euler_matrix(back, order), quaternion_matrix(turn), atol=1e-12)
    assert back["XYZ".index(order[0])] == pytest.approx(0.4 + 2.0 * math.pi, abs=1e-9)


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
    assert not is_similarity(np.full((3, 3), np.nan))
    # Within the rounding room of the tolerance, not beyond it.
    assert is_similarity(turn @ np.diag((1.0, 1.0 + 4e-5, 1.0)))
    assert not is_similarity(turn @ np.diag((1.0, 1.0 + 4e-4, 1.0)))


def _stored(values, order):
    """The rotation of Euler ``values`` as Blender stores it: a single-precision quaternion."""
    from solver.rotations import euler_quaternions

    axes = np.array([["XYZ".index(a) for a in order]])
    turns = np.take_along_axis(np.asarray(values, float)[None], axes, axis=1)
    return quaternion_matrix(euler_quaternions(turns, axes)[0].astype(np.float32))


def _bounds(ranges):
    """Rows and offsets of ``low ≤ angle[axis] ≤ high`` for each ``axis: (low, high)``."""
    rows, offsets = [], []
    for axis, (low, high) in ranges.items():
        row = np.zeros(3)
        row[axis] = 1.0
        rows += [row, -row]
        offsets += [low, -high]
    return np.array(rows), np.array(offsets)


def _in_order(order, first, middle, last):
    """Angles about X, Y, Z from the first, middle and last angle of ``order``."""
    values = np.zeros(3)
    values["XYZ".index(order[0])] = first
    values["XYZ".index(order[1])] = middle
    values["XYZ".index(order[2])] = last
    return values


def _assert_fitted(stored, order, rows, offsets):
    """fit_euler reads ``stored`` inside the limits and within single precision of it."""
    from solver.rotations import ROTATION_ROUNDING, fit_euler

    fitted = fit_euler(stored, order, rows, offsets)
    assert _excess(rows, offsets, fitted) <= 1e-9
    # the turn is capped at the tolerance from the first reading, itself 1e-16 off
    assert _turn(euler_matrix(fitted, order), stored) <= ROTATION_ROUNDING + 1e-12
    return fitted


def _excess(rows, offsets, angles):
    return float(np.max(offsets - rows @ angles, initial=0.0))


def _turn(first, second):
    return float(np.linalg.norm(first - second)) / math.sqrt(2.0)


def test_fit_euler_reads_a_bound_near_gimbal_lock_back_on_it():
    # an upper arm (quaternion, read in order YXZ) raised 87.6° about X with its twist
    # on the −90° bound: single precision alone puts the plain reading 1e-6 rad past it
    values = np.radians([87.60308305, -90.0, 108.08524173])
    rows, offsets = _bounds({1: (-math.pi / 2, math.pi / 2)})
    stored = _stored(values, "YXZ")
    assert _excess(rows, offsets, matrix_euler(stored, "YXZ")) > 1e-7
    fitted = _assert_fitted(stored, "YXZ", rows, offsets)
    assert _excess(rows, offsets, fitted) == 0.0
    assert np.allclose(fitted, values, atol=1e-4)


@pytest.mark.parametrize("order", EULER_ORDERS)
@given(
    middle=st.floats(math.radians(75.0), math.pi / 2),
    sign=st.sampled_from((-1.0, 1.0)),
    outer=st.lists(st.floats(-2.5, 2.5), min_size=2, max_size=2),
    first_on_bound=st.booleans(),
)
def test_fit_euler_keeps_an_outer_bound_near_and_at_gimbal_lock(
    order, middle, sign, outer, first_on_bound
):
    values = _in_order(order, outer[0], sign * middle, outer[1])
    bounded = "XYZ".index(order[0] if first_on_bound else order[2])
    rows, offsets = _bounds({bounded: (values[bounded] - 0.5, values[bounded])})  # on its upper
    _assert_fitted(_stored(values, order), order, rows, offsets)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_fit_euler_keeps_the_middle_angle_on_a_bound_of_90_degrees(order):
    # the middle angle on its bound at exactly 90° (gimbal lock), both outer angles
    # bounded in a range away from 0, where matrix_euler would put the first angle
    first, mid, last = ("XYZ".index(a) for a in order)
    rows, offsets = _bounds(
        {first: (0.5, 0.7), mid: (-math.pi / 2, math.pi / 2), last: (-0.4, -0.2)}
    )
    _assert_fitted(_stored(_in_order(order, 0.6, math.pi / 2, -0.3), order), order, rows, offsets)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_fit_euler_takes_the_decomposition_inside_the_limits(order):
    # the middle angle at 100°: the plain reading (middle in ±90°) turns both outer
    # angles by 180°, past their ±90° bounds
    values = _in_order(order, 0.4, math.radians(100.0), -0.7)
    rows, offsets = _bounds(
        {"XYZ".index(order[0]): (-1.5, 1.5), "XYZ".index(order[2]): (-1.5, 1.5)}
    )
    stored = _stored(values, order)
    assert _excess(rows, offsets, matrix_euler(stored, order)) > 1.0
    assert np.allclose(_assert_fitted(stored, order, rows, offsets), values, atol=1e-6)


@pytest.mark.parametrize("order", EULER_ORDERS)
@given(
    outer=st.lists(st.floats(-3.0, 3.0), min_size=2, max_size=2),
    middle=st.one_of(st.floats(-1.5, 1.5), st.floats(1.5707, 1.5708), st.floats(1.569, 1.5707)),
    bounded=st.sampled_from((0, 1, 2)),
    past=st.floats(-2e-6, 2e-6),
    upper=st.booleans(),
    compat=st.booleans(),
)
def test_fit_euler_chooses_as_the_search_of_every_reading(
    order, outer, middle, bounded, past, upper, compat
):
    # a bound just past the stored rotation's reading or just short of it, on any angle,
    # near gimbal lock or not: what fit_euler chooses, the search of every reading does
    from solver.rotations import ROTATION_ROUNDING, _fit_all, fit_euler

    stored = _stored(_in_order(order, outer[0], middle, outer[1]), order)
    near = matrix_euler(stored, order)
    value = near[bounded] + (past if upper else -past)
    ranges = {bounded: (value - 0.5, value) if upper else (value, value + 0.5)}
    rows, offsets = _bounds(ranges)
    close = near + 1e-3 if compat else None
    fitted = fit_euler(stored, order, rows, offsets, compat=close)
    every = _fit_all(
        stored, order, rows, offsets, matrix_euler(stored, order, close), close, ROTATION_ROUNDING
    )
    np.testing.assert_allclose(fitted, every, rtol=0.0, atol=1e-12)


def test_fit_euler_takes_whole_turns_into_the_limits():
    from solver.rotations import fit_euler

    values = np.array([0.2, -0.1, math.radians(185.0)])
    rows, offsets = _bounds({2: (math.radians(170.0), math.radians(200.0))})
    fitted = fit_euler(_stored(values, "XYZ"), "XYZ", rows, offsets)
    assert np.allclose(fitted, values, atol=1e-6)


def test_fit_euler_reads_a_pose_inside_the_limits_as_matrix_euler_does():
    from solver.rotations import fit_euler

    values = np.array([0.3, -0.4, 1.1])
    stored = _stored(values, "ZXY")
    rows, offsets = _bounds({0: (-1.0, 1.0)})
    compat = values + 1e-3
    assert np.array_equal(
        fit_euler(stored, "ZXY", rows, offsets, compat=compat),
        matrix_euler(stored, "ZXY", compat=compat),
    )


def test_fit_euler_leaves_a_real_violation_where_no_reading_helps():
    # 0.1 rad past a bound away from gimbal lock: no reading within single precision
    # of the rotation is inside; the reading stays within that precision of the plain one
    from solver.rotations import ROTATION_ROUNDING, fit_euler

    values = np.array([0.3, 0.2, -0.5])
    rows, offsets = _bounds({0: (-1.0, 0.2)})
    stored = _stored(values, "XYZ")
    fitted = fit_euler(stored, "XYZ", rows, offsets)
    assert 0.1 - 2 * ROTATION_ROUNDING <= _excess(rows, offsets, fitted) <= 0.1 + 1e-7
    assert _turn(euler_matrix(fitted, "XYZ"), stored) <= ROTATION_ROUNDING + 1e-12


@pytest.mark.parametrize("seed", range(20))
def test_matrix_quaternion_inverts_quaternion_matrix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=4)
    if seed % 4 == 1:  # near a half turn, where w is small
        q[0] = 1e-9
    q /= np.linalg.norm(q)
    q = -q if q[0] < 0.0 else q
    found = rotations.matrix_quaternion(rotations.quaternion_matrix(q))
    np.testing.assert_allclose(found, q, atol=1e-12)
    assert found[0] >= 0.0


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_batched_readings_are_the_single_ones(order: str) -> None:
    # Quaternions to matrices and matrices to Euler angles, many at once: the same as
    # one at a time, compat or not, gimbal lock included.
    rng = np.random.default_rng(len(order) + EULER_ORDERS.index(order))
    quaternions = rng.normal(size=(40, 4)) * rng.uniform(0.5, 3.0, size=(40, 1))
    locked = np.zeros(3)
    locked["XYZ".index(order[1])] = np.pi / 2  # the middle angle at a quarter turn
    quaternions[0] = matrix_quaternion(euler_matrix(locked + 0.1 * np.eye(3)[0], order))
    matrices = quaternion_matrices(quaternions)
    for q, matrix in zip(quaternions, matrices, strict=True):
        np.testing.assert_allclose(matrix, quaternion_matrix(q), atol=1e-15)
    compat = rng.uniform(-7.0, 7.0, size=(40, 3))
    for near in (None, compat):
        batch = matrices_euler(matrices, order, near)
        for row, matrix in enumerate(matrices):
            single = matrix_euler(matrix, order, None if near is None else near[row])
            np.testing.assert_allclose(batch[row], single, atol=1e-12)


@pytest.mark.parametrize("scale", [1e-3, 0.5, 1.0, 7.0])
def test_linear_scale_is_the_scale_of_a_turned_and_scaled_matrix(scale: float) -> None:
    turn = euler_matrix(np.array([0.3, -1.1, 2.0]), "YXZ")
    assert linear_scale(scale * turn) == pytest.approx(scale, rel=1e-12)
    mirrored = scale * turn @ np.diag([1.0, 1.0, -1.0])  # the size of the determinant
    assert linear_scale(mirrored) == pytest.approx(scale, rel=1e-12)
