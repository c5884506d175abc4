"""The comfort pose's operators: store the current pose, or go back to the rest pose."""

from __future__ import annotations

from typing import Any

from bpy.types import Operator

from .bridge.rig import armature_object
from .operator_base import ArmatureOperator, Result


class REACH_OT_store_comfort_pose(ArmatureOperator, Operator):
    """Store the armature's current pose as the pose comfort relaxes toward."""

    bl_idname = "reach.store_comfort_pose"
    bl_label = "Store Comfort Pose"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        stored = obj.reach.comfort_pose
        stored.clear()
        for pose_bone in obj.pose.bones:
            entry = stored.add()
            entry.name = pose_bone.name
            basis = pose_bone.matrix_basis
            entry.rotation = basis.to_quaternion()
            entry.location = basis.to_translation()
        self.report({"INFO"}, f"comfort now relaxes '{obj.name}' toward this pose")
        return {"FINISHED"}


class REACH_OT_clear_comfort_pose(ArmatureOperator, Operator):
    """Relax toward the rest pose again, forgetting the stored comfort pose."""

    bl_idname = "reach.clear_comfort_pose"
    bl_label = "Comfort Toward Rest Pose"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        armature_object(self.armature, context).reach.comfort_pose.clear()
        return {"FINISHED"}


classes = (REACH_OT_store_comfort_pose, REACH_OT_clear_comfort_pose)
