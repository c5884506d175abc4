"""One solve from the current pose (``bridge.solving``): unmet goals, start poses, clamping."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from rigs import four_limbs, solve_fails


def test_unreachable_goal_goes_as_close_as_it_can_and_says_so(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    shoulder = np.array(obj.matrix_world @ obj.pose.bones["upper_arm.L"].head)
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    direction = np.array((1.0, -0.3, 0.2)) / np.linalg.norm((1.0, -0.3, 0.2))
    goal.location = tuple(shoulder + 3.0 * arm * direction)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    stats = obj.reach.stats
    assert stats.unmet == "hand.L"
    assert stats.outcome == "not_reachable"
    assert stats.message.startswith("not reachable: hand.L out of reach by ")
    assert stats.reasons.startswith("hand.L: out of reach by ")
    hand = rigs.world_tail(obj, "forearm.L")
    # stretched toward the goal: the hand is far out along the direction to it
    assert np.dot(hand - shoulder, direction) >= 0.95 * arm
    assert stats.residual == pytest.approx(np.linalg.norm(hand - np.array(goal.location)), rel=1e-4)


def test_a_goal_the_limits_keep_away_is_not_called_out_of_reach(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.lock_ik_y = forearm.lock_ik_z = True  # the elbow only bends, within [-150°, 0°]
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm.L", effector="TAIL", chain_start="forearm.L", name="h"
    ) == {"FINISHED"}
    for other in obj.reach.constraints:
        other.enabled = other.name == "h"
    # Bending the other way (+X) would meet it: within the forearm's reach, not proved out.
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (math.radians(40.0), 0.0, 0.0)
    bpy.context.view_layer.update()
    obj.reach.constraints["h"].goal.location = tuple(rigs.world_tail(obj, "forearm.L"))
    forearm.rotation_euler = (math.radians(-10.0), 0.0, 0.0)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    stats = obj.reach.stats
    assert stats.unmet == "h"
    assert stats.outcome == "local_minimum"
    assert stats.message.startswith("not met: h ")
    assert "not proved out of reach" in stats.message
    assert f"no closer pose found from {obj.reach.restarts + 1} starts" in stats.message
    assert "out of reach by" not in stats.reasons
    assert "held by forearm.L rotation X ≤ 0°" in stats.reasons
    assert forearm.rotation_euler.x == pytest.approx(0.0, abs=1e-7)


def test_a_pose_held_by_a_limit_polygon_edge_along_an_axis_names_the_polygon(reach):
    # a square polygon over the upper arm's X and Z, on a joint with no IK limits: its
    # edge X ≤ 0.3 is a row over one DOF, but not the joint's bound (which is +inf)
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    forearm = obj.pose.bones["forearm.L"]
    forearm.lock_ik_x = forearm.lock_ik_y = forearm.lock_ik_z = True
    rigs.add_vertices(obj, "upper_arm.L", [(-0.3, -0.3), (0.3, -0.3), (0.3, 0.3), (-0.3, 0.3)])
    rigs.pose_xz(obj, "upper_arm.L", 0.8, 0.0)  # beyond the edge: where the goal goes
    bpy.context.view_layer.update()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm.L", chain_start="upper_arm.L", name="h"
    ) == {"FINISHED"}
    rigs.pose_xz(obj, "upper_arm.L", 0.0, 0.0)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    stats = obj.reach.stats
    assert stats.unmet == "h"
    assert "held by " in stats.reasons
    assert "inf" not in stats.reasons
    assert "edge" in stats.reasons


def test_start_pose_outside_the_limits_is_refused_then_clamped_on_request(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (math.radians(20.0), 0.0, 0.0)  # limit: X in [-150°, 0°]
    solve_fails(
        obj, r"outside the limits: forearm.L rotation X is 20.00°, limit 0.00°; clamp the pose"
    )
    assert bpy.ops.reach.solve(armature=obj.name, clamp=True) == {"FINISHED"}
    assert forearm.rotation_euler.x <= 1e-7


def test_clamp_pose_moves_the_pose_into_the_limits(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.R"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (math.radians(-170.0), 0.3, 0.0)
    assert bpy.ops.reach.clamp_pose(armature=obj.name) == {"FINISHED"}
    assert forearm.rotation_euler.x == pytest.approx(math.radians(-150.0), abs=1e-6)
    assert forearm.rotation_euler.y == pytest.approx(0.3)


def test_clamp_with_a_group_of_five_ends_inside_and_solve_and_bake_accept_it(reach):
    # the spine's and neck's bends about X turn together; each bounded. Clamping one row at
    # a time stalled outside, and Solve with Clamp and Bake refused the pose Clamp made
    obj = four_limbs()
    bones = ("spine", "spine.001", "spine.002", "spine.003", "spine.004")
    assert bpy.ops.reach.group_add(armature=obj.name, name="Back") == {"FINISHED"}
    for bone, ratio, (low, high) in zip(
        bones,
        (1.0, -1.5, 0.7, 2.0, -0.4),
        ((-0.3, 0.2), (-0.6, 0.5), (-0.2, 0.4), (-0.5, 0.3), (-0.1, 0.6)),
        strict=True,
    ):
        assert bpy.ops.reach.group_member_add(armature=obj.name, bone=bone, ratio=ratio) == {
            "FINISHED"
        }
        pose_bone = obj.pose.bones[bone]
        pose_bone.use_ik_limit_x = True
        pose_bone.ik_min_x, pose_bone.ik_max_x = low, high
        pose_bone.rotation_mode = "XYZ"
        pose_bone.rotation_euler = (0.9 * (-1) ** len(bone), 0.2, -0.1)
    for side in ("L", "R"):  # the hands' chains through the spine: the solve holds the group
        obj.reach.constraints[f"hand.{side}"].chain_start = "spine"
    assert bpy.ops.reach.clamp_pose(armature=obj.name) == {"FINISHED"}
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    theta = reach.addon.bridge.pose.read_pose(obj, rig, rounding=False)
    assert rig.figure.limits.max_violation(theta) <= 1e-6  # single precision
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.clamp_pose(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.solve(armature=obj.name, clamp=True) == {"FINISHED"}
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=3) == {"FINISHED"}
