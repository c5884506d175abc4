"""Joints about their own axes: a hinge or a cone about any axis, and human limits.

Blender's IK limits bound a bone's rotations about its own X, Y and Z, so a joint whose
hinge lies between those axes (an imported skeleton's forearm, rolled 41° off) cannot
be limited to bend one way. These operators give the joint its own axes
(:attr:`ReachJoint.use_axes`): Reach turns the bone about them and limits it there.

:class:`REACH_OT_human_limits` finds a human skeleton's joints
(:func:`.bridge.anatomy.human_body`), hinges its elbows and knees to bend the way a body
bends and makes every other joint of the trunk and limbs a ball joint with a body's
range of swing and twist (:func:`.bridge.anatomy.ball_limits`), so that no knee bends
backwards by turning the thigh round.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
from bpy.props import FloatProperty, FloatVectorProperty
from bpy.types import Operator

from ..solver.rotations import matrix_quaternion
from .bridge.anatomy import Ball, ball_limits, body_axes, human_body, knuckles, unit_rest
from .bridge.arrays import Array
from .bridge.body import PATTERNS
from .bridge.joints import joint_dof_name
from .bridge.kinds import figure_rig
from .bridge.pose import settle
from .bridge.posing import pose_outside, read_figure
from .bridge.rest_limits import Hinge, rest_limits
from .bridge.rig import armature_object, to_numpy
from .errors import BlenderDataError
from .joint_ops import JointOperator, joint_entry
from .operator_base import ArmatureOperator, Result
from .vocabulary import AXES

FLEXION = math.radians(150.0)
"""How far a human elbow or knee bends from straight."""
LIMB_PARTS = frozenset(PATTERNS)
"""The limb parts known by their bones' names (thigh, shin, upper arm, forearm)."""
CONE_SIDES = 8
"""Vertices of the polygon a cone limit is drawn with (it lies inside the cone)."""


def _unit(vector: Array, what: str) -> Array:
    norm = float(np.linalg.norm(vector))
    if not math.isfinite(norm) or norm < 1e-9:
        raise BlenderDataError(f"{what} has no direction; give a non-zero axis")
    unit: Array = vector / norm
    return unit


def body_frame(obj: Any, joints: dict[str, tuple[str, str]]) -> dict[str, Array]:
    """The way the skeleton faces, its up and its left, in armature space (:func:`body_axes`).

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
    front = _unit(np.cross(across, up), "the skeleton's front")
    return body_axes(front, _unit(across, "the skeleton's left"))


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


def set_ball(joint: Any, ball: Ball) -> None:
    """Make ``joint`` a ball joint of ``ball``'s axes and limits.

    It twists within ±``ball.twist`` about the bone's length, then swings about its other
    two axes within ``ball.polygon``.
    """
    joint.use_axes = True
    joint.axes = tuple(matrix_quaternion(ball.axes))
    joint.euler_order = "YZX"  # the twist first, then the smaller swing, then the larger
    joint.use_limit = (False, True, False)
    joint.limit_min = (0.0, -ball.twist, 0.0)
    joint.limit_max = (0.0, ball.twist, 0.0)
    joint.lock = (False, False, False)
    joint.polygon_axes = "XZ"
    joint.polygon.clear()
    for vertex in ball.polygon:
        joint.polygon.add().value = vertex


WIDEN = math.radians(10.0)
"""The furthest a new limit is widened to keep the current pose inside it: an imported pose
a few degrees past a body's range (an elbow 1° straighter than straight) is the animator's;
further past it, Clamp to limits is offered instead."""
_WIDEN_MARGIN = 1e-4
"""How far past the pose a widened limit lies [rad]: single precision's rounding of both."""


def _widen_to_pose(operator: Any, obj: Any, names: list[str]) -> None:
    """Widen the new limits of the joints ``names`` to the current pose, within :data:`WIDEN`.

    Each turn about a joint's own axis that lies past its least or most by at most
    :data:`WIDEN` moves that bound to it, and the operator says which; a turn further
    past, or a swing outside a joint's polygon, is left for :func:`_report_outside`.
    """
    rig = figure_rig(obj)
    dofs = {dof.name: k for k, dof in enumerate(rig.figure.dofs)}
    theta = settle(rig, read_figure(obj, rig))
    widened = []
    for name in names:
        joint = obj.reach.joints.get(name)
        if joint is None or not joint.use_axes:
            continue
        for k, axis in enumerate(AXES):
            index = dofs.get(joint_dof_name(name, axis))
            if index is None or not joint.use_limit[k]:
                continue
            turn = float(theta[index])
            lower, upper = list(joint.limit_min), list(joint.limit_max)
            if lower[k] - WIDEN <= turn < lower[k]:
                lower[k] = turn - _WIDEN_MARGIN
                joint.limit_min = lower
            elif upper[k] < turn <= upper[k] + WIDEN:
                upper[k] = turn + _WIDEN_MARGIN
                joint.limit_max = upper
            else:
                continue
            widened.append(f"{name} {axis} to {math.degrees(turn):.2f}°")
    if widened:
        operator.report(
            {"INFO"},
            f"widened {len(widened)} limits to the current pose, past a body's range by "
            f"at most {math.degrees(WIDEN):.0f}°: {', '.join(widened)}",
        )


def _report_outside(operator: Any, obj: Any) -> None:
    """Warn, naming the limit, when the armature's pose lies outside its new limits."""
    outside = pose_outside(obj)
    if outside:
        operator.report(
            {"WARNING"},
            f"the current pose is outside the new limits: {outside}; it stays as it is "
            "until Clamp to limits brings it inside",
        )


def _check_range(bone: str, lower: float, upper: float) -> None:
    if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
        raise BlenderDataError(
            f"hinge of bone '{bone}': the least turn must be finite and at most the most, "
            f"got {math.degrees(lower):.6g}° and {math.degrees(upper):.6g}°"
        )


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
        axes = hinge_axes(unit_rest(obj.data.bones[bone]), np.array(self.axis, dtype=float))
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
        rest = unit_rest(obj.data.bones[bone])
        axis = np.array(self.axis, dtype=float)
        if not axis.any():
            axis = rest[:, 1]
        set_cone(joint_entry(obj, bone, create=True), cone_axes(rest, axis), self.angle, self.twist)
        return {"FINISHED"}


class REACH_OT_human_limits(ArmatureOperator, Operator):
    """Limit a human skeleton's joints to a body's ranges of motion.

    Elbows and knees bend one way; the spine, neck, head, clavicles, arms, wrists, thighs
    and ankles swing and twist as far as a body's do. The limbs are found by name (Rigify,
    Mixamo, UE mannequin, BVH), the rest by the skeleton's shape around them. The pose
    stays as it is: a limit it lies a few degrees past is widened to it, and a pose further
    outside is named, for Clamp to limits.
    """

    bl_idname = "reach.human_limits"
    bl_label = "Human Limits"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        joints, missing = human_body(obj)
        hinges = [name for name, (part, _) in joints.items() if part in ("forearm", "shin")]
        if not hinges:
            raise BlenderDataError(
                f"armature '{obj.name}' has no elbow or knee Reach knows by name (Rigify "
                "forearm.L, Mixamo or BVH LeftForeArm, UE lowerarm_l, …); give its joints "
                "hinges one by one (Hinge)"
            )
        body = body_frame(obj, {n: key for n, key in joints.items() if key[0] in LIMB_PARTS})
        shared = Counter(part for part, _ in joints.values())
        skipped: dict[str, str] = {}
        for name, (part, side) in sorted(joints.items()):
            rest = unit_rest(obj.data.bones[name])
            if part in ("forearm", "shin"):
                # elbows bring the hand forward, knees take the foot back
                bend = body["front"] if part == "forearm" else -body["front"]
                along = rest[:, 1]
                axis = np.cross(along, bend - (bend @ along) * along)
                set_hinge(joint_entry(obj, name, create=True), hinge_axes(rest, axis), 0.0, FLEXION)
                continue
            line = knuckles(obj.data.bones[name]) if part == "hand" else None
            ball = ball_limits(rest, part, side, body, shared[part], line)
            if ball is None:
                skipped[name] = f"'{name}' ({part}: it lies along the way it swings)"
                continue
            set_ball(joint_entry(obj, name, create=True), ball)
        done = sorted(set(joints) - set(skipped))
        self.report({"INFO"}, f"human limits on {len(done)} bones: {', '.join(done)}")
        if missing or skipped:
            self.report(
                {"WARNING"},
                f"human limits could not place {'; '.join(missing + list(skipped.values()))}; "
                "limit them one by one (Hinge, Cone)",
            )
        _widen_to_pose(self, obj, done)
        _report_outside(self, obj)
        return {"FINISHED"}


class REACH_OT_limits_from_rest(ArmatureOperator, Operator):
    """Limit any skeleton's joints from its rest pose: legs bend the way they bend at rest.

    Each limb's first joint swings in a cone about its rest direction, every later joint
    is a hinge across the plane it bends in at rest, bending further that way and
    straightening no further than straight; the spine, neck and tail get moderate bounds.
    For quadrupeds, birds, creatures and game rigs whose bones Human Limits does not know.
    """

    bl_idname = "reach.limits_from_rest"
    bl_label = "Limits from Rest"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        found = rest_limits(obj)
        if not found.joints:
            raise BlenderDataError(
                f"armature '{obj.name}' has no limb Reach can read from its rest pose (a "
                "chain of bones leaving the middle plane, X = 0, sideways)"
                + (f"; skipped {'; '.join(found.skipped)}" if found.skipped else "")
                + "; give its joints limits one by one (Hinge, Cone)"
            )
        for name, joint in found.joints.items():
            entry = joint_entry(obj, name, create=True)
            if isinstance(joint, Hinge):
                axes = hinge_axes(unit_rest(obj.data.bones[name]), joint.axis)
                set_hinge(entry, axes, joint.lower, joint.upper)
            else:
                set_ball(entry, joint)
        hinges = sum(isinstance(j, Hinge) for j in found.joints.values())
        self.report(
            {"INFO"},
            f"limits from rest on {len(found.joints)} bones ({hinges} hinges, "
            f"{len(found.joints) - hinges} cones): {', '.join(sorted(found.joints))}",
        )
        if found.skipped:
            self.report({"WARNING"}, f"limits from rest skipped {'; '.join(found.skipped)}")
        _widen_to_pose(self, obj, sorted(found.joints))
        _report_outside(self, obj)
        return {"FINISHED"}


classes = (
    REACH_OT_joint_hinge,
    REACH_OT_joint_cone,
    REACH_OT_human_limits,
    REACH_OT_limits_from_rest,
)
