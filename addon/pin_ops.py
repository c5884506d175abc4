"""``reach.pin_bone``: hold a bone's head where it is now (Greeff, Haber & Seidel 2005).

A pin is a position constraint at the bone's head whose goal empty (a small sphere)
stays where the head was, flagged as a pin: the damped least-squares method meets pins
before every priority level and exactly; the other methods weigh it as a goal of
weight :data:`solver.PIN_WEIGHT`. Moving the empty moves the pin.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.types import Operator

from ..solver import PIN_WEIGHT
from .errors import BlenderDataError
from .figure_ops import check_pose
from .operator_base import BoneOperator, Result
from .renames import unique_name


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
        try:
            made = bpy.ops.reach.add_constraint(  # type: ignore[attr-defined]
                armature=obj.name,
                bone=bone,
                effector="HEAD",
                goal_type="POSITION",
                weight=PIN_WEIGHT,
                name=name,
            )
        except RuntimeError as error:  # Add Constraint's own report, passed on as ours
            raise BlenderDataError(str(error).removeprefix("Error: ").strip()) from error
        if made != {"FINISHED"}:
            raise BlenderDataError(f"could not add a pin on '{bone}'")
        entry = obj.reach.constraints[name]
        entry.pinned = True  # its goal is a sphere empty, as every position goal's
        return {"FINISHED"}


classes = (REACH_OT_pin_bone,)
