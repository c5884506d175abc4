"""Confirming a drag with auto-keying on keys the bones that moved, and the goal."""

from __future__ import annotations

import bpy
from mathutils import Vector
from rigs import fcurve_paths, four_limbs
from test_drag_session import drag_session


def test_confirming_with_auto_keying_keys_the_moved_bones_and_the_goal(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    scene = bpy.context.scene
    scene.tool_settings.use_keyframe_insert_auto = True
    scene.frame_set(7)
    drag, goal = drag_session(reach, obj, "hand.L")
    drag.step(Vector(goal.location) + Vector((0.0, -0.03, 0.02)))
    drag.finish()
    assert set(reach.addon.bridge.pose.changed_bones(drag.setup.rig, drag.start, drag.theta)) == {
        "shoulder.L",
        "upper_arm.L",
        "forearm.L",
    }
    paths = fcurve_paths(obj)
    channel = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
    for bone in ("upper_arm.L", "forearm.L"):
        mode = obj.pose.bones[bone].rotation_mode
        assert f'pose.bones["{bone}"].{channel.get(mode, "rotation_euler")}' in paths
    assert not any("thigh" in p or ".R" in p for p in paths)  # bones that did not move
    assert "location" in fcurve_paths(goal)


def test_without_auto_keying_confirm_inserts_no_keys(reach):
    obj = four_limbs()
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = False
    drag, goal = drag_session(reach, obj, "hand.L")
    drag.step(Vector(goal.location) + Vector((0.0, -0.03, 0.02)))
    drag.finish()
    assert obj.animation_data is None or obj.animation_data.action is None


def test_solve_with_auto_keying_keys_only_the_bones_that_moved(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    scene.tool_settings.use_keyframe_insert_auto = True
    scene.frame_set(4)
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((0.03, -0.02, 0.04))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    paths = fcurve_paths(obj)
    assert {p.split('"]')[0] for p in paths} == {
        f'pose.bones["{b}' for b in ("shoulder.L", "upper_arm.L", "forearm.L")
    }
    for curve in reach.addon.bridge.keys.fcurves(obj):
        assert [k.co[0] for k in curve.keyframe_points] == [4.0]


def test_solve_keys_only_the_active_keying_sets_channels(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    settings = scene.tool_settings
    settings.use_keyframe_insert_auto = True
    settings.use_keyframe_insert_keyingset = True
    forearm = obj.pose.bones["forearm.L"]
    channel = reach.addon.bridge.keys.rotation_channel(forearm.rotation_mode)
    keying_set = scene.keying_sets.new(idname="reach_test", name="Forearm")
    keying_set.paths.add(obj, forearm.path_from_id(channel))
    scene.keying_sets.active = keying_set
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((0.03, -0.02, 0.04))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert fcurve_paths(obj) == {forearm.path_from_id(channel)}


def test_live_mode_with_auto_keying_keys_the_bones_it_moves(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    bpy.ops.reach.live(armature=obj.name)
    scene.tool_settings.use_keyframe_insert_auto = True
    obj.location = (0.0, 0.0, -0.05)
    bpy.context.view_layer.update()
    paths = fcurve_paths(obj)
    assert paths and all(".L" in p or ".R" in p for p in paths)
    assert any("shin.L" in p for p in paths) and not any("hand" in p for p in paths)
