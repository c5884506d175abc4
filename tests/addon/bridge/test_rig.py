"""Armatures compiled into figures (``bridge.rig``): bones, IK settings, polygons, warnings."""

from __future__ import annotations

import importlib
import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs, solve_fails


def test_blender_ik_settings_become_locks_bounds_and_rigidity(reach):
    obj = rigs.metarig()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.lock_ik_y = True
    forearm.use_ik_limit_x = True
    forearm.ik_min_x = 0.0
    forearm.ik_max_x = math.radians(140)
    forearm.ik_stiffness_z = 0.4
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    entry = rig.bone("forearm.L")
    dofs = rig.figure.segment("forearm.L").dofs
    # XYZ: R = Rz Ry Rx, so the DOFs are Z, Y, X in that order
    assert [d.name for d in dofs] == [
        "forearm.L rotation Z",
        "forearm.L rotation Y",
        "forearm.L rotation X",
    ]
    z, y, x = dofs
    assert y.rigidity == 1.0
    assert x.lower == 0.0 and x.upper == pytest.approx(math.radians(140))
    assert z.rigidity == pytest.approx(0.4)
    assert z.lower is None and y.lower is None
    assert entry.axis_position("X") == 2


def test_solve_reports_a_non_convex_limit_polygon_by_bone(reach):
    obj = four_limbs()
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0), (0.0, -0.5), (1.0, 1.0), (-1.0, 1.0)):
        joint.polygon.add().value = (a, b)
    solve_fails(obj, r"limit polygon of bone 'upper_arm.L' \(XZ\).*convex")


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


def test_non_uniform_armature_scale_is_refused(reach):
    obj = four_limbs()
    obj.scale = (1.0, 2.0, 1.0)
    bpy.context.view_layer.update()
    solve_fails(obj, r"armature 'metarig' has a non-uniform scale \(its scale \(1.0, 2.0, 1.0\)\)")


@pytest.mark.parametrize("parented", [False, True])
def test_a_mirrored_armature_is_refused_by_name_and_its_pose_kept(reach, parented):
    obj = four_limbs()
    whose = r"its scale \(-1.0, 1.0, 1.0\)"
    if parented:  # mirrored by the empty it hangs from
        holder = bpy.data.objects.new("Holder", None)
        bpy.context.scene.collection.objects.link(holder)
        holder.scale = (-1.0, 1.0, 1.0)
        obj.parent = holder
        whose = "its parent 'Holder''s transform"
    else:
        obj.scale = (-1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    solve_fails(obj, rf"armature 'metarig' is mirrored by a negative scale \({whose}\); apply")


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


def test_pose_scale_on_a_bone_that_moves_an_effector_is_refused(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.R"].scale = (1.0, 1.2, 1.0)
    solve_fails(obj, r"bone 'upper_arm.R' has pose scale \(1.0, 1.2, 1.0\)")
    obj.pose.bones["upper_arm.R"].scale = (1.0, 1.0, 1.0)
    obj.pose.bones["spine"].scale = (1.1, 1.1, 1.1)  # not in a chain, but above the hands
    solve_fails(obj, r"bone 'spine' has pose scale")


def test_bones_that_move_no_effector_do_not_block_the_solve(reach):
    obj = four_limbs()
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    bones = obj.pose.bones
    bones["hand.R"].scale = (1.0, 1.3, 1.0)  # pose scale, in no chain and above no effector
    obj.data.bones["toe.L"].use_inherit_rotation = False
    forearm = bones["forearm.R"]  # outside its limit (X in [-150°, 0°]), in no chain
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (math.radians(30.0), 0.0, 0.0)
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.08, -0.05, -0.05))  # the elbow bends
    bpy.context.view_layer.update()
    for clamp in (False, True):
        assert bpy.ops.reach.solve(armature=obj.name, clamp=clamp) == {"FINISHED"}
        bpy.context.view_layer.update()
        assert obj.reach.stats.outcome == "met"
        after = rigs.pose_channels(obj)
        for name in ("hand.R", "forearm.R", "toe.L"):  # neither checked nor clamped
            assert after[name] == before[name], name
        arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
        gap = np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location))
        assert gap <= 1e-4 * arm


def test_drivers_and_bone_constraints_are_warned_about(reach):
    obj = four_limbs()
    driver = obj.pose.bones["upper_arm.L"].driver_add("rotation_euler", 0)
    driver.driver.expression = "0.1"
    obj.pose.bones["forearm.R"].constraints.new("COPY_ROTATION")
    obj.pose.bones["hand.R"].constraints.new("DAMPED_TRACK")
    obj.pose.bones["shin.L"].keyframe_insert("rotation_quaternion", frame=1)
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    messages = rig.messages()
    assert "1 bone(s) driven by drivers, which override Reach: upper_arm.L" in messages
    assert any(
        m.startswith("2 bone(s) with bone constraints") and "forearm.R, hand.R" in m
        for m in messages
    )
    assert any(m.startswith("1 bone(s) keyed") and "(shin.L)" in m for m in messages)
    # a solve reports only the bones that move its effectors, one line per kind
    only_arm = rig.messages(["upper_arm.L", "forearm.L"])
    assert only_arm == ["1 bone(s) driven by drivers, which override Reach: upper_arm.L"]


def test_a_hundred_constrained_bones_make_one_line(reach):
    obj = four_limbs()
    for bone in obj.pose.bones:
        bone.constraints.new("COPY_SCALE")
    messages = reach.addon.bridge.plain_rig.build_rig(obj).messages()
    assert len(messages) == 1
    assert messages[0].startswith(f"{len(obj.pose.bones)} bone(s) with bone constraints")
    assert f"and {len(obj.pose.bones) - 6} more" in messages[0]


def test_a_polygon_of_fewer_than_three_vertices_is_a_warning_not_a_limit(reach):
    obj = four_limbs()
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0)):
        joint.polygon.add().value = (a, b)
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    assert rig.figure.limits.a_in.shape[0] == 0 or not any(
        "upper_arm.L" in label for label in rig.figure.limits.in_labels
    )
    assert (
        "limit polygon of bone 'upper_arm.L' has 2 vertices; it limits nothing until it has 3"
        in (rig.messages())
    )
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def test_a_sheared_or_mirrored_rest_matrix_is_refused_naming_the_bone(reach):
    rig = reach.addon.bridge.rig
    rng = np.random.default_rng(7)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    rotation = q * np.sign(np.linalg.det(q))
    matrix = np.eye(4)
    matrix[:3, :3] = rotation.astype(np.float32) * (1 + 2e-5)  # rounding, as Blender stores it
    rig.check_rest(matrix, "bone 'b'")
    sheared = matrix.copy()
    sheared[:3, :3] = rotation @ np.array([[1.0, 0.02, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(reach.addon.errors.BlenderDataError, match=r"bone 'b': .* not a rotation"):
        rig.check_rest(sheared, "bone 'b'")
    mirrored = matrix.copy()
    mirrored[:3, 0] *= -1.0
    with pytest.raises(reach.addon.errors.BlenderDataError, match="mirrored"):
        rig.check_rest(mirrored, "bone 'b'")


def test_an_armature_that_only_moved_keeps_its_rig_carried_along(reach, monkeypatch):
    obj = four_limbs()
    bridge = reach.addon.bridge
    setup = bridge.goals.build_problem(obj, bpy.context.scene)
    obj.location = (0.4, -0.2, 0.1)
    obj.rotation_euler = (0.0, 0.0, 0.6)
    obj.scale = (1.3, 1.3, 1.3)
    bpy.context.view_layer.update()
    moved = bridge.goals.refresh_goals(obj, bpy.context.scene, setup)
    assert moved.rig is not setup.rig and moved.rig.layout is setup.rig.layout  # not rebuilt
    fresh = bridge.goals.build_problem(obj, bpy.context.scene)
    theta = np.random.default_rng(3).uniform(-0.3, 0.3, fresh.rig.figure.n_dofs)
    np.testing.assert_allclose(
        moved.rig.figure.forward(theta), fresh.rig.figure.forward(theta), atol=1e-12
    )
    assert moved.rig.is_current(obj)
    # The root bone's location, no DOF here, moves the figure as a whole too (a capture's
    # hips keyed along a walk): carried along with the armature's own move.
    root = next(b.name for b in obj.data.bones if b.parent is None)
    obj.location = (0.5, -0.2, 0.1)
    obj.pose.bones[root].location = (0.01, 0.05, -0.02)
    bpy.context.view_layer.update()
    walked = bridge.goals.refresh_goals(obj, bpy.context.scene, moved)
    assert walked.rig.layout is setup.rig.layout
    fresh = bridge.goals.build_problem(obj, bpy.context.scene)
    np.testing.assert_allclose(
        walked.rig.figure.forward(theta), fresh.rig.figure.forward(theta), atol=1e-12
    )
    plain_rig = importlib.import_module(f"{reach.__name__}.addon.bridge.plain_rig")
    reading = plain_rig.fixed_locations

    def refused(*args):
        raise AssertionError("each bone's location was read")

    monkeypatch.setattr(plain_rig, "fixed_locations", refused)
    assert walked.rig.is_current(obj)  # the carried rig holds the locations as they are now
    monkeypatch.setattr(plain_rig, "fixed_locations", reading)
    # Another bone's fixed location changed builds the rig again.
    obj.pose.bones["upper_arm.L"].location = (0.0, 0.01, 0.0)
    bpy.context.view_layer.update()
    rebuilt = bridge.goals.refresh_goals(obj, bpy.context.scene, walked)
    assert rebuilt.rig.layout is not setup.rig.layout


def test_a_moving_roots_location_leaves_the_rig_current_without_reading_each_bone(
    reach, monkeypatch
):
    """θ moves the root (Move root): its location, which every drag event writes, is not
    one the figure holds fixed, so the quick test of the locations passes over it; a
    fixed location changed is still found, by reading each bone's."""
    obj = four_limbs()
    obj.reach.translate_root = True
    bridge = reach.addon.bridge
    setup = bridge.goals.build_problem(obj, bpy.context.scene)
    root = next(b.name for b in obj.data.bones if b.parent is None)
    assert setup.rig.layout[setup.rig.segment_index[root]].translation >= 0
    plain_rig = importlib.import_module(f"{reach.__name__}.addon.bridge.plain_rig")
    reading = plain_rig.fixed_locations

    def refused(*args):
        raise AssertionError("each bone's location was read")

    monkeypatch.setattr(plain_rig, "fixed_locations", refused)
    obj.pose.bones[root].location = (0.02, -0.01, 0.03)
    bpy.context.view_layer.update()
    assert setup.rig.is_current(obj)
    monkeypatch.setattr(plain_rig, "fixed_locations", reading)
    obj.pose.bones["upper_arm.L"].location = (0.0, 0.01, 0.0)
    bpy.context.view_layer.update()
    assert not setup.rig.is_current(obj)
