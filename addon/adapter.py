"""The one adapter between Blender data and the solver's.

Everything that turns an armature into a :class:`solver.Figure`, goal empties into
:mod:`solver.goals`, and joint angles back into pose-bone channels lives here; operators,
the drag loop and live mode only call these functions.

Conventions (Blender's own, reproduced exactly):

* A pose bone's matrix in armature space is
  ``M = M_parent · (B_parent⁻¹ · B) · T(location) · R(rotation)``, with ``B`` the bone's
  rest matrix (``Bone.matrix_local``). The figure's segment for a bone has rest
  ``B_parent⁻¹ · B`` (the root's also carries the armature object's world matrix), so
  Reach's segment frames are the bones' world matrices.
* An Euler order ``"XYZ"`` means ``R = R_z · R_y · R_x``; the segment's rotation DOFs are
  therefore listed in reverse order (Z, Y, X), and writing their angles back into
  ``rotation_euler`` reproduces Blender's matrix. Quaternion and axis-angle bones use the
  Euler order the user chose for the joint and are written back in their own mode.
* Translation DOFs (root bones only, when the figure allows it) come before the
  rotations, as ``T`` comes before ``R``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import bpy
import numpy as np
from numpy.typing import NDArray

from ..solver import (
    AnyOf,
    Constraint,
    Dof,
    Effector,
    Figure,
    Problem,
    SolveResult,
    SolverInputError,
    goals,
    rotations,
    solve,
)

Array = NDArray[np.float64]
"""A float64 array."""
IndexArray = NDArray[np.intp]
"""An array of indices."""

AXES = "XYZ"
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
GOAL_TYPES = (
    "POSITION",
    "ORIENTATION",
    "POSITION_ORIENTATION",
    "AIM",
    "LINE",
    "PLANE",
    "HALF_SPACE",
)
POSITION_GOALS = ("POSITION", "POSITION_ORIENTATION", "LINE", "PLANE", "HALF_SPACE")


class ReachError(Exception):
    """A problem with the user's data, reported in Blender as it is worded here."""


# --- figure -------------------------------------------------------------------


@dataclass(frozen=True)
class BoneLayout:
    """Where one bone's channels sit in θ.

    Attributes:
        name: Bone name (also the segment name).
        mode: The bone's ``rotation_mode``.
        order: Euler order used for its rotation DOFs.
        translation: Index of its first translation DOF in θ, or -1 if it has none.
        rotation: Index of its first rotation DOF in θ; the three DOFs are about the
            axes of ``order`` reversed.
    """

    name: str
    mode: str
    order: str
    translation: int
    rotation: int

    def axis_position(self, axis: str) -> int:
        """Position within the segment's DOF list of the rotation about ``axis``."""
        offset = 3 if self.translation >= 0 else 0
        return offset + self.order[::-1].index(axis)


@dataclass
class Rig:
    """An armature compiled for the solver.

    Attributes:
        armature: The armature object's name.
        figure: The solver's figure; segment k is ``layout[k].name``.
        layout: Per bone, its channels' positions in θ, parents before children.
        warnings: Things the user should know (drivers, bone constraints, …).
    """

    armature: str
    figure: Figure
    layout: tuple[BoneLayout, ...]
    warnings: list[str] = field(default_factory=list)

    def bone(self, name: str) -> BoneLayout:
        """The layout of bone ``name``."""
        for entry in self.layout:
            if entry.name == name:
                return entry
        raise ReachError(f"bone '{name}' is not in the figure of '{self.armature}'")


def armature_object(name: str, context: Any) -> Any:
    """The armature object named ``name`` (the active object when empty), checked."""
    obj = bpy.data.objects.get(name) if name else context.active_object
    if obj is None:
        raise ReachError(f"no object named '{name}'" if name else "no active object")
    if obj.type != "ARMATURE":
        raise ReachError(f"object '{obj.name}' is a {obj.type.lower()}, not an armature")
    if not obj.data.bones:
        raise ReachError(f"armature '{obj.name}' has no bones")
    return obj


def ordered_bones(obj: Any) -> list[Any]:
    """The armature's bones, parents before children (depth first, siblings in order)."""
    result: list[Any] = []
    stack = [b for b in reversed(obj.data.bones) if b.parent is None]
    while stack:
        bone = stack.pop()
        result.append(bone)
        stack.extend(reversed(bone.children))
    return result


def to_numpy(matrix: Any) -> Array:
    """A mathutils matrix as a float64 array."""
    return np.array(matrix, dtype=float)


def _check_world(obj: Any) -> Array:
    world = to_numpy(obj.matrix_world)
    if not np.all(np.isfinite(world)):
        raise ReachError(f"armature '{obj.name}' has a non-finite (NaN or infinite) transform")
    linear = world[:3, :3]
    gram = linear.T @ linear
    scale2 = float(np.trace(gram)) / 3.0
    if np.linalg.det(linear) <= 0.0 or not np.allclose(
        gram, scale2 * np.eye(3), atol=1e-5 * scale2
    ):
        raise ReachError(
            f"armature '{obj.name}' has non-uniform or negative scale "
            f"{tuple(round(s, 4) for s in obj.matrix_world.to_scale())}; "
            "apply the scale (Ctrl A) or make it uniform"
        )
    return world


def joint_settings(obj: Any, bone: str) -> Any | None:
    """The armature's Reach joint settings for ``bone``, if any were made."""
    return obj.reach.joints.get(bone)


def build_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """Compile the armature object ``obj`` into a figure.

    Args:
        obj: An armature object.
        hold: Bones whose DOFs are locked for this figure (rigidity 1), e.g. bones
            the user has just moved by hand.

    Returns:
        The rig.

    Raises:
        ReachError: For data the solver cannot represent, named.
    """
    world = _check_world(obj)
    settings = obj.reach
    held = set(hold)
    figure = Figure()
    layout: list[BoneLayout] = []
    warnings: list[str] = []
    index = 0
    for bone in ordered_bones(obj):
        pose_bone = obj.pose.bones[bone.name]
        name = bone.name
        scale = tuple(pose_bone.scale)
        if not all(math.isfinite(s) for s in scale) or max(abs(s - 1.0) for s in scale) > 1e-6:
            raise ReachError(
                f"bone '{name}' has pose scale {tuple(round(s, 4) for s in scale)}; "
                "Reach poses bones of scale 1 (clear its scale with Alt S)"
            )
        if not bone.use_inherit_rotation:
            raise ReachError(
                f"bone '{name}' does not inherit its parent's rotation; turn on Inherit Rotation"
            )
        local = to_numpy(bone.matrix_local)
        if bone.parent is None:
            rest = world @ local
        else:
            rest = np.linalg.solve(to_numpy(bone.parent.matrix_local), local)
        mode = pose_bone.rotation_mode
        if mode in EULER_ORDERS:
            order = mode
        else:
            joint = joint_settings(obj, name)
            order = joint.euler_order if joint is not None else "YXZ"
        lock_all = name in held
        dofs: list[Dof] = []
        translation = -1
        if settings.translate_root and bone.parent is None and not bone.use_connect:
            translation = index
            for k, axis in enumerate(AXES):
                locked = lock_all or pose_bone.lock_location[k]
                dofs.append(
                    Dof.translation(
                        axis.lower(),
                        rigidity=1.0 if locked else 0.0,
                        name=f"{name} location {axis}",
                    )
                )
        rotation = index + len(dofs)
        for axis in order[::-1]:
            locked = lock_all or bool(getattr(pose_bone, f"lock_ik_{axis.lower()}"))
            lower = upper = None
            if getattr(pose_bone, f"use_ik_limit_{axis.lower()}"):
                lower = float(getattr(pose_bone, f"ik_min_{axis.lower()}"))
                upper = float(getattr(pose_bone, f"ik_max_{axis.lower()}"))
            stiffness = float(getattr(pose_bone, f"ik_stiffness_{axis.lower()}"))
            rigidity = 1.0 if locked else min(max(stiffness, 0.0), 1.0)
            dofs.append(
                Dof.rotation(
                    axis.lower(),
                    lower=lower,
                    upper=upper,
                    rigidity=rigidity,
                    name=f"{name} rotation {axis}",
                )
            )
        parent = bone.parent.name if bone.parent is not None else None
        try:
            figure.add_segment(name, parent=parent, rest=rest, dofs=dofs)
        except SolverInputError as error:
            raise ReachError(f"bone '{name}': {error}") from error
        entry = BoneLayout(name, mode, order, translation, rotation)
        layout.append(entry)
        index += len(dofs)
        if any(c.enabled if hasattr(c, "enabled") else not c.mute for c in pose_bone.constraints):
            warnings.append(
                f"bone '{name}' has bone constraints; Blender applies them after Reach's pose"
            )
    _add_joint_limits(obj, figure, {e.name: e for e in layout}, warnings)
    _warn_drivers(obj, warnings)
    return Rig(obj.name, figure, tuple(layout), warnings)


def _add_joint_limits(
    obj: Any, figure: Figure, layout: dict[str, BoneLayout], warnings: list[str]
) -> None:
    for joint in obj.reach.joints:
        if len(joint.polygon) < 3:
            if len(joint.polygon) > 0:
                warnings.append(
                    f"limit polygon of bone '{joint.name}' has {len(joint.polygon)} vertices; "
                    "it limits nothing until it has 3"
                )
            continue
        entry = layout.get(joint.name)
        if entry is None:
            raise ReachError(f"limit polygon of bone '{joint.name}': the armature has no such bone")
        axes = joint.polygon_axes
        dofs = (entry.axis_position(axes[0]), entry.axis_position(axes[1]))
        vertices = [tuple(v.value) for v in joint.polygon]
        try:
            figure.add_polygon_limit(joint.name, dofs, vertices)
        except SolverInputError as error:
            raise ReachError(f"limit polygon of bone '{joint.name}' ({axes}): {error}") from error
    for group in obj.reach.groups:
        if not group.enabled or len(group.members) < 2:
            continue
        members = []
        for member in group.members:
            entry = layout.get(member.bone)
            if entry is None:
                raise ReachError(
                    f"joint group '{group.name}': the armature has no bone '{member.bone}'"
                )
            if member.ratio == 0.0:
                raise ReachError(f"joint group '{group.name}': bone '{member.bone}' has ratio 0")
            members.append(((member.bone, entry.axis_position(member.axis)), float(member.ratio)))
        (first, r0), rest = members[0], members[1:]
        for key, ratio in rest:
            # θ_key / ratio = θ_first / r0  ⇔  r0·θ_key − ratio·θ_first = 0
            try:
                figure.add_linear_equality({key: r0, first: -ratio}, rhs=0.0)
            except SolverInputError as error:
                raise ReachError(f"joint group '{group.name}': {error}") from error


def _warn_drivers(obj: Any, warnings: list[str]) -> None:
    animation = obj.animation_data
    if animation is None:
        return
    for driver in animation.drivers:
        path = driver.data_path
        if path.startswith("pose.bones[") and any(
            path.endswith(channel)
            for channel in (
                "rotation_euler",
                "rotation_quaternion",
                "rotation_axis_angle",
                "location",
            )
        ):
            bone = path.split('"')[1] if '"' in path else path
            warnings.append(
                f"bone '{bone}' is driven by a driver ({path}); the driver overrides Reach"
            )


# --- pose read / write -----------------------------------------------------------


def _rotation_angles(pose_bone: Any, entry: BoneLayout, compat: Array | None) -> Array:
    """The bone's rotation as Euler angles about X, Y, Z in ``entry.order`` (float64)."""
    mode = entry.mode
    if mode in EULER_ORDERS:
        return np.array(pose_bone.rotation_euler, dtype=float)
    if mode == "QUATERNION":
        matrix = rotations.quaternion_matrix(tuple(pose_bone.rotation_quaternion))
    else:
        angle, x, y, z = pose_bone.rotation_axis_angle
        axis = np.array((x, y, z), dtype=float)
        norm = float(np.linalg.norm(axis))
        if norm == 0.0:
            matrix = np.eye(3)
        else:
            half = 0.5 * float(angle)
            matrix = rotations.quaternion_matrix((math.cos(half), *(math.sin(half) * axis / norm)))
    return rotations.matrix_euler(matrix, entry.order, compat)


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

    Raises:
        ReachError: If a bone's channels are not finite.
    """
    theta = np.zeros(rig.figure.n_dofs)
    bones = obj.pose.bones
    for entry in rig.layout:
        pose_bone = bones.get(entry.name)
        if pose_bone is None:
            raise ReachError(f"bone '{entry.name}' no longer exists in '{obj.name}'")
        compat = None
        if previous is not None and entry.mode not in EULER_ORDERS:
            compat = _axis_angles(previous, entry)
        angles = _rotation_angles(pose_bone, entry, compat)
        if entry.translation >= 0:
            theta[entry.translation : entry.translation + 3] = tuple(pose_bone.location)
        theta[entry.rotation : entry.rotation + 3] = [
            angles[AXES.index(a)] for a in entry.order[::-1]
        ]
        channels = theta[entry.rotation : entry.rotation + 3]
        if not np.all(np.isfinite(channels)) or (
            entry.translation >= 0
            and not np.all(np.isfinite(theta[entry.translation : entry.translation + 3]))
        ):
            raise ReachError(
                f"bone '{entry.name}' has a non-finite (NaN or infinite) rotation or location"
            )
    return settle(rig, theta) if rounding else theta


ROUNDING_SLACK = 1e-5
"""Blender stores channels and limits in single precision: a joint the solver left
exactly on a limit reads back up to ~1e-7 past it. Values past a limit by no more than
this ([rad] or length) are put back onto it."""


def limit_excess(rig: Rig, theta: Array) -> float:
    """How far θ is outside the figure's bounds, polygons and equalities (0 inside)."""
    figure = rig.figure
    below = float(np.max(figure.lower - theta, initial=0.0))
    above = float(np.max(theta - figure.upper, initial=0.0))
    return max(below, above, figure.limits.max_violation(theta))


def settle(rig: Rig, theta: Array) -> Array:
    """θ with any limit excess of single-precision rounding removed.

    An excess above :data:`ROUNDING_SLACK` is a real violation; it is left for the
    caller to report.
    """
    excess = limit_excess(rig, theta)
    if excess == 0.0 or excess > ROUNDING_SLACK:
        return theta
    return clamp_to_limits(rig, theta)


def _axis_angles(theta: Array, entry: BoneLayout) -> Array:
    """The bone's rotation DOFs of θ as Euler angles about X, Y, Z."""
    angles = np.zeros(3)
    for offset, axis in enumerate(entry.order[::-1]):
        angles[AXES.index(axis)] = theta[entry.rotation + offset]
    return angles


def write_pose(obj: Any, rig: Rig, theta: Array, bones: Sequence[str] | None = None) -> None:
    """Write θ into the pose bones' channels, each in its own rotation mode.

    Args:
        obj: The armature object.
        rig: Its rig.
        theta: Joint values, shape (n_dofs,).
        bones: Only these bones (default: all).
    """
    PoseWriter(obj, rig, bones).write(obj, theta)


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
        rows = {bone.name: k for k, bone in enumerate(obj.pose.bones)}
        self.n_bones = len(rows)
        wanted = None if bones is None else set(bones)
        chosen = [e for e in rig.layout if wanted is None or e.name in wanted]
        self.empty = not chosen

        def plan(entries: list[BoneLayout]) -> tuple[IndexArray, IndexArray, IndexArray]:
            """Rows, and per Euler step (first applied first) θ index and axis (0–2)."""
            steps = np.array([[e.rotation + 2 - s for s in range(3)] for e in entries], np.intp)
            axes = np.array([[AXES.index(letter) for letter in e.order] for e in entries], np.intp)
            return (
                np.array([rows[e.name] for e in entries], np.intp),
                steps.reshape(-1, 3),
                axes.reshape(-1, 3),
            )

        self.euler = plan([e for e in chosen if e.mode in EULER_ORDERS])
        self.quaternion = plan([e for e in chosen if e.mode == "QUATERNION"])
        self.axis_angle = plan([e for e in chosen if e.mode == "AXIS_ANGLE"])
        moving = [e for e in chosen if e.translation >= 0]
        self.location = (
            np.array([rows[e.name] for e in moving], np.intp),
            np.array([[e.translation + i for i in range(3)] for e in moving], np.intp).reshape(
                -1, 3
            ),
        )

    def write(self, obj: Any, theta: Array) -> None:
        """Write θ into the chosen bones' channels."""
        bones = obj.pose.bones
        rows, steps, axes = self.euler
        if rows.size:
            angles = np.zeros((rows.size, 3))
            np.put_along_axis(angles, axes, theta[steps], axis=1)
            self._set(bones, "rotation_euler", 3, rows, angles)
        rows, steps, axes = self.quaternion
        if rows.size:
            quaternions = _quaternions(theta[steps], axes)
            current = self._get(bones, "rotation_quaternion", 4)
            # keep each quaternion in the hemisphere of the current one (no flips for keys)
            flip = np.einsum("ij,ij->i", quaternions, current[rows]) < 0.0
            quaternions[flip] *= -1.0
            current[rows] = quaternions
            bones.foreach_set("rotation_quaternion", current.ravel())
        rows, steps, axes = self.axis_angle
        if rows.size:
            quaternions = _quaternions(theta[steps], axes)
            quaternions[quaternions[:, 0] < 0.0] *= -1.0
            sine = np.sqrt((quaternions[:, 1:] ** 2).sum(axis=1))
            values = np.empty((rows.size, 4))
            values[:, 0] = 2.0 * np.arctan2(sine, quaternions[:, 0])
            values[:, 1:] = (0.0, 1.0, 0.0)
            turning = sine > 0.0
            values[turning, 1:] = quaternions[turning, 1:] / sine[turning, None]
            self._set(bones, "rotation_axis_angle", 4, rows, values)
        rows, index = self.location
        if rows.size:
            self._set(bones, "location", 3, rows, theta[index])
        if not self.empty:
            obj.update_tag()

    def _get(self, bones: Any, channel: str, width: int) -> NDArray[np.float32]:
        buffer = np.empty(self.n_bones * width, np.float32)
        bones.foreach_get(channel, buffer)
        return buffer.reshape(self.n_bones, width)

    def _set(self, bones: Any, channel: str, width: int, rows: IndexArray, values: Array) -> None:
        current = self._get(bones, channel, width)
        current[rows] = values
        bones.foreach_set(channel, current.ravel())


def _quaternions(angles: Array, axes: IndexArray) -> Array:
    """Unit quaternions (w, x, y, z), shape (k, 4), of three rotations in turn.

    Rotation s (s = 0, 1, 2, first applied first) turns by ``angles[:, s]`` about axis
    ``axes[:, s]`` (0–2 for X–Z).
    """
    count = angles.shape[0]
    result = np.zeros((count, 4))
    result[:, 0] = 1.0
    every = np.arange(count)
    for s in range(3):
        half = 0.5 * angles[:, s]
        step = np.zeros((count, 4))
        step[:, 0] = np.cos(half)
        step[every, 1 + axes[:, s]] = np.sin(half)
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


@dataclass(frozen=True)
class BoneChannels:
    """A pose bone's raw channels, for exact restore."""

    mode: str
    location: tuple[float, ...]
    euler: tuple[float, ...]
    quaternion: tuple[float, ...]
    axis_angle: tuple[float, ...]
    scale: tuple[float, ...]


class PoseSnapshot:
    """Every pose bone's channels, and chosen objects' locations, as they were.

    :meth:`restore` puts back exactly the same floats.
    """

    def __init__(self, obj: Any, objects: Iterable[Any] = ()) -> None:
        self.armature = obj.name
        self.bones = {
            b.name: BoneChannels(
                b.rotation_mode,
                tuple(b.location),
                tuple(b.rotation_euler),
                tuple(b.rotation_quaternion),
                tuple(b.rotation_axis_angle),
                tuple(b.scale),
            )
            for b in obj.pose.bones
        }
        self.objects = {o.name: tuple(o.location) for o in objects}

    def restore(self) -> None:
        """Put every channel back."""
        obj = bpy.data.objects.get(self.armature)
        if obj is not None:
            for name, channels in self.bones.items():
                bone = obj.pose.bones.get(name)
                if bone is None:
                    continue
                bone.rotation_mode = channels.mode
                bone.location = channels.location
                bone.rotation_euler = channels.euler
                bone.rotation_quaternion = channels.quaternion
                bone.rotation_axis_angle = channels.axis_angle
                bone.scale = channels.scale
        for name, location in self.objects.items():
            other = bpy.data.objects.get(name)
            if other is not None:
                other.location = location


# --- goals -------------------------------------------------------------------------


def goal_object(entry: Any, armature: Any, scene: Any) -> Any:
    """The goal empty of constraint ``entry``, checked to exist and be usable."""
    goal = entry.goal
    label = f"constraint '{entry.name}'"
    if goal is None:
        raise ReachError(f"{label} has no goal object (it was deleted or never set)")
    if scene is not None and goal.name not in scene.objects:
        raise ReachError(
            f"{label}: goal '{goal.name}' was deleted (it is in no collection of the scene)"
        )
    parent = goal.parent
    while parent is not None:
        if parent == armature:
            raise ReachError(
                f"{label}: goal '{goal.name}' is parented to the armature it poses; unparent it"
            )
        parent = parent.parent
    return goal


def _goal_frame(goal: Any, label: str) -> tuple[Array, Array, Array, Array]:
    matrix = to_numpy(goal.matrix_world)
    if not np.all(np.isfinite(matrix)):
        raise ReachError(
            f"{label}: goal '{goal.name}' has a non-finite (NaN or infinite) transform"
        )
    point = matrix[:3, 3]
    x = matrix[:3, 0]
    y = matrix[:3, 1]
    z = matrix[:3, 2]
    norms = [float(np.linalg.norm(v)) for v in (x, y, z)]
    if min(norms) <= 1e-12:
        raise ReachError(f"{label}: goal '{goal.name}' has zero scale; its axes are undefined")
    x = x / norms[0]
    y = y - (y @ x) * x
    y = y / np.linalg.norm(y)
    z = z / norms[2]
    return point, x, y, z


def effector_point(entry: Any, bone: Any) -> tuple[float, float, float]:
    """The constraint's effector point in the bone's frame."""
    if entry.effector == "HEAD":
        return (0.0, 0.0, 0.0)
    if entry.effector == "TAIL":
        return (0.0, float(bone.length), 0.0)
    return tuple(float(v) for v in entry.offset)  # type: ignore[return-value]


def build_goal(entry: Any, goal: Any) -> Any:
    """The solver goal of constraint ``entry`` from the goal empty's world frame."""
    label = f"constraint '{entry.name}'"
    point, x, y, z = _goal_frame(goal, label)
    c = goals.commensurate(entry.angle_degrees, entry.angle_length)
    kind = entry.goal_type
    if kind == "POSITION":
        return goals.Position(point)
    if kind == "ORIENTATION":
        return goals.Orientation(
            x, y, c_dx=c if entry.use_x else 0.0, c_dy=c if entry.use_y else 0.0
        )
    if kind == "POSITION_ORIENTATION":
        return goals.PositionOrientation(
            point,
            x,
            y,
            w_position=entry.w_position,
            c_dx=c if entry.use_x else 0.0,
            c_dy=c if entry.use_y else 0.0,
        )
    if kind == "AIM":
        return goals.Aim(point, c_d=c)
    if kind == "LINE":
        return goals.Line(point, z)
    if kind == "PLANE":
        return goals.Plane(point, z)
    if kind == "HALF_SPACE":
        return goals.HalfSpace(point, z)
    raise ReachError(f"{label}: unknown goal type {kind!r}; choose one of {', '.join(GOAL_TYPES)}")


@dataclass
class Setup:
    """A solve's inputs: the rig, the problem, and which constraint is which.

    Attributes:
        rig: The compiled armature.
        problem: The solver problem.
        names: Names of the enabled constraints, in the order of ``problem``'s leaves.
        goals: Goal objects of the enabled constraints.
        moved: Bones in some constraint's chain (the ones a solve can move).
        frames: The goal objects' world matrices the goals were built from.
    """

    rig: Rig
    problem: Problem
    names: list[str]
    goals: list[Any]
    moved: list[str]
    frames: list[Any] = field(default_factory=list)


def build_problem(obj: Any, scene: Any, rig: Rig | None = None) -> Setup:
    """The solver problem of the armature's enabled constraints.

    Raises:
        ReachError: No enabled constraints, a missing goal or bone, NaN, ….
    """
    rig = build_rig(obj) if rig is None else rig
    entries = [c for c in obj.reach.constraints if c.enabled]
    if not entries:
        raise ReachError(f"armature '{obj.name}' has no enabled constraints; add one first")
    groups: dict[str, list[Constraint]] = {}
    order: list[Constraint | str] = []
    goal_objects = []
    for entry in entries:
        label = f"constraint '{entry.name}'"
        bone = obj.data.bones.get(entry.bone)
        if bone is None:
            raise ReachError(
                f"{label}: effector bone '{entry.bone}' does not exist in '{obj.name}'"
            )
        if entry.chain_start and obj.data.bones.get(entry.chain_start) is None:
            raise ReachError(
                f"{label}: chain start bone '{entry.chain_start}' does not exist in '{obj.name}'"
            )
        goal = goal_object(entry, obj, scene)
        try:
            constraint = Constraint(
                Effector(entry.bone, point=effector_point(entry, bone)),
                build_goal(entry, goal),
                weight=entry.weight,
                chain_start=entry.chain_start or None,
                name=entry.name,
            )
        except SolverInputError as error:
            raise ReachError(f"{label}: {error}") from error
        goal_objects.append(goal)
        if entry.any_of:
            if entry.any_of not in groups:
                groups[entry.any_of] = []
                order.append(entry.any_of)
            groups[entry.any_of].append(constraint)
        else:
            order.append(constraint)
    final: list[Constraint | AnyOf] = [
        AnyOf(groups[item], name=item) if isinstance(item, str) else item for item in order
    ]
    try:
        problem = Problem(rig.figure, final)
    except SolverInputError as error:
        raise ReachError(str(error)) from error
    variables = problem.variable_mask
    moved = [
        e.name
        for k, e in enumerate(rig.layout)
        if any(variables[i] for i in rig.figure.segments[k].dof_indices)
    ]
    names = [c.name for c in problem.leaves]
    by_name = dict(zip([e.name for e in entries], goal_objects, strict=True))
    targets = [by_name[n] for n in names]
    frames = [goal.matrix_world.copy() for goal in targets]
    return Setup(rig, problem, names, targets, moved, frames)


def refresh_goals(obj: Any, scene: Any, setup: Setup) -> Setup:
    """``setup`` with the goals of the goal objects that moved since it was built.

    Only goals whose object's world matrix changed are rebuilt, and the problem keeps
    its chains (:meth:`solver.Problem.with_goals`); any other change to the constraints
    builds the problem afresh.

    Raises:
        ReachError: As :func:`build_problem`: a deleted goal, NaN, ….
    """
    entries = [c for c in obj.reach.constraints if c.enabled]
    if sorted(e.name for e in entries) != sorted(setup.names):
        return build_problem(obj, scene, setup.rig)
    changed: dict[int, Any] = {}
    frames = list(setup.frames)
    for index, name in enumerate(setup.names):
        entry = obj.reach.constraints[name]
        goal = goal_object(entry, obj, scene)
        if goal != setup.goals[index]:
            return build_problem(obj, scene, setup.rig)
        matrix = goal.matrix_world
        if matrix == frames[index]:
            continue
        try:
            changed[index] = build_goal(entry, goal)
        except SolverInputError as error:
            raise ReachError(f"constraint '{name}': {error}") from error
        frames[index] = matrix.copy()
    if not changed:
        return setup
    return replace(setup, problem=setup.problem.with_goals(changed), frames=frames)


# --- solving ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one solve did, in the user's terms.

    Attributes:
        result: The solver's result.
        residuals: Per enabled constraint, √P: the distance (world units) still to go
            for positional goals, the orientation error expressed as a length for others.
        unmet: Names of constraints whose residual is above ``reach_distance``.
        milliseconds: Wall time of the solve alone.
    """

    result: SolveResult
    residuals: dict[str, float]
    unmet: list[str]
    milliseconds: float


def run_solve(
    setup: Setup, theta0: Array, settings: Any, *, time_limit: float | None, restarts: int
) -> Outcome:
    """Solve, and name the constraints that are not met.

    Args:
        setup: The problem.
        theta0: Start pose, shape (n_dofs,).
        settings: The armature's Reach settings (``Object.reach``): its tolerance and
            "met within" distance.
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls (0 for drags).

    Raises:
        ReachError: A start pose outside the limits or other bad input.
    """
    try:
        result = solve(
            setup.problem,
            theta0,
            time_limit=time_limit,
            tolerance=settings.tolerance,
            restarts=restarts,
        )
    except SolverInputError as error:
        raise ReachError(str(error)) from error
    values = setup.problem.potentials(result.theta)
    residuals = {
        name: math.sqrt(max(float(v), 0.0)) for name, v in zip(setup.names, values, strict=True)
    }
    unmet = [name for name, r in residuals.items() if r > settings.reach_distance]
    return Outcome(result, residuals, unmet, 1000.0 * result.elapsed)


def clamp_to_limits(rig: Rig, theta: Array) -> Array:
    """θ moved into the joint bounds and limit polygons (nearest point per joint)."""
    figure = rig.figure
    clamped = np.clip(theta, figure.lower, figure.upper)
    limits = figure.limits
    for _ in range(50):
        if limits.max_violation(clamped) <= 1e-12:
            break
        # project onto the most violated inequality row, then back into the bounds
        eq, ineq = limits.violations(clamped)
        if eq.size and eq.max(initial=0.0) >= ineq.max(initial=0.0):
            k = int(np.argmax(eq))
            row, rhs = limits.a_eq[k], limits.b_eq[k]
            clamped = clamped - row * ((row @ clamped - rhs) / (row @ row))
        else:
            k = int(np.argmax(ineq))
            row, rhs = limits.a_in[k], limits.b_in[k]
            clamped = clamped + row * ((rhs - row @ clamped) / (row @ row) + 1e-12)
        clamped = np.clip(clamped, figure.lower, figure.upper)
    return clamped
