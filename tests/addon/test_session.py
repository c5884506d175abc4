"""Drag sessions (cancel, confirm, auto-keying), live mode, and save → reload."""

from __future__ import annotations

import bpy
import numpy as np
import rigs
from mathutils import Vector
from test_drag import four_limbs, reachable_path


def drag_session(reach, obj, name):
    goal = obj.reach.constraints[name].goal
    return reach.addon.session.DragSession(bpy.context, obj, goal), goal


def test_cancel_restores_every_bone_and_the_goal_bit_for_bit(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    obj.pose.bones["forearm.R"].rotation_mode = "AXIS_ANGLE"
    obj.pose.bones["spine.003"].rotation_euler = (0.05, -0.02, 0.01)
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    drag, goal = drag_session(reach, obj, "hand.L")
    goal_before = tuple(goal.location)
    rig = drag.setup.rig
    for point in reachable_path(
        rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 10, seed=5
    ):
        drag.step(point["location"])
    assert rigs.pose_channels(obj) != before
    drag.cancel()
    assert rigs.pose_channels(obj) == before
    assert tuple(goal.location) == goal_before


def test_a_failed_replay_event_cancels_the_whole_drag(reach):
    obj = four_limbs()
    before = rigs.pose_channels(obj)
    goal = obj.reach.constraints["hand.R"].goal
    start = Vector(goal.location)
    path = [{"name": "", "location": start + Vector((0.0, -0.01 * k, 0.0))} for k in range(3)]
    path.append({"name": "", "location": (float("nan"), 0.0, 0.0)})
    try:
        bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path)
    except RuntimeError as error:
        assert "drag cancelled at event 4" in str(error)
        assert "not a finite 3D point" in str(error)
    else:
        raise AssertionError("a NaN location must cancel the drag")
    assert rigs.pose_channels(obj) == before
    assert tuple(goal.location) == tuple(start)


def test_confirming_with_auto_keying_keys_the_moved_bones_and_the_goal(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    scene = bpy.context.scene
    scene.tool_settings.use_keyframe_insert_auto = True
    scene.frame_set(7)
    drag, goal = drag_session(reach, obj, "hand.L")
    drag.step(Vector(goal.location) + Vector((0.0, -0.03, 0.02)))
    drag.finish()
    assert set(reach.addon.session.changed_bones(drag.setup.rig, drag.start, drag.theta)) == {
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


def fcurve_paths(obj):
    """Data paths keyed on ``obj`` (layered actions in 5.0, flat ones in 4.2)."""
    action = obj.animation_data.action
    if hasattr(action, "fcurves") and len(action.fcurves):
        return {c.data_path for c in action.fcurves}
    paths = set()
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                paths.update(c.data_path for c in bag.fcurves)
    return paths


def test_without_auto_keying_confirm_inserts_no_keys(reach):
    obj = four_limbs()
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = False
    drag, goal = drag_session(reach, obj, "hand.L")
    drag.step(Vector(goal.location) + Vector((0.0, -0.03, 0.02)))
    drag.finish()
    assert obj.animation_data is None or obj.animation_data.action is None


def test_live_mode_keeps_the_feet_on_their_goals_when_the_armature_moves(reach):
    obj = four_limbs()
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    assert reach.addon.live.is_live(obj.name)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for offset in ((0.0, 0.0, -0.05), (0.03, 0.02, -0.08), (-0.02, 0.0, -0.1)):
        obj.location = offset
        bpy.context.view_layer.update()  # fires the depsgraph handler: live re-solves
        bpy.context.view_layer.update()  # evaluates the pose it wrote
        for side, where in feet.items():
            assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}
    assert not reach.addon.live.is_live(obj.name)
    obj.location = (0.0, 0.0, -0.12)
    bpy.context.view_layer.update()
    moved = rigs.world_tail(obj, "shin.L")
    assert np.linalg.norm(moved - feet["L"]) > 0.01  # no longer held


def test_live_mode_holds_a_bone_the_user_moves_and_re_solves_the_rest(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    rigs.limbs(obj, hands=False)
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    bpy.ops.reach.live(armature=obj.name)
    hips = obj.pose.bones["spine"]
    hips.location = (0.0, -0.06, 0.0)  # the hips drop (bone Y points up the spine)
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    assert tuple(hips.location) == (0.0, np.float32(-0.06), 0.0)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg


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


def test_a_drag_event_writes_only_the_chain_bones_and_rebuilds_only_the_moved_goal(reach):
    adapter = reach.addon.adapter
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    obj.pose.bones["forearm.L"].rotation_mode = "AXIS_ANGLE"
    obj.pose.bones["spine.003"].rotation_euler = (0.1, 0.2, 0.3)  # not in a chain
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    drag, _ = drag_session(reach, obj, "hand.L")
    first = drag.setup
    path = reachable_path(
        first.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 3, seed=8
    )
    for point in path:
        drag.step(point["location"])
    after = rigs.pose_channels(obj)
    moved = set(first.moved)
    assert "spine.003" not in moved and "upper_arm.L" in moved
    for name, channels in before.items():
        if name not in moved:
            assert after[name] == channels, name  # bit for bit
    assert any(after[name] != before[name] for name in ("upper_arm.L", "forearm.L"))
    # the other goals' solver goals are the very same objects; the dragged one is new
    index = drag.setup.names.index("hand.L")
    for k, (old, new) in enumerate(
        zip(first.problem.leaves, drag.setup.problem.leaves, strict=True)
    ):
        assert (old.goal is new.goal) == (k != index)
    fresh = adapter.build_problem(obj, bpy.context.scene, first.rig)
    theta = adapter.read_pose(obj, first.rig)
    assert drag.setup.problem.objective(theta)[0] == fresh.problem.objective(theta)[0]
