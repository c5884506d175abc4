"""``reach.solve`` (every enabled constraint, once) and ``reach.clamp_pose``."""

from __future__ import annotations

import time
from typing import Any

from bpy.props import BoolProperty
from bpy.types import Operator

from .bridge.goals import build_problem
from .bridge.keys import auto_key
from .bridge.pose import changed_bones, read_pose, write_pose
from .bridge.rig import armature_object, build_rig
from .bridge.solving import clamp_pose, judge, solve_from_pose, store_stats
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
        start = time.perf_counter()
        obj = armature_object(self.armature, context)
        setup = build_problem(obj, context.scene)
        outcome = solve_from_pose(
            obj, setup, time_limit=None, restarts=obj.reach.restarts, clamp=self.clamp
        )
        # clamped or solved, only the chains' bones move
        before = read_pose(obj, setup.rig, rounding=False)
        write_pose(obj, setup.rig, outcome.result.theta, setup.movable)
        moved = changed_bones(setup.rig, before, outcome.result.theta)
        auto_key(context.scene, obj, setup.rig, moved, context.scene.frame_current)
        context.view_layer.update()
        outcome = judge(obj, setup, outcome, obj.reach)
        store_stats(obj, outcome, 1000.0 * (time.perf_counter() - start))
        report_warnings(self, setup.rig.messages(setup.lines))
        if outcome.unmet:
            self.report({"WARNING"}, obj.reach.stats.message)
        return {"FINISHED"}


class REACH_OT_clamp_pose(ArmatureOperator, Operator):
    """Move the pose into the joint limits (nearest pose inside them)."""

    bl_idname = "reach.clamp_pose"
    bl_label = "Clamp to Limits"

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        changed = clamp_pose(obj, build_rig(obj))
        context.view_layer.update()
        self.report(
            {"INFO"},
            f"clamped {len(changed)} bones" if changed else "the pose is within the limits",
        )
        return {"FINISHED"}


classes = (REACH_OT_solve, REACH_OT_clamp_pose)
