""" "Met" on Blender's evaluated pose: bone constraints and drivers Reach's model misses."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


def _gap(obj, bone, goal):
    bpy.context.view_layer.update()
    return float(np.linalg.norm(rigs.world_tail(obj, bone) - np.array(goal.location)))


def _reachable_hand(obj):
    """Only hand.L enabled, its goal moved where the elbow must bend to meet it."""
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.08, -0.05, -0.05))
    bpy.context.view_layer.update()
    return goal


def test_a_bone_constraint_makes_blenders_pose_miss_and_the_panel_says_why(reach):
    obj = four_limbs()
    goal = _reachable_hand(obj)
    turned = bpy.data.objects.new("turned", None)
    bpy.context.scene.collection.objects.link(turned)
    turned.rotation_euler = (0.0, 0.0, 1.2)
    copy = obj.pose.bones["forearm.L"].constraints.new("COPY_ROTATION")
    copy.target = turned
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    stats = obj.reach.stats
    gap = _gap(obj, "forearm.L", goal)
    assert gap > 0.01  # Blender's pose misses, though Reach's model meets the goal
    assert stats.unmet == "hand.L"
    assert stats.residual == pytest.approx(gap, rel=1e-4)
    assert stats.message.startswith("not met on Blender's pose: hand.L ")
    assert "forearm.L: its Copy Rotation constraint" in stats.message
    assert "mute those constraints" in stats.message
    assert stats.reasons.startswith("hand.L: ") and "off on Blender's pose" in stats.reasons


def test_a_driver_on_a_chain_bone_is_named(reach):
    obj = four_limbs()
    _reachable_hand(obj)
    upper = obj.pose.bones["upper_arm.L"]
    upper.rotation_mode = "XYZ"
    upper.driver_add("rotation_euler", 0).driver.expression = "0.6"
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    message = obj.reach.stats.message
    assert message.startswith("not met on Blender's pose: hand.L ")
    assert "upper_arm.L: a driver on its rotation_euler" in message


def test_a_drag_measures_each_event_on_blenders_pose_and_says_so_in_the_header(reach):
    obj = four_limbs()
    goal = _reachable_hand(obj)
    obj.pose.bones["forearm.L"].constraints.new("LIMIT_ROTATION").use_limit_x = True
    bpy.context.view_layer.update()
    drag = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    stats = drag.step(Vector(goal.location) + Vector((-0.02, 0.0, -0.02)))
    assert stats.unmet == ("hand.L",)
    assert stats.diverging == ("forearm.L",)
    assert stats.residual == pytest.approx(_gap(obj, "forearm.L", goal), rel=1e-4)
    header = reach.addon.drag_session.drag_header(stats)
    assert header.endswith("Blender poses otherwise: forearm.L")
    drag.cancel()


def test_without_constraints_blenders_pose_and_reachs_agree(reach):
    obj = four_limbs()
    goal = _reachable_hand(obj)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    assert _gap(obj, "forearm.L", goal) <= 1e-5


def _generated_human():
    """A control rig Rigify generates from the basic human metarig (limbs in IK mode)."""
    bpy.ops.object.armature_basic_human_metarig_add()
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    return obj


def test_a_control_rigs_limb_is_met_on_its_deform_bones_through_the_controls_of_its_mode(
    reach,
):
    # FK controls constrained while the arm is in IK mode: Reach poses the arm's skeleton
    # and writes the IK controls, so the deform bones that move the mesh meet the goal
    obj = _generated_human()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm_fk.L", chain_start="upper_arm_fk.L", name="hand"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm_fk.L"].head
    goal.location = goal.location.lerp(shoulder, 0.2)  # a bent elbow: reachable
    bpy.context.view_layer.update()
    arm = obj.data.bones["forearm_fk.L"].length + obj.data.bones["upper_arm_fk.L"].length
    fk = ("upper_arm_fk.L", "forearm_fk.L", "hand_fk.L")

    def channels(names):
        return [tuple(v for row in obj.pose.bones[n].matrix_basis for v in row) for n in names]

    def deform_miss():
        deform = obj.matrix_world @ obj.pose.bones["DEF-forearm.L.001"].tail
        return (deform - goal.matrix_world.translation).length

    before = channels(fk)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    assert deform_miss() <= 1e-5 * arm
    assert channels(fk) == before  # the FK controls do not pose an arm in IK mode
    # the arm switched to FK: its FK controls are written, and it is met again
    obj.pose.bones["upper_arm_parent.L"]["IK_FK"] = 1.0
    obj.update_tag()
    bpy.context.view_layer.update()
    goal.location = goal.location.lerp(shoulder, 0.1)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    assert deform_miss() <= 1e-5 * arm
    assert channels(fk) != before


def test_every_bones_matrix_is_read_at_once_as_blender_holds_it(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (0.4, -0.2, 0.7)
    obj.pose.bones["spine.001"].location = (0.01, 0.02, -0.03)
    bpy.context.view_layer.update()
    matrices = reach.addon.bridge.evaluated.pose_matrices(obj)
    assert matrices.shape == (len(obj.pose.bones), 4, 4)
    for k, bone in enumerate(obj.pose.bones):
        np.testing.assert_array_equal(matrices[k], np.array(bone.matrix, dtype=float))


def test_a_few_effectors_of_a_large_rig_are_read_alone_and_measured_as_from_every_bone(
    reach, monkeypatch
):
    # On a 222-bone control rig, three goals of three types are measured from their
    # carriers' matrices read by name: the residuals are those read from every bone's
    evaluated = reach.addon.bridge.evaluated
    obj = _generated_human()
    for bone, kind in (
        ("hand_ik.L", "POSITION_ORIENTATION"),
        ("head", "AIM"),
        ("foot_ik.R", "PLANE"),
    ):
        assert bpy.ops.reach.add_constraint(armature=obj.name, bone=bone, name=bone) == {"FINISHED"}
        entry = obj.reach.constraints[bone]
        entry.goal_type = kind
        entry.goal.location = Vector(entry.goal.location) + Vector((0.05, -0.04, 0.03))
        entry.goal.rotation_euler = (0.3, -0.2, 0.1)
    bpy.context.view_layer.update()
    setup = reach.addon.bridge.goals.build_problem(obj, bpy.context.scene)
    theta = reach.addon.bridge.posing.read_figure(obj, setup.rig, None)
    read: list[str] = []
    every = evaluated.pose_matrices
    monkeypatch.setattr(evaluated, "pose_matrices", lambda o: read.append(o.name) or every(o))
    with monkeypatch.context() as dense:
        dense.setattr(evaluated, "SPARSE", 10**9)  # every bone read at once
        whole = evaluated.measure(obj, setup, theta, dict.fromkeys(setup.names, 0.0))
    assert read == [obj.name] and len(setup.names) == 3
    assert all(value > 1e-3 for value in whole.residuals.values())
    alone = evaluated.measure(obj, setup, theta, whole.residuals)  # Reach's model agrees
    assert read == [obj.name]  # no bone read but the carriers
    assert alone.residuals == whole.residuals and alone.agree
