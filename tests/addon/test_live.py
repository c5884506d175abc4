"""Live mode (``reach.live``): constraints stay met while the armature or a bone moves."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


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


@pytest.mark.parametrize("translate_root", [False, True])
def test_live_mode_holds_the_feet_when_the_hips_are_moved_by_hand(reach, translate_root):
    # without Move root the hips have no location DOF: their location, set by hand, is
    # part of the model, so the feet still stand where they stood
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=translate_root) == {
        "FINISHED"
    }
    rigs.limbs(obj, hands=False)
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    hip_joint = (obj.matrix_world @ obj.pose.bones["thigh.L"].head).z
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    hips = obj.pose.bones["spine"]
    hips.location = (0.0, -0.15, 0.0)  # 15 cm down (the bone's Y points up the spine)
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    assert tuple(hips.location) == (0.0, np.float32(-0.15), 0.0)
    lowered = hip_joint - (obj.matrix_world @ obj.pose.bones["thigh.L"].head).z
    assert lowered > 0.14  # the hips went down (along the spine, a little tilted)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-5 * leg
    assert obj.reach.stats.message == "all constraints met"


def test_live_mode_follows_a_keyframed_goal_on_every_frame_played_or_scrubbed(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    goal = obj.reach.constraints["hand.L"].goal
    start = Vector(goal.location)
    goal.keyframe_insert("location", frame=1)
    goal.location = start + Vector((0.06, -0.05, 0.08))
    goal.keyframe_insert("location", frame=12)
    scene.frame_set(1)
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    live = reach.addon.live.session(obj.name)
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    frames = [*range(2, 13), 7, 3, 11]  # played forward, then scrubbed
    for frame in frames:
        scene.frame_set(frame)
        target = np.array(goal.matrix_world.translation)
        assert np.linalg.norm(target - np.array(start)) > 0.0 or frame == 1
        assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) <= 1e-5 * arm, frame
        for side, where in feet.items():
            assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-5 * arm
    assert live.solves >= 1 + len(frames)
    assert live.frame == 11


def test_live_mode_follows_an_animated_armature_over_frames(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    obj.keyframe_insert("location", frame=1)
    obj.location = (0.02, 0.03, -0.1)
    obj.keyframe_insert("location", frame=8)
    scene.frame_set(1)
    bpy.ops.reach.live(armature=obj.name)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for frame in range(2, 9):
        scene.frame_set(frame)
        for side, where in feet.items():
            assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-5 * leg


def test_live_mode_is_on_again_after_saving_and_opening_the_file(reach, tmp_path):
    obj = four_limbs()
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    bpy.ops.reach.live(armature=obj.name)
    path = str(tmp_path / "live.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    name = obj.name
    bpy.ops.wm.open_mainfile(filepath=path)
    obj = bpy.data.objects[name]
    assert obj.reach.live and reach.addon.live.is_live(obj.name)
    _assert_feet_follow_a_move(obj, feet)


def _assert_feet_follow_a_move(obj, feet):
    """Move the armature: live mode keeps the feet where ``feet`` says (world points)."""
    obj.location = (0.0, 0.02, -0.06)
    bpy.context.view_layer.update()  # fires the depsgraph handler: live re-solves
    bpy.context.view_layer.update()  # evaluates the pose it wrote
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg


def _save_and_open(obj, path):
    """Save the file, open it again; return the armature as loaded."""
    name = obj.name
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    return bpy.data.objects[name]


def test_opening_a_file_in_live_mode_changes_no_pose_and_keeps_a_true_verdict(reach, tmp_path):
    # the hand's goal just out of reach: the saved pose is as close as the arm allows
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm.L"].head
    goal.location = shoulder + (goal.location - shoulder) * 1.4
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    saved_message = obj.reach.stats.message
    assert saved_message.startswith("not reachable: hand.L out of reach by ")
    saved = rigs.pose_channels(obj)
    obj = _save_and_open(obj, tmp_path / "live.blend")
    assert reach.addon.live.is_live(obj.name)
    assert rigs.pose_channels(obj) == saved  # bit for bit
    assert obj.reach.stats.message == saved_message
    # and it goes on following: the feet stay down while the armature moves
    _assert_feet_follow_a_move(obj, {s: rigs.world_tail(obj, f"shin.{s}") for s in ("L", "R")})


def test_live_mode_after_opening_a_file_does_not_hold_keyed_bones_as_moved_by_hand(reach, tmp_path):
    # the legs keyed at rest, then posed by live mode to goals off the rest pose: on
    # opening, Blender's animation puts the keyed pose back, and live mode solves from it
    obj = four_limbs()
    for bone in ("thigh.L", "shin.L", "thigh.R", "shin.R"):
        obj.pose.bones[bone].keyframe_insert("rotation_quaternion", frame=1)
    for side in ("L", "R"):
        goal = obj.reach.constraints[f"foot.{side}"].goal
        goal.location = Vector(goal.location) + Vector((0.0, -0.05, 0.05))
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert obj.reach.stats.message == "all constraints met"
    obj = _save_and_open(obj, tmp_path / "keyed.blend")
    bpy.context.view_layer.update()
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side in ("L", "R"):
        goal = np.array(obj.reach.constraints[f"foot.{side}"].goal.matrix_world.translation)
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - goal) <= 1e-5 * leg
    assert obj.reach.stats.message == "all constraints met"
    obj.location = (0.0, 0.0, -0.03)  # a move: the legs are free to follow, not held
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    assert obj.reach.stats.message == "all constraints met"


def test_live_mode_that_cannot_resume_after_opening_the_file_is_shown_off(reach, tmp_path):
    obj = four_limbs()
    bpy.ops.reach.live(armature=obj.name)
    obj.reach.constraints["hand.L"].bone = "no such bone"
    path = str(tmp_path / "broken.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    name = obj.name
    bpy.ops.wm.open_mainfile(filepath=path)
    obj = bpy.data.objects[name]
    assert not obj.reach.live and not reach.addon.live.is_live(obj.name)
    message = obj.reach.stats.message
    assert message.startswith("live mode is off after loading: ")
    assert "'no such bone' does not exist" in message


def test_renaming_the_armature_keeps_live_mode(reach):
    obj = four_limbs()
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    bpy.ops.reach.live(armature=obj.name)
    obj.name = "Renamed"
    obj.location = (0.0, 0.0, -0.07)
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    assert reach.addon.live.is_live("Renamed")
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg
    assert bpy.ops.reach.live(armature="Renamed", stop=True) == {"FINISHED"}
    assert not reach.addon.live.is_live("Renamed")


def test_live_mode_follows_a_constraint_switched_on_and_off_by_keys(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    entry = obj.reach.constraints["hand.L"]
    goal = entry.goal
    goal.location = Vector(goal.location) + Vector((0.05, -0.04, 0.05))
    for frame, on in ((1, False), (5, True), (9, False)):
        entry.enabled = on
        obj.keyframe_insert('reach.constraints["hand.L"].enabled', frame=frame)
    scene.frame_set(1)
    bpy.ops.reach.live(armature=obj.name)
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    target = np.array(goal.matrix_world.translation)
    for frame in range(2, 9):
        scene.frame_set(frame)
        gap = np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target)
        assert (gap <= 1e-5 * arm) == (frame >= 5), (frame, gap)


def test_a_nan_channel_outside_the_chains_does_not_make_live_mode_re_solve_forever(reach):
    obj = four_limbs()
    obj.pose.bones["toe.R"].location = (math.nan, 0.0, 0.0)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    session = reach.addon.live.session(obj.name)
    bpy.context.view_layer.update()
    solved = session.solves
    for _ in range(3):
        obj.reach.constraints["hand.L"].goal.hide_viewport = False  # a no-op update
        bpy.context.view_layer.update()
    assert session.solves == solved
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}


def test_live_mode_measures_met_on_blenders_pose(reach):
    obj = four_limbs()
    turned = bpy.data.objects.new("turned", None)
    bpy.context.scene.collection.objects.link(turned)
    turned.rotation_euler = (0.0, 0.0, 1.2)
    obj.pose.bones["forearm.L"].constraints.new("COPY_ROTATION").target = turned
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.08, -0.05, -0.05))
    bpy.context.view_layer.update()  # live re-solves and writes the pose
    other = bpy.data.objects.new("other", None)  # any later update: live measures the
    bpy.context.scene.collection.objects.link(other)  # pose Blender evaluated
    bpy.context.view_layer.update()
    stats = obj.reach.stats
    assert stats.message.startswith("not met on Blender's pose: hand.L ")
    assert "forearm.L: its Copy Rotation constraint" in stats.message
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}


def test_live_mode_holds_the_feet_of_a_rigify_rig_when_its_torso_is_moved_by_hand(reach):
    # legs in FK mode, feet held on their FK controls: the torso's location, set by hand,
    # moves every leg's parents through Rigify's MCH bones, and the feet of the deform
    # bones (what moves the mesh) stay where they stood
    bpy.ops.object.armature_basic_human_metarig_add()
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    for side in "LR":
        obj.pose.bones[f"thigh_parent.{side}"]["IK_FK"] = 1.0
        assert bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=f"shin_fk.{side}",
            chain_start=f"thigh_fk.{side}",
            name=f"foot.{side}",
        ) == {"FINISHED"}
    obj.update_tag()
    bpy.context.view_layer.update()

    def feet():
        bones = obj.pose.bones
        return {s: np.array(obj.matrix_world @ bones[f"DEF-shin.{s}.001"].tail) for s in "LR"}

    before = feet()
    hips = np.array(obj.matrix_world @ obj.pose.bones["DEF-thigh.L"].head)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    obj.pose.bones["torso"].location = (0.0, 0.0, -0.15)
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    lowered = hips[2] - (obj.matrix_world @ obj.pose.bones["DEF-thigh.L"].head).z
    assert lowered > 0.14
    leg = obj.data.bones["thigh_fk.L"].length + obj.data.bones["shin_fk.L"].length
    for side, where in feet().items():
        assert np.linalg.norm(where - before[side]) <= 1e-5 * leg, side
    assert obj.reach.stats.message == "all constraints met"
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}


def test_live_mode_keeps_its_problem_while_goals_move_and_builds_it_for_a_changed_setting(
    reach,
):
    obj = four_limbs()
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    session = reach.addon.live.session(obj.name)
    goal = obj.reach.constraints["hand.L"].goal

    def move_goal(offset):
        goal.location = Vector(goal.location) + Vector(offset)
        bpy.context.view_layer.update()  # live re-solves
        bpy.context.view_layer.update()  # and measures what Blender evaluated

    move_goal((0.02, 0.0, -0.02))
    rig = session.poser.setup.rig
    move_goal((0.02, 0.0, -0.02))
    assert session.poser.setup.rig is rig  # refreshed with the goal, not built again
    forearm = obj.pose.bones["forearm.L"]
    elbow = np.array(forearm.matrix_basis)
    for axis in "xyz":  # the elbow locked in the bone's IK settings
        setattr(forearm, f"lock_ik_{axis}", True)
    bpy.context.view_layer.update()
    solves = session.solves
    move_goal((-0.03, 0.02, 0.03))
    assert session.solves == solves + 1
    assert session.poser.setup.rig is not rig
    np.testing.assert_allclose(np.array(forearm.matrix_basis), elbow, atol=1e-6)
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}


def test_live_updates_give_the_solve_the_budget_less_the_rest_of_the_update(reach):
    obj = four_limbs()
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    session = reach.addon.live.session(obj.name)
    budget = float(obj.reach.time_budget)
    for offset in ((0.0, 0.0, -0.02), (0.0, 0.01, -0.03)):
        obj.location = offset
        bpy.context.view_layer.update()
        bpy.context.view_layer.update()
    overhead = session.budgeting.overhead
    assert overhead > 0.0  # reading, writing and judging took some time
    assert session.budgeting.limit(obj.reach) == pytest.approx(budget - overhead)
    obj.reach.adaptive = False
    assert session.budgeting.limit(obj.reach) == budget
    obj.reach.adaptive = True
    session.budgeting.overhead = 0.9 * budget  # most of an update is not the solve
    floor = reach.addon.bridge.budget.MIN_BUDGET_SHARE * budget
    assert session.budgeting.limit(obj.reach) == pytest.approx(floor)
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}
