"""Euler angles in float64, in Blender's convention.

An Euler order ``"XYZ"`` means the rotation ``R = R_z(γ) · R_y(β) · R_x(α)``: about X
first, then Y, then Z, all about fixed axes. Angles are given and returned per axis
(``angles[0]`` about X, ``angles[1]`` about Y, ``angles[2]`` about Z), whatever the order,
as Blender's ``Euler`` stores them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import kernel
from ._checks import FloatArray, finite_array, finite_values
from .exceptions import SolverInputError

__all__ = [
    "EULER_ORDERS",
    "ROTATION_ROUNDING",
    "euler_matrix",
    "euler_quaternions",
    "fit_euler",
    "gram_entries",
    "is_similarity",
    "linear_scale",
    "matrices_euler",
    "matrix_euler",
    "matrix_quaternion",
    "quaternion_euler",
    "quaternion_matrices",
    "quaternion_matrix",
    "quaternions_euler",
    "similar_rows",
]

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_EVEN = ("XYZ", "YZX", "ZXY")


def _axes(order: str) -> tuple[int, int, int, float]:
    axes = _ORDER_AXES.get(order)
    if axes is None:
        raise SolverInputError(
            f"Euler order must be one of {', '.join(EULER_ORDERS)}, got {order!r}", item="order"
        )
    return axes


_ORDER_AXES: dict[str, tuple[int, int, int, float]] = {
    order: ("XYZ".index(order[0]), "XYZ".index(order[1]), "XYZ".index(order[2]), parity)
    for order in EULER_ORDERS
    for parity in (1.0 if order in _EVEN else -1.0,)
}
"""Per Euler order, the indices of its axes in turn, and its parity (:func:`_axes`)."""


def _rotation(axis: int, angle: float) -> FloatArray:
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(3)
    a, b = (axis + 1) % 3, (axis + 2) % 3
    m[a, a] = c
    m[b, b] = c
    m[b, a] = s
    m[a, b] = -s
    return m


def euler_matrix(angles: ArrayLike, order: str) -> FloatArray:
    """The rotation matrix (3, 3) of Euler ``angles`` [rad] (about X, Y, Z) in ``order``."""
    values = finite_values(angles, "Euler angles", (3,))
    # on Python's floats: numpy's calls on a 3 × 3 cost more than the products
    rows = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    for axis in _axes(order)[:3]:  # each turn about a fixed axis, applied after the last
        c, s = math.cos(values[axis]), math.sin(values[axis])
        a, b = _NEXT[axis]
        (x0, x1, x2), (y0, y1, y2) = rows[a], rows[b]
        rows[a] = [c * x0 - s * y0, c * x1 - s * y1, c * x2 - s * y2]
        rows[b] = [s * x0 + c * y0, s * x1 + c * y1, s * x2 + c * y2]
    return np.array(rows)


_NEXT = ((1, 2), (2, 0), (0, 1))
"""Per axis, the two after it in turn: the plane a turn about it moves."""


def quaternion_matrix(quaternion: ArrayLike) -> FloatArray:
    """The rotation matrix (3, 3) of a quaternion (w, x, y, z); it need not be unit."""
    return np.array(_quaternion_rows(finite_values(quaternion, "quaternion", (4,))))


def _quaternion_rows(q: list[float]) -> list[list[float]]:
    """:func:`quaternion_matrix`'s rows, of a checked quaternion, as Python's floats.

    Python's floats: numpy's calls and scalars cost more than the products.
    """
    norm = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if norm <= 0.0:
        raise SolverInputError("quaternion is zero", item="quaternion")
    w, x, y, z = (value / norm for value in q)
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]


def matrix_quaternion(matrix: ArrayLike) -> FloatArray:
    """The unit quaternion (w, x, y, z), w ≥ 0, of a rotation matrix (3, 3).

    Found from the largest of w, x, y, z (Shepperd 1978), which keeps full precision
    for every rotation.
    """
    # on Python's floats: numpy's calls on a 3 × 3 cost more than the sums
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = finite_values(
        matrix, "rotation matrix", (3, 3)
    )
    trace = r00 + r11 + r22
    squares = (
        1.0 + trace,
        1.0 + 2.0 * r00 - trace,
        1.0 + 2.0 * r11 - trace,
        1.0 + 2.0 * r22 - trace,
    )
    k = max(range(4), key=squares.__getitem__)  # the first largest
    q = [0.0] * 4
    q[k] = 0.5 * math.sqrt(max(squares[k], 0.0))
    pairs = (
        (r21 - r12, r02 - r20, r10 - r01),
        (r21 - r12, r01 + r10, r02 + r20),
        (r02 - r20, r01 + r10, r12 + r21),
        (r10 - r01, r02 + r20, r12 + r21),
    )[k]
    others = [j for j in range(4) if j != k]
    for j, value in zip(others, pairs, strict=True):
        q[j] = 0.25 * value / q[k]
    norm = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    sign = -1.0 if q[0] < 0.0 else 1.0
    return np.array([sign * x / norm for x in q])


def _near(angle: float, target: float) -> float:
    return angle + 2.0 * math.pi * round((target - angle) / (2.0 * math.pi))


def _solutions(m: list[list[float]], order: str, first: float) -> list[tuple[float, float, float]]:
    """The Euler decompositions (first, middle, last angle) of ``m`` in ``order``.

    ``m``: the rotation matrix's rows, as Python's floats (numpy's scalars cost more).
    Away from gimbal lock there are two (the middle angle in [−π/2, π/2] first); at
    gimbal lock only a combination of the outer angles is defined, and the first angle
    is ``first``.
    """
    i, j, k, s = _axes(order)
    cos_b = math.hypot(m[i][i], m[j][i])
    b = math.atan2(min(max(-s * m[k][i], -1.0), 1.0), cos_b)
    if cos_b > 1e-9:
        a = math.atan2(s * m[k][j], m[k][k])
        c = math.atan2(s * m[j][i], m[i][i])
        return [(a, b, c), (a + math.pi, math.pi - b, c + math.pi)]
    # R_k(c) = R · R_i(a)ᵀ · R_j(b)ᵀ, a rotation about axis k
    rest = np.array(m) @ _rotation(i, first).T @ _rotation(j, b).T
    u, v = (k + 1) % 3, (k + 2) % 3
    return [(first, b, math.atan2(rest[v, u], rest[u, u]))]


def matrix_euler(matrix: ArrayLike, order: str, compat: ArrayLike | None = None) -> FloatArray:
    """Euler angles [rad] (about X, Y, Z) of a rotation matrix, in ``order``.

    Args:
        matrix: A rotation matrix, shape (3, 3).
        order: One of :data:`EULER_ORDERS`.
        compat: Angles to stay close to: of the two solutions, each shifted by whole
            turns, the one nearest to ``compat`` is returned (Blender's "compatible"
            Euler); at gimbal lock the first angle is kept at compat's. Default: the
            solution with the middle angle in [−π/2, π/2].

    Returns:
        Angles, shape (3,).
    """
    m = finite_values(matrix, "rotation matrix", (3, 3))
    _axes(order)  # (a bad order is named before the angles)
    near = None if compat is None else finite_values(compat, "compat angles", (3,))
    return np.array(_euler_of(m, order, near))


def quaternion_euler(
    quaternion: ArrayLike, order: str, compat: ArrayLike | None = None
) -> FloatArray:
    """:func:`matrix_euler` of :func:`quaternion_matrix`: the same angles.

    Without the matrix as an array between: a control's turn is written so on every drag
    event.
    """
    rows = _quaternion_rows(finite_values(quaternion, "quaternion", (4,)))
    _axes(order)
    near = None if compat is None else finite_values(compat, "compat angles", (3,))
    return np.array(_euler_of(rows, order, near))


def _euler_of(m: list[list[float]], order: str, near: list[float] | None) -> list[float]:
    """:func:`matrix_euler`'s angles of the rows ``m``, nearest ``near`` where given.

    Of the solutions, each shifted by whole turns toward ``near``, the first nearest (the
    sum of squared differences) is kept, as ``min`` keeps it.
    """
    i, j, k, _ = _axes(order)
    solutions = _solutions(m, order, 0.0 if near is None else near[i])
    best: tuple[float, ...] = solutions[0]
    if near is not None:
        ti, tj, tk = near[i], near[j], near[k]
        least = math.inf
        for a, b, c in solutions:
            wrapped = (_near(a, ti), _near(b, tj), _near(c, tk))
            distance = (wrapped[0] - ti) ** 2 + (wrapped[1] - tj) ** 2 + (wrapped[2] - tk) ** 2
            if distance < least:
                best, least = wrapped, distance
    result = [0.0, 0.0, 0.0]
    result[i], result[j], result[k] = best
    return result


ROTATION_ROUNDING = 1e-6
"""Largest turn [rad] between a rotation and the one Blender stores of it in single
precision. Each of a unit quaternion's four floats is within half a unit in the last
place (2^-25) of its value, which turns the rotation by at most 2^-23 (1.2e-7 rad); an
axis-angle of up to a full turn is off by at most about 8e-7 rad (its angle's rounding,
2^-22, plus the axis's, 2π · 2^-24). A rotation stored so is inside Euler-angle limits
when some Euler angles within this turn of it are."""


def _turn(first: FloatArray, second: FloatArray, order: str) -> float:
    """The angle [rad] between the rotations of two sets of Euler angles (small angles)."""
    difference = euler_matrix(first, order) - euler_matrix(second, order)
    return float(np.linalg.norm(difference)) / math.sqrt(2.0)


def _excess(rows: FloatArray, offsets: FloatArray, angles: FloatArray) -> float:
    return float(np.max(offsets - rows @ angles, initial=0.0))


def _slide(
    angles: FloatArray, order: str, rows: FloatArray, offsets: FloatArray, tolerance: float
) -> FloatArray:
    """``angles`` moved to meet the limits as far as a turn within ``tolerance`` allows.

    Turning the first angle by δ and the last by −δ·(R_j(b)·e_i)_k turns the rotation by
    |δ|·cos b only (b the middle angle): near gimbal lock, a long way in angles for a
    rotation Blender stores to single precision.
    """
    gaps = offsets - rows @ angles  # a row is met where along · δ ≥ gap
    if float(np.max(gaps, initial=0.0)) <= 0.0:
        return angles
    i, j, k, _ = _axes(order)
    direction = np.zeros(3)
    direction[i] = 1.0
    direction[k] = -float(_rotation(j, float(angles[j]))[k, i])
    along = rows @ direction
    moving = np.flatnonzero(along != 0.0)
    candidates = (gaps[moving] / along[moving]).tolist()
    for p in moving:  # where two rows pulling opposite ways are equally violated
        for q in moving:
            if along[p] > 0.0 > along[q]:
                candidates.append(float((gaps[p] - gaps[q]) / (along[p] - along[q])))
    reach = min(tolerance / max(abs(math.cos(float(angles[j]))), 1e-300), 2.0 * math.pi)
    for _ in range(64):
        best = min(
            (float(np.max(gaps - along * d, initial=0.0)), abs(d), d)
            for d in np.clip([0.0, -reach, reach, *candidates], -reach, reach).tolist()
        )
        delta = float(best[2])
        moved: FloatArray = angles + delta * direction
        # the turn grows faster than |δ|·cos b far along: shrink to what the tolerance allows
        if delta == 0.0 or _turn(angles, moved, order) <= tolerance:
            return moved
        reach = 0.5 * abs(delta)
    return angles


def fit_euler(
    matrix: ArrayLike,
    order: str,
    rows: ArrayLike,
    offsets: ArrayLike,
    compat: ArrayLike | None = None,
    tolerance: float = ROTATION_ROUNDING,
) -> FloatArray:
    """Euler angles [rad] (about X, Y, Z) of a stored rotation that best keep limits.

    A rotation read from single-precision channels has many Euler readings equally
    true to it: its two decompositions, each shifted by whole turns, and, near gimbal
    lock (the middle angle near ±90°), outer angles that a turn within ``tolerance``
    moves far. Of these, the one that violates ``rows · angles ≥ offsets`` least is
    returned; among equals, the one nearest ``compat`` (default: the reading of
    :func:`matrix_euler` without it). A pose written within its limits is so read back
    within them, however ill-conditioned its Euler angles.

    Args:
        matrix: The rotation, shape (3, 3).
        order: One of :data:`EULER_ORDERS`.
        rows: Limit rows over the angles about X, Y, Z, shape (m, 3).
        offsets: Their right-hand sides, shape (m,).
        compat: Angles (about X, Y, Z) to stay near among equally good readings.
        tolerance: Largest turn [rad] of the rotation a reading may make
            (:data:`ROTATION_ROUNDING`).

    Returns:
        Angles, shape (3,).
    """
    r = finite_array(matrix, "rotation matrix", (3, 3))
    limit_rows = finite_array(rows, "limit rows").reshape(-1, 3)
    limit_offsets = finite_array(offsets, "limit offsets", (limit_rows.shape[0],))
    _, j, _, _ = _axes(order)
    near = matrix_euler(r, order, compat)
    if tolerance <= _QUICK_REACH * abs(math.cos(float(near[j]))):
        # Away from gimbal lock each reading slides at most _QUICK_REACH: every other
        # one starts π or more from ``near`` in some angle and stays farther from it
        # than ``near`` slid, so ``near`` slid onto the limits is the one chosen.
        slid = _slide(near, order, limit_rows, limit_offsets, tolerance)
        if _excess(limit_rows, limit_offsets, slid) <= _FITTING:
            return slid
    return _fit_all(r, order, limit_rows, limit_offsets, near, compat, tolerance)


_QUICK_REACH = 1.0
"""Largest slide [rad] of a reading for which :func:`fit_euler` tries ``near`` alone first."""
_FITTING = 1e-12
"""Excess above the least by which a reading still keeps the limits best."""


def _fit_all(
    r: FloatArray,
    order: str,
    limit_rows: FloatArray,
    limit_offsets: FloatArray,
    near: FloatArray,
    compat: ArrayLike | None,
    tolerance: float,
) -> FloatArray:
    """:func:`fit_euler`'s choice among every reading: both decompositions, whole turns."""
    i, j, k, _ = _axes(order)
    centre = np.zeros(3) if compat is None else np.asarray(compat, dtype=float)
    involved = np.any(limit_rows != 0.0, axis=0).astype(float)  # whole turns matter there
    readings = []
    for first, middle, last in _solutions(r.tolist(), order, float(near[i])):
        base = np.zeros(3)
        base[i], base[j], base[k] = first, middle, last
        base = np.array([_near(float(x), float(t)) for x, t in zip(base, centre, strict=True)])
        for shift in np.ndindex(*(3 if limited else 1 for limited in involved)):
            turns = np.array(shift, dtype=float) - involved  # −1, 0, +1 on limited angles
            readings.append(
                _slide(base + 2.0 * math.pi * turns, order, limit_rows, limit_offsets, tolerance)
            )
    excess = np.array([_excess(limit_rows, limit_offsets, a) for a in readings])
    fitting = np.flatnonzero(excess <= excess.min() + _FITTING)
    distance = [float(np.sum((readings[f] - near) ** 2)) for f in fitting]
    return readings[int(fitting[int(np.argmin(distance))])]


def quaternion_matrices(quaternions: FloatArray) -> FloatArray:
    """:func:`quaternion_matrix` of k quaternions (w, x, y, z) at once, each nonzero, (k, 3, 3)."""
    q = quaternions / np.sqrt((quaternions * quaternions).sum(axis=1))[:, None]
    w, x, y, z = q.T
    result = np.empty((q.shape[0], 3, 3))
    result[:, 0, 0] = 1 - 2 * (y * y + z * z)
    result[:, 0, 1] = 2 * (x * y - w * z)
    result[:, 0, 2] = 2 * (x * z + w * y)
    result[:, 1, 0] = 2 * (x * y + w * z)
    result[:, 1, 1] = 1 - 2 * (x * x + z * z)
    result[:, 1, 2] = 2 * (y * z - w * x)
    result[:, 2, 0] = 2 * (x * z - w * y)
    result[:, 2, 1] = 2 * (y * z + w * x)
    result[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return result


def matrices_euler(
    matrices: FloatArray, order: str, compat: FloatArray | None = None
) -> FloatArray:
    """:func:`matrix_euler` of k rotation matrices (k, 3, 3) in one ``order`` at once, (k, 3).

    Both decompositions of every matrix are found together; one at gimbal lock (where
    only a combination of the outer angles is defined) is read by :func:`matrix_euler`.

    Args:
        matrices: Rotation matrices, shape (k, 3, 3).
        order: One of :data:`EULER_ORDERS`.
        compat: Angles (about X, Y, Z) to stay close to, shape (k, 3), or None.
    """
    i, j, k, s = _axes(order)
    r = matrices
    cos_b = np.hypot(r[:, i, i], r[:, j, i])
    b = np.arctan2(np.clip(-s * r[:, k, i], -1.0, 1.0), cos_b)
    a = np.arctan2(s * r[:, k, j], r[:, k, k])
    c = np.arctan2(s * r[:, j, i], r[:, i, i])
    first = np.stack((a, b, c), axis=1)
    best = first
    if compat is not None:
        second = np.stack((a + math.pi, math.pi - b, c + math.pi), axis=1)
        target = compat[:, [i, j, k]]
        turn = 2.0 * math.pi
        one = first + turn * np.round((target - first) / turn)
        two = second + turn * np.round((target - second) / turn)
        further = ((two - target) ** 2).sum(axis=1) < ((one - target) ** 2).sum(axis=1)
        best = np.where(further[:, None], two, one)
    result = np.zeros((r.shape[0], 3))
    result[:, [i, j, k]] = best
    for row in np.flatnonzero(cos_b <= 1e-9):  # gimbal lock
        result[row] = matrix_euler(r[row], order, None if compat is None else compat[row])
    return result


def quaternions_euler(
    quaternions: FloatArray, order: str, compat: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """Euler angles in ``order`` (about X, Y, Z) and matrices of k nonzero quaternions at once.

    :func:`matrices_euler` of :func:`quaternion_matrices`, in one kernel call where the
    kernel runs (reading many bones' rotations); a rotation at gimbal lock is read by
    :func:`matrix_euler`.

    Args:
        quaternions: Shape (k, 4), (w, x, y, z), none zero.
        order: One of :data:`EULER_ORDERS`.
        compat: Angles (about X, Y, Z) to stay close to, shape (k, 3), or None.

    Returns:
        The angles (k, 3) and the rotation matrices (k, 3, 3).
    """
    axes = _axes(order)
    compiled = kernel.active()
    if compiled is None:
        matrices = quaternion_matrices(quaternions)
        return matrices_euler(matrices, order, compat), matrices
    angles, matrices, locked = compiled.quaternions_euler(quaternions, axes, compat)
    for row in np.flatnonzero(locked):
        angles[row] = matrix_euler(matrices[row], order, None if compat is None else compat[row])
    return angles, matrices


def euler_quaternions(angles: ArrayLike, axes: ArrayLike) -> FloatArray:
    """Unit quaternions (w, x, y, z) of k rotations at once, each three turns in a row.

    The batched counterpart of :func:`euler_matrix` (for writing many bones' rotations
    in one go): rotation r turns by ``angles[r, 0]`` about axis ``axes[r, 0]`` first, then
    by ``angles[r, 1]`` about ``axes[r, 1]``, then by ``angles[r, 2]`` about ``axes[r, 2]``,
    all about fixed axes. An Euler order's letters are its axes: Euler angles ``e`` in
    order ``"XYZ"`` are ``angles = (e[0], e[1], e[2])``, ``axes = (0, 1, 2)``.

    Args:
        angles: Shape (k, 3) [rad], the turns in the order they are applied.
        axes: Shape (k, 3), integers 0, 1, 2 for X, Y, Z.

    Returns:
        Shape (k, 4); ``quaternion_matrix(result[r])`` is rotation r.
    """
    compiled = kernel.active()
    if compiled is not None:  # one call, the same numbers
        return compiled.euler_quaternions(np.asarray(angles, dtype=np.float64), axes)
    return numpy_euler_quaternions(angles, axes)


def numpy_euler_quaternions(angles: ArrayLike, axes: ArrayLike) -> FloatArray:
    """:func:`euler_quaternions` by numpy (the kernel's reference)."""
    half = 0.5 * np.asarray(angles, dtype=np.float64)
    about = np.asarray(axes, dtype=np.intp)
    k = half.shape[0]
    turns = np.zeros((k, 3, 4))  # each turn's quaternion: rotation, turn, component
    turns[:, :, 0] = np.cos(half)
    turns[np.arange(k)[:, None], np.arange(3), 1 + about] = np.sin(half)
    # each turn's quaternion times the turns before it
    return _products(turns[:, 2], _products(turns[:, 1], turns[:, 0]))


def _products(q: FloatArray, p: FloatArray) -> FloatArray:
    """The Hamilton products q_r p_r of two stacks of quaternions (k, 4), at once.

    Each ``q_r`` becomes its left-multiplication matrix (one matrix product with the
    tensor), which then multiplies ``p_r``.
    """
    left = (q @ _HAMILTON_LEFT).reshape(-1, 4, 4)
    product: FloatArray = (left @ p[:, :, None])[:, :, 0]
    return product


def _hamilton() -> FloatArray:
    """The Hamilton product as a tensor: ``(q p)_i = Σ_jk T_ijk q_j p_k``, (w, x, y, z)."""
    tensor = np.zeros((4, 4, 4))
    for i, j, k, sign in (
        (0, 0, 0, 1), (0, 1, 1, -1), (0, 2, 2, -1), (0, 3, 3, -1),
        (1, 0, 1, 1), (1, 1, 0, 1), (1, 2, 3, 1), (1, 3, 2, -1),
        (2, 0, 2, 1), (2, 1, 3, -1), (2, 2, 0, 1), (2, 3, 1, 1),
        (3, 0, 3, 1), (3, 1, 2, 1), (3, 2, 1, -1), (3, 3, 0, 1),
    ):  # fmt: skip
        tensor[i, j, k] = sign
    return tensor


_HAMILTON = _hamilton()
_HAMILTON_LEFT = np.ascontiguousarray(_HAMILTON.transpose(1, 0, 2).reshape(4, 16))
"""The tensor with q's index first: ``q @ _HAMILTON_LEFT`` is q's left-multiplication
matrix, row-major (i, k)."""


SIMILARITY_TOLERANCE = 1e-4
"""Relative room :func:`is_similarity` leaves for rounding. Blender computes bone rest
matrices in single precision from heads, tails and rolls: among Rigify's metarigs
``MᵀM`` strays from ``s² · I`` by up to 3.2e-5 (the horse's ``tail.001``; the bird's
``t_thumb.001.L`` 1.1e-5, the humans' 3.8e-6). The figure keeps those very numbers, so
that its poses match Blender's; a true shear or non-uniform scale (0.1% is 2e-3) is
refused."""


def linear_scale(linear: ArrayLike) -> float:
    """The uniform scale of a 3×3 similarity: the cube root of its determinant's size."""
    return float(np.cbrt(abs(np.linalg.det(np.asarray(linear, dtype=np.float64)))))


def is_similarity(linear: ArrayLike) -> bool:
    """Whether a (3, 3) matrix is a rotation times a uniform positive scale.

    No shear, mirroring or non-uniform scale, to :data:`SIMILARITY_TOLERANCE`: ``MᵀM``
    is within it of ``s² · I``, relative to ``s²``.

    Args:
        linear: Shape (3, 3), finite.
    """
    return similar_rows(np.asarray(linear, dtype=np.float64).tolist())


def gram_entries(
    rows: Sequence[Sequence[float]],
) -> tuple[float, float, float, float, float, float]:
    """MᵀM of a 3 × 3 matrix M given by its first three rows as Python floats.

    Its diagonal (xx, yy, zz), then (xy, xz, yz); columns past the third are not read.
    Nine numbers: plain floats are several times faster than numpy's small-array calls
    (a moving armature's figure checks its motion on every frame).
    """
    (a, b, c, *_), (d, e, f, *_), (g, h, i, *_) = rows[:3]
    return (
        a * a + d * d + g * g,
        b * b + e * e + h * h,
        c * c + f * f + i * i,
        a * b + d * e + g * h,
        a * c + d * f + g * i,
        b * c + e * f + h * i,
    )


def similar_rows(rows: Sequence[Sequence[float]]) -> bool:
    """:func:`is_similarity` of a 3 × 3 matrix's first three rows, given as Python floats."""
    (a, b, c, *_), (d, e, f, *_), (g, h, i, *_) = rows[:3]
    xx, yy, zz, xy, xz, yz = gram_entries(rows)
    scale2 = (xx + yy + zz) / 3.0
    if not scale2 > 1e-18 or a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) <= 0.0:
        return False
    room: float = scale2 * SIMILARITY_TOLERANCE
    largest: float = max(
        abs(xx - scale2), abs(yy - scale2), abs(zz - scale2), abs(xy), abs(xz), abs(yz)
    )
    return largest <= room
