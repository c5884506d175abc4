"""Every goal type, set up through the add-on (``bridge.goals``) and checked on Blender's
evaluated pose; goal empties and constraints that cannot be used are reported."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Matrix, Vector
from rigs import four_limbs, solve_fails

ARM = ("shoulder.L", "upper_arm.L", "forearm.L")


def arm_target(obj):
    """World matrix of forearm.L with its tail as translation, in a reachable pose; the
    pose is then put back to rest."""
    angles = {
        "shoulder.L": (0.1, 0.0, -0.1),
        "upper_arm.L": (0.4, -0.3, 0.5),
        "forearm.L": (0.6, 0.2, 0.0),
    }
    for name, values in angles.items():
        bone = obj.pose.bones[name]
        bone.rotation_mode = "XYZ"
        bone.rotation_euler = values
    bpy.context.view_layer.update()
    bone = obj.pose.bones["forearm.L"]
    matrix = obj.matrix_world @ bone.matrix
    target = (
        Matrix.Translation(obj.matrix_world @ bone.tail) @ matrix.to_3x3().normalized().to_4x4()
    )
    for name in angles:
        obj.pose.bones[name].rotation_euler = (0.0, 0.0, 0.0)
    bpy.context.view_layer.update()
    return target


def on_forearm(obj, goal, goal_type, name, chain_start="shoulder.L", **options):
    """A constraint of ``goal_type`` on forearm.L's tail with the empty ``goal``."""
    result = bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="forearm.L",
        effector="TAIL",
        goal=goal.name,
        goal_type=goal_type,
        chain_start=chain_start,
        name=name,
        **options,
    )
    assert result == {"FINISHED"}


def constrained(goal_type, **options):
    obj = rigs.metarig()
    target = arm_target(obj)
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    goal = bpy.data.objects.new("Target", None)
    bpy.context.scene.collection.objects.link(goal)
    goal.matrix_world = target
    on_forearm(obj, goal, goal_type, "arm", **options)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    bone = obj.pose.bones["forearm.L"]
    frame = np.array(obj.matrix_world @ bone.matrix)
    tail = np.array(obj.matrix_world @ bone.tail)
    return obj, np.array(goal.matrix_world), frame, tail


def test_position_goal_brings_the_tail_to_the_goal(reach):
    _, goal, _, tail = constrained("POSITION")
    assert np.linalg.norm(tail - goal[:3, 3]) <= 1e-5


def test_orientation_goal_turns_the_bone_axes_to_the_goal_axes(reach):
    _, goal, frame, _ = constrained("ORIENTATION")
    assert np.allclose(frame[:3, 0], goal[:3, 0], atol=1e-4)
    assert np.allclose(frame[:3, 1], goal[:3, 1], atol=1e-4)


def test_orientation_goal_with_x_freed_matches_only_y(reach):
    obj, goal, frame, _ = constrained("ORIENTATION", use_x=False)
    assert np.allclose(frame[:3, 1], goal[:3, 1], atol=1e-4)
    assert obj.reach.constraints["arm"].use_x is False


def test_position_orientation_goal_meets_both(reach):
    _, goal, frame, tail = constrained("POSITION_ORIENTATION", w_position=0.5)
    assert np.linalg.norm(tail - goal[:3, 3]) <= 1e-4
    assert np.allclose(frame[:3, :3], goal[:3, :3], atol=1e-3)


def test_aim_goal_aims_from_the_effector(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    goal = bpy.data.objects.new("Target", None)
    bpy.context.scene.collection.objects.link(goal)
    goal.location = (1.2, -0.8, 1.0)
    on_forearm(obj, goal, "AIM", "aim", chain_start="")
    obj.reach.constraints["aim"].chain_start = "upper_arm.L"
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    bone = obj.pose.bones["forearm.L"]
    axis = np.array((obj.matrix_world @ bone.matrix).to_3x3() @ Vector((0, 1, 0)))
    tail = np.array(obj.matrix_world @ bone.tail)
    toward = np.array(goal.location) - tail
    assert np.dot(axis, toward / np.linalg.norm(toward)) >= math.cos(math.radians(0.1))


@pytest.mark.parametrize("kind", ["LINE", "PLANE", "HALF_SPACE"])
def test_geometric_goals_take_their_direction_from_the_empty_z_axis(reach, kind):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    tail = np.array(obj.matrix_world @ obj.pose.bones["forearm.L"].tail)
    goal = bpy.data.objects.new("Target", None)
    bpy.context.scene.collection.objects.link(goal)
    # a plane/line through a point 15 cm below and 10 cm in front of the wrist; Z tilted
    # (the half-space's normal points down, so the wrist starts outside it)
    tilt = 0.3 + (math.pi if kind == "HALF_SPACE" else 0.0)
    goal.matrix_world = Matrix.Translation(
        tuple(tail + np.array((0.0, -0.1, -0.15)))
    ) @ Matrix.Rotation(tilt, 4, "X")
    on_forearm(obj, goal, kind, "geo")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    point = np.array(goal.matrix_world.translation)
    z = np.array(goal.matrix_world.to_3x3() @ Vector((0, 0, 1)))
    moved = np.array(obj.matrix_world @ obj.pose.bones["forearm.L"].tail)
    offset = moved - point
    if kind == "LINE":
        assert np.linalg.norm(offset - np.dot(offset, z) * z) <= 1e-5
    elif kind == "PLANE":
        assert abs(np.dot(offset, z)) <= 1e-5
    else:
        assert np.dot(offset, z) >= -1e-5
        assert np.dot(tail - point, z) < 0.0  # it started outside: the goal did move it


def _either(obj, offsets):
    """Goals for forearm.L's tail at ``offsets`` from it (name → offset), in one Any-of set."""
    tail = np.array(obj.matrix_world @ obj.pose.bones["forearm.L"].tail)
    made = {}
    for name, offset in offsets.items():
        goal = bpy.data.objects.new(name, None)
        bpy.context.scene.collection.objects.link(goal)
        goal.location = tuple(tail + np.array(offset))
        on_forearm(obj, goal, "POSITION", name, any_of="either")
        made[name] = goal
    return made


def test_any_of_set_meets_the_nearer_goal_and_says_it_is_met(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    goals = _either(obj, {"Near": (0.0, -0.05, -0.05), "Far": (-2.0, 0.0, 3.0)})
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    moved = np.array(obj.matrix_world @ obj.pose.bones["forearm.L"].tail)
    assert np.linalg.norm(moved - np.array(goals["Near"].location)) <= 1e-5
    # the set is met: its far member is not reported as unmet, nor out of reach
    assert obj.reach.stats.message == "all constraints met"
    assert obj.reach.stats.unmet == ""


def test_an_any_of_set_with_no_member_met_is_one_unmet_constraint(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    _either(obj, {"Near": (-2.0, 0.0, 2.0), "Far": (-2.0, 0.0, 3.0)})
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.unmet == "Near"
    message = obj.reach.stats.message
    assert message.startswith("not reachable: Near out of reach by ")
    assert "the nearest of Any of 'either'" in message
    assert "Far" not in message


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
    obj.data.edit_bones.remove(obj.data.edit_bones["forearm.L"])  # a rename is followed
    bpy.ops.object.mode_set(mode="OBJECT")
    solve_fails(obj, r"constraint 'hand.L': effector bone 'forearm.L' does not exist in 'metarig'")


def test_solve_without_constraints_says_to_add_one(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    solve_fails(obj, r"armature 'metarig' has no enabled constraints; add one first")


BONE_AXES = ("POS_X", "NEG_X", "POS_Y", "NEG_Y", "POS_Z", "NEG_Z")


def bone_axis(obj, bone, name):
    """A pose bone's ±X/±Y/±Z axis in world space, from Blender's evaluated pose."""
    matrix = (obj.matrix_world @ obj.pose.bones[bone].matrix).to_3x3().normalized()
    axis = np.array(matrix.col["XYZ".index(name[-1])])
    return -axis if name.startswith("NEG") else axis


@pytest.mark.parametrize("axis", BONE_AXES)
def test_an_aim_points_the_chosen_bone_axis_from_an_offset_point(reach, axis):
    obj = rigs.figure()
    offset = (0.02, 0.05, -0.03)  # "the eyes": a point off the bone
    result = bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand.L", effector="HEAD", goal_type="AIM", chain_start="forearm.L"
    )
    assert result == {"FINISHED"}
    entry = obj.reach.constraints[-1]
    entry.effector, entry.offset, entry.aim_axis = "OFFSET", offset, axis
    entry.goal.location = Vector(entry.goal.location) + Vector((0.4, -0.6, 0.3))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    eye = np.array(obj.matrix_world @ obj.pose.bones["hand.L"].matrix @ Vector(offset))
    toward = np.array(entry.goal.matrix_world.translation) - eye
    cosine = bone_axis(obj, "hand.L", axis) @ toward / np.linalg.norm(toward)
    assert cosine >= math.cos(1e-3), (axis, math.degrees(math.acos(min(cosine, 1.0))))


def test_an_orientation_turns_the_chosen_bone_axes_onto_the_goals(reach):
    obj = rigs.figure()
    result = bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand.L", goal_type="ORIENTATION", chain_start="forearm.L"
    )
    assert result == {"FINISHED"}
    entry = obj.reach.constraints[-1]
    entry.match_x_axis, entry.match_y_axis = "NEG_Z", "POS_X"
    entry.goal.rotation_euler = (0.3, -0.5, 0.8)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    goal = entry.goal.matrix_world.to_3x3().normalized()
    assert bone_axis(obj, "hand.L", "NEG_Z") @ np.array(goal.col[0]) >= math.cos(1e-3)
    assert bone_axis(obj, "hand.L", "POS_X") @ np.array(goal.col[1]) >= math.cos(1e-3)


def test_an_orientation_refuses_the_same_axis_for_the_goals_x_and_y(reach):
    obj = rigs.figure()
    bpy.ops.reach.add_constraint(armature=obj.name, bone="hand.L", goal_type="ORIENTATION")
    entry = obj.reach.constraints[-1]
    entry.match_x_axis, entry.match_y_axis = "POS_Z", "NEG_Z"
    solve_fails(obj, r"goal's X \(POS_Z\) and Y \(NEG_Z\) must be different axes")


def _constrain(goal, kind, target, **settings):
    constraint = goal.constraints.new(kind)
    constraint.target = target
    for name, value in settings.items():
        setattr(constraint, name, value)
    return constraint


def test_a_goal_that_moves_with_its_own_armature_is_refused_by_any_route(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    before = rigs.pose_channels(obj)
    # a Child Of on one of the armature's bones: each pose would move the goal again
    child_of = _constrain(goal, "CHILD_OF", obj, subtarget="spine.003")
    solve_fails(obj, r"moves with the armature it poses \(the Child Of constraint 'Child Of'")
    goal.constraints.remove(child_of)
    # through another object: the goal parented to an empty that copies a bone's place
    helper = bpy.data.objects.new("Helper", None)
    bpy.context.scene.collection.objects.link(helper)
    _constrain(helper, "COPY_LOCATION", obj, subtarget="spine.003")
    goal.parent = helper
    solve_fails(obj, r"moves with the armature it poses \('Goal hand.L' is parented to 'Helper'\)")
    # a driver reading the armature
    goal.parent = None
    driver = goal.driver_add("location", 2).driver
    variable = driver.variables.new()
    variable.targets[0].id = obj
    variable.targets[0].data_path = "location.z"
    driver.expression = variable.name
    solve_fails(obj, r"moves with the armature it poses \(a driver on 'Goal hand.L' location\)")
    assert rigs.pose_channels(obj) == before  # nothing was written
    goal.driver_remove("location", 2)
    # a Child Of on an object that the armature does not move is fine
    stand = bpy.data.objects.new("Stand", None)
    bpy.context.scene.collection.objects.link(stand)
    _constrain(goal, "CHILD_OF", stand)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
