"""A bone's joint: its Euler order, its own axes and the DOFs it becomes.

Blender's IK settings of a pose bone (locks, limits, stiffness) become its DOFs' bounds
and rigidity; Reach's joint settings (``Object.reach.joints``) may turn the rotations
about the joint's own axes, with their own limits and locks.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...solver import Dof
from ...solver.rotations import EULER_ORDERS, quaternion_matrix
from ..errors import BlenderDataError
from ..vocabulary import AXES, DEFAULT_EULER_ORDER
from .arrays import Array

__all__ = [
    "all_joint_settings",
    "bone_dofs",
    "euler_order",
    "joint_dof_name",
    "joint_dofs",
    "joint_frame",
    "joint_settings",
    "locked_joint_dofs",
]


def joint_settings(obj: Any, bone: str) -> Any | None:
    """The armature's Reach joint settings for ``bone``, if any were made."""
    return obj.reach.joints.get(bone)


def all_joint_settings(obj: Any) -> dict[str, Any]:
    """Per bone, the armature's Reach joint settings, read once.

    A collection's lookup by name reads every entry before the one found: a figure of
    thousands of bones looks its joints up here instead.
    """
    return dict(obj.reach.joints.items())


def euler_order(joint: Any | None, pose_bone: Any) -> str:
    """The Euler order of the bone's rotation DOFs, given its ``joint`` settings (or None).

    An Euler bone's own order; for a quaternion or axis-angle bone, the order of its
    joint settings (:data:`DEFAULT_EULER_ORDER` without them).
    """
    mode = str(pose_bone.rotation_mode)
    if mode in EULER_ORDERS and (joint is None or not joint.use_axes):
        return mode
    return str(joint.euler_order) if joint is not None else DEFAULT_EULER_ORDER


def joint_frame(joint: Any | None, bone: str) -> Array | None:
    """The joint's own axes in ``bone``'s frame (columns); None: it turns about the bone's.

    ``joint``: the bone's joint settings, or None.

    Raises:
        BlenderDataError: For a zero or non-finite rotation of the axes.
    """
    if joint is None or not joint.use_axes:
        return None
    quaternion = np.array(joint.axes, dtype=float)
    norm = float(np.linalg.norm(quaternion))
    if not math.isfinite(norm) or norm == 0.0:
        raise BlenderDataError(
            f"the joint axes of bone '{bone}' are a zero or non-finite rotation; "
            "set them again (Hinge, Cone or Human Limits) or turn Own axes off"
        )
    return quaternion_matrix(quaternion / norm)


def bone_dofs(pose_bone: Any, order: str, *, translates: bool, lock: bool) -> list[Dof]:
    """The bone's DOFs: translations along X, Y, Z (if it ``translates``), then rotations."""
    name = pose_bone.name
    dofs: list[Dof] = []
    if translates:
        for k, axis in enumerate(AXES):
            locked = lock or pose_bone.lock_location[k]
            dofs.append(
                Dof.translation(
                    axis.lower(), rigidity=1.0 if locked else 0.0, name=f"{name} location {axis}"
                )
            )
    for axis in order[::-1]:
        letter = axis.lower()
        locked = lock or bool(getattr(pose_bone, f"lock_ik_{letter}"))
        lower = upper = None
        if getattr(pose_bone, f"use_ik_limit_{letter}"):
            lower = float(getattr(pose_bone, f"ik_min_{letter}"))
            upper = float(getattr(pose_bone, f"ik_max_{letter}"))
        stiffness = float(getattr(pose_bone, f"ik_stiffness_{letter}"))
        dofs.append(
            Dof.rotation(
                letter,
                lower=lower,
                upper=upper,
                rigidity=1.0 if locked else min(max(stiffness, 0.0), 1.0),
                name=f"{name} rotation {axis}",
            )
        )
    return dofs


def joint_dof_name(bone: str, axis: str) -> str:
    """The name of a joint's rotation about its own ``axis`` (X, Y or Z) as a DOF."""
    return f"{bone} joint rotation {axis}"


def locked_joint_dofs(obj: Any, names: list[str]) -> list[int]:
    """The DOFs, among ``names`` (a figure's DOF names), of the joints' locked own axes.

    A joint made a hinge locks its other two axes at zero, the rest pose's turn about them.
    """
    locked = {
        joint_dof_name(joint.name, axis)
        for joint in obj.reach.joints
        if joint.use_axes
        for k, axis in enumerate(AXES)
        if joint.lock[k]
    }
    return [index for index, name in enumerate(names) if name in locked]


def joint_dofs(joint: Any, frame: Array, order: str, held: bool) -> list[Dof]:
    """A joint's rotations about its own axes (the columns of ``frame``), with its limits."""
    name = joint.name
    dofs = []
    for axis in order[::-1]:
        k = AXES.index(axis)
        lower = upper = None
        if joint.use_limit[k]:
            lower, upper = float(joint.limit_min[k]), float(joint.limit_max[k])
        dofs.append(
            Dof.rotation(
                frame[:, k],
                lower=lower,
                upper=upper,
                rigidity=1.0 if held or joint.lock[k] else 0.0,
                name=joint_dof_name(name, axis),
            )
        )
    return dofs


def control_dofs(
    obj: Any, control: Any, turn: Array, *, translates: bool = False, locked: bool = False
) -> tuple[list[Dof], str, Array | None]:
    """The DOFs of a segment an animator turns by ``control``, its Euler order and frame.

    The control's IK locks and limits, or, where its joint settings give it its own axes
    (Hinge, Cone, Human Limits), rotations about those axes with their limits. The axes
    are given in the segment's frame: ``turn`` is the control's rest turn there (3 × 3;
    the identity where the segment is the control).
    """
    joint = joint_settings(obj, control.name)
    order = euler_order(joint, control)
    dofs = bone_dofs(control, order, translates=translates, lock=locked)
    frame = joint_frame(joint, control.name)
    if frame is None:
        return dofs, order, None
    frame = turn @ frame
    dofs[-3:] = joint_dofs(joint, frame, order, locked)
    return dofs, order, frame
