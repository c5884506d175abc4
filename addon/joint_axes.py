"""Joints about their own axes: a hinge or a cone about any axis, and human limits.

Blender's IK limits bound a bone's rotations about its own X, Y and Z, so a joint whose
hinge lies between those axes (an imported skeleton's forearm, rolled 41° off) cannot
be limited to bend one way. These operators give the joint its own axes
(:attr:`ReachJoint.use_axes`): Reach turns the bone about them and limits it there.

:func:`human_joints` recognises the limbs of a human skeleton by bone names (Rigify,
Mixamo, the UE mannequin, BVH motion capture) and :class:`REACH_OT_human_limits` hinges
its elbows and knees to bend the way a body bends, with the thighs' and upper arms'
twist bounded so that a knee cannot bend backwards by turning the thigh round.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from bpy.props import FloatProperty, FloatVectorProperty
from bpy.types import Operator

from ..solver.rotations import matrix_quaternion
from .bridge.arrays import Array
from .bridge.body import human_joints
from .bridge.rig import armature_object, to_numpy
from .errors import BlenderDataError
from .joint_ops import JointOperator, joint_entry
from .operator_base import ArmatureOperator, Result

FLEXION = math.radians(150.0)
"""How far a human elbow or knee bends from straight."""
TWIST = {"thigh": math.radians(45.0), "upper_arm": math.radians(90.0)}
"""How far a human thigh or upper arm twists about its own length, either way."""
CONE_SIDES = 8
"""Vertices of the polygon a cone limit is drawn with (it lies inside the cone)."""


def _unit(vector: Array, what: str) -> Array:
    norm = float(np.linalg.norm(vector))
    if not math.isfinite(norm) or norm < 1e-9:
        raise BlenderDataError(f"{what} has no direction; give a non-zero axis")
    unit: Array = vector / norm
    return unit


def body_front(obj: Any, joints: dict[str, tuple[str, str]]) -> Array:
    """The way the skeleton faces, in armature space.

    Left is the left thighs' (or upper arms') heads minus the right ones'; up is from
    their middle toward the arms' (or, without arms, the armature's Z); front is
    left × up, the way a body facing it has its left hand on its left.
    """
    heads: dict[tuple[str, str], Array] = {
        key: to_numpy(obj.data.bones[name].head_local) for name, key in joints.items()
    }
    for part in ("thigh", "upper_arm"):
        left, right = heads.get((part, "L")), heads.get((part, "R"))
        if left is not None and right is not None:
            across = left - right
            break
    else:
        raise BlenderDataError(
            "the human limits need both thighs or both upper arms to tell left from right"
        )
    legs = [heads[k] for k in (("thigh", "L"), ("thigh", "R")) if k in heads]
    arms = [heads[k] for k in (("upper_arm", "L"), ("upper_arm", "R")) if k in heads]
    up = np.mean(arms, axis=0) - np.mean(legs, axis=0) if legs and arms else np.eye(3)[2]
    up = up - (up @ across) / (across @ across) * across
    return _unit(np.cross(across, up), "the skeleton's front")


def hinge_axes(rest: Array, axis: Array) -> Array:
    """A joint's own axes (columns, in the bone's frame) for a hinge about ``axis``.

    Args:
        rest: The bone's rest orientation in armature space (3, 3).
        axis: The hinge axis in armature space; it becomes the joint's X, and a turn
            by +θ about it follows the right-hand rule.

    Returns:
        Columns X = the axis, Y = the bone's Y made orthogonal to it (its length, so that
        the joint's Y stays its twist), Z = X × Y.
    """
    x = _unit(rest.T @ axis, "the hinge axis")
    y = np.array([0.0, 1.0, 0.0]) - x[1] * x
    if float(np.linalg.norm(y)) < 1e-6:  # the hinge runs along the bone
        y = np.array([0.0, 0.0, 1.0]) - x[2] * x
    y = _unit(y, "the joint's Y axis")
    return np.column_stack((x, y, np.cross(x, y)))


def cone_axes(rest: Array, axis: Array) -> Array:
    """A joint's own axes (columns, in the bone's frame) for a cone about ``axis``.

    Y = the axis, X = the bone's X made orthogonal to it, Z = X × Y.
    """
    y = _unit(rest.T @ axis, "the cone axis")
    x = np.array([1.0, 0.0, 0.0]) - y[0] * y
    if float(np.linalg.norm(x)) < 1e-6:
        x = np.array([0.0, 0.0, 1.0]) - y[2] * y
    x = _unit(x, "the joint's X axis")
    return np.column_stack((x, y, np.cross(x, y)))


def set_hinge(joint: Any, axes: Array, lower: float, upper: float) -> None:
    """Make ``joint`` a hinge: it turns about its X only, within [lower, upper]."""
    _check_range(joint.name, lower, upper)
    joint.use_axes = True
    joint.axes = tuple(matrix_quaternion(axes))
    joint.use_limit = (True, False, False)
    joint.limit_min = (lower, 0.0, 0.0)
    joint.limit_max = (upper, 0.0, 0.0)
    joint.lock = (False, True, True)
    joint.polygon.clear()


def set_cone(joint: Any, axes: Array, angle: float, twist: float) -> None:
    """Make ``joint`` a cone: it swings up to ``angle`` and twists up to ±``twist``.

    The swing about its X and Z is held within a polygon of :data:`CONE_SIDES` vertices
    on the circle of radius ``angle``; the twist is about its Y.
    """
    if not 0.0 < angle < math.pi or not 0.0 <= twist <= math.pi:
        raise BlenderDataError(
            f"cone of bone '{joint.name}': the angle must be in (0°, 180°) and the twist in "
            f"[0°, 180°], got {math.degrees(angle):.6g}° and {math.degrees(twist):.6g}°"
        )
    joint.use_axes = True
    joint.axes = tuple(matrix_quaternion(axes))
    joint.euler_order = "YXZ"  # the twist first, then the swing
    joint.use_limit = (False, True, False)
    joint.limit_min = (0.0, -twist, 0.0)
    joint.limit_max = (0.0, twist, 0.0)
    joint.lock = (False, False, False)
    joint.polygon_axes = "XZ"
    joint.polygon.clear()
    for k in range(CONE_SIDES):
        turn = 2.0 * math.pi * k / CONE_SIDES
        joint.polygon.add().value = (angle * math.cos(turn), angle * math.sin(turn))


def set_twist(joint: Any, twist: float) -> None:
    """Bound ``joint``'s twist about the bone's own length to ±``twist``, the rest free."""
    joint.use_axes = True
    joint.axes = (1.0, 0.0, 0.0, 0.0)
    joint.euler_order = "YXZ"  # the twist first, then the swing
    joint.use_limit = (False, True, False)
    joint.limit_min = (0.0, -twist, 0.0)
    joint.limit_max = (0.0, twist, 0.0)
    joint.lock = (False, False, False)


def _check_range(bone: str, lower: float, upper: float) -> None:
    if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
        raise BlenderDataError(
            f"hinge of bone '{bone}': the least turn must be finite and at most the most, "
            f"got {math.degrees(lower):.6g}° and {math.degrees(upper):.6g}°"
        )


def _rest(obj: Any, bone: str) -> Array:
    """The bone's rest orientation in armature space, (3, 3), of unit scale."""
    rest = to_numpy(obj.data.bones[bone].matrix_local)[:3, :3]
    unit: Array = rest / float(np.cbrt(np.linalg.det(rest)))
    return unit


class REACH_OT_joint_hinge(JointOperator, Operator):
    """Make the joint a hinge about an axis: it bends about that axis only, within limits."""

    bl_idname = "reach.joint_hinge"
    bl_label = "Hinge"

    axis: FloatVectorProperty(  # type: ignore[valid-type]
        name="Axis",
        description="The hinge axis in the armature's space (a positive turn: right-hand rule)",
        size=3,
        default=(1.0, 0.0, 0.0),
    )
    lower: FloatProperty(name="Least", subtype="ANGLE", default=0.0)  # type: ignore[valid-type]
    upper: FloatProperty(name="Most", subtype="ANGLE", default=FLEXION)  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone = self.target(context)
        axes = hinge_axes(_rest(obj, bone), np.array(self.axis, dtype=float))
        set_hinge(joint_entry(obj, bone, create=True), axes, self.lower, self.upper)
        return {"FINISHED"}


class REACH_OT_joint_cone(JointOperator, Operator):
    """Make the joint a cone about an axis: it swings up to an angle off it and twists about it."""

    bl_idname = "reach.joint_cone"
    bl_label = "Cone"

    axis: FloatVectorProperty(  # type: ignore[valid-type]
        name="Axis",
        description="The cone's axis in the armature's space; zero: the bone's own length",
        size=3,
        default=(0.0, 0.0, 0.0),
    )
    angle: FloatProperty(name="Angle", subtype="ANGLE", default=math.radians(60.0))  # type: ignore[valid-type]
    twist: FloatProperty(name="Twist", subtype="ANGLE", default=math.radians(45.0))  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone = self.target(context)
        rest = _rest(obj, bone)
        axis = np.array(self.axis, dtype=float)
        if not axis.any():
            axis = rest[:, 1]
        set_cone(joint_entry(obj, bone, create=True), cone_axes(rest, axis), self.angle, self.twist)
        return {"FINISHED"}


class REACH_OT_human_limits(ArmatureOperator, Operator):
    """Hinge a human skeleton's elbows and knees to bend as a body's do, bound its limbs' twist.

    The bones are found by name: Rigify, Mixamo, UE mannequin, BVH.
    """

    bl_idname = "reach.human_limits"
    bl_label = "Human Limits"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        joints = human_joints(obj)
        hinges = [name for name, (part, _) in joints.items() if part in ("forearm", "shin")]
        if not hinges:
            raise BlenderDataError(
                f"armature '{obj.name}' has no elbow or knee Reach knows by name (Rigify "
                "forearm.L, Mixamo or BVH LeftForeArm, UE lowerarm_l, …); give its joints "
                "hinges one by one (Hinge)"
            )
        front = body_front(obj, joints)
        for name, (part, _) in sorted(joints.items()):
            joint = joint_entry(obj, name, create=True)
            if part in TWIST:
                set_twist(joint, TWIST[part])
                continue
            rest = _rest(obj, name)
            # elbows bring the hand forward, knees take the foot back
            bend = front if part == "forearm" else -front
            along = rest[:, 1]
            axis = np.cross(along, bend - (bend @ along) * along)
            set_hinge(joint, hinge_axes(rest, axis), 0.0, FLEXION)
        self.report(
            {"INFO"},
            f"human limits on {len(joints)} bones: {', '.join(sorted(joints))}",
        )
        return {"FINISHED"}


classes = (REACH_OT_joint_hinge, REACH_OT_joint_cone, REACH_OT_human_limits)
