"""Joints about their own axes: hinges and cones about any axis, and the human limits
that make imported game skeletons bend their elbows and knees the way a body does."""

from __future__ import annotations

import math

import bpy
import imported_skeletons
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


def _local_rotation(obj, bone):
    """The bone's pose rotation in its rest frame (3, 3), as Blender evaluated it."""
    bpy.context.view_layer.update()
    return np.array(obj.pose.bones[bone].matrix_basis.to_3x3())


@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ", "ZXY", "AXIS_ANGLE"])
def test_a_hinge_between_the_bones_axes_turns_the_bone_about_it_alone(reach, mode):
    # the hinge lies 45° between the forearm's X and Z: no IK limit on its own axes fits it
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = mode
    rest = np.array(obj.data.bones["forearm.L"].matrix_local.to_3x3())
    local = np.array([1.0, 0.0, 1.0]) / math.sqrt(2.0)
    limit = math.radians(120)
    assert bpy.ops.reach.joint_hinge(
        armature=obj.name, bone="forearm.L", axis=tuple(rest @ local), lower=-limit, upper=limit
    ) == {"FINISHED"}
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm.L"].head
    goal.location = Vector(goal.location).lerp(shoulder, 0.3)  # the elbow must bend
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turn = _local_rotation(obj, "forearm.L")
    np.testing.assert_allclose(turn @ local, local, atol=1e-6)  # about the hinge alone
    angle = math.atan2(
        float(np.cross(np.array([0.0, 1.0, 0.0]), turn[:, 1]) @ local), float(turn[1, 1])
    )
    assert 0.05 < abs(angle) <= limit + 1e-6, obj.reach.stats.message  # bent, within limits
    assert obj.reach.stats.message == "all constraints met"


def test_a_hinge_refuses_a_least_turn_above_the_most(reach):
    obj = four_limbs()
    before = rigs.pose_channels(obj)
    with pytest.raises(RuntimeError, match="least turn must be finite and at most the most"):
        bpy.ops.reach.joint_hinge(armature=obj.name, bone="forearm.L", lower=1.0, upper=0.5)
    assert "forearm.L" not in obj.reach.joints or not obj.reach.joints["forearm.L"].use_axes
    assert rigs.pose_channels(obj) == before


def test_a_cone_keeps_the_bone_within_its_angle_of_the_axis(reach):
    obj = four_limbs()
    assert bpy.ops.reach.joint_cone(
        armature=obj.name, bone="upper_arm.L", angle=math.radians(30), twist=math.radians(10)
    ) == {"FINISHED"}
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((0.0, -0.6, 0.0))  # far in front
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turn = _local_rotation(obj, "upper_arm.L")
    swing = math.degrees(math.acos(min(1.0, float(turn[1, 1]))))
    assert 5.0 < swing <= 30.0 + 1e-4  # it swung toward the goal, as far as the cone lets it
    assert obj.reach.stats.message.startswith("not reachable") or "held by" in (
        obj.reach.stats.message
    )


# -- imported skeletons ------------------------------------------------------------------


@pytest.fixture(scope="module")
def skeletons(tmp_path_factory):
    """Each kind's imported skeleton, saved by a child Blender (see imported_skeletons)."""
    return imported_skeletons.make(tmp_path_factory.mktemp("skeletons"))


def imported(kind, skeletons):
    """The BVH skeleton as Blender's importer of ``kind`` reads it, bones rolled at random
    (as game skeletons come: their hinges between the bones' axes)."""
    obj = imported_skeletons.append(skeletons[kind])
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    rng = np.random.default_rng(7)
    for bone in obj.data.edit_bones:
        bone.roll = float(rng.uniform(-math.pi, math.pi))
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def _bends(obj):
    """Per elbow and knee, how far it sits in front (+) of the line of its limb's ends.

    Front is the body's front carried by the limb's upper bone (the upper arm or the
    thigh, however it turned): an elbow bent the way a body bends sits behind the line
    from shoulder to hand, a knee in front of the line from hip to ankle.
    """
    bones = obj.pose.bones

    def head(name):
        return np.array(bones[name].head)

    left = head("LeftUpLeg") - head("RightUpLeg")
    up = head("Neck") - head("Hips")
    front = np.cross(left, up)
    front /= np.linalg.norm(front)
    found = {}
    for joint, first, last in (
        ("LeftForeArm", "LeftArm", "LeftHand"),
        ("LeftLeg", "LeftUpLeg", "LeftFoot"),
    ):
        posed = np.array(bones[first].matrix.to_3x3())
        rest = np.array(obj.data.bones[first].matrix_local.to_3x3())
        carried = posed @ rest.T @ front
        start, middle, end = head(first), head(joint), head(last)
        along = (end - start) / np.linalg.norm(end - start)
        off = (middle - start) - ((middle - start) @ along) * along
        found[joint] = float(off @ carried)
    return found


def _goals(obj):
    """A hand goal and a foot goal each 45% of the way to their limb's root."""
    for bone, start in (("LeftHand", "LeftArm"), ("LeftFoot", "LeftUpLeg")):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=bone, effector="HEAD", chain_start=start, name=bone
        ) == {"FINISHED"}
        goal = obj.reach.constraints[bone].goal
        root = obj.matrix_world @ obj.pose.bones[start].head
        goal.location = Vector(goal.location).lerp(root, 0.45)
    bpy.context.view_layer.update()


@pytest.mark.parametrize("kind", ["bvh", "fbx", "gltf"])
def test_human_limits_bend_an_imported_skeletons_elbows_and_knees_the_right_way(
    reach, skeletons, kind
):
    obj = imported(kind, skeletons)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    assert {j.name for j in obj.reach.joints if j.use_axes} == {
        f"{side}{part}" for side in ("Left", "Right") for part in ("ForeArm", "Leg", "UpLeg", "Arm")
    }
    _goals(obj)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    bends = _bends(obj)
    limb = rigs.chain_length(obj, ("LeftUpLeg", "LeftLeg"))
    assert bends["LeftForeArm"] < -0.05 * limb, bends  # the elbow points back
    assert bends["LeftLeg"] > 0.05 * limb, bends  # the knee points forward
    thigh = _local_rotation(obj, "LeftUpLeg")
    twist = math.degrees(math.atan2(thigh[0, 2] - thigh[2, 0], thigh[0, 0] + thigh[2, 2]))
    assert abs(twist) <= 45.0 + 1e-3  # no knee bent backwards by turning the thigh round


def test_human_limits_name_what_they_need_on_a_skeleton_they_do_not_know(reach):
    obj = four_limbs()
    for bone in ("forearm.L", "forearm.R", "shin.L", "shin.R"):
        obj.data.bones[bone].name = bone.replace(".", "_x_")
    with pytest.raises(RuntimeError, match="no elbow or knee Reach knows by name"):
        bpy.ops.reach.human_limits(armature=obj.name)
    assert not any(j.use_axes for j in obj.reach.joints)


def test_limb_parts_are_known_by_the_names_of_rigify_mixamo_ue_and_bvh(reach):
    part = reach.addon.bridge.body.limb_part
    assert part("forearm.L") == ("forearm", "L")
    assert part("shin_fk.R") == ("shin", "R")
    assert part("mixamorig:LeftForeArm") == ("forearm", "L")
    assert part("mixamorig:RightLeg") == ("shin", "R")
    assert part("mixamorig:LeftUpLeg") == ("thigh", "L")
    assert part("RightArm") == ("upper_arm", "R")
    assert part("lowerarm_l") == ("forearm", "L")
    assert part("calf_r") == ("shin", "R")
    assert part("thigh_l") == ("thigh", "L")
    assert part("upperarm_r") == ("upper_arm", "R")
    assert part("LeftHand") is None and part("spine") is None and part("hand.L") is None


def test_a_gltf_skeleton_with_bones_100_times_too_long_gets_goals_its_size(reach, skeletons):
    # a skeleton in centimetres under a 0.01 scale comes back from glTF with its joints in
    # place but each bone 100 times its joints' spacing (the hand 25 m long): the tail
    # effector sat 25 m off the hand and its goal empty was 6 m across
    imported_skeletons.append(skeletons["gltf_cm"])
    obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    world = obj.matrix_world
    bones = obj.data.bones
    spacing = (
        world @ bones["LeftHand"].head_local - world @ bones["LeftForeArm"].head_local
    ).length
    assert bones["LeftHand"].length * world.to_scale()[0] > 50.0 * spacing  # as imported
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="LeftHand", chain_start="LeftArm", name="hand"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    hand = world @ obj.pose.bones["LeftHand"].head
    assert (goal.location - hand).length == pytest.approx(spacing, rel=1e-4)
    assert goal.empty_display_size <= 0.25 * spacing + 1e-6
    goal.location = goal.location.lerp(world @ obj.pose.bones["LeftArm"].head, 0.3)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
