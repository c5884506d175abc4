"""The spine's FK controls of control rigs: layers of the trunk, left as set unless a chain
starts at one, then turned (and keyed) with the limbs or the head, met on the deform bones."""

from __future__ import annotations

import math

import bpy
import pytest
from control_rigs import (
    constrained_end,
    deform_miss,
    generated,
    keyed_bones,
    limb_length,
    solved,
)
from mathutils import Matrix, Quaternion, Vector

LAYERS = {
    # kind: the spine's FK controls Reach finds as layers of the trunk, parents first
    "human": ["spine_fk.001", "spine_fk", "spine_fk.002", "spine_fk.003"],
    "basic_human": ["spine_fk.001", "spine_fk", "spine_fk.002", "spine_fk.003"],
    "cat": ["spine_fk.001", "spine_fk", "spine_fk.002", "spine_fk.003"],
    "wolf": ["spine_fk.005", "spine_fk.004", "spine_fk.006", "spine_fk.007", "spine_fk.008"],
    "horse": ["spine_fk.002", "spine_fk.001", "spine_fk.003", "spine_fk.004", "spine_fk.005"],
    "basic_quadruped": ["spine_fk.006", "spine_fk.005", "spine_fk.004"],
    "bird": ["spine_fk.005"],
}


@pytest.mark.parametrize("kind", LAYERS)
def test_every_kinds_spine_fk_controls_are_layers_of_its_trunk(reach, kind):
    obj = generated(kind)
    trunk = reach.addon.bridge.control_rig.model.control_model(obj).trunk
    layers = [j for j in trunk.joints if j.layer]
    assert [j.control for j in layers] == LAYERS[kind]
    for joint in layers:  # each its own frame, under a joint of the trunk
        assert (joint.segment, joint.share, joint.translates) == (joint.control, 1.0, False)
        assert trunk.joint(joint.parent) is not None
    # a tweak control, turned only about its own axis by hand, is carried as set
    assert not any(j.control.startswith("tweak") for j in trunk.joints)


def pushed(obj, name: str, push: tuple[float, float, float], length: float) -> None:
    """Move constraint ``name``'s goal by ``push`` × ``length``."""
    obj.reach.constraints[name].goal.location += Vector(push) * length
    bpy.context.view_layer.update()


SPINE = {"torso", "hips", "chest", "spine_fk.001", "spine_fk", "spine_fk.002", "spine_fk.003"}


@pytest.mark.parametrize("mode", ["FK", "IK"])
def test_a_hand_with_its_chain_from_a_spine_fk_control_turns_the_fk_spine_alone(reach, mode):
    end = "hand_fk.L" if mode == "FK" else "hand_ik.L"
    obj, arm = constrained_end(reach, "human", "upper_arm.L", mode, end, "spine_fk.002")
    length = limb_length(obj, arm)
    pushed(obj, "end", (0.15, -0.25, 0.1), length)  # out of the arm's reach
    moved = solved(obj)
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message
    assert deform_miss(obj, arm, "end") <= (1e-5 if mode == "FK" else 5e-5) * length
    assert {"spine_fk.002", "spine_fk.003"} <= moved
    assert moved <= {"spine_fk.002", "spine_fk.003", "shoulder.L", *arm.controls}, moved
    assert not moved & (SPINE - {"spine_fk.002", "spine_fk.003"})  # the chest stays as set


def test_a_chain_from_the_torso_leaves_the_fk_spine_as_set_unless_a_chain_starts_there(reach):
    obj, arm = constrained_end(reach, "human", "upper_arm.L", "FK", "hand_fk.L", "torso")
    length = limb_length(obj, arm)
    pushed(obj, "end", (0.3, -0.4, 0.2), length)
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert "torso" in moved and not moved & {"spine_fk.002", "spine_fk.003"}
    # a second constraint from an FK control frees the FK spine below it for both chains
    assert bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="hand_ik.R",
        effector="HEAD",
        name="other hand",
        chain_start="spine_fk.002",
    ) == {"FINISHED"}
    pushed(obj, "end", (-0.05, 0.05, -0.05), length)
    moved = solved(obj)
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message
    assert {"spine_fk.002", "spine_fk.003"} & moved, moved
    assert deform_miss(obj, arm, "end") <= 1e-5 * length


def test_a_look_at_from_a_spine_fk_control_turns_the_fk_spine_neck_and_head(reach):
    obj = generated("human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="head", chain_start="spine_fk.002", goal_type="AIM", name="look"
    ) == {"FINISHED"}
    head = obj.pose.bones["head"]
    axis = (obj.matrix_world.to_3x3() @ (head.tail - head.head)).normalized()
    # far round to the side and down: more than the neck and head turn alone by default
    aim = Matrix.Rotation(1.2, 3, "Z") @ Matrix.Rotation(-0.6, 3, "X") @ axis
    goal = obj.reach.constraints["look"].goal
    goal.location = tuple(obj.matrix_world @ head.head + aim.normalized())
    bpy.context.view_layer.update()
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    bone = obj.pose.bones["DEF-spine.006"]
    root, tip = obj.matrix_world @ bone.head, obj.matrix_world @ bone.tail
    assert math.degrees((tip - root).angle(Vector(goal.location) - root)) <= 0.05
    assert {"neck", "head"} <= moved <= {"neck", "head", "spine_fk.002", "spine_fk.003"}


def test_an_orientation_of_the_chest_fk_control_is_met_and_keyed_on_the_fk_controls(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="spine_fk.003",
        chain_start="spine_fk.002",
        goal_type="ORIENTATION",
        name="chest",
    ) == {"FINISHED"}
    goal = obj.reach.constraints["chest"].goal
    bone = obj.pose.bones["spine_fk.003"]
    start = obj.matrix_world @ bone.matrix
    turned = (Matrix.Rotation(0.25, 3, "X") @ Matrix.Rotation(-0.2, 3, "Z")).to_quaternion()
    for frame, share in ((1, 0.2), (3, 1.0)):  # a bow and a turn, growing
        turn = Quaternion().slerp(turned, share) @ start.to_quaternion()
        goal.matrix_world = Matrix.LocRotScale(start.translation, turn, None)
        goal.keyframe_insert("rotation_euler", frame=frame)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=3) == {"FINISHED"}
    assert keyed_bones(reach, obj) == {"spine_fk.002", "spine_fk.003"}
    for frame in range(1, 4):
        bpy.context.scene.frame_set(frame)
        want = goal.matrix_world.to_quaternion()
        have = (obj.matrix_world @ bone.matrix).to_quaternion()
        assert math.degrees(want.rotation_difference(have).angle) <= 1e-3, frame
