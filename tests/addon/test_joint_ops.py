"""Limit polygons drawn from poses and joint groups (``joint_ops``), as the solver sees them."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Euler
from rigs import DART, SQUARE, add_vertices, figure, pose_xz


def polygon_rows(rig, bone):
    return [k for k, label in enumerate(rig.figure.limits.in_labels) if f"of {bone}[" in label]


def test_polygon_add_vertex_takes_the_euler_bones_current_angles(reach):
    obj = figure()
    bone = obj.pose.bones["shoulder.L"]  # rotation mode YXZ
    joint = obj.reach.joints["shoulder.L"]
    joint.polygon_axes = "XZ"
    bone.rotation_euler = (0.3, 0.1, -0.4)
    assert bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="shoulder.L") == {"FINISHED"}
    assert tuple(joint.polygon[0].value) == (bone.rotation_euler[0], bone.rotation_euler[2])
    joint.polygon_axes = "YZ"
    assert bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="shoulder.L") == {"FINISHED"}
    assert tuple(joint.polygon[1].value) == (bone.rotation_euler[1], bone.rotation_euler[2])
    assert joint.active_vertex == 1


def test_polygon_add_vertex_reads_a_quaternion_bone_in_the_joints_euler_order(reach):
    obj = figure()
    joint = obj.reach.joints["upper_arm.L"]
    assert joint.polygon_axes == "XZ"
    for order in ("YXZ", "XZY"):
        joint.euler_order = order
        joint.polygon.clear()
        add_vertices(obj, "upper_arm.L", [(0.35, -0.6)])
        assert tuple(joint.polygon[0].value) == pytest.approx((0.35, -0.6), abs=1e-6)


def test_polygon_add_vertex_uses_the_active_bone(reach):
    obj = figure()
    obj.data.bones.active = obj.data.bones["forearm.R"]
    pose_xz(obj, "forearm.R", 0.2, 0.1)
    assert bpy.ops.reach.polygon_add_vertex() == {"FINISHED"}
    vertex = obj.reach.joints["forearm.R"].polygon[0].value
    assert tuple(vertex) == pytest.approx((0.2, 0.1), abs=1e-6)


def test_polygon_add_vertex_makes_missing_joint_settings(reach):
    obj = figure()
    joints = obj.reach.joints
    joints.remove(joints.find("hand.L"))
    assert "hand.L" not in joints
    obj.pose.bones["hand.L"].rotation_quaternion = Euler((0.1, 0.0, 0.2), "YXZ").to_quaternion()
    assert bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="hand.L") == {"FINISHED"}
    assert tuple(joints["hand.L"].polygon[0].value) == pytest.approx((0.1, 0.2), abs=1e-6)


def test_polygon_add_vertex_raises_if_the_pose_is_already_a_vertex(reach):
    obj = figure()
    add_vertices(obj, "upper_arm.L", SQUARE[:2])
    with pytest.raises(RuntimeError, match=r"upper_arm\.L.*already vertex 2"):
        bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="upper_arm.L")
    assert len(obj.reach.joints["upper_arm.L"].polygon) == 2


def test_polygon_add_vertex_raises_if_the_bone_does_not_exist(reach):
    obj = figure()
    with pytest.raises(RuntimeError, match="has no bone 'tail'"):
        bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="tail")
    obj.data.bones.active = None
    with pytest.raises(RuntimeError, match="no active bone"):
        bpy.ops.reach.polygon_add_vertex(armature=obj.name)


def test_a_convex_polygon_from_poses_becomes_the_joints_limit(reach):
    build_rig = reach.addon.bridge.plain_rig.build_rig
    obj = figure()
    add_vertices(obj, "upper_arm.L", SQUARE)
    rig = build_rig(obj)
    rows = polygon_rows(rig, "upper_arm.L")
    assert len(rows) == len(SQUARE)
    entry = rig.bone("upper_arm.L")
    x = rig.figure.dof_index("upper_arm.L", entry.axis_position("X"))
    z = rig.figure.dof_index("upper_arm.L", entry.axis_position("Z"))
    limits = rig.figure.limits
    used = np.flatnonzero(np.any(limits.a_in[rows] != 0.0, axis=0))
    assert sorted(used) == sorted((x, z))
    theta = np.zeros(rig.figure.n_dofs)
    for point, inside in (((0.0, 0.0), True), ((0.45, 0.55), True), ((0.6, 0.0), False)):
        theta[[x, z]] = point
        violation = np.maximum(limits.b_in[rows] - limits.a_in[rows] @ theta, 0.0).max()
        assert (violation <= 1e-9) == inside, point


def test_a_non_convex_polygon_makes_solve_report_the_bone(reach):
    obj = figure()
    rigs.limbs(obj, feet=False)
    add_vertices(obj, "upper_arm.L", DART)
    with pytest.raises(RuntimeError, match=r"limit polygon of bone 'upper_arm\.L'"):
        bpy.ops.reach.solve(armature=obj.name)


def test_polygon_remove_vertex_removes_the_active_one_and_clear_removes_all(reach):
    obj = figure()
    joint = obj.reach.joints["upper_arm.L"]
    add_vertices(obj, "upper_arm.L", SQUARE)
    joint.active_vertex = 1
    result = bpy.ops.reach.polygon_remove_vertex(armature=obj.name, bone="upper_arm.L")
    assert result == {"FINISHED"}
    remaining = np.array([tuple(v.value) for v in joint.polygon])
    np.testing.assert_allclose(remaining, [SQUARE[0], SQUARE[2], SQUARE[3]], atol=1e-6)
    assert joint.active_vertex == 1
    result = bpy.ops.reach.polygon_remove_vertex(armature=obj.name, bone="upper_arm.L", index=2)
    assert result == {"FINISHED"}
    assert len(joint.polygon) == 2
    assert bpy.ops.reach.polygon_clear(armature=obj.name, bone="upper_arm.L") == {"FINISHED"}
    assert len(joint.polygon) == 0
    with pytest.raises(RuntimeError, match=r"no vertex of 'upper_arm\.L' to remove"):
        bpy.ops.reach.polygon_remove_vertex(armature=obj.name, bone="upper_arm.L")


def test_clearing_a_polygon_lifts_the_limit(reach):
    build_rig = reach.addon.bridge.plain_rig.build_rig
    obj = figure()
    add_vertices(obj, "upper_arm.L", SQUARE)
    assert polygon_rows(build_rig(obj), "upper_arm.L")
    assert bpy.ops.reach.polygon_clear(armature=obj.name, bone="upper_arm.L") == {"FINISHED"}
    assert not polygon_rows(build_rig(obj), "upper_arm.L")


def test_a_joint_group_of_two_rotations_becomes_one_equality(reach):
    build_rig = reach.addon.bridge.plain_rig.build_rig
    obj = figure()
    assert bpy.ops.reach.group_add(armature=obj.name, name="Spine") == {"FINISHED"}
    assert [g.name for g in obj.reach.groups] == ["Spine"]
    obj.data.bones.active = obj.data.bones["spine.001"]
    assert bpy.ops.reach.group_member_add(armature=obj.name) == {"FINISHED"}
    result = bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.002", ratio=2.0)
    assert result == {"FINISHED"}
    members = obj.reach.groups["Spine"].members
    assert [(m.bone, m.axis, m.ratio) for m in members] == [
        ("spine.001", "X", 1.0),
        ("spine.002", "X", 2.0),
    ]
    rig = build_rig(obj)
    limits = rig.figure.limits
    assert limits.a_eq.shape[0] == 1
    theta = np.zeros(rig.figure.n_dofs)
    for bone, value in (("spine.001", 0.1), ("spine.002", 0.2)):
        theta[rig.figure.dof_index(bone, rig.bone(bone).axis_position("X"))] = value
    assert limits.max_violation(theta) == pytest.approx(0.0, abs=1e-12)
    theta[rig.figure.dof_index("spine.002", rig.bone("spine.002").axis_position("X"))] = 0.1
    assert limits.max_violation(theta) > 1e-3


def test_group_member_add_raises_for_a_duplicate_or_zero_ratio(reach):
    obj = figure()
    assert bpy.ops.reach.group_add(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.001") == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r"already holds 'spine\.001' about X"):
        bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.001")
    with pytest.raises(RuntimeError, match="ratio cannot be 0"):
        bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.002", ratio=0.0)
    result = bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.001", axis="Z")
    assert result == {"FINISHED"}
    assert len(obj.reach.groups[0].members) == 2


def test_group_operators_raise_without_a_group(reach):
    obj = figure()
    with pytest.raises(RuntimeError, match="no joint group to remove"):
        bpy.ops.reach.group_remove(armature=obj.name)
    with pytest.raises(RuntimeError, match="no joint group"):
        bpy.ops.reach.group_member_add(armature=obj.name, bone="spine")
    with pytest.raises(RuntimeError, match="no joint group 'Neck'"):
        bpy.ops.reach.group_member_add(armature=obj.name, group="Neck", bone="spine")


def test_removing_members_and_groups_lifts_the_equality(reach):
    build_rig = reach.addon.bridge.plain_rig.build_rig
    obj = figure()
    assert bpy.ops.reach.group_add(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.group_add(armature=obj.name) == {"FINISHED"}
    assert [g.name for g in obj.reach.groups] == ["Group", "Group.001"]
    for bone in ("spine.001", "spine.002", "spine.003"):
        result = bpy.ops.reach.group_member_add(armature=obj.name, group="Group", bone=bone)
        assert result == {"FINISHED"}
    assert build_rig(obj).figure.limits.a_eq.shape[0] == 2
    result = bpy.ops.reach.group_member_remove(armature=obj.name, group="Group")
    assert result == {"FINISHED"}
    members = obj.reach.groups["Group"].members
    assert [m.bone for m in members] == ["spine.001", "spine.002"]
    assert build_rig(obj).figure.limits.a_eq.shape[0] == 1
    result = bpy.ops.reach.group_member_remove(armature=obj.name, group="Group", index=0)
    assert result == {"FINISHED"}
    assert build_rig(obj).figure.limits.a_eq.shape[0] == 0
    assert obj.reach.active_group == 1
    assert bpy.ops.reach.group_remove(armature=obj.name) == {"FINISHED"}
    assert [g.name for g in obj.reach.groups] == ["Group"]
    assert bpy.ops.reach.group_remove(armature=obj.name, group="Group") == {"FINISHED"}
    assert len(obj.reach.groups) == 0


def test_a_grouped_spine_bends_evenly_when_solved(reach):
    obj = figure()
    assert bpy.ops.reach.group_add(armature=obj.name, name="Spine") == {"FINISHED"}
    for bone in ("spine.001", "spine.002", "spine.003"):
        result = bpy.ops.reach.group_member_add(armature=obj.name, bone=bone)
        assert result == {"FINISHED"}
    result = bpy.ops.reach.add_constraint(
        armature=obj.name, bone="spine.003", chain_start="spine.001"
    )
    assert result == {"FINISHED"}
    goal = obj.reach.constraints[0].goal
    goal.location.y += 0.05
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    angles = [
        obj.pose.bones[b].rotation_quaternion.to_euler("YXZ").x
        for b in ("spine.001", "spine.002", "spine.003")
    ]
    assert abs(angles[0]) > math.radians(0.5)
    assert angles == pytest.approx([angles[0]] * 3, abs=1e-5)
