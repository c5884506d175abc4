"""A Solve starts from the last Solve's problem while nothing it is built from changed."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


@pytest.fixture
def builds(reach, monkeypatch):
    """The figures built from here on (each a Poser building its problem afresh)."""
    posing = reach.addon.bridge.posing
    made: list[str] = []
    original = posing.figure_rig

    def counted(obj, hold=()):
        made.append(obj.name)
        return original(obj, hold=hold)

    monkeypatch.setattr(posing, "figure_rig", counted)
    return made


def solve(obj):
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def move_goal(obj, name, offset):
    obj.reach.constraints[name].goal.location += Vector(offset)
    bpy.context.view_layer.update()


def put(obj, channels):
    """The pose bones' channels set back to ``channels`` (:func:`rigs.pose_channels`)."""
    for name, values in channels.items():
        bone = obj.pose.bones[name]
        floats = rigs.channel_values(values)
        bone.location, bone.rotation_euler = floats[0:3], floats[3:6]
        bone.rotation_quaternion, bone.rotation_axis_angle = floats[6:10], floats[10:14]
        bone.scale = floats[14:17]
    bpy.context.view_layer.update()


def test_a_second_solve_builds_nothing_and_poses_as_a_solve_built_afresh(reach, builds):
    obj = four_limbs()
    move_goal(obj, "hand.L", (-0.08, -0.05, -0.05))
    solve(obj)
    assert builds == [obj.name]
    first = rigs.pose_channels(obj)
    move_goal(obj, "hand.L", (0.03, -0.02, 0.04))
    move_goal(obj, "foot.R", (0.02, 0.03, 0.05))
    solve(obj)
    assert builds == [obj.name]  # the first Solve's problem, its goals refreshed
    kept = rigs.pose_channels(obj)
    assert kept != first and obj.reach.stats.message == "all constraints met"
    put(obj, first)
    assert rigs.pose_channels(obj) == first
    fresh = reach.addon.bridge.posing.Poser(obj, bpy.context.scene, bpy.context.view_layer)
    fresh.solve(restarts=obj.reach.restarts)
    assert rigs.pose_channels(obj) == kept  # to the bit


def test_a_second_solve_writes_with_the_first_ones_writer(reach, monkeypatch):
    plain = reach.addon.bridge.plain_rig.PlainRig
    made = []
    original = plain.writer

    def counted(self, obj, rig, bones):
        made.append(obj.name)
        return original(self, obj, rig, bones)

    monkeypatch.setattr(plain, "writer", counted)
    obj = four_limbs()
    move_goal(obj, "hand.L", (-0.08, -0.05, -0.05))
    solve(obj)
    move_goal(obj, "hand.L", (0.03, -0.02, 0.04))
    solve(obj)
    assert made == [obj.name]
    obj.reach.constraints["hand.L"].chain_start = "upper_arm.L"  # other bones move
    solve(obj)
    assert made == [obj.name, obj.name]


def test_a_changed_limit_builds_the_figure_again(reach, builds):
    obj = four_limbs()
    solve(obj)
    before = rigs.pose_channels(obj)
    obj.pose.bones["forearm.L"].ik_min_x = math.radians(-10)  # the elbow bends 10° at most
    goal = obj.reach.constraints["hand.L"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm.L"].head
    goal.location = goal.location.lerp(shoulder, 0.6)  # the arm must fold to reach it
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert builds == [obj.name, obj.name]
    figure = reach.addon.bridge.kept._state.built[obj.session_uid].kept.setup.rig.figure
    segment = figure.segment("forearm.L")
    bend = next(
        i for i, dof in zip(segment.dof_indices, segment.dofs, strict=True) if dof.axis[0] == 1.0
    )
    assert figure.lower[bend] == pytest.approx(math.radians(-10))
    kept = rigs.pose_channels(obj)
    put(obj, before)
    fresh = reach.addon.bridge.posing.Poser(obj, bpy.context.scene, bpy.context.view_layer)
    fresh.solve(restarts=obj.reach.restarts)
    assert rigs.pose_channels(obj) == kept


def test_a_bone_constraint_added_or_muted_builds_the_figure_again(reach, builds):
    obj = four_limbs()
    solve(obj)
    copy = obj.pose.bones["hand.L"].constraints.new("COPY_ROTATION")
    copy.target, copy.subtarget = obj, "spine"
    bpy.context.view_layer.update()
    solve(obj)
    assert builds == [obj.name] * 2
    copy.mute = True
    solve(obj)
    assert builds == [obj.name] * 3
    solve(obj)
    assert builds == [obj.name] * 3


def test_a_moved_armature_is_followed_without_building_again(reach, builds):
    obj = four_limbs()
    solve(obj)
    obj.location += Vector((0.3, -0.2, 0.1))
    move_goal(obj, "hand.L", (-0.05, -0.05, -0.05))
    solve(obj)
    assert builds == [obj.name]
    goal = obj.reach.constraints["hand.L"].goal
    hand = rigs.world_tail(obj, "forearm.L")
    assert np.linalg.norm(hand - np.array(goal.matrix_world.translation)) <= 1e-5


def test_a_deleted_goal_is_named_and_the_next_solve_builds_afresh(reach, builds):
    obj = four_limbs()
    solve(obj)
    goal = obj.reach.constraints["hand.L"].goal
    bpy.data.objects.remove(goal)
    rigs.solve_fails(obj, "hand.L")
    assert obj.reach.constraints.find("hand.L") >= 0
    obj.reach.constraints["hand.L"].enabled = False
    solve(obj)
    assert builds[-1] == obj.name and len(builds) >= 2
    assert obj.reach.stats.message == "all constraints met"


def test_a_goal_taken_out_of_the_scene_is_named_as_a_fresh_solve_names_it(reach, builds):
    obj = four_limbs()
    solve(obj)
    goal = obj.reach.constraints["foot.L"].goal
    for collection in goal.users_collection:
        collection.objects.unlink(goal)
    rigs.solve_fails(obj, "was deleted")
    assert builds == [obj.name]  # refused by the kept problem's refresh, as by a build


def test_opening_a_file_forgets_every_kept_problem(reach):
    kept = reach.addon.bridge.kept
    obj = four_limbs()
    solve(obj)
    assert kept._state.built
    bpy.ops.wm.read_homefile(use_empty=True)
    assert not kept._state.built


def drag(reach, obj, name, offsets):
    """``name``'s goal dragged through ``offsets`` from where it is, then the drag ended."""
    goal = obj.reach.constraints[name].goal
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    start = goal.location.copy()
    for offset in offsets:
        session.step(start + Vector(offset))
    return session


def test_drags_and_solves_start_from_each_others_problem(reach, builds):
    obj = four_limbs()
    solve(obj)
    drag(reach, obj, "hand.L", [(-0.01 * k, 0.0, -0.01 * k) for k in range(1, 6)]).finish()
    assert builds == [obj.name]  # the drag began from the Solve's problem
    assert obj.reach.stats.message == "all constraints met"
    move_goal(obj, "foot.L", (0.02, 0.0, 0.03))
    solve(obj)
    drag(reach, obj, "hand.R", [(0.01 * k, 0.0, 0.0) for k in range(1, 4)]).cancel()
    solve(obj)
    assert builds == [obj.name]


def test_a_drag_during_which_a_setting_changed_keeps_nothing(reach, builds):
    obj = four_limbs()
    session = drag(reach, obj, "hand.L", [(-0.01, 0.0, -0.01)])
    obj.reach.constraints["foot.L"].weight = 2.0
    session.finish()
    solve(obj)
    assert builds == [obj.name, obj.name]  # built afresh with the weight as set
    setup = reach.addon.bridge.kept._state.built[obj.session_uid].kept.setup
    assert setup.problem.leaves[setup.names.index("foot.L")].weight == 2.0


def test_an_undo_forgets_every_kept_problem(reach, builds):
    obj = four_limbs()
    name = obj.name
    solve(obj)
    assert bpy.ops.ed.undo_push(message="solved") == {"FINISHED"}
    move_goal(obj, "hand.L", (-0.05, 0.0, -0.05))
    assert bpy.ops.ed.undo_push(message="moved") == {"FINISHED"}
    assert bpy.ops.ed.undo() == {"FINISHED"}
    assert not reach.addon.bridge.kept._state.built
    obj = bpy.data.objects[name]  # undo read the data anew
    solve(obj)
    assert builds == [name, name]
    assert obj.reach.stats.message == "all constraints met"
