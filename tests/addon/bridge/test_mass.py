"""Joint masses (filled in by Make Figure) and the figure's centre of mass."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from control_rigs import generated
from layout_check import Host
from mathutils import Euler


def masses(obj) -> dict[str, float]:
    return {joint.name: joint.mass for joint in obj.reach.joints}


def body_mass(reach, obj) -> float:
    mass = reach.addon.bridge.mass
    return mass.BODY_MASS * (mass.size(obj) / mass.BODY_SIZE) ** 3


def test_make_figure_shares_a_body_mass_by_limb_part_and_length(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    got = masses(obj)
    total = body_mass(reach, obj)
    assert sum(got.values()) == pytest.approx(total, rel=1e-5)
    for part, share in (("thigh", 0.1), ("shin", 0.0465), ("upper_arm", 0.028), ("forearm", 0.016)):
        assert got[f"{part}.L"] == pytest.approx(share * total, rel=1e-5)
        assert got[f"{part}.R"] == got[f"{part}.L"]
    lengths = obj.data.bones
    ratio = lengths["spine.006"].length / lengths["spine.005"].length
    assert got["spine.006"] / got["spine.005"] == pytest.approx(ratio, rel=1e-5)


def test_a_figure_twice_as_tall_weighs_eight_times_as_much(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    small = sum(masses(obj).values())
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = rigs.metarig()
    obj.scale = (2.0, 2.0, 2.0)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert sum(masses(obj).values()) == pytest.approx(8.0 * small, rel=1e-5)


def test_a_mass_set_by_hand_is_kept_when_the_figure_is_made_again(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    obj.reach.joints["spine.006"].mass = 5.5
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert obj.reach.joints["spine.006"].mass == pytest.approx(5.5)


def test_the_centre_of_mass_is_the_mass_weighted_mean_of_the_bones_midpoints(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    centre_of_mass = reach.addon.bridge.mass.centre_of_mass

    def expected():
        world = obj.matrix_world
        points, weights = [], []
        for joint in obj.reach.joints:
            bone = obj.pose.bones[joint.name]
            points.append(np.array(world @ ((bone.head + bone.tail) / 2.0)))
            weights.append(joint.mass)
        return np.average(points, axis=0, weights=weights), sum(weights)

    point, total = centre_of_mass(obj)
    want, weight = expected()
    assert np.allclose(point, want, atol=1e-6) and total == pytest.approx(weight)
    arm = obj.pose.bones["upper_arm.L"]
    arm.rotation_mode = "XYZ"
    arm.rotation_euler = Euler((0.0, 0.0, 1.2))  # the left arm swung
    bpy.context.view_layer.update()
    moved, _ = centre_of_mass(obj)
    assert np.allclose(moved, expected()[0], atol=1e-6)
    assert (moved - point).length > 1e-3


def test_with_no_mass_there_is_no_centre_and_the_panel_says_so(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    panel = reach.addon.panel.REACH_PT_figure
    host = Host()
    panel.draw(host, bpy.context)
    assert any(text.startswith("Centre of mass (") for text in host.layout.labels())
    for joint in obj.reach.joints:
        joint.mass = 0.0
    assert reach.addon.bridge.mass.centre_of_mass(obj) is None
    host = Host()
    panel.draw(host, bpy.context)
    assert "No mass: set the joints' masses" in host.layout.labels()


def test_a_control_rigs_skeleton_bones_take_their_limb_parts_shares(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    got = masses(obj)
    total = body_mass(reach, obj)
    assert got["ORG-thigh.L"] == pytest.approx(0.1 * total, rel=1e-5)
    assert sum(got.values()) == pytest.approx(total, rel=1e-5)
