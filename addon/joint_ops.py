"""Operators on joints: limit polygons drawn vertex by vertex from poses, joint groups.

Each takes its targets as explicit properties (object, bone and group names) and falls
back to the active bone or list entry when a name is empty.
"""

from __future__ import annotations

import math
from typing import Any

from bpy.props import StringProperty
from bpy.types import Operator

from .bridge.joints import joint_settings
from .bridge.pose import joint_angles
from .bridge.rig import armature_object
from .errors import BlenderDataError
from .operator_base import (
    ArmatureOperator,
    BoneOperator,
    RemoveEntry,
    Result,
    active_index,
    remove_at,
)
from .properties import MEMBER_AXIS, MEMBER_RATIO
from .renames import forget, unique_name
from .vocabulary import AXES

VERTEX_TOLERANCE = 1e-6
"""Two polygon vertices closer than this (in both angles, [rad]) are the same vertex."""


def joint_entry(obj: Any, bone: str, *, create: bool) -> Any:
    """Reach's joint settings of ``bone``; made when ``create`` and missing.

    Raises:
        BlenderDataError: If they are missing and ``create`` is false.
    """
    joint = joint_settings(obj, bone)
    if joint is None:
        if not create:
            raise BlenderDataError(
                f"bone '{bone}' has no Reach joint settings yet; add a vertex first"
            )
        joint = obj.reach.joints.add()
        joint.name = bone
    return joint


def pose_angles(obj: Any, bone: str, axes: str) -> tuple[float, float]:
    """The bone's current rotations about the two ``axes`` (e.g. ``"XZ"``) [rad].

    They are read as a solve reads them (about the joint's axes, in its Euler order),
    from the bone alone, so that a limit polygon still being drawn does not stop it.

    Raises:
        BlenderDataError: If the bone's channels are not finite.
    """
    angles = joint_angles(obj, obj.pose.bones[bone])
    return float(angles[AXES.index(axes[0])]), float(angles[AXES.index(axes[1])])


def find_group(obj: Any, name: str) -> int:
    """Index of the joint group ``name`` (the active group when empty).

    Raises:
        BlenderDataError: If there is no such group.
    """
    groups = obj.reach.groups
    if not name:
        return active_index(-1, obj.reach.active_group, len(groups), "joint group")
    index = groups.find(name)
    if index < 0:
        raise BlenderDataError(f"armature '{obj.name}' has no joint group '{name}'")
    return int(index)


class JointOperator(BoneOperator):
    """Mixin: an operator on the joint of one bone of the armature."""

    def joint(self, context: Any, *, create: bool) -> tuple[Any, str, Any]:
        """The armature, the bone's name and its joint settings (made when ``create``)."""
        obj, bone = self.target(context)
        return obj, bone, joint_entry(obj, bone, create=create)


class GroupOperator(ArmatureOperator):
    """Mixin: an operator on one joint group of the armature."""

    group: StringProperty(name="Group", description="Group name; empty: the active group")  # type: ignore[valid-type]

    def joint_group(self, context: Any) -> tuple[Any, Any]:
        """The armature object and the group."""
        obj = armature_object(self.armature, context)
        return obj, obj.reach.groups[find_group(obj, self.group)]


class REACH_OT_polygon_add_vertex(JointOperator, Operator):
    """Add the bone's current pose (its two polygon-axis angles) to its limit polygon."""

    bl_idname = "reach.polygon_add_vertex"
    bl_label = "Add Vertex from Pose"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone, joint = self.joint(context, create=True)
        vertex = pose_angles(obj, bone, joint.polygon_axes)
        for k, other in enumerate(joint.polygon):
            if max(abs(a - b) for a, b in zip(vertex, other.value, strict=True)) <= (
                VERTEX_TOLERANCE
            ):
                degrees = ", ".join(f"{math.degrees(a):.1f}°" for a in vertex)
                raise BlenderDataError(
                    f"bone '{bone}': the pose ({degrees}) is already vertex {k + 1} "
                    "of its limit polygon; pose the bone elsewhere first"
                )
        joint.polygon.add().value = vertex
        joint.active_vertex = len(joint.polygon) - 1
        return {"FINISHED"}


class REACH_OT_polygon_remove_vertex(RemoveEntry, JointOperator, Operator):
    """Remove a vertex (the active one) from the bone's limit polygon."""

    bl_idname = "reach.polygon_remove_vertex"
    bl_label = "Remove Vertex"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        _, bone, joint = self.joint(context, create=False)
        self.remove(joint, "polygon", "active_vertex", f"vertex of '{bone}'")
        return {"FINISHED"}


class REACH_OT_polygon_clear(JointOperator, Operator):
    """Remove the bone's limit polygon (all its vertices)."""

    bl_idname = "reach.polygon_clear"
    bl_label = "Clear Polygon"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        joint = joint_settings(*self.target(context))
        if joint is not None:
            joint.polygon.clear()
            joint.active_vertex = 0
        return {"FINISHED"}


class REACH_OT_group_add(ArmatureOperator, Operator):
    """Add a joint group: rotations that turn together in fixed ratios."""

    bl_idname = "reach.group_add"
    bl_label = "Add Joint Group"
    builds_rig = False

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
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        index = find_group(obj, self.group)
        obj.reach.active_group = remove_at(obj.reach.groups, index)
        return {"FINISHED"}


class REACH_OT_group_member_add(BoneOperator, GroupOperator, Operator):
    """Add a bone's rotation (the active bone's, about X) to a joint group."""

    bl_idname = "reach.group_member_add"
    bl_label = "Add Bone to Group"
    builds_rig = False

    axis: MEMBER_AXIS()  # type: ignore[valid-type]
    ratio: MEMBER_RATIO()  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        _, group = self.joint_group(context)
        _, bone = self.target(context)
        if self.ratio == 0.0:
            raise BlenderDataError(f"joint group '{group.name}': a member's ratio cannot be 0")
        for member in group.members:
            if member.bone == bone and member.axis == self.axis:
                raise BlenderDataError(
                    f"joint group '{group.name}' already holds '{bone}' about {self.axis}"
                )
        member = group.members.add()
        member.name = bone
        member.bone = bone
        member.axis = self.axis
        member.ratio = self.ratio
        group.active_member = len(group.members) - 1
        return {"FINISHED"}


class REACH_OT_group_member_remove(RemoveEntry, GroupOperator, Operator):
    """Remove a member (the active one) from a joint group."""

    bl_idname = "reach.group_member_remove"
    bl_label = "Remove Bone from Group"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        _, group = self.joint_group(context)
        self.remove(group, "members", "active_member", f"member of '{group.name}'")
        return {"FINISHED"}


class REACH_OT_forget_bone(ArmatureOperator, Operator):
    """Forget a bone name no bone has: its joint settings and joint group memberships."""

    bl_idname = "reach.forget_bone"
    bl_label = "Forget Bone Name"
    builds_rig = False

    bone: StringProperty(name="Bone", description="A name the armature has no bone of")  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        forget(armature_object(self.armature, context), self.bone)
        return {"FINISHED"}


classes = (
    REACH_OT_polygon_add_vertex,
    REACH_OT_polygon_remove_vertex,
    REACH_OT_polygon_clear,
    REACH_OT_group_add,
    REACH_OT_group_remove,
    REACH_OT_group_member_add,
    REACH_OT_group_member_remove,
    REACH_OT_forget_bone,
)
