"""Drag sessions (``drag_session``): every event writes only the chains, cancel restores."""

from __future__ import annotations

import bpy
import rigs
from rigs import four_limbs, reachable_path


def drag_session(reach, obj, name):
    goal = obj.reach.constraints[name].goal
    return reach.addon.drag_session.DragSession(bpy.context, obj, goal), goal


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


def test_a_drag_event_writes_only_the_chain_bones_and_rebuilds_only_the_moved_goal(reach):
    bridge = reach.addon.bridge
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
    movable = set(first.movable)
    assert "spine.003" not in movable and "upper_arm.L" in movable
    for name, channels in before.items():
        if name not in movable:
            assert after[name] == channels, name  # bit for bit
    assert any(after[name] != before[name] for name in ("upper_arm.L", "forearm.L"))
    # the other goals' solver goals are the very same objects; the dragged one is new
    index = drag.setup.names.index("hand.L")
    for k, (old, new) in enumerate(
        zip(first.problem.leaves, drag.setup.problem.leaves, strict=True)
    ):
        assert (old.goal is new.goal) == (k != index)
    fresh = bridge.goals.build_problem(obj, bpy.context.scene, first.rig)
    theta = bridge.pose.read_pose(obj, first.rig)
    assert drag.setup.problem.objective(theta)[0] == fresh.problem.objective(theta)[0]
