"""Operators on the controls bones move with, set by hand where constraints do not say.

:mod:`.bridge.followers` finds the rest from the rig's own constraints. A bone set to
move with a control (``Object.reach.followers``, named after the bone) is taken as
carried rigidly by it, at the offset Blender evaluates as the figure is made: a
constraint on the bone is on the control, which Reach poses and keys.
"""

from __future__ import annotations

from typing import Any

from bpy.props import StringProperty
from bpy.types import Operator

from .bridge.followers import find_followers
from .bridge.rig import armature_object
from .errors import BlenderDataError, no_bone
from .operator_base import ArmatureOperator, BoneOperator, RemoveEntry, Result


class REACH_OT_follower_add(BoneOperator, Operator):
    """Set the control a bone (the active one) moves with: constraints on it go on the control."""

    bl_idname = "reach.follower_add"
    bl_label = "Set Control a Bone Moves With"
    builds_rig = False

    control: StringProperty(  # type: ignore[valid-type]
        name="Control",
        description="The bone an animator keys that moves this one; empty: pick it in the list",
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone = self.target(context)
        control = self.control
        if control and obj.data.bones.get(control) is None:
            raise no_bone(obj, control, f"the control '{bone}' moves with")
        if control == bone:
            raise BlenderDataError(
                f"'{bone}' cannot move with itself; name the control that moves it"
            )
        above = find_followers(obj).get(control)
        if above is not None and above.control == bone:
            raise BlenderDataError(
                f"'{control}' moves with '{bone}' already, so '{bone}' cannot move with "
                f"'{control}'; name the control above both"
            )
        followers = obj.reach.followers
        entry = followers.get(bone) or followers.add()
        entry.name, entry.control = bone, control
        obj.reach.active_follower = followers.find(bone)
        return {"FINISHED"}


class REACH_OT_follower_remove(RemoveEntry, ArmatureOperator, Operator):
    """Forget the control a bone was set to move with (the active entry)."""

    bl_idname = "reach.follower_remove"
    bl_label = "Forget Control"
    builds_rig = False

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        self.remove(obj.reach, "followers", "active_follower", "bone set to move with a control")
        return {"FINISHED"}


classes = (REACH_OT_follower_add, REACH_OT_follower_remove)
