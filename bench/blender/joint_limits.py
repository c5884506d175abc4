"""Joint limits as Reach and as Blender's Standard IK read them, from evaluated rotations.

Part of ``bench.blender.versus_ik``: Reach's reading (Euler angles within bounds, limit polygons
over two of them) and Standard IK's (twist about Y, swing of the Y axis on a quarter
ellipse per quadrant), each as the angle to the nearest allowed rotation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import bpy  # noqa: F401  (before mathutils: importing bpy puts it on sys.path)

# isort: split
import numpy as np
from mathutils import Matrix

from bench.blender.rigs import evaluated


def local_rotations(obj: Any, bones: Iterable[str]) -> dict[str, np.ndarray]:
    """Each bone's evaluated rotation relative to its rest frame in its parent (the
    rotation part of what ``matrix_basis`` would be), as a 3×3 array."""
    ev = evaluated(obj)
    result = {}
    for name in bones:
        pose_bone = ev.pose.bones[name]
        bone = ev.data.bones[name]
        pose = np.array(pose_bone.matrix, dtype=float)
        rest = np.array(bone.matrix_local, dtype=float)
        if bone.parent is not None:
            parent_pose = np.array(pose_bone.parent.matrix, dtype=float)
            parent_rest = np.array(bone.parent.matrix_local, dtype=float)
            # M = M_p · (B_p⁻¹ B) · L  ⇒  L = (B_p⁻¹ B)⁻¹ M_p⁻¹ M
            local = np.linalg.solve(
                np.linalg.solve(parent_rest, rest), np.linalg.solve(parent_pose, pose)
            )
        else:
            local = np.linalg.solve(rest, pose)
        rotation = local[:3, :3]
        u, _, vt = np.linalg.svd(rotation)  # drop float32 noise and any scale
        result[name] = u @ vt
    return result


def ik_limits(obj: Any, bone: str) -> dict[str, tuple[float, float]]:
    """The bone's enabled IK limits per axis [rad]."""
    pose_bone = obj.pose.bones[bone]
    return {
        axis: (getattr(pose_bone, f"ik_min_{axis}"), getattr(pose_bone, f"ik_max_{axis}"))
        for axis in "xyz"
        if getattr(pose_bone, f"use_ik_limit_{axis}")
    }


def _excess(angle: float, low: float, high: float) -> float:
    """How far an angle (any turn of it) lies outside [low, high] [rad]."""
    best = math.inf
    for turn in (-1, 0, 1):
        a = angle + 2.0 * math.pi * turn
        best = min(best, max(0.0, low - a, a - high))
    return best


def euler_solutions(rotation: np.ndarray, order: str) -> tuple[dict[str, float], dict[str, float]]:
    """The two sets of Euler angles in ``order`` that give the rotation, by axis [rad]:
    Blender's, and the one with the middle angle mirrored (π − it) and the others turned
    by π."""
    euler = Matrix(rotation.tolist()).to_euler(order)
    first = {"x": euler.x, "y": euler.y, "z": euler.z}
    middle = order[1].lower()
    second = {
        axis: (math.pi - value if axis == middle else value + math.pi)
        for axis, value in first.items()
    }
    return first, second


def euler_box_violation(
    rotation: np.ndarray, limits: dict[str, tuple[float, float]], order: str
) -> float:
    """Reach's reading: the rotation as Euler angles in ``order`` (Reach's default for
    quaternion bones: YXZ) against per-axis bounds; the better of the two Euler
    solutions counts [rad]."""
    if not limits:
        return 0.0
    return min(
        max(_excess(angles[axis], *bounds) for axis, bounds in limits.items())
        for angles in euler_solutions(rotation, order)
    )


def euler_box_distance(
    rotation: np.ndarray, limits: dict[str, tuple[float, float]], order: str
) -> float:
    """Reach's reading as a rotation distance: the angle [rad] from the rotation to the
    nearest rotation whose Euler angles in ``order`` lie within the bounds (axes without
    limits free). Unlike :func:`euler_box_violation` it does not blow up near gimbal
    lock (X ≈ ±90° in YXZ), where Euler angles far outside the box can describe a
    rotation close to one inside."""
    if euler_box_violation(rotation, limits, order) <= 1e-12:
        return 0.0
    low = np.array([limits.get(axis, (-np.inf, np.inf))[0] for axis in "xyz"])
    high = np.array([limits.get(axis, (-np.inf, np.inf))[1] for axis in "xyz"])

    def gap(angles: np.ndarray) -> float:  # ‖R − Q‖²_F = 8 sin²(φ/2)
        other = euler_matrix(dict(zip("xyz", angles, strict=True)), order)
        return float(np.sum((rotation - other) ** 2))

    euler = Matrix(rotation.tolist()).to_euler(order)
    first = np.array((euler.x, euler.y, euler.z))
    middle = "xyz".index(order[1].lower())
    second = first + math.pi
    second[middle] = math.pi - first[middle]
    best = math.inf
    for start in (first, second):
        angles = np.array(
            [
                min(
                    (a + 2.0 * math.pi * turn for turn in (-1, 0, 1)),
                    key=lambda v, k=k: max(0.0, low[k] - v, v - high[k]),
                )
                for k, a in enumerate(start)
            ]
        )
        angles = np.clip(angles, low, high)
        value, step = gap(angles), 0.1
        for _ in range(200):
            h = 1e-7
            grad = np.array(
                [(gap(angles + h * e) - gap(angles - h * e)) / (2 * h) for e in np.eye(3)]
            )
            trial = np.clip(angles - step * grad, low, high)
            trial_value = gap(trial)
            if trial_value < value:
                if value - trial_value < 1e-16:
                    angles, value = trial, trial_value
                    break
                angles, value, step = trial, trial_value, 2.0 * step
            else:
                step *= 0.25
                if step < 1e-12:
                    break
        best = min(best, value)
    return 2.0 * math.asin(min(1.0, math.sqrt(best / 8.0)))


def _ellipse_clamp(
    ax: float, az: float, amin: Sequence[float], amax: Sequence[float]
) -> tuple[float, float]:
    """Blender's ``EllipseClamp`` (intern/iksolver/intern/IK_Math.h)."""
    x, xlim = (-ax, -amin[0]) if ax < 0.0 else (ax, amax[0])
    z, zlim = (-az, -amin[1]) if az < 0.0 else (az, amax[1])
    tiny = 1e-20
    if abs(xlim) < tiny or abs(zlim) < tiny:
        x, z = min(x, xlim), min(z, zlim)
    else:
        invx, invz = 1.0 / (xlim * xlim), 1.0 / (zlim * zlim)
        if x * x * invx + z * z * invz <= 1.0:
            return ax, az
        if abs(x) < tiny:
            x, z = 0.0, zlim
        else:
            rico = z / x
            x = math.sqrt(1.0 / (invx + invz * rico * rico))
            z = rico * x
    return (-x if ax < 0.0 else x), (-z if az < 0.0 else z)


def swing_twist_violation(rotation: np.ndarray, limits: dict[str, tuple[float, float]]) -> float:
    """Blender's Standard IK reading (IK_QSphericalSegment): the rotation split into a
    swing of the Y axis and a twist about it; the twist angle is bounded by the Y limits,
    the swing's quaternion X and Z components by sin(limit/2), on a quarter ellipse per
    quadrant when both X and Z are limited. Returns the angle [rad] between the
    rotation and the nearest one that reading allows."""
    if not limits:
        return 0.0
    r = rotation
    tau = 2.0 * math.atan2(r[0, 2] - r[2, 0], r[0, 0] + r[1, 1] + r[2, 2] + 1.0)
    twist = 0.0
    if "y" in limits:
        low, high = (min(max(v, -math.pi), math.pi) for v in limits["y"])
        twist = max(0.0, low - tau, tau - high)
    num = 2.0 * (1.0 + r[1, 1])
    if num < 1e-20:
        ax, az = 0.0, 1.0
    else:
        ax, az = -r[2, 1] / math.sqrt(num), r[0, 1] / math.sqrt(num)
    amin, amax = [0.0, 0.0], [0.0, 0.0]
    for k, axis in ((0, "x"), (1, "z")):
        if axis in limits:
            low, high = (min(max(v, -math.pi), math.pi) for v in limits[axis])
            amin[k], amax[k] = -math.sin(0.5 * high), -math.sin(0.5 * low)
    cx, cz = ax, az
    if "x" in limits and "z" in limits:
        cx, cz = _ellipse_clamp(ax, az, amin, amax)
    elif "x" in limits:
        cx = min(max(ax, amin[0]), amax[0])
    elif "z" in limits:
        cz = min(max(az, amin[1]), amax[1])

    def quaternion(x: float, z: float) -> np.ndarray:
        return np.array((math.sqrt(max(0.0, 1.0 - x * x - z * z)), x, 0.0, z))

    if (cx, cz) == (ax, az):
        return twist
    q, c = quaternion(ax, az), quaternion(cx, cz)
    swing = 2.0 * math.atan2(float(np.linalg.norm(q - c)), float(np.linalg.norm(q + c)))
    return max(twist, swing)


def limit_violations(
    obj: Any, bones: Iterable[str], order: str = "YXZ"
) -> tuple[float, float, float]:
    """Largest violation [deg] over ``bones`` of their IK limits in the evaluated pose:
    (Reach's Euler-box reading as a rotation distance, the same as an excess of Euler
    angles, Blender's swing-twist reading)."""
    bones = list(bones)
    if not bones:
        return 0.0, 0.0, 0.0
    rotations = local_rotations(obj, bones)
    box = euler = swing = 0.0
    for name in bones:
        limits = ik_limits(obj, name)
        box = max(box, euler_box_distance(rotations[name], limits, order))
        euler = max(euler, euler_box_violation(rotations[name], limits, order))
        swing = max(swing, swing_twist_violation(rotations[name], limits))
    return math.degrees(box), math.degrees(euler), math.degrees(swing)


def polygon_excess(point: Sequence[float], vertices: Sequence[Sequence[float]]) -> float:
    """How far ``point`` lies outside the convex polygon: the largest signed distance
    past an edge's line (0 inside), in the units of the vertices."""
    return max(0.0, polygon_signed(point, vertices))


def polygon_signed(point: Sequence[float], vertices: Sequence[Sequence[float]]) -> float:
    """The largest signed distance of ``point`` past the lines of the convex polygon's
    edges: positive outside (how far past the most violated edge), negative inside
    (minus the distance to the nearest edge's line), in the units of the vertices."""
    corners = np.asarray(vertices, dtype=float)
    edges = np.roll(corners, -1, axis=0) - corners
    area = float(np.sum(corners[:, 0] * edges[:, 1] - corners[:, 1] * edges[:, 0]))
    inward = np.column_stack((-edges[:, 1], edges[:, 0])) * math.copysign(1.0, area)
    inward /= np.linalg.norm(inward, axis=1)[:, None]
    outside = -np.sum(inward * (np.asarray(point, dtype=float) - corners), axis=1)
    return float(np.max(outside))


def joint_polygon(obj: Any, bone: str) -> tuple[str, str, list[tuple[float, float]]]:
    """(Euler order, polygon axes, vertices [rad]) of the bone's Reach limit polygon,
    as the add-on's ``build_rig`` reads them."""
    joint = obj.reach.joints[bone]
    mode = obj.pose.bones[bone].rotation_mode
    order = mode if mode in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX") else joint.euler_order
    return order, joint.polygon_axes, [tuple(v.value) for v in joint.polygon]


def rotation_polygon_signed(
    rotation: np.ndarray, order: str, axes: str, vertices: Sequence[Sequence[float]]
) -> float:
    """:func:`polygon_signed` of a bone's local rotation against its limit polygon
    [rad]: the rotation as Euler angles in ``order`` (as Reach reads the bone), the two
    angles of ``axes`` against the polygon; the better of the two Euler solutions
    counts."""
    return min(
        polygon_signed([math.remainder(angles[a.lower()], 2.0 * math.pi) for a in axes], vertices)
        for angles in euler_solutions(rotation, order)
    )


def polygon_signed_pose(obj: Any, bones: Iterable[str]) -> float:
    """The largest :func:`polygon_signed` [deg] over ``bones`` of their limit polygons in
    the evaluated pose (each evaluated local rotation read as Reach reads the bone's
    channels): positive is the largest violation, negative means every bone is inside
    by at least that much."""
    bones = list(bones)
    if not bones:
        return -math.inf
    rotations = local_rotations(obj, bones)
    return math.degrees(
        max(rotation_polygon_signed(rotations[b], *joint_polygon(obj, b)) for b in bones)
    )


def euler_matrix(angles: dict[str, float], order: str) -> np.ndarray:
    """R for Euler angles about x, y, z applied in ``order`` (Blender's convention:
    ``XYZ`` is R_z · R_y · R_x)."""
    result = np.eye(3)
    for axis in order:
        c, s = math.cos(angles[axis.lower()]), math.sin(angles[axis.lower()])
        if axis == "X":
            step = np.array(((1, 0, 0), (0, c, -s), (0, s, c)))
        elif axis == "Y":
            step = np.array(((c, 0, s), (0, 1, 0), (-s, 0, c)))
        else:
            step = np.array(((c, -s, 0), (s, c, 0), (0, 0, 1)))
        result = step @ result
    return result
