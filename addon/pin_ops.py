"""``reach.pin_bone``: hold a bone's head where it is now (Greeff, Haber & Seidel 2005).

A pin is a position constraint at the bone's head whose goal empty (a small sphere)
stays where the head was, flagged as a pin: the damped least-squares method meets pins
before every priority level and exactly; the other methods weigh it as a goal of
weight :data:`solver.PIN_WEIGHT`. Moving the empty moves the pin. ``reach.pin_toggle``
(P in the Reach tool; Shift P: the bone's rotation) pins the bone under the mouse, or
the selected bones, or takes their pins away.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy.types import Operator

from ..solver import PIN_WEIGHT
from .bridge import blas
from .bridge.rig import armature_object
from .drag_bone import pick_bone
from .errors import BlenderDataError, no_bone
from .figure_ops import FigureMark, check_pose
from .operator_base import ArmatureOperator, BoneOperator, Result, remove_goal, run_nested
from .renames import unique_name
from .view import ViewMatrices


class REACH_OT_pin_bone(BoneOperator, Operator):
    """Pin the bone's head where it is now, so that other constraints cannot move it."""

    bl_idname = "reach.pin_bone"
    bl_label = "Pin Bone"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone = self.target(context)
        for entry in obj.reach.constraints:
            if entry.pinned and entry.bone == bone and entry.effector == "HEAD":
                raise BlenderDataError(f"'{bone}' is pinned already ({entry.name})")
        check_pose(obj, bone)
        name = unique_name(obj.reach.constraints, f"Pin {bone}")
        made = run_nested(
            bpy.ops.reach.add_constraint,  # type: ignore[attr-defined]
            armature=obj.name,
            bone=bone,
            effector="HEAD",
            goal_type="POSITION",
            weight=PIN_WEIGHT,
            name=name,
        )
        if made != {"FINISHED"}:
            raise BlenderDataError(f"could not add a pin on '{bone}'")
        entry = obj.reach.constraints[name]
        entry.pinned = True  # its goal is a sphere empty, as every position goal's
        return {"FINISHED"}


def _pins(obj: Any, bone: str, rotation: bool) -> list[str]:
    """The pins of ``bone``'s point, or of its rotation."""
    kinds = {"ORIENTATION"} if rotation else {"POSITION", "POSITION_ORIENTATION"}
    entries = obj.reach.constraints
    return [c.name for c in entries if c.pinned and c.bone == bone and c.goal_type in kinds]


class REACH_OT_pin_toggle(ArmatureOperator, Operator):
    """Pin the bone under the mouse (or the selected bones) where it is, or unpin it."""

    bl_idname = "reach.pin_toggle"
    bl_label = "Toggle Pin"
    bl_options = {"REGISTER", "UNDO"}

    bone: StringProperty(  # type: ignore[valid-type]
        name="Bone", description="The bone; empty: the bone under the mouse, else the selected"
    )
    rotation: BoolProperty(  # type: ignore[valid-type]
        name="Rotation", description="Pin the bone's rotation instead of its head", default=False
    )

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:  # noqa: D102
        if not self.bone:
            try:
                self.bone = bone_under_mouse(context, event, self.armature)
            except BlenderDataError as error:
                self.report({"ERROR"}, str(error))
                return {"CANCELLED"}
        return self.execute(context)

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        if self.bone:
            if obj.data.bones.get(self.bone) is None:
                raise no_bone(obj, self.bone)
            bones = [self.bone]
        else:
            bones = selected_bones(obj)
        if not bones:
            raise BlenderDataError(f"no bone of '{obj.name}' under the mouse or selected to pin")
        pinned = {bone: _pins(obj, bone, self.rotation) for bone in bones}
        before, marked = set(obj.reach.constraints.keys()), FigureMark.of(obj)
        active = obj.reach.active_constraint
        try:  # every pin added first: if one is refused, none stays
            for bone in (b for b, pins in pinned.items() if not pins):
                if self.rotation:
                    _pin_rotation(obj, bone)
                else:
                    run_nested(bpy.ops.reach.pin_bone, armature=obj.name, bone=bone)  # type: ignore[attr-defined]
        except Exception:
            added = [c.name for c in obj.reach.constraints if c.name not in before]
            _remove(obj, added, context.blend_data.objects)
            obj.reach.active_constraint = active
            marked.restore(obj)
            raise
        taken = [name for pins in pinned.values() for name in pins]
        _remove(obj, taken, context.blend_data.objects)
        return {"FINISHED"}


def _remove(obj: Any, names: list[str], objects: Any) -> None:
    """Remove the constraints ``names`` and their goals (unless others use them)."""
    for name in names:
        goal = obj.reach.constraints[name].goal
        obj.reach.constraints.remove(obj.reach.constraints.find(name))
        if goal is not None:
            remove_goal(objects, goal)
    count = len(obj.reach.constraints)
    obj.reach.active_constraint = max(0, min(obj.reach.active_constraint, count - 1))


def bone_under_mouse(context: Any, event: Any, armature: str) -> str:
    """The bone of ``armature`` drawn under the event's mouse ("" when none, or no view).

    Raises:
        BlenderDataError: For a missing armature.
    """
    obj = armature_object(armature, context)
    if context.region is None or context.region_data is None:
        return ""
    view = ViewMatrices.from_region(context.region, context.region_data)
    picked = pick_bone(view, (event.mouse_region_x, event.mouse_region_y), obj)
    return "" if picked is None else picked[0]


def selected_bones(obj: Any) -> list[str]:
    """The armature's selected bones (a pose bone's flag from Blender 5.0, a bone's before)."""
    pose = obj.pose.bones
    if "select" in bpy.types.PoseBone.bl_rna.properties:
        return [b.name for b in pose if b.select]
    return [b.name for b in obj.data.bones if b.select]


def _pin_rotation(obj: Any, bone: str) -> None:
    """Pin ``bone``'s rotation as it is now (an orientation goal with its axes)."""
    check_pose(obj, bone)
    name = unique_name(obj.reach.constraints, f"Pin turn {bone}")
    run_nested(
        bpy.ops.reach.add_constraint,  # type: ignore[attr-defined]
        armature=obj.name,
        bone=bone,
        goal_type="ORIENTATION",
        weight=PIN_WEIGHT,
        name=name,
    )
    obj.reach.constraints[name].pinned = True


classes = (REACH_OT_pin_bone, REACH_OT_pin_toggle)
