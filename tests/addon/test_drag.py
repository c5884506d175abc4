"""``reach.drag_goal``: a path replayed as drag events, and a bad event cancelling it."""

from __future__ import annotations

import bpy
import numpy as np
import rigs
from mathutils import Vector
from rigs import four_limbs, reachable_path


def test_path_replay_reaches_each_goal_and_keeps_the_feet(reach):
    obj = four_limbs()
    hand_goal = obj.reach.constraints["hand.L"].goal
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    bridge = reach.addon.bridge
    rig = bridge.rig.build_rig(obj)
    limits = rig.figure.limits
    path = reachable_path(
        rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 30, seed=3
    )
    result = bpy.ops.reach.drag_goal(armature=obj.name, goal=hand_goal.name, path=path)
    assert result == {"FINISHED"}
    events = obj.reach.drag_events
    assert len(events) == len(path)
    for event, point in zip(events, path, strict=True):
        assert np.allclose(event.location, point["location"], atol=1e-6)
        assert event.residual <= 1e-4 * arm, (event.residual, event.status)
        assert event.milliseconds > 0.0
        assert event.max_violation <= 1e-9
    # the final pose, as Blender evaluates it
    assert (
        np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(path[-1]["location"]))
        <= 1e-4 * arm
    )
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * arm
    theta = bridge.pose.read_pose(obj, rig)
    assert limits.max_violation(theta) <= 1e-6
    assert np.all(theta >= rig.figure.lower - 1e-6) and np.all(theta <= rig.figure.upper + 1e-6)


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
