"""Euler angles in float64, in Blender's convention.

An Euler order ``"XYZ"`` means the rotation ``R = R_z(γ) · R_y(β) · R_x(α)``: about X
first, then Y, then Z, all about fixed axes. Angles are given and returned per axis
(``angles[0]`` about X, ``angles[1]`` about Y, ``angles[2]`` about Z), whatever the order,
as Blender's ``Euler`` stores them.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_array
from .exceptions import SolverInputError

__all__ = [
    "EULER_ORDERS",
    "euler_matrix",
    "euler_quaternions",
    "is_similarity",
    "matrix_euler",
    "quaternion_matrix",
]

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_EVEN = ("XYZ", "YZX", "ZXY")


def _axes(order: str) -> tuple[int, int, int, float]:
    if order not in EULER_ORDERS:
        raise SolverInputError(
            f"Euler order must be one of {', '.join(EULER_ORDERS)}, got {order!r}", item="order"
        )
    i, j, k = ("XYZ".index(a) for a in order)
    return i, j, k, 1.0 if order in _EVEN else -1.0


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
    values = finite_array(angles, "Euler angles", (3,))
    result = np.eye(3)
    for axis in _axes(order)[:3]:
        result = _rotation(axis, float(values[axis])) @ result
    return result


def quaternion_matrix(quaternion: ArrayLike) -> FloatArray:
    """The rotation matrix (3, 3) of a quaternion (w, x, y, z); it need not be unit."""
    q = finite_array(quaternion, "quaternion", (4,))
    norm = float(np.linalg.norm(q))
    if norm <= 0.0:
        raise SolverInputError("quaternion is zero", item="quaternion")
    w, x, y, z = q / norm
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def _near(angle: float, target: float) -> float:
    return angle + 2.0 * math.pi * round((target - angle) / (2.0 * math.pi))


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
    r = finite_array(matrix, "rotation matrix", (3, 3))
    i, j, k, s = _axes(order)
    near = None if compat is None else finite_array(compat, "compat angles", (3,))
    cos_b = math.hypot(r[i, i], r[j, i])
    b = math.atan2(float(np.clip(-s * r[k, i], -1.0, 1.0)), cos_b)
    if cos_b > 1e-9:
        a = math.atan2(s * r[k, j], r[k, k])
        c = math.atan2(s * r[j, i], r[i, i])
        solutions = [(a, b, c), (a + math.pi, math.pi - b, c + math.pi)]
    else:  # gimbal lock: only a combination of the outer angles is defined
        a = 0.0 if near is None else float(near[i])
        # R_k(c) = R · R_i(a)ᵀ · R_j(b)ᵀ, a rotation about axis k
        rest = r @ _rotation(i, a).T @ _rotation(j, b).T
        u, v = (k + 1) % 3, (k + 2) % 3
        solutions = [(a, b, math.atan2(rest[v, u], rest[u, u]))]
    best: tuple[float, ...] = solutions[0]
    if near is not None:
        target = (float(near[i]), float(near[j]), float(near[k]))
        wrapped = [
            tuple(_near(x, t) for x, t in zip(sol, target, strict=True)) for sol in solutions
        ]
        best = min(
            wrapped, key=lambda sol: sum((x - t) ** 2 for x, t in zip(sol, target, strict=True))
        )
    result = np.zeros(3)
    result[i], result[j], result[k] = best
    return result


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
    turns = np.asarray(angles, dtype=np.float64)
    about = np.asarray(axes, dtype=np.intp)
    count = turns.shape[0]
    result = np.zeros((count, 4))
    result[:, 0] = 1.0
    every = np.arange(count)
    for s in range(3):
        half = 0.5 * turns[:, s]
        step = np.zeros((count, 4))
        step[:, 0] = np.cos(half)
        step[every, 1 + about[:, s]] = np.sin(half)
        w1, x1, y1, z1 = step.T
        w2, x2, y2, z2 = result.T
        result = np.stack(
            (
                w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            ),
            axis=1,
        )
    return result


SIMILARITY_TOLERANCE = 1e-4
"""Relative room :func:`is_similarity` leaves for rounding. Blender computes bone rest
matrices in single precision from heads, tails and rolls: among Rigify's metarigs
``MᵀM`` strays from ``s² · I`` by up to 3.2e-5 (the horse's ``tail.001``; the bird's
``t_thumb.001.L`` 1.1e-5, the humans' 3.8e-6). The figure keeps those very numbers, so
that its poses match Blender's; a true shear or non-uniform scale (0.1% is 2e-3) is
refused."""


def is_similarity(linear: ArrayLike) -> bool:
    """Whether a (3, 3) matrix is a rotation times a uniform positive scale.

    No shear, mirroring or non-uniform scale, to :data:`SIMILARITY_TOLERANCE`: ``MᵀM``
    is within it of ``s² · I``, relative to ``s²``.

    Args:
        linear: Shape (3, 3), finite.
    """
    matrix = np.asarray(linear, dtype=np.float64)
    gram = matrix.T @ matrix
    scale2 = float(np.trace(gram)) / 3.0
    return not (
        scale2 <= 1e-18
        or np.linalg.det(matrix) <= 0.0
        or bool((np.abs(gram - scale2 * np.eye(3)) > scale2 * SIMILARITY_TOLERANCE).any())
    )
