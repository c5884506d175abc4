"""The joint panels of the "Reach" tab: the active bone's joint, and the joint groups.

The joint shows Blender's IK settings of the bone, Reach's own axes and its limit
polygon; the groups tie joints' angles together.
"""

from __future__ import annotations

from typing import Any

from bpy.types import Panel

from .lists import add_bone_button, draw_list
from .panel_base import ArmaturePanel

POLYGON_MODES = ("QUATERNION", "AXIS_ANGLE")
"""Rotation modes whose bones Reach reads as Euler angles in the joint's own order."""


class REACH_PT_joint(ArmaturePanel, Panel):
    """The active bone's joint: Blender's IK locks, limits and stiffness, and Reach's."""

    bl_label = "Joint"

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        bone = obj.data.bones.active
        if bone is None:
            layout.label(text="Select a bone to edit its joint", icon="INFO")
            return
        pose_bone = obj.pose.bones.get(bone.name)
        if pose_bone is None:
            layout.label(text=f"'{bone.name}' has no pose bone", icon="ERROR")
            return
        row = layout.row()
        row.label(text=bone.name, icon="BONE_DATA")
        pin = row.operator("reach.pin_bone", text="Pin", icon="PINNED")
        pin.armature, pin.bone = obj.name, bone.name
        layout.prop(pose_bone, "rotation_mode")
        joint = obj.reach.joints.get(bone.name)
        if joint is not None:
            layout.prop(joint, "mass")
        if joint is not None and joint.use_axes:
            layout.label(text="Turns about its own axes (Joint Axes below)", icon="INFO")
            return
        if pose_bone.rotation_mode in POLYGON_MODES:
            if joint is not None:
                layout.prop(joint, "euler_order", text="Reach Euler Order")
            else:
                layout.label(text="Make the figure to choose its Euler order", icon="INFO")
        col = layout.column(align=True)
        for axis in "xyz":
            row = col.row(align=True)
            row.prop(pose_bone, f"lock_ik_{axis}", text=f"Lock IK {axis.upper()}", toggle=True)
            row.prop(pose_bone, f"ik_stiffness_{axis}", text="Stiffness", slider=True)
            row = col.row(align=True)
            row.active = not getattr(pose_bone, f"lock_ik_{axis}")
            row.prop(pose_bone, f"use_ik_limit_{axis}", text="Limit")
            limits = row.row(align=True)
            limits.active = getattr(pose_bone, f"use_ik_limit_{axis}")
            limits.prop(pose_bone, f"ik_min_{axis}", text="Min")
            limits.prop(pose_bone, f"ik_max_{axis}", text="Max")
            col.separator()


class REACH_PT_joint_axes(ArmaturePanel, Panel):
    """The active bone's own joint axes: a hinge or a cone about any axis, human limits."""

    bl_label = "Joint Axes"
    bl_parent_id = "REACH_PT_joint"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context: Any) -> bool:  # noqa: D102
        return super().poll(context) and context.active_object.data.bones.active is not None

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        bone = obj.data.bones.active.name
        row = layout.row(align=True)
        shapes = (("reach.joint_hinge", "CON_ROTLIMIT"), ("reach.joint_cone", "MESH_CONE"))
        for idname, icon in shapes:
            op = row.operator(idname, icon=icon)
            op.armature, op.bone = obj.name, bone
        row = layout.row(align=True)
        op = row.operator("reach.human_limits", icon="ARMATURE_DATA")
        op.armature = obj.name
        op = row.operator("reach.limits_from_rest", icon="OUTLINER_OB_ARMATURE")
        op.armature = obj.name
        joint = obj.reach.joints.get(bone)
        if joint is None:
            return
        layout.prop(joint, "use_axes")
        if not joint.use_axes:
            return
        layout.prop(joint, "axes")
        layout.prop(joint, "euler_order", text="Euler Order")
        col = layout.column(align=True)
        for k, axis in enumerate("XYZ"):
            row = col.row(align=True)
            row.prop(joint, "lock", index=k, text=f"Lock {axis}", toggle=True)
            row.prop(joint, "use_limit", index=k, text="Limit")
            limits = row.row(align=True)
            limits.active = joint.use_limit[k] and not joint.lock[k]
            limits.prop(joint, "limit_min", index=k, text="Min")
            limits.prop(joint, "limit_max", index=k, text="Max")


class REACH_PT_joint_polygon(ArmaturePanel, Panel):
    """The active bone's limit polygon, drawn vertex by vertex from poses."""

    bl_label = "Limit Polygon"
    bl_parent_id = "REACH_PT_joint"

    @classmethod
    def shows(cls, obj: Any) -> bool:  # noqa: D102
        return obj.data.bones.active is not None

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        bone = obj.data.bones.active.name
        joint = obj.reach.joints.get(bone)
        if joint is None:
            layout.label(text="No polygon yet: pose the bone, then add a vertex", icon="INFO")
            op = layout.operator("reach.polygon_add_vertex", icon="ADD")
            op.armature, op.bone = obj.name, bone
            return
        layout.prop(joint, "polygon_axes")
        buttons = draw_list(layout, "REACH_UL_polygon", joint, "polygon", "active_vertex", rows=4)
        op = buttons.operator("reach.polygon_add_vertex", text="", icon="ADD")
        op.armature, op.bone = obj.name, bone
        op = buttons.operator("reach.polygon_remove_vertex", text="", icon="REMOVE")
        op.armature, op.bone = obj.name, bone
        buttons.separator()
        op = buttons.operator("reach.polygon_clear", text="", icon="X")
        op.armature, op.bone = obj.name, bone
        count = len(joint.polygon)
        if 0 < count < 3:
            layout.label(text=f"{count} of at least 3 vertices: add more", icon="ERROR")
        elif count:
            layout.label(text="Vertices are poses: keep the polygon convex", icon="INFO")


class REACH_PT_groups(ArmaturePanel, Panel):
    """Joint groups: rotations of several bones that turn together in fixed ratios."""

    bl_label = "Joint Groups"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        settings = obj.reach
        buttons = draw_list(layout, "REACH_UL_groups", settings, "groups", "active_group", rows=3)
        op = buttons.operator("reach.group_add", text="", icon="ADD")
        op.armature = obj.name
        op = buttons.operator("reach.group_remove", text="", icon="REMOVE")
        op.armature = obj.name
        index = settings.active_group
        if not 0 <= index < len(settings.groups):
            return
        group = settings.groups[index]
        layout.label(text=f"Members of '{group.name}'")
        buttons = draw_list(
            layout, "REACH_UL_group_members", group, "members", "active_member", rows=3
        )
        add_bone_button(buttons, obj, "reach.group_member_add").group = group.name
        op = buttons.operator("reach.group_member_remove", text="", icon="REMOVE")
        op.armature, op.group = obj.name, group.name


classes = (REACH_PT_joint, REACH_PT_joint_axes, REACH_PT_joint_polygon, REACH_PT_groups)
