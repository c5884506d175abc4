"""Everything the user sets is stored in the .blend file and survives save → reload."""

from __future__ import annotations

import bpy
import numpy as np
import rigs
from mathutils import Vector
from rigs import four_limbs


def test_save_reload_solve_gives_the_same_pose(reach, tmp_path):
    obj = four_limbs()
    obj.pose.bones["upper_arm.R"].rotation_mode = "QUATERNION"
    joint = obj.reach.joints["upper_arm.R"]
    joint.euler_order = "ZXY"
    goal = obj.reach.constraints["hand.R"].goal
    goal.location = Vector(goal.location) + Vector((0.0, -0.1, 0.05))
    goal_name = goal.name
    obj.reach.constraints["hand.L"].goal_type = "POSITION_ORIENTATION"
    obj.reach.constraints["hand.L"].w_position = 0.7
    obj.reach.time_budget = 0.05
    start = rigs.pose_channels(obj)
    path = tmp_path / "figure.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    solved = rigs.pose_channels(obj)
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects["metarig"]
    assert rigs.pose_channels(obj) == start
    settings = obj.reach
    assert settings.is_figure
    assert [c.name for c in settings.constraints] == ["foot.L", "hand.L", "foot.R", "hand.R"]
    assert settings.constraints["hand.L"].goal_type == "POSITION_ORIENTATION"
    assert settings.constraints["hand.L"].w_position == np.float32(0.7)
    assert settings.constraints["hand.R"].goal.name == goal_name
    assert settings.joints["upper_arm.R"].euler_order == "ZXY"
    assert settings.time_budget == np.float32(0.05)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    again = rigs.pose_channels(obj)
    for name, channels in solved.items():
        values, other = rigs.channel_values(channels), rigs.channel_values(again[name])
        assert np.allclose(values, other, atol=1e-6), name
