"""A BVH skeleton imported by Blender's bundled importer: figure, hand goal, solve from rest."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rig_scenes

from tests.fixtures import bvh

CHAIN = ("LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand")


def import_skeleton(tmp_path):
    """The skeleton of :func:`tests.fixtures.bvh.bvh_text` imported in metres, with its IK
    limits."""
    return rig_scenes.import_bvh(tmp_path)


def pose(obj, angles):
    """Every bone at rest, then the bones of ``angles`` at their Euler angles [deg]."""
    for bone in obj.pose.bones:
        bone.rotation_euler = (0.0, 0.0, 0.0)
    for name, values in angles.items():
        obj.pose.bones[name].rotation_euler = tuple(math.radians(v) for v in values)
    bpy.context.view_layer.update()


def hand_frame(obj):
    """The left hand bone's tail [m] and axes in world space, from Blender's pose."""
    bone = obj.pose.bones["LeftHand"]
    tail = np.array(obj.matrix_world @ bone.tail)
    return tail, np.array((obj.matrix_world @ bone.matrix).to_3x3())


def turn_degrees(have, want) -> float:
    """The angle [deg] of the turn from ``have`` to ``want``, from its skew part: exact to
    float32's rounding for small turns, where ``acos`` of the trace is not (about 0.02°)."""
    turn = have.T @ want
    skew = np.array((turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]))
    return math.degrees(math.asin(min(1.0, float(np.linalg.norm(skew)) / 2.0)))


def test_make_figure_gives_the_figure_of_the_fixture(reach, tmp_path):
    obj = import_skeleton(tmp_path)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    made = reach.addon.bridge.plain_rig.build_rig(obj).figure
    expected = bvh.figure()
    assert [s.name for s in made.segments] == [s.name for s in expected.segments]
    for have, want in zip(made.segments, expected.segments, strict=True):
        np.testing.assert_allclose(have.rest, want.rest, atol=1e-6)
        assert [d.axis for d in have.dofs] == [d.axis for d in want.dofs]
    np.testing.assert_allclose(made.lower, expected.lower, atol=1e-6)
    np.testing.assert_allclose(made.upper, expected.upper, atol=1e-6)


@pytest.mark.parametrize("angles", bvh.MISSED_POSES, ids=["across", "behind"])
def test_solve_from_rest_meets_a_hand_goal_a_pose_inside_the_limits_meets(reach, tmp_path, angles):
    obj = import_skeleton(tmp_path)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    pose(obj, angles)
    target, axes = hand_frame(obj)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="LeftHand",
        goal_type="POSITION_ORIENTATION",
        chain_start=CHAIN[0],
        name="hand",
    ) == {"FINISHED"}
    pose(obj, {})
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    tail, solved = hand_frame(obj)
    length = sum(obj.data.bones[name].length for name in CHAIN[1:])
    assert np.linalg.norm(tail - target) <= 1e-5 * length
    assert turn_degrees(solved, axes) <= 1e-3
    assert obj.reach.stats.message == "all constraints met"
