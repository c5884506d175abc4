"""Bad input gets a clear report and loses nothing: the pose stays exactly as it was."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from test_drag import four_limbs


def solve_fails(obj, match, **options):
    before = rigs.pose_channels(obj)
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.reach.solve(armature=obj.name, **options)
    assert rigs.pose_channels(obj) == before


def test_solve_reports_a_goal_empty_that_was_removed(reach):
    obj = four_limbs()
    bpy.data.objects.remove(obj.reach.constraints["hand.L"].goal)
    solve_fails(obj, r"constraint 'hand.L' has no goal object \(it was deleted or never set\)")


def test_solve_reports_a_goal_empty_deleted_from_the_scene(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["foot.R"].goal
    for collection in goal.users_collection:
        collection.objects.unlink(goal)
    solve_fails(obj, rf"constraint 'foot.R': goal '{goal.name}' was deleted")


def test_a_renamed_goal_empty_keeps_working(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.name = "Left hand target"
    goal.location = Vector(goal.location) + Vector((0.0, -0.05, 0.0))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-5


def test_solve_reports_an_effector_bone_that_no_longer_exists(reach):
    obj = four_limbs()
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones["forearm.L"].name = "lower_arm.L"
    bpy.ops.object.mode_set(mode="OBJECT")
    solve_fails(obj, r"constraint 'hand.L': effector bone 'forearm.L' does not exist in 'metarig'")


def test_solve_reports_a_non_convex_limit_polygon_by_bone(reach):
    obj = four_limbs()
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0), (0.0, -0.5), (1.0, 1.0), (-1.0, 1.0)):
        joint.polygon.add().value = (a, b)
    solve_fails(obj, r"limit polygon of bone 'upper_arm.L' \(XZ\).*convex")


@pytest.mark.parametrize("where", ["goal", "armature", "bone"])
def test_solve_reports_nan_transforms(reach, where):
    obj = four_limbs()
    if where == "goal":
        goal = obj.reach.constraints["hand.L"].goal
        goal.location = (math.nan, 0.0, 0.0)
        match = rf"constraint 'hand.L': goal '{goal.name}' has a non-finite \(NaN or infinite\)"
    elif where == "armature":
        obj.location = (0.0, math.nan, 0.0)
        match = r"armature 'metarig' has a non-finite \(NaN or infinite\) transform"
    else:
        obj.pose.bones["shoulder.L"].rotation_euler = (0.0, math.nan, 0.0)
        match = r"bone 'shoulder.L' has a non-finite \(NaN or infinite\) rotation or location"
    bpy.context.view_layer.update()
    solve_fails(obj, match)


def test_figure_from_an_armature_without_bones_is_refused(reach):
    bpy.ops.object.armature_add()
    obj = bpy.context.object
    bpy.ops.object.mode_set(mode="EDIT")
    for bone in list(obj.data.edit_bones):
        obj.data.edit_bones.remove(bone)
    bpy.ops.object.mode_set(mode="OBJECT")
    with pytest.raises(RuntimeError, match=rf"armature '{obj.name}' has no bones"):
        bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert not obj.reach.is_figure


def test_solve_without_constraints_says_to_add_one(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    solve_fails(obj, r"armature 'metarig' has no enabled constraints; add one first")


def test_non_uniform_armature_scale_is_refused(reach):
    obj = four_limbs()
    obj.scale = (1.0, 2.0, 1.0)
    bpy.context.view_layer.update()
    solve_fails(obj, r"armature 'metarig' has non-uniform or negative scale .*apply the scale")


def test_uniform_armature_scale_is_solved_exactly(reach):
    obj = four_limbs()
    obj.scale = (1.5, 1.5, 1.5)
    bpy.context.view_layer.update()
    for entry in obj.reach.constraints:  # goals back onto the scaled figure
        entry.goal.location = obj.matrix_world @ obj.pose.bones[entry.bone].tail
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.1, -0.1, -0.1))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-5


def test_pose_scale_on_a_bone_is_refused(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.R"].scale = (1.0, 1.2, 1.0)
    solve_fails(obj, r"bone 'upper_arm.R' has pose scale \(1.0, 1.2, 1.0\)")


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
    assert stats.message.startswith("not reachable, as close as the limits allow: hand.L (")
    hand = rigs.world_tail(obj, "forearm.L")
    # stretched toward the goal: the hand is far out along the direction to it
    assert np.dot(hand - shoulder, direction) >= 0.95 * arm
    assert stats.residual == pytest.approx(np.linalg.norm(hand - np.array(goal.location)), rel=1e-4)


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


def test_drivers_and_bone_constraints_are_warned_about(reach):
    obj = four_limbs()
    driver = obj.pose.bones["upper_arm.L"].driver_add("rotation_euler", 0)
    driver.driver.expression = "0.1"
    obj.pose.bones["forearm.R"].constraints.new("COPY_ROTATION")
    warnings = reach.addon.adapter.build_rig(obj).warnings
    assert any("bone 'upper_arm.L' is driven by a driver" in w for w in warnings)
    assert any("bone 'forearm.R' has bone constraints" in w for w in warnings)


def test_add_constraint_reports_unknown_bones_and_goals(reach):
    obj = rigs.metarig()
    with pytest.raises(RuntimeError, match=r"armature 'metarig' has no bone 'wing\.L'"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="wing.L")
    with pytest.raises(
        RuntimeError, match=r"chain start 'thigh\.L' is not 'forearm\.L' or one of its parents"
    ):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="forearm.L", chain_start="thigh.L")
    with pytest.raises(RuntimeError, match="no object named 'Nowhere' for the goal"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="forearm.L", goal="Nowhere")
    assert len(obj.reach.constraints) == 0


def test_operators_are_unavailable_without_an_armature_and_say_why(reach):
    bpy.ops.object.empty_add()
    assert not bpy.ops.reach.solve.poll()
    with pytest.raises(RuntimeError, match="Add an armature first: Reach poses armatures"):
        bpy.ops.reach.solve(armature="Empty")


def test_operators_act_on_the_named_armature_whatever_is_active(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.05, -0.05, -0.05))
    bpy.context.view_layer.objects.active = goal
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-5
    with pytest.raises(RuntimeError, match=r"object 'Goal hand\.L' is a empty, not an armature"):
        bpy.ops.reach.solve()


def test_a_polygon_of_fewer_than_three_vertices_is_a_warning_not_a_limit(reach):
    obj = four_limbs()
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0)):
        joint.polygon.add().value = (a, b)
    rig = reach.addon.adapter.build_rig(obj)
    assert rig.figure.limits.a_in.shape[0] == 0 or not any(
        "upper_arm.L" in label for label in rig.figure.limits.in_labels
    )
    assert (
        "limit polygon of bone 'upper_arm.L' has 2 vertices; it limits nothing until it has 3"
        in (rig.warnings)
    )
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def test_a_pose_past_a_limit_by_single_precision_rounding_alone_is_accepted(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (3e-8, 0.0, 0.0)  # limit X ≤ 0°: past it by rounding only
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)):
        joint.polygon.add().value = (a, b)
    upper = obj.pose.bones["upper_arm.L"]
    upper.rotation_mode = "YXZ"
    upper.rotation_euler = (1.0 + 4e-8, 0.0, 0.2)  # on the polygon's edge X = 1, just past
    bpy.context.view_layer.update()
    rig = reach.addon.adapter.build_rig(obj)
    theta = reach.addon.adapter.read_pose(obj, rig)
    assert reach.addon.adapter.limit_excess(rig, theta) == 0.0
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.05, -0.05, -0.05))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert forearm.rotation_euler.x <= 1e-6
