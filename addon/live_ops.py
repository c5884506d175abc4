"""The ``reach.live`` operator: live mode on or off (:mod:`.live`)."""

from __future__ import annotations

from typing import Any

from bpy.props import BoolProperty
from bpy.types import Operator

from .bridge import blas, rig
from .live import has_session, start, stop
from .operator_base import ArmatureOperator, Result


class REACH_OT_live(ArmatureOperator, Operator):
    """Live mode: re-solve whenever a goal, the armature or a free bone moves, or the frame.

    Attributes:
        watching: The ``session_uid`` of the armature whose live mode the modal loop
            waits on (from ``invoke``).
    """

    bl_idname = "reach.live"
    bl_label = "Live"
    bl_options = {"REGISTER"}

    stop: BoolProperty(name="Stop", description="End live mode on the armature", default=False)  # type: ignore[valid-type]

    watching: int

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = rig.armature_object(self.armature, context)
        if self.stop:
            stop(obj.name)
        else:
            start(obj, context.scene)
        return {"FINISHED"}

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:  # noqa: D102
        result = self.execute(context)
        if self.stop or "CANCELLED" in result:
            return result
        self.watching = int(rig.armature_object(self.armature, context).session_uid)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    @blas.held_event
    def modal(self, context: Any, event: Any) -> Result:  # noqa: D102
        if not has_session(self.watching):
            return {"FINISHED"}
        return {"PASS_THROUGH"}


classes = (REACH_OT_live,)
