"""The "Reach" tab of the 3D viewport's sidebar.

Panels draw ``Object.reach`` of the active armature, with the lists of :mod:`.lists`, and
call Reach's operators (:mod:`.figure_ops`, :mod:`.solve_ops`, :mod:`.drag`, :mod:`.live`,
:mod:`.joint_ops`) with the armature (and bone) named explicitly. Drawing reads data only;
nothing here changes the scene. The joint's panels are :mod:`.joint_panels`'; this
module orders every panel for registration (the sidebar shows them in that order).
"""

from __future__ import annotations

from typing import Any

from bpy.types import Panel

from ..solver import kernel
from . import lists, live, renames
from .bridge.mass import centre_of_mass
from .comfort import draw_comfort
from .joint_panels import (
    REACH_PT_groups,
    REACH_PT_joint,
    REACH_PT_joint_axes,
    REACH_PT_joint_polygon,
)
from .lists import add_bone_button, draw_list
from .method_settings import LEVELLED, draw_method
from .panel_base import ArmaturePanel, ReachPanel, active_armature, active_constraint


class REACH_PT_figure(ReachPanel, Panel):
    """Make the active armature a Reach figure; explains what to select otherwise."""

    bl_label = "Figure"

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = active_armature(context)
        if obj is None:
            other = context.active_object
            if other is not None:
                kind = other.type.lower()
                layout.label(text=f"'{other.name}' ({kind}) is not an armature", icon="INFO")
            layout.label(text="Select an armature to pose it with Reach")
            return
        settings = obj.reach
        if settings.is_figure:
            layout.label(text=f"'{obj.name}' is a Reach figure", icon="CHECKMARK")
        else:
            layout.label(text=f"'{obj.name}' is not a Reach figure yet", icon="ARMATURE_DATA")
        layout.prop(settings, "translate_root")
        if settings.is_figure:
            layout.prop(settings, "show_overlay")
            centre = centre_of_mass(obj)
            if centre is None:
                layout.label(text="No mass: set the joints' masses", icon="INFO")
            else:
                point = centre[0]
                where = f"{point.x:.3f}, {point.y:.3f}, {point.z:.3f}"
                layout.label(text=f"Centre of mass ({centre[1]:.1f} kg): {where}")
            row = layout.row(align=True)
            row.prop(settings, "balance")
            margin = row.row(align=True)
            margin.active = settings.balance
            margin.prop(settings, "balance_margin")
        op = layout.operator(
            "reach.figure_from_armature",
            text="Update Reach Figure" if settings.is_figure else "Make Reach Figure",
            icon="OUTLINER_OB_ARMATURE",
        )
        op.armature = obj.name
        op.translate_root = settings.translate_root
        for bone, users in renames.missing_bones(obj).items():
            row = layout.row()
            row.alert = True
            row.label(text=f"No bone '{bone}' ({', '.join(users)})", icon="ERROR")
            op = row.operator("reach.forget_bone", text="Forget")
            op.armature, op.bone = obj.name, bone


class REACH_PT_followers(ArmaturePanel, Panel):
    """Bones set by hand to move with a control (Make Figure lists those it finds itself)."""

    bl_label = "Moves With"
    bl_parent_id = "REACH_PT_figure"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        layout.label(text="Constraints on these bones go on their controls")
        buttons = draw_list(
            layout, "REACH_UL_followers", obj.reach, "followers", "active_follower", rows=3
        )
        add_bone_button(buttons, obj, "reach.follower_add")
        op = buttons.operator("reach.follower_remove", text="", icon="REMOVE")
        op.armature = obj.name


class REACH_PT_constraints(ArmaturePanel, Panel):
    """The armature's constraints, and Solve / Live / Drag."""

    bl_label = "Constraints"

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        obj = context.active_object
        settings = obj.reach
        buttons = draw_list(
            layout, "REACH_UL_constraints", settings, "constraints", "active_constraint", rows=4
        )
        add_bone_button(buttons, obj, "reach.add_constraint")
        op = buttons.operator("reach.remove_constraint", text="", icon="REMOVE")
        op.armature = obj.name
        if obj.data.bones.active is None:
            layout.label(text="Select a bone to add a constraint on it", icon="INFO")

        row = layout.row(align=True)
        op = row.operator("reach.solve", icon="PLAY")
        op.armature = obj.name
        if live.is_live(obj.name):
            op = row.operator("reach.live", text="Live", icon="PAUSE", depress=True)
            op.stop = True
        else:
            op = row.operator("reach.live", text="Live", icon="REC")
            op.stop = False
        op.armature = obj.name
        entry = active_constraint(obj)
        drag = row.row(align=True)
        drag.enabled = entry is not None and entry.goal is not None
        # the drag maps the mouse in the viewport's main region, not in the sidebar
        drag.operator_context = "INVOKE_REGION_WIN"
        op = drag.operator("reach.drag_goal", text="Drag", icon="VIEW_PAN")
        op.armature = obj.name
        op.goal = entry.goal.name if entry is not None and entry.goal is not None else ""
        op = layout.operator("reach.clamp_pose", icon="CON_ROTLIMIT")
        op.armature = obj.name


class REACH_PT_bake(ArmaturePanel, Panel):
    """Bake: hold the constraints on every frame of the scene's range; plant the feet."""

    bl_label = "Bake"
    bl_parent_id = "REACH_PT_constraints"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        scene = context.scene
        obj = context.active_object
        settings = obj.reach
        row = layout.row(align=True)
        row.prop(scene, "frame_start", text="Start")
        row.prop(scene, "frame_end", text="End")
        row = layout.row(align=True)
        row.prop(settings, "bake_reduce")
        tolerance = row.row(align=True)
        tolerance.active = settings.bake_reduce
        tolerance.prop(settings, "bake_tolerance", text="")
        op = layout.operator("reach.bake", icon="REC")
        op.armature = obj.name
        op.frame_start, op.frame_end = scene.frame_start, scene.frame_end
        op.reduce, op.tolerance = settings.bake_reduce, settings.bake_tolerance
        layout.label(text="Esc stops a bake and keeps the frames baked so far", icon="INFO")
        op = layout.operator("reach.plant_contacts", icon="CON_FLOOR")
        op.armature = obj.name
        op.frame_start, op.frame_end = scene.frame_start, scene.frame_end


class REACH_PT_constraint_settings(ArmaturePanel, Panel):
    """Every setting of the active constraint."""

    bl_label = "Active Constraint"
    bl_parent_id = "REACH_PT_constraints"

    @classmethod
    def shows(cls, obj: Any) -> bool:  # noqa: D102
        return active_constraint(obj) is not None

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        obj = context.active_object
        entry = active_constraint(obj)
        if entry is None:
            return
        layout.prop(entry, "name")
        layout.prop(entry, "enabled")
        layout.prop(entry, "goal_type")
        layout.prop(entry, "goal")
        layout.prop(entry, "weight")
        layout.prop_search(entry, "bone", obj.data, "bones", text="Effector Bone")
        layout.prop(entry, "effector")
        if entry.effector == "OFFSET":
            layout.prop(entry, "offset")
        layout.prop_search(entry, "chain_start", obj.data, "bones")
        kind = entry.goal_type
        if kind == "POSITION_ORIENTATION":
            layout.prop(entry, "w_position")
        if kind in {"ORIENTATION", "POSITION_ORIENTATION"}:
            col = layout.column(heading="Match", align=True)
            col.prop(entry, "use_x", text="X Axis")
            col.prop(entry, "use_y", text="Y Axis")
            col = layout.column(align=True)
            col.prop(entry, "match_x_axis", text="Goal X to Bone")
            col.prop(entry, "match_y_axis", text="Goal Y to Bone")
        if kind == "AIM":
            layout.prop(entry, "aim_axis")
        if kind in {"ORIENTATION", "POSITION_ORIENTATION", "AIM"}:
            col = layout.column(align=True)
            col.prop(entry, "angle_degrees", text="Angle (°)")
            col.prop(entry, "angle_length", text="Weighs as")
        layout.prop(entry, "any_of")
        layout.prop(entry, "contact")
        levelled = layout.column()
        levelled.active = obj.reach.method.kind in LEVELLED  # the others weigh every goal
        levelled.prop(entry, "priority")
        layout.prop(entry, "pinned")


class REACH_PT_solver(ArmaturePanel, Panel):
    """Solver settings, and which path solves (the compiled kernel or numpy)."""

    bl_label = "Solver"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.active_object.reach
        layout.prop(settings, "time_budget")
        layout.prop(settings, "adaptive")
        layout.prop(settings, "tolerance")
        layout.prop(settings, "restarts")
        layout.prop(settings, "reach_distance")
        draw_method(layout, settings.method)
        draw_comfort(layout, context.active_object)
        path = kernel.status()  # loads the kernel on first use (its check included)
        layout.label(text=f"Runs on: {path.text}", icon="CHECKMARK" if path.compiled else "INFO")


class REACH_PT_stats(ArmaturePanel, Panel):
    """The last solve's statistics, and which constraints it could not meet."""

    bl_label = "Last Solve"

    def draw(self, context: Any) -> None:  # noqa: D102
        layout: Any = self.layout
        stats = context.active_object.reach.stats
        if not stats.status:
            layout.label(text="No solve yet")
            return
        if stats.unmet:
            layout.label(text=stats.message, icon="ERROR")
            col = layout.column(align=True)
            for line in stats.reasons.split("\n"):
                col.label(text=line, icon="DOT")
        else:
            layout.label(text=stats.message or "all constraints met", icon="INFO")
        col = layout.column(align=True)
        col.label(text=f"Outcome: {stats.outcome.replace('_', ' ')}")
        col.label(text=f"Status: {stats.status}")
        col.label(text=f"Objective: {stats.objective:.4g}")
        col.label(text=f"Residual: {stats.residual:.4g}")
        col.label(text=f"Iterations: {stats.iterations}")
        col.label(text=f"Time: {stats.milliseconds:.1f} ms")


classes = (
    *lists.classes,
    REACH_PT_figure,
    REACH_PT_followers,
    REACH_PT_constraints,
    REACH_PT_bake,
    REACH_PT_constraint_settings,
    REACH_PT_joint,
    REACH_PT_joint_axes,
    REACH_PT_joint_polygon,
    REACH_PT_groups,
    REACH_PT_solver,
    REACH_PT_stats,
)
