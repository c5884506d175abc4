"""Reach's forward kinematics equal Blender's pose matrices after write-back."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Matrix

MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "QUATERNION", "AXIS_ANGLE")


def blender_frames(obj, names):
    return np.array([np.array(obj.matrix_world @ obj.pose.bones[n].matrix) for n in names])


@pytest.mark.parametrize("kind", ["basic", "full"])
def test_forward_kinematics_match_blender_in_every_rotation_mode(reach, kind):
    obj = rigs.metarig(kind)
    obj.matrix_world = (
        Matrix.Translation((0.3, -1.2, 0.5)) @ Matrix.Rotation(0.7, 4, "Z") @ Matrix.Scale(1.3, 4)
    )
    for k, bone in enumerate(obj.pose.bones):
        bone.rotation_mode = MODES[k % len(MODES)]
    for k, joint_order in enumerate(("XYZ", "ZXY", "YZX")):
        del k, joint_order
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    for k, joint in enumerate(obj.reach.joints):
        joint.euler_order = MODES[(k * 5) % 6]
    adapter = reach.addon.adapter
    rig = adapter.build_rig(obj)
    names = [e.name for e in rig.layout]
    rng = np.random.default_rng(7)
    for _ in range(5):
        theta = rng.uniform(-math.pi, math.pi, rig.figure.n_dofs)
        for entry in rig.layout:
            if entry.translation >= 0:
                theta[entry.translation : entry.translation + 3] = rng.uniform(-0.5, 0.5, 3)
        adapter.write_pose(obj, rig, theta)
        bpy.context.view_layer.update()
        ours = rig.figure.forward(theta)
        theirs = blender_frames(obj, names)
        assert np.max(np.abs(ours - theirs)) <= 1e-5
        # reading the pose back gives angles with the same kinematics
        again = adapter.read_pose(obj, rig, previous=theta)
        assert np.max(np.abs(rig.figure.forward(again) - theirs)) <= 1e-5


def test_reading_the_rest_pose_gives_rest_frames(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    adapter = reach.addon.adapter
    rig = adapter.build_rig(obj)
    theta = adapter.read_pose(obj, rig)
    assert np.allclose(theta, 0.0, atol=1e-7)
    names = [e.name for e in rig.layout]
    assert np.max(np.abs(rig.figure.forward(theta) - blender_frames(obj, names))) <= 1e-6


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
    rig = reach.addon.adapter.build_rig(obj)
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
