"""Pose-bone channels ↔ θ: :func:`read_pose`, :class:`PoseWriter`, :class:`PoseSnapshot`.

Each bone is read and written in its own rotation mode (Euler, quaternion or axis-angle),
through the Euler angles of its :class:`~.rig.BoneLayout`; see :mod:`..bridge` for the
conventions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...solver import rotations
from ...solver.limits import clamp_to_limits
from ..errors import BlenderDataError
from ..vocabulary import AXES
from .arrays import Array, IndexArray, channel, pose_rows, pose_written
from .joints import euler_order, joint_frame, joint_settings
from .keys import rotation_channel
from .pose_reader import PoseReader
from .rig import BoneLayout, Rig

ROUNDING_SLACK = 1e-5
"""Blender stores channels and limits in single precision: a joint the solver left
exactly on a limit reads back up to ~1e-7 past it. Values past a limit by no more than
this ([rad] or length) are put back onto it."""

CONVERSION_NOISE = 1e-12
"""Largest limit excess [rad] that converting a stored rotation to Euler angles makes
by double-precision rounding alone; :func:`fit_limits` reads no bone again for it."""

CHANGE_THRESHOLD = 1e-6
"""A bone counts as moved when one of its joint values changed by more than this
([rad] or length)."""


def bone_matrix(pose_bone: Any, mode: str) -> Array | None:
    """The rotation matrix (3, 3) of a quaternion or axis-angle bone (None: an Euler bone).

    Raises:
        BlenderDataError: If the channel is not finite, or a quaternion is zero.
    """
    if mode in rotations.EULER_ORDERS:
        return None
    if mode == "QUATERNION":
        values = np.array(pose_bone.rotation_quaternion, dtype=float)
    else:
        values = np.array(pose_bone.rotation_axis_angle, dtype=float)
    if not np.all(np.isfinite(values)):
        raise _not_finite(pose_bone.name)
    if mode == "QUATERNION" and not values.any():
        raise BlenderDataError(
            f"bone '{pose_bone.name}' has a zero quaternion (0, 0, 0, 0), which is no rotation; "
            "clear its rotation (Alt R) or set W to 1"
        )
    if mode == "QUATERNION":
        return rotations.quaternion_matrix(values)
    angle, axis = float(values[0]), values[1:]
    norm = float(np.linalg.norm(axis))
    if norm == 0.0:
        return np.eye(3)
    half = 0.5 * angle
    return rotations.quaternion_matrix((math.cos(half), *(math.sin(half) * axis / norm)))


def bone_angles(pose_bone: Any, mode: str, order: str, compat: Array | None = None) -> Array:
    """The bone's rotation as Euler angles [rad] about X, Y, Z in ``order`` (float64).

    Args:
        pose_bone: The pose bone.
        mode: Its rotation mode, the channel read.
        order: The Euler order of the angles (the mode itself for an Euler bone).
        compat: Angles (about X, Y, Z) near which a quaternion or axis-angle bone is read.

    Raises:
        BlenderDataError: If the channel is not finite, or a quaternion is zero.
    """
    matrix = bone_matrix(pose_bone, mode)
    if matrix is not None:
        return rotations.matrix_euler(matrix, order, compat)
    values = np.array(pose_bone.rotation_euler, dtype=float)
    if not np.all(np.isfinite(values)):
        raise _not_finite(pose_bone.name)
    return values


def joint_matrix(pose_bone: Any, mode: str, frame: Array, matrix: Array | None = None) -> Array:
    """The bone's rotation seen in its joint's own axes: ``frameᵀ · R · frame``.

    Args:
        pose_bone: The pose bone.
        mode: Its rotation mode.
        frame: The joint's axes (columns) in the bone's frame.
        matrix: The bone's rotation if already read (:func:`bone_matrix`).
    """
    if matrix is None:
        matrix = bone_matrix(pose_bone, mode)
    if matrix is None:
        matrix = rotations.euler_matrix(bone_angles(pose_bone, mode, mode), mode)
    turned: Array = frame.T @ matrix @ frame
    return turned


def joint_angles(obj: Any, pose_bone: Any) -> Array:
    """The bone's rotation as the angles about X, Y, Z a solve reads.

    They are about the joint's own axes, in its Euler order (:func:`.joints.euler_order`),
    where the joint has them.

    Raises:
        BlenderDataError: If the bone's channels are not finite.
    """
    joint = joint_settings(obj, pose_bone.name)
    mode, order = pose_bone.rotation_mode, euler_order(joint, pose_bone)
    frame = joint_frame(joint, pose_bone.name)
    if frame is None:
        return bone_angles(pose_bone, mode, order)
    return rotations.matrix_euler(joint_matrix(pose_bone, mode, frame), order)


def _not_finite(bone: str) -> BlenderDataError:
    return BlenderDataError(
        f"bone '{bone}' has a non-finite (NaN or infinite) rotation or location; "
        "clear it (Alt R, Alt G) or set finite values"
    )


def axis_angles(theta: Array, entry: BoneLayout) -> Array:
    """The bone's rotation DOFs of θ as Euler angles about X, Y, Z."""
    angles = np.zeros(3)
    for offset, axis in enumerate(entry.order[::-1]):
        angles[AXES.index(axis)] = theta[entry.rotation + offset]
    return angles


def read_pose(obj: Any, rig: Rig, previous: Array | None = None, *, rounding: bool = True) -> Array:
    """θ of the armature's current pose.

    Args:
        obj: The armature object.
        rig: Its rig.
        previous: A nearby θ; quaternion bones are read as the Euler angles closest to it.
        rounding: Put values past a limit by single-precision rounding alone back onto
            it (:func:`settle`); False reads the channels as stored.

    Returns:
        θ, shape (n_dofs,).

    Every channel is read at once and the rotations converted in batches
    (:class:`.pose_reader.PoseReader`); bones with their own joint axes or in axis-angle
    mode, and every bone when the armature's bones changed in number since the rig was
    made (naming one that is gone), are read bone by bone.

    Raises:
        BlenderDataError: If a bone is gone or its channels are not finite.
    """
    bones = obj.pose.bones
    numbers: Iterable[int] = range(len(rig.layout))
    batched = hasattr(bones, "foreach_get")  # Blender's own bones, not a stand-in
    if batched and (rig.reader is None or rig.reader.n_bones != len(bones)):
        rig.reader = PoseReader(obj, rig)
    if batched and rig.reader.n_bones == len(bones):
        theta, stored = rig.reader.read(obj, previous)
        numbers = rig.reader.others
    else:
        theta, stored = np.zeros(rig.figure.n_dofs), {}
    for number in numbers:
        entry = rig.layout[number]
        pose_bone = bones.get(entry.name)
        if pose_bone is None:
            raise BlenderDataError(f"bone '{entry.name}' no longer exists in '{obj.name}'")
        matrix = bone_matrix(pose_bone, entry.mode)
        if entry.frame is not None:  # the joint turns about its own axes
            matrix = joint_matrix(pose_bone, entry.mode, entry.frame, matrix)
        if matrix is None:
            angles = bone_angles(pose_bone, entry.mode, entry.order)
        else:
            stored[number] = matrix
            compat = None if previous is None else axis_angles(previous, entry)
            angles = rotations.matrix_euler(matrix, entry.order, compat)
        set_axis_angles(theta, entry, angles)
        if entry.translation >= 0:
            location = np.array(pose_bone.location, dtype=float)
            if not np.all(np.isfinite(location)):
                raise _not_finite(entry.name)
            theta[entry.translation : entry.translation + 3] = location
    fit_limits(rig, theta, stored, previous)
    return settle(rig, theta) if rounding else theta


def set_axis_angles(theta: Array, entry: BoneLayout, angles: Array) -> None:
    """Put Euler angles about X, Y, Z into the bone's rotation DOFs of θ."""
    theta[entry.rotation : entry.rotation + 3] = [angles[AXES.index(a)] for a in entry.order[::-1]]


def fit_limits(
    rig: Rig, theta: Array, stored: dict[int, Array], previous: Array | None = None
) -> None:
    """Read the quaternion and axis-angle bones whose reading breaks a limit again, in place.

    Their Euler angles are a choice: of the readings of each stored rotation that turn
    it by at most :data:`~solver.rotations.ROTATION_ROUNDING` (single precision), the one
    that keeps the limits best (:func:`~solver.rotations.fit_euler`). Near gimbal lock a
    rotation written on a bound reads back far past it in angles, and beyond ±90° on the
    middle angle, on the other decomposition; the limits are what the written angles
    kept, so they choose.

    A limit broken by no more than :data:`CONVERSION_NOISE` is left as read: a rotation
    keyed or written on a bound of 0 often reads back past it by 1e-22 rad, the rounding
    of the conversion to angles, and :func:`settle` puts it back.

    Args:
        rig: The rig read.
        theta: Joint values as first read, shape (n_dofs,); changed in place.
        stored: Per layout index of a quaternion or axis-angle bone, its rotation matrix.
        previous: A nearby θ: among equally good readings, the nearest to it is taken.
    """
    limits = rig.figure.limits
    eq, ineq = limits.violations(theta)
    noise = CONVERSION_NOISE
    if not stored or not (np.any(eq > noise) or np.any(ineq > noise)):
        return
    broken = np.any(limits.a_in[ineq > noise] != 0.0, axis=0)  # the DOFs of broken rows
    broken |= np.any(limits.a_eq[eq > noise] != 0.0, axis=0)
    for number in np.unique(rig.dof_bones[broken]).tolist():
        matrix = stored.get(number)
        if matrix is None:  # an Euler bone: its angles are what was written
            continue
        entry = rig.layout[number]
        dofs = slice(entry.rotation, entry.rotation + 3)
        if not broken[dofs].any():
            continue
        on_in = limits.a_in[:, dofs].any(axis=1)
        on_eq = limits.a_eq[:, dofs].any(axis=1)
        # every row touching the bone as a ≥ b over its angles, the other DOFs held;
        # an equality as two such rows
        a_in, a_eq = limits.a_in[on_in], limits.a_eq[on_eq]
        local = np.vstack((a_in[:, dofs], a_eq[:, dofs], -a_eq[:, dofs]))
        gap_eq = limits.b_eq[on_eq] - a_eq @ theta
        rest = np.concatenate((limits.b_in[on_in] - a_in @ theta, gap_eq, -gap_eq))
        rest += local @ theta[dofs]
        by_axis = np.zeros((local.shape[0], 3))  # columns per axis X, Y, Z
        for offset, axis in enumerate(entry.order[::-1]):
            by_axis[:, AXES.index(axis)] = local[:, offset]
        compat = None if previous is None else axis_angles(previous, entry)
        angles = rotations.fit_euler(matrix, entry.order, by_axis, rest, compat=compat)
        set_axis_angles(theta, entry, angles)


def settle(rig: Rig, theta: Array) -> Array:
    """θ with any limit excess of single-precision rounding removed.

    An excess above :data:`ROUNDING_SLACK` is a real violation; it is left for the
    caller to report.
    """
    figure = rig.figure
    excess = figure.limits.max_violation(theta)
    if excess == 0.0 or excess > ROUNDING_SLACK:
        return theta
    return clamp_to_limits(theta, figure.limits, figure.lower, figure.upper)


def changed_bones(
    rig: Rig, before: Array, after: Array, threshold: float = CHANGE_THRESHOLD
) -> list[str]:
    """Bones with a joint value that changed by more than ``threshold`` between two poses."""
    moved = np.zeros(len(rig.layout), bool)
    moved[rig.dof_bones[np.abs(after - before) > threshold]] = True
    return [rig.layout[k].name for k in np.flatnonzero(moved)]


def write_pose(obj: Any, rig: Rig, theta: Array, bones: Sequence[str] | None = None) -> None:
    """Write θ into the pose bones' channels, each in its own rotation mode.

    Args:
        obj: The armature object.
        rig: Its rig.
        theta: Joint values, shape (n_dofs,).
        bones: Only these bones (default: all).
    """
    PoseWriter(obj, rig, bones).write(obj, theta)


Plan = tuple[IndexArray, IndexArray, IndexArray]
"""Rows of the bones in ``pose.bones``; per bone and Euler step (first applied first) the
index in θ and the axis (0–2)."""


class PoseWriter:
    """Writes θ into chosen pose bones with one read and one write per channel kind.

    The rotation of every chosen bone is computed by numpy for all of them at once; the
    channels are read with ``foreach_get`` and written back with ``foreach_set``, so the
    bones that are not chosen keep exactly the floats they had.

    Args:
        obj: The armature object.
        rig: Its rig.
        bones: The bones to write (default: all of the rig's).
    """

    def __init__(self, obj: Any, rig: Rig, bones: Sequence[str] | None = None) -> None:
        rows = pose_rows(obj.pose.bones)
        self.n_bones = len(rows)
        wanted = None if bones is None else set(bones)
        chosen = [e for e in rig.layout if wanted is None or e.name in wanted]
        self.empty = not chosen

        def plan(entries: list[BoneLayout]) -> Plan:
            steps = np.array([[e.rotation + 2 - s for s in range(3)] for e in entries], np.intp)
            axes = np.array([[AXES.index(letter) for letter in e.order] for e in entries], np.intp)
            return (
                np.array([rows[e.name] for e in entries], np.intp),
                steps.reshape(-1, 3),
                axes.reshape(-1, 3),
            )

        own = [e for e in chosen if e.frame is None]
        self.euler = plan([e for e in own if e.mode in rotations.EULER_ORDERS])
        euler_rows, euler_steps, euler_axes = self.euler
        self.euler_sources = np.empty_like(euler_steps)
        """Per Euler bone's channel (rows, 3), the θ index of its angle about X, Y, Z."""
        self.euler_sources[np.arange(euler_rows.size)[:, None], euler_axes] = euler_steps
        self.quaternion = plan([e for e in own if e.mode == "QUATERNION"])
        self.axis_angle = plan([e for e in own if e.mode == "AXIS_ANGLE"])
        self.framed = [(rows[e.name], e) for e in chosen if e.frame is not None]
        moving = [e for e in chosen if e.translation >= 0]
        self.location = (
            np.array([rows[e.name] for e in moving], np.intp),
            np.array([[e.translation + i for i in range(3)] for e in moving], np.intp).reshape(
                -1, 3
            ),
        )

    def planned(self, bones: Any, theta: Array) -> dict[str, NDArray[np.float32]]:
        """The channels :meth:`write` gives ``bones``, without writing them.

        Each channel kind the chosen bones use, for every bone (n, width), in single
        precision as Blender stores it: the current values with the chosen bones' rows
        replaced by θ's.
        """
        values: dict[str, NDArray[np.float32]] = {}

        def current(name: str) -> NDArray[np.float32]:
            if name not in values:
                values[name] = channel(bones, name, WRITTEN_CHANNELS[name])
            return values[name]

        rows = self.euler[0]
        if rows.size:  # each angle where its axis puts it: θ gathered in the channel's order
            current("rotation_euler")[rows] = theta[self.euler_sources]
        rows, steps, axes = self.quaternion
        if rows.size:
            quaternions = rotations.euler_quaternions(theta[steps], axes)
            held = current("rotation_quaternion")
            # keep each quaternion in the hemisphere of the current one (no flips for keys)
            flip = (quaternions * held[rows]).sum(axis=1) < 0.0
            np.negative(quaternions, out=quaternions, where=flip[:, None])
            held[rows] = quaternions
        rows, steps, axes = self.axis_angle
        if rows.size:
            quaternions = rotations.euler_quaternions(theta[steps], axes)
            current("rotation_axis_angle")[rows] = _axis_angles(quaternions)
        rows, index = self.location
        if rows.size:
            current("location")[rows] = theta[index]
        for row, entry in self.framed:
            assert entry.frame is not None
            angles = axis_angles(theta, entry)
            matrix = entry.frame @ rotations.euler_matrix(angles, entry.order) @ entry.frame.T
            name = rotation_channel(entry.mode)
            held = current(name)
            held[row] = rotation_values(matrix, entry.mode, held[row].astype(float))
        return values

    def write(
        self, obj: Any, theta: Array, view_layer: Any | None = None, within: float = 0.0
    ) -> float:
        """Write θ into the chosen bones' channels, at once and exactly: no miss is left (0).

        ``view_layer`` is not needed; ``within`` allows nothing a direct write uses.
        """
        bones = obj.pose.bones
        for name, values in self.planned(bones, theta).items():
            bones.foreach_set(name, values.ravel())
        if not self.empty:
            pose_written(obj)
        return 0.0

    def refine(self, obj: Any, theta: Array, view_layer: Any) -> None:
        """Nothing: the channels written are θ's exactly, with no evaluation to refine."""

    def on(self, rig: Rig) -> PoseWriter:
        """Itself: it knows the bones alone, which a rig moved as a whole keeps."""
        return self

    def fresh(self) -> PoseWriter:
        """Itself: a write leaves the next nothing."""
        return self


WRITTEN_CHANNELS = {
    "rotation_euler": 3,
    "rotation_quaternion": 4,
    "rotation_axis_angle": 4,
    "location": 3,
}
"""The pose-bone channels a writer sets (and a bake records), with their widths."""


def _axis_angles(quaternions: Array) -> Array:
    """Axis-angle channels (angle, axis) of unit quaternions, one row each (k, 4)."""
    quaternions = quaternions.copy()
    quaternions[quaternions[:, 0] < 0.0] *= -1.0
    sine = np.sqrt((quaternions[:, 1:] ** 2).sum(axis=1))
    values = np.empty((quaternions.shape[0], 4))
    values[:, 0] = 2.0 * np.arctan2(sine, quaternions[:, 0])
    values[:, 1:] = (0.0, 1.0, 0.0)
    turning = sine > 0.0
    values[turning, 1:] = quaternions[turning, 1:] / sine[turning, None]
    return values


def rotation_values(matrix: Array, mode: str, current: Array) -> Array:
    """The channel values of rotation ``matrix`` (3 × 3) in rotation mode ``mode``.

    Next to ``current``, the channel's values now: Euler angles nearest them, a
    quaternion in their hemisphere, so that keys do not flip.
    """
    if mode in rotations.EULER_ORDERS:
        return rotations.matrix_euler(matrix, mode, _compat(current))
    return quaternion_values(rotations.matrix_quaternion(matrix), mode, current)


def _compat(current: Array) -> list[float] | None:
    """Euler angles ``current`` to stay near, as Python's floats; None where one is not finite."""
    values: list[float] = current.tolist()
    return values if all(map(math.isfinite, values)) else None


def quaternion_values(quaternion: Array, mode: str, current: Array) -> Array:
    """The channel values of the unit quaternion (w, x, y, z) in rotation mode ``mode``.

    As :func:`rotation_values`, without a matrix between where the mode needs none.
    """
    if mode in rotations.EULER_ORDERS:
        return rotations.quaternion_euler(quaternion, mode, _compat(current))
    if mode == "QUATERNION":
        return -quaternion if quaternion @ current < 0.0 else quaternion
    sine = float(np.linalg.norm(quaternion[1:]))
    axis = quaternion[1:] / sine if sine > 0.0 else np.array([0.0, 1.0, 0.0])
    return np.array([2.0 * math.atan2(sine, quaternion[0]), *axis])
