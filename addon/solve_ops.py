"""``reach.solve`` (every enabled constraint, once) and ``reach.clamp_pose``."""

from __future__ import annotations

from typing import Any

from bpy.props import BoolProperty
from bpy.types import Operator

from .bridge import kept
from .bridge.kinds import figure_rig
from .bridge.posing import clamp_pose
from .bridge.rig import armature_object
from .operator_base import ArmatureOperator, Result, report_warnings


class REACH_OT_solve(ArmatureOperator, Operator):
    """Solve all enabled constraints of the armature once and write the pose."""

    bl_idname = "reach.solve"
    bl_label = "Solve"

    clamp: BoolProperty(  # type: ignore[valid-type]
        name="Clamp to limits",
        description="First move a pose that is outside the limits into them",
        default=False,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        poser, inputs = kept.poser(obj, context.scene, context.view_layer)
        step = poser.solve(restarts=obj.reach.restarts, clamp=self.clamp)
        kept.keep(obj, poser, inputs)  # (a Solve that fails keeps nothing)
        report_warnings(self, step.setup.rig.messages(step.setup.lines))
        if step.outcome.unmet:
            self.report({"WARNING"}, obj.reach.stats.message)
        return {"FINISHED"}


class REACH_OT_clamp_pose(ArmatureOperator, Operator):
    """Move the pose into the joint limits (nearest pose inside them)."""

    bl_idname = "reach.clamp_pose"
    bl_label = "Clamp to Limits"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        changed = clamp_pose(obj, figure_rig(obj), context.view_layer)
        context.view_layer.update()
        self.report(
            {"INFO"},
            f"clamped {len(changed)} bones" if changed else "the pose is within the limits",
        )
        return {"FINISHED"}


classes = (REACH_OT_solve, REACH_OT_clamp_pose)
