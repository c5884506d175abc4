"""Small operators behind the sidebar's buttons: constraint, polygon and joint-group lists.

Like :mod:`.operators`, each takes its targets as explicit properties (object, bone,
constraint and group names) and falls back to the active object, bone or list entry when
a name is empty, so scripts and headless runs can call it without a viewport.
"""

from __future__ import annotations

import math
from typing import Any

from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy.types import Operator

from ..solver import Dof, Figure
from . import adapter
from ._types import Result
from .adapter import ReachError, armature_object
from .operators import ArmatureOperator, bone_name, goal_users, unique_name
from .properties import AXIS_ITEMS

VERTEX_TOLERANCE = 1e-6
"""Two polygon vertices closer than this (in both angles, [rad]) are the same vertex."""


def joint_entry(obj: Any, bone: str, *, create: bool) -> Any:
    """Reach's joint settings of ``bone``; made when ``create`` and missing.

    Raises:
        ReachError: If they are missing and ``create`` is false.
    """
    joint = adapter.joint_settings(obj, bone)
    if joint is None:
        if not create:
            raise ReachError(f"bone '{bone}' has no Reach joint settings yet; add a vertex first")
        joint = obj.reach.joints.add()
        joint.name = bone
    return joint


def pose_angles(obj: Any, bone: str, axes: str) -> tuple[float, float]:
    """The bone's current rotations about the two ``axes`` (e.g. ``"XZ"``) [rad].

    They are read by the adapter exactly as a solve reads them, from a one-bone rig, so
    that a limit polygon still being drawn (fewer than 3 vertices) does not stop it.

    Raises:
        ReachError: If the bone's channels are not finite.
    """
    pose_bone = obj.pose.bones[bone]
    mode = pose_bone.rotation_mode
    if mode in adapter.EULER_ORDERS:
        order = mode
    else:
        order = joint_entry(obj, bone, create=False).euler_order
    entry = adapter.BoneLayout(bone, mode, order, translation=-1, rotation=0)
    figure = Figure()
    figure.add_segment(bone, dofs=[Dof.rotation(axis.lower()) for axis in order[::-1]])
    theta = adapter.read_pose(obj, adapter.Rig(obj.name, figure, (entry,)))
    return (
        float(theta[entry.axis_position(axes[0])]),
        float(theta[entry.axis_position(axes[1])]),
    )


def active_index(requested: int, active: int, count: int, what: str) -> int:
    """``requested`` (the active entry ``active`` when negative), checked against ``count``.

    Raises:
        ReachError: If the index is out of range (the list is empty, say).
    """
    index = active if requested < 0 else requested
    if not 0 <= index < count:
        raise ReachError(
            f"there is no {what} to remove" if count == 0 else f"no {what} at index {index}"
        )
    return index


def remove_at(entries: Any, index: int) -> int:
    """Remove entry ``index`` of the collection; returns the index to make active next."""
    entries.remove(index)
    return max(0, min(index, len(entries) - 1))


def find_group(obj: Any, name: str) -> int:
    """Index of the joint group ``name`` (the active group when empty).

    Raises:
        ReachError: If there is no such group.
    """
    groups = obj.reach.groups
    if not name:
        return active_index(-1, obj.reach.active_group, len(groups), "joint group")
    index = groups.find(name)
    if index < 0:
        raise ReachError(f"armature '{obj.name}' has no joint group '{name}'")
    return int(index)


class JointOperator(ArmatureOperator):
    """Mixin: an operator on the joint of one bone of the armature."""

    bone: StringProperty(name="Bone", description="The joint's bone; empty: the active bone")  # type: ignore[valid-type]


class GroupOperator(ArmatureOperator):
    """Mixin: an operator on one joint group of the armature."""

    group: StringProperty(name="Group", description="Group name; empty: the active group")  # type: ignore[valid-type]


class REACH_OT_remove_constraint(ArmatureOperator, Operator):
    """Remove a Reach constraint (the active one), and optionally its goal empty."""

    bl_idname = "reach.remove_constraint"
    bl_label = "Remove Reach Constraint"
    bl_options = {"REGISTER", "UNDO"}

    constraint: StringProperty(  # type: ignore[valid-type]
        name="Constraint", description="Constraint name; empty: the active constraint"
    )
    delete_goal: BoolProperty(  # type: ignore[valid-type]
        name="Delete goal",
        description="Also delete the goal empty, unless another constraint uses it",
        default=False,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        constraints = obj.reach.constraints
        if self.constraint:
            index = constraints.find(self.constraint)
            if index < 0:
                raise ReachError(f"armature '{obj.name}' has no constraint '{self.constraint}'")
        else:
            index = active_index(-1, obj.reach.active_constraint, len(constraints), "constraint")
        goal = constraints[index].goal
        obj.reach.active_constraint = remove_at(constraints, index)
        if self.delete_goal and goal is not None:
            users = [o.name for o in goal_users(context.blend_data.objects, goal)]
            if users:
                self.report(
                    {"INFO"}, f"kept goal '{goal.name}': constraints of {', '.join(users)} use it"
                )
            else:
                context.blend_data.objects.remove(goal)
        return {"FINISHED"}


class REACH_OT_polygon_add_vertex(JointOperator, Operator):
    """Add the bone's current pose (its two polygon-axis angles) to its limit polygon."""

    bl_idname = "reach.polygon_add_vertex"
    bl_label = "Add Vertex from Pose"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        bone = bone_name(obj, self.bone)
        joint = joint_entry(obj, bone, create=True)
        vertex = pose_angles(obj, bone, joint.polygon_axes)
        for k, other in enumerate(joint.polygon):
            if max(abs(a - b) for a, b in zip(vertex, other.value, strict=True)) <= (
                VERTEX_TOLERANCE
            ):
                raise ReachError(
                    f"bone '{bone}': the pose ({_degrees(vertex)}) is already vertex {k + 1} "
                    "of its limit polygon; pose the bone elsewhere first"
                )
        joint.polygon.add().value = vertex
        joint.active_vertex = len(joint.polygon) - 1
        return {"FINISHED"}


def _degrees(angles: tuple[float, float]) -> str:
    return ", ".join(f"{math.degrees(a):.1f}°" for a in angles)


class REACH_OT_polygon_remove_vertex(JointOperator, Operator):
    """Remove a vertex (the active one) from the bone's limit polygon."""

    bl_idname = "reach.polygon_remove_vertex"
    bl_label = "Remove Vertex"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(  # type: ignore[valid-type]
        name="Index", description="Vertex to remove; negative: the active vertex", default=-1
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        bone = bone_name(obj, self.bone)
        joint = joint_entry(obj, bone, create=False)
        index = active_index(
            self.index, joint.active_vertex, len(joint.polygon), f"vertex of '{bone}'"
        )
        joint.active_vertex = remove_at(joint.polygon, index)
        return {"FINISHED"}


class REACH_OT_polygon_clear(JointOperator, Operator):
    """Remove the bone's limit polygon (all its vertices)."""

    bl_idname = "reach.polygon_clear"
    bl_label = "Clear Polygon"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        bone = bone_name(obj, self.bone)
        joint = adapter.joint_settings(obj, bone)
        if joint is not None:
            joint.polygon.clear()
            joint.active_vertex = 0
        return {"FINISHED"}


class REACH_OT_group_add(ArmatureOperator, Operator):
    """Add a joint group: rotations that turn together in fixed ratios."""

    bl_idname = "reach.group_add"
    bl_label = "Add Joint Group"
    bl_options = {"REGISTER", "UNDO"}

    name: StringProperty(name="Name", description="Group name; empty: 'Group'")  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        groups = obj.reach.groups
        group = groups.add()
        group.name = unique_name(groups, self.name or "Group")
        obj.reach.active_group = len(groups) - 1
        return {"FINISHED"}


class REACH_OT_group_remove(GroupOperator, Operator):
    """Remove a joint group (the active one)."""

    bl_idname = "reach.group_remove"
    bl_label = "Remove Joint Group"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        index = find_group(obj, self.group)
        obj.reach.active_group = remove_at(obj.reach.groups, index)
        return {"FINISHED"}


class REACH_OT_group_member_add(GroupOperator, Operator):
    """Add a bone's rotation (the active bone's, about X) to a joint group."""

    bl_idname = "reach.group_member_add"
    bl_label = "Add Bone to Group"
    bl_options = {"REGISTER", "UNDO"}

    bone: StringProperty(name="Bone", description="The bone; empty: the active bone")  # type: ignore[valid-type]
    axis: EnumProperty(name="Axis", items=AXIS_ITEMS, default="X")  # type: ignore[valid-type]
    ratio: FloatProperty(  # type: ignore[valid-type]
        name="Ratio", description="This rotation's share (not 0)", default=1.0
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        group = obj.reach.groups[find_group(obj, self.group)]
        bone = bone_name(obj, self.bone)
        if self.ratio == 0.0:
            raise ReachError(f"joint group '{group.name}': a member's ratio cannot be 0")
        for member in group.members:
            if member.bone == bone and member.axis == self.axis:
                raise ReachError(
                    f"joint group '{group.name}' already holds '{bone}' about {self.axis}"
                )
        member = group.members.add()
        member.name = bone
        member.bone = bone
        member.axis = self.axis
        member.ratio = self.ratio
        group.active_member = len(group.members) - 1
        return {"FINISHED"}


class REACH_OT_group_member_remove(GroupOperator, Operator):
    """Remove a member (the active one) from a joint group."""

    bl_idname = "reach.group_member_remove"
    bl_label = "Remove Bone from Group"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(  # type: ignore[valid-type]
        name="Index", description="Member to remove; negative: the active member", default=-1
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        group = obj.reach.groups[find_group(obj, self.group)]
        index = active_index(
            self.index, group.active_member, len(group.members), f"member of '{group.name}'"
        )
        group.active_member = remove_at(group.members, index)
        return {"FINISHED"}


classes = (
    REACH_OT_remove_constraint,
    REACH_OT_polygon_add_vertex,
    REACH_OT_polygon_remove_vertex,
    REACH_OT_polygon_clear,
    REACH_OT_group_add,
    REACH_OT_group_remove,
    REACH_OT_group_member_add,
    REACH_OT_group_member_remove,
)
