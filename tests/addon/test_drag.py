"""``reach.drag_goal`` replays a path as drag events on the Rigify human."""

from __future__ import annotations

import math

import bpy
import numpy as np
import rigs


def four_limbs():
    obj = rigs.metarig()
    for side in ("L", "R"):
        forearm = obj.pose.bones[f"forearm.{side}"]
        forearm.use_ik_limit_x = True
        forearm.ik_min_x = math.radians(-150)
        forearm.ik_max_x = 0.0
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.limbs(obj)
    return obj


def reachable_path(rig, obj, bone, bones, n, seed):
    """Hand locations along a straight line in joint space from the current pose to a
    random pose within the limits: every one is reachable."""
    rng = np.random.default_rng(seed)
    figure = rig.figure
    start = np.zeros(figure.n_dofs)
    end = start.copy()
    for name in bones:
        for i in figure.segment(name).dof_indices:
            low = max(figure.lower[i], -1.0)
            high = min(figure.upper[i], 1.0)
            end[i] = rng.uniform(low, high)
    k = [e.name for e in rig.layout].index(bone)
    length = obj.data.bones[bone].length
    points = []
    for t in np.linspace(0.0, 1.0, n + 1)[1:]:
        frame = figure.forward((1 - t) * start + t * end)[k]
        points.append(
            {"name": "", "location": tuple(frame[:3, :3] @ (0.0, length, 0.0) + frame[:3, 3])}
        )
    return points


def test_path_replay_reaches_each_goal_and_keeps_the_feet(reach):
    obj = four_limbs()
    hand_goal = obj.reach.constraints["hand.L"].goal
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    adapter = reach.addon.adapter
    rig = adapter.build_rig(obj)
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
    theta = adapter.read_pose(obj, rig)
    assert limits.max_violation(theta) <= 1e-6
    assert np.all(theta >= rig.figure.lower - 1e-6) and np.all(theta <= rig.figure.upper + 1e-6)
