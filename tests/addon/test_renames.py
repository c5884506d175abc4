"""Renames followed: a bone's constraints, limit polygon and joint groups follow it to
its new name; the armature's own renames change nothing; constraint names stay unique."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import SQUARE, add_vertices, four_limbs


def spine_group(obj):
    assert bpy.ops.reach.group_add(armature=obj.name, name="Spine") == {"FINISHED"}
    for bone in ("spine.001", "spine.002"):
        result = bpy.ops.reach.group_member_add(armature=obj.name, group="Spine", bone=bone)
        assert result == {"FINISHED"}


def rigged():
    """The four-limbed metarig with a polygon on upper_arm.L and a spine group."""
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    add_vertices(obj, "upper_arm.L", SQUARE)
    rigs.pose_xz(obj, "upper_arm.L", 0.0, 0.0)
    spine_group(obj)
    return obj


def moved_goal(obj, constraint, offset=(0.02, 0.0, 0.02)):
    goal = obj.reach.constraints[constraint].goal
    goal.location = Vector(goal.location) + Vector(offset)
    bpy.context.view_layer.update()
    return goal


@pytest.mark.parametrize("how", ["script", "interface"])
def test_renamed_bones_keep_their_polygon_group_and_constraints(reach, how):
    obj = rigged()
    for old, new in (
        ("upper_arm.L", "arm_upper.L"),
        ("spine.001", "chest"),
        ("forearm.L", "lower"),
    ):
        obj.data.bones[old].name = new
    if how == "interface":  # the panel's redraw: a depsgraph update follows the renames
        bpy.context.view_layer.update()
        assert "arm_upper.L" in obj.reach.joints
    result = bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert result == {"FINISHED"}
    assert "upper_arm.L" not in obj.reach.joints
    assert len(obj.reach.joints["arm_upper.L"].polygon) == len(SQUARE)
    assert [m.bone for m in obj.reach.groups["Spine"].members] == ["chest", "spine.002"]
    hand = obj.reach.constraints["hand.L"]
    assert (hand.bone, hand.chain_start) == ("lower", "shoulder.L")
    goal = moved_goal(obj, "hand.L")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "lower") - np.array(goal.location)) <= 1e-5
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    assert rig.figure.limits.a_eq.shape[0] == 1
    theta = reach.addon.bridge.pose.read_pose(obj, rig)
    assert rig.figure.limits.max_violation(theta) <= 1e-6


def test_evaluations_of_reachs_own_writes_pass_renames_by_and_later_ones_follow(reach):
    obj = rigged()
    obj.data.bones["upper_arm.L"].name = "arm"
    with reach.addon.renames.writing():  # as inside a drag event's writes
        obj.pose.bones["arm"].location.x = 0.01
        bpy.context.view_layer.update()
    assert "upper_arm.L" in obj.reach.joints and "arm" not in obj.reach.joints
    obj.pose.bones["arm"].location.x = 0.0
    bpy.context.view_layer.update()
    assert "arm" in obj.reach.joints and "upper_arm.L" not in obj.reach.joints
    assert len(obj.reach.joints["arm"].polygon) == len(SQUARE)


def test_a_bone_renamed_in_edit_mode_is_followed(reach):
    obj = rigged()
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones["upper_arm.L"].name = "arm"
    bpy.ops.object.mode_set(mode="POSE")
    moved_goal(obj, "hand.L")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert len(obj.reach.joints["arm"].polygon) == len(SQUARE)


def test_a_name_no_bone_has_is_reported_with_the_fix_and_forgotten_from_the_panel(reach):
    obj = rigged()
    joint = obj.reach.joints["upper_arm.L"]
    joint.name = "wing.L"  # e.g. a file from before stamps, or a bone deleted
    obj.reach.groups["Spine"].members[1].bone = "tail"
    before = rigs.pose_channels(obj)
    expected = (
        r"Reach's settings name bones 'metarig' does not have: "
        r"'wing\.L' \(its limit polygon\), 'tail' \(joint group 'Spine'\); "
        r"rename the bones back, or forget the names in the Figure panel \(Forget\)"
    )
    for name in ("figure_from_armature", "solve", "clamp_pose"):
        with pytest.raises(RuntimeError, match=expected):
            getattr(bpy.ops.reach, name)(armature=obj.name)
    assert rigs.pose_channels(obj) == before
    for name in ("wing.L", "tail"):
        assert bpy.ops.reach.forget_bone(armature=obj.name, bone=name) == {"FINISHED"}
    assert "wing.L" not in obj.reach.joints
    assert [m.bone for m in obj.reach.groups["Spine"].members] == ["spine.001"]
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r"no Reach setting of 'metarig' names bone 'tail'"):
        bpy.ops.reach.forget_bone(armature=obj.name, bone="tail")
    with pytest.raises(RuntimeError, match=r"'hand\.L' is a bone of 'metarig'; only"):
        bpy.ops.reach.forget_bone(armature=obj.name, bone="hand.L")


def test_the_panel_offers_to_forget_a_name_no_bone_has(reach):
    obj = rigged()
    obj.reach.joints["upper_arm.L"].name = "wing.L"
    missing = reach.addon.renames.missing_bones(obj)
    assert missing == {"wing.L": ["its limit polygon"]}


@pytest.mark.parametrize("what", ["object", "data"])
def test_renaming_the_armature_keeps_its_constraints_working(reach, what):
    obj = rigged()
    (obj if what == "object" else obj.data).name = "Hero"
    bpy.context.view_layer.update()
    goal = moved_goal(obj, "hand.L")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    path = [{"name": "", "location": tuple(Vector(goal.location) + Vector((0.0, -0.01, 0.0)))}]
    assert bpy.ops.reach.drag_goal(goal=goal.name, path=path) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"


def test_constraint_names_stay_unique_when_added_or_renamed(reach):
    obj = four_limbs()
    for _ in range(2):
        result = bpy.ops.reach.add_constraint(armature=obj.name, bone="hand.R", name="hand.L")
        assert result == {"FINISHED"}
    names = [c.name for c in obj.reach.constraints]
    assert names[-2:] == ["hand.L.001", "hand.L.002"]
    obj.reach.constraints["foot.R"].name = "foot.L"  # renamed in the list to a taken name
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    names = [c.name for c in obj.reach.constraints]
    assert len(set(names)) == len(names)
    assert "foot.L.001" in names
    assert obj.reach.constraints["foot.L.001"].bone == "shin.R"
    assert obj.reach.stats.message == "all constraints met"
