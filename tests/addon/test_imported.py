"""Imported skeletons as their importers give them: tail effectors at the joints, a body's
mass and centre of mass inside the body; Blender-built rigs keep their tails.

The skeletons come from :mod:`imported_skeletons` (glTF and FBX, Mixamo names, bones askew
as a game engine's joint frames point, 100 times their joints' spacing, a wolf whose bones
all point up); everything is measured on Blender's own bones and pose.
"""

from __future__ import annotations

from typing import Any

import bpy
import imported_skeletons
import numpy as np
import pytest
from control_rigs import generated
from mathutils import Vector

JOINTED = (
    *imported_skeletons.MIXAMO,
    *imported_skeletons.GAME,
    *imported_skeletons.ANIMALS,
    "gltf_cm",
)
"""Imported skeletons whose bones' tails are not at their joints."""
HUMANS = (*imported_skeletons.MIXAMO, *imported_skeletons.GAME)
"""The Mixamo-named characters (1.58 m from the lowest joint to the highest)."""


def figure(skeletons, kind: str) -> Any:
    """The imported skeleton of ``kind`` made a figure, its hips free to move."""
    obj = imported_skeletons.append(skeletons[kind])
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    return obj


def tail_effector(reach, obj, bone: str) -> Vector:
    """Where Reach puts ``bone``'s tail effector, in world space on Blender's pose."""
    pose_bone = obj.pose.bones[bone]
    return obj.matrix_world @ reach.addon.bridge.bone_ends.end(pose_bone.bone, pose_bone.matrix)


def joint(obj, bone: str) -> Vector:
    """The world place of ``bone``'s joint (its head) on Blender's pose."""
    return obj.matrix_world @ obj.pose.bones[bone].head


@pytest.mark.parametrize("kind", JOINTED)
def test_a_tail_effector_is_the_joint_its_bone_continues_into(reach, skeletons, kind) -> None:
    obj = figure(skeletons, kind)
    single = [b for b in obj.data.bones if len(b.children) == 1]
    assert single
    for bone in single:
        child = bone.children[0].name
        gap = (tail_effector(reach, obj, bone.name) - joint(obj, child)).length
        assert gap <= 1e-5, (bone.name, child, gap)


@pytest.mark.parametrize("kind", imported_skeletons.GAME)
def test_add_constraint_puts_the_goal_at_the_joint_and_says_so(reach, skeletons, kind, capfd):
    obj = figure(skeletons, kind)
    shin, foot = f"{imported_skeletons.PREFIX}LeftLeg", f"{imported_skeletons.PREFIX}LeftFoot"
    assert (obj.matrix_world @ obj.pose.bones[shin].tail - joint(obj, foot)).length > 0.05
    capfd.readouterr()
    result = bpy.ops.reach.add_constraint(armature=obj.name, bone=shin, name="ankle")
    assert result == {"FINISHED"}
    said = capfd.readouterr().out
    assert f"'ankle''s tail effector is at the joint of '{foot}'" in said, said
    goal = obj.reach.constraints["ankle"].goal
    assert (goal.matrix_world.translation - joint(obj, foot)).length <= 1e-5  # float32


@pytest.mark.parametrize("kind", imported_skeletons.GAME)
def test_a_crouch_holds_the_ankles_where_their_goals_are(reach, skeletons, kind) -> None:
    obj = figure(skeletons, kind)
    named = imported_skeletons.PREFIX
    ankles = {}
    for side in ("Left", "Right"):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=f"{named}{side}Leg", chain_start=f"{named}{side}UpLeg"
        ) == {"FINISHED"}
        ankles[side] = joint(obj, f"{named}{side}Foot")
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=f"{named}Hips", effector="HEAD", chain_start="", name="hips"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hips"].goal
    hips = joint(obj, f"{named}Hips").z
    goal.location = Vector(goal.location) + Vector((0.0, 0.0, -0.3))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    for side, ankle in ankles.items():
        assert (joint(obj, f"{named}{side}Foot") - ankle).length <= 1e-4, side
    assert joint(obj, f"{named}Hips").z == pytest.approx(hips - 0.3, abs=1e-4)


def body_joints(obj) -> np.ndarray:
    """Every bone's joint (head) in world space at rest, shape (n, 3)."""
    return np.array([tuple(obj.matrix_world @ b.head_local) for b in obj.data.bones])


@pytest.mark.parametrize("kind", HUMANS)
def test_a_characters_mass_is_a_bodys_and_its_centre_inside_it(reach, skeletons, kind) -> None:
    obj = figure(skeletons, kind)
    total = sum(joint.mass for joint in obj.reach.joints)
    joints = body_joints(obj)
    height = float(np.ptp(joints[:, 2]))
    assert 1.5 <= height <= 1.9
    assert 40.0 <= total <= 120.0, total
    centre, mass = reach.addon.bridge.mass.centre_of_mass(obj)
    assert mass == pytest.approx(total)
    named = imported_skeletons.PREFIX
    hips, head = joint(obj, f"{named}Hips"), joint(obj, f"{named}Head")
    feet = min(joint(obj, f"{named}{side}Foot").z for side in ("Left", "Right"))
    assert feet < centre.z < head.z
    assert abs(centre.z - hips.z) <= 0.15 * height  # a standing body's is near its hips
    low, high = joints.min(axis=0), joints.max(axis=0)
    assert (low[:2] <= np.array(centre[:2])).all() and (np.array(centre[:2]) <= high[:2]).all()


def test_the_wolfs_centre_of_mass_is_inside_its_body(reach, skeletons) -> None:
    obj = figure(skeletons, imported_skeletons.ANIMALS[0])
    centre, _ = reach.addon.bridge.mass.centre_of_mass(obj)
    joints = body_joints(obj)
    low, high = joints.min(axis=0), joints.max(axis=0)
    assert (low < np.array(centre)).all() and (np.array(centre) < high).all()
    paws = min(joint(obj, f"{p}.{s}").z for p in ("foot", "front_foot") for s in "LR")
    spine = joint(obj, "spine.004").z  # the back, over the front legs
    assert paws < centre.z < spine


def test_a_toe_whose_axis_points_back_up_its_leg_ends_at_its_joint(reach, skeletons, capfd):
    obj = figure(skeletons, imported_skeletons.ANIMALS[0])
    toes = [b for b in obj.data.bones if b.name.startswith(("f_", "r_")) and not b.children]
    assert len(toes) == 16
    for toe in toes:
        # the importer points it up, back along its foot: its tail is no toe tip
        assert (obj.matrix_world @ toe.tail_local).z > (obj.matrix_world @ toe.head_local).z
        assert (tail_effector(reach, obj, toe.name) - joint(obj, toe.name)).length <= 1e-6
    capfd.readouterr()
    toe = toes[0].name
    assert bpy.ops.reach.add_constraint(armature=obj.name, bone=toe, name="paw") == {"FINISHED"}
    assert "'paw''s tail effector is at its head (its axis points back" in capfd.readouterr().out
    goal = obj.reach.constraints["paw"].goal
    assert (goal.matrix_world.translation - joint(obj, toe)).length <= 1e-5  # float32


def test_fbx_leaf_end_bones_end_at_their_joints_and_pose(reach, skeletons, tmp_path, capfd):
    imported_skeletons.append(skeletons["mixamo_fbx"])
    path = str(tmp_path / "leaves.fbx")
    assert bpy.ops.export_scene.fbx(filepath=path, add_leaf_bones=True) == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.fbx(filepath=path) == {"FINISHED"}
    obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    ends = [b for b in obj.data.bones if b.name.lower().endswith("_end") and not b.children]
    assert len(ends) >= 5  # one past every leaf: the fingers', toes', head's
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    hand = next(b for b in ends if "LeftHand" in b.name)
    for bone in ends:  # an end bone's effector is its own joint, whatever its length
        assert (tail_effector(reach, obj, bone.name) - joint(obj, bone.name)).length <= 1e-6
    capfd.readouterr()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=hand.name, chain_start=f"{imported_skeletons.PREFIX}LeftArm"
    ) == {"FINISHED"}
    said = capfd.readouterr().out
    assert "tail effector is at its head (it marks where the body ends)" in said, said
    entry = obj.reach.constraints[-1]
    shoulder = joint(obj, f"{imported_skeletons.PREFIX}LeftArm")
    start = Vector(entry.goal.location)  # the elbow bent: a third of the way in, 5 cm forward
    entry.goal.location = start.lerp(shoulder, 0.3) + Vector((0.0, -0.05, 0.0))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert (joint(obj, hand.name) - entry.goal.matrix_world.translation).length <= 1e-4


def test_a_gltf_of_two_skins_poses_each_armature_alone(reach, skeletons) -> None:
    imported_skeletons.append(skeletons[imported_skeletons.TWO_SKINS])
    bodies = sorted((o for o in bpy.data.objects if o.type == "ARMATURE"), key=lambda o: o.name)
    assert [o.name for o in bodies] == ["Body0", "Body1"]
    for body in bodies:
        assert bpy.ops.reach.figure_from_armature(armature=body.name) == {"FINISHED"}
    first, other = bodies
    before = [tuple(b.matrix_basis.col[0]) for b in other.pose.bones]
    assert bpy.ops.reach.add_constraint(armature=first.name, bone="forearm.L", name="hand") == {
        "FINISHED"
    }
    goal = first.reach.constraints["hand"].goal
    goal.location = Vector(goal.location) + Vector((-0.1, -0.1, 0.0))
    assert bpy.ops.reach.solve(armature=first.name) == {"FINISHED"}
    assert first.reach.stats.message == "all constraints met", first.reach.stats.message
    assert [tuple(b.matrix_basis.col[0]) for b in other.pose.bones] == before


@pytest.mark.parametrize("kind", ("human", "basic_human", "wolf", "bird", "shark"))
def test_a_blender_built_rigs_tail_effectors_are_its_tails(reach, kind, capfd) -> None:
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    bpy.ops.object.mode_set(mode="OBJECT")
    obj = bpy.context.active_object
    ends = reach.addon.bridge.bone_ends
    assert not ends.reads_joints(obj.data)
    for bone in obj.data.bones:
        assert ends.where(bone) == "", bone.name
        tail = obj.matrix_world @ bone.tail_local
        assert (obj.matrix_world @ ends.end(bone, bone.matrix_local) - tail).length <= 1e-6
    capfd.readouterr()
    assert bpy.ops.reach.add_constraint(armature=obj.name, bone="shoulder.L") == {"FINISHED"}
    assert "tail effector is at" not in capfd.readouterr().out


@pytest.mark.parametrize("kind", ("basic_human", "wolf"))
def test_a_generated_control_rig_is_read_by_its_tails(reach, kind) -> None:
    obj = generated(kind)
    assert not reach.addon.bridge.bone_ends.reads_joints(obj.data)


@pytest.mark.parametrize("state", imported_skeletons.ANIMATION_STATES)
def test_a_bake_plays_back_as_reported_in_every_state_of_the_animation(
    reach, skeletons, state
) -> None:
    obj = figure(skeletons, imported_skeletons.MIXAMO[0])
    animation = obj.animation_data
    assert animation.action is not None and len(animation.nla_tracks) == 1
    assert animation.nla_tracks[0].mute
    goal = imported_skeletons.baked_reach(obj, state)
    named = imported_skeletons.PREFIX
    assert obj.reach.stats.unmet == "", obj.reach.stats.message
    misses = []
    for frame in range(1, 31):
        bpy.context.scene.frame_set(frame)
        hand = tail_effector(reach, obj, f"{named}LeftForeArm")
        misses.append((hand - goal.matrix_world.translation).length)
    assert max(misses) <= 1e-5, [f"{m:.2g}" for m in misses]


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("LeftArm", "mixamorig:LeftArm"),
        ("leftforearm", "mixamorig:LeftForeArm"),
        ("mixamorig:LeftArn", "mixamorig:LeftArm"),
    ],
)
def test_a_missing_bone_name_suggests_the_bone_meant(reach, skeletons, given, meant) -> None:
    obj = figure(skeletons, imported_skeletons.MIXAMO[0])
    with pytest.raises(RuntimeError, match=f"has no bone '{given}'; did you mean '{meant}'"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone=given)
    with pytest.raises(RuntimeError, match=rf"has no bone '{given}' \(chain start\); did you mean"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone=meant, chain_start=given)
    assert len(obj.reach.constraints) == 0
    with pytest.raises(RuntimeError, match=r"has no bone 'wing\.L'$"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="wing.L")


AXES = {
    "POS_X": Vector((1.0, 0.0, 0.0)),
    "NEG_X": Vector((-1.0, 0.0, 0.0)),
    "POS_Y": Vector((0.0, 1.0, 0.0)),
    "NEG_Y": Vector((0.0, -1.0, 0.0)),
    "POS_Z": Vector((0.0, 0.0, 1.0)),
    "NEG_Z": Vector((0.0, 0.0, -1.0)),
}


def test_an_aim_on_a_bone_pointing_away_from_its_joint_aims_the_way_it_runs(
    reach, skeletons, capfd
) -> None:
    obj = figure(skeletons, imported_skeletons.ANIMALS[0])

    def way(bone) -> Vector:  # to its one child's joint, in the bone's own frame
        along = bone.children[0].head_local - bone.head_local
        return (bone.matrix_local.to_3x3().inverted() @ along).normalized()

    shin = obj.data.bones["shin.L"]
    assert way(shin).dot(AXES["POS_Y"]) < 0.75  # more than 40° off its own axis
    axis = max(AXES, key=lambda name: way(shin).dot(AXES[name]))
    assert axis != "POS_Y"
    capfd.readouterr()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="shin.L", goal_type="AIM", name="aim"
    ) == {"FINISHED"}
    said = axis.replace("_", " ").lower()
    assert f"'aim' aims shin.L's {said} axis" in capfd.readouterr().out
    entry = obj.reach.constraints["aim"]
    assert entry.aim_axis == axis
    # aimed at a goal below and behind, that axis points at it from the ankle
    entry.goal.location = joint(obj, "shin.L") + Vector((0.0, 0.3, -0.4))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    ankle = joint(obj, "foot.L")
    towards = (entry.goal.matrix_world.translation - ankle).normalized()
    turned = obj.matrix_world.to_3x3() @ obj.pose.bones["shin.L"].matrix.to_3x3() @ AXES[axis]
    assert turned.normalized().dot(towards) > 0.9999


@pytest.mark.parametrize(
    ("kind", "head", "told"),
    [
        ("human", "spine.006", "toward its nose"),
        ("basic_human", "spine.006", "the body's front"),
        ("wolf", "spine.011", ""),  # its snout runs along its Y: nothing to say
        ("wolf_gltf", "spine.011", "toward its nose"),
        ("mixamo_fbx", f"{imported_skeletons.PREFIX}Head", "the body's front"),
        ("mixamo_gltf", f"{imported_skeletons.PREFIX}Head", "the body's front"),
        ("gltf_cm", "Head", "the body's front"),
    ],
)
def test_an_aim_on_a_head_looks_the_way_its_face_looks(
    reach, skeletons, capfd, kind, head, told
) -> None:
    if kind in skeletons:
        obj = imported_skeletons.append(skeletons[kind])
    else:
        getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
        bpy.ops.object.mode_set(mode="OBJECT")
        obj = bpy.context.active_object
    capfd.readouterr()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=head, goal_type="AIM", name="gaze"
    ) == {"FINISHED"}
    said = capfd.readouterr().out
    axis = obj.reach.constraints["gaze"].aim_axis
    rest = obj.matrix_world.to_3x3() @ obj.data.bones[head].matrix_local.to_3x3()
    looks = (rest @ AXES[axis]).normalized()
    # every one of these faces the armature's -Y, as Blender's metarigs do
    assert looks.dot(Vector((0.0, -1.0, 0.0))) > 0.7, (axis, tuple(looks))
    if told:
        way = axis.replace("_", " ").lower()
        assert f"'gaze' aims {head}'s {way} axis, the way its face looks ({told})" in said, said


@pytest.mark.parametrize("kind", [imported_skeletons.MIXAMO[0], "metarig"])
def test_a_goal_on_its_chains_first_joint_is_met_with_one_outcome(reach, skeletons, kind) -> None:
    if kind == "metarig":
        bpy.ops.object.armature_basic_human_metarig_add()
        bpy.ops.object.mode_set(mode="OBJECT")
        obj, hips = bpy.context.active_object, "spine"
        assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
            "FINISHED"
        }
    else:
        obj, hips = figure(skeletons, kind), f"{imported_skeletons.PREFIX}Hips"
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=hips, effector="HEAD", chain_start="", name="hips"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hips"].goal
    goal.location = Vector(goal.location) + Vector((0.05, -0.1, -0.2))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    stats = obj.reach.stats
    assert (stats.message, stats.outcome) == ("all constraints met", "met")
    assert (joint(obj, hips) - goal.matrix_world.translation).length <= 1e-5
