"""What a figure is built from (``bridge.inputs``): every change to it is seen, the pose is not."""

from __future__ import annotations

import math

import bpy
import pytest
from mathutils import Vector
from rigs import four_limbs


def add_driver(obj):
    curve = obj.pose.bones["hand.L"].driver_add("rotation_euler", 0)
    curve.driver.expression = "0.1"


def add_key(obj):
    obj.pose.bones["hand.L"].keyframe_insert("rotation_quaternion", frame=1)


def copy_rotation(obj):
    copy = obj.pose.bones["hand.L"].constraints.new("COPY_ROTATION")
    copy.target, copy.subtarget = obj, "spine"
    return copy


def set_joint_limit(obj):
    obj.reach.joints["forearm.L"].limit_min[1] = -0.5


def add_polygon_vertex(obj):
    obj.reach.joints["upper_arm.L"].polygon.add()


CHANGES = {
    "a joint's mass": lambda obj: setattr(obj.reach.joints["thigh.L"], "mass", 9.0),
    "a joint's Euler order": lambda obj: setattr(obj.reach.joints["hand.L"], "euler_order", "ZXY"),
    "a joint's limit": set_joint_limit,
    "a joint's polygon": add_polygon_vertex,
    "a joint's name": lambda obj: setattr(obj.reach.joints["hand.L"], "name", "hand.X"),
    "a constraint's effector": lambda obj: setattr(
        obj.reach.constraints["hand.L"], "effector", "HEAD"
    ),
    "a constraint's goal type": lambda obj: setattr(
        obj.reach.constraints["hand.L"], "goal_type", "ORIENTATION"
    ),
    "a constraint's weight": lambda obj: setattr(obj.reach.constraints["foot.L"], "weight", 3.0),
    "a constraint's chain": lambda obj: setattr(
        obj.reach.constraints["hand.L"], "chain_start", "upper_arm.L"
    ),
    "a bone's IK limit": lambda obj: setattr(
        obj.pose.bones["forearm.L"], "ik_min_x", math.radians(-20)
    ),
    "a bone's rotation mode": lambda obj: setattr(obj.pose.bones["hand.L"], "rotation_mode", "XYZ"),
    "a bone constraint added": copy_rotation,
    "a bone constraint muted": lambda obj: setattr(copy_rotation(obj), "mute", True),
    "a driver added": add_driver,
    "a key added": add_key,
    "a bone that deforms no more": lambda obj: setattr(
        obj.data.bones["hand.L"], "use_deform", False
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_to_what_the_figure_is_built_from_is_seen(reach, change):
    obj = four_limbs()
    if change == "a bone constraint muted":
        copy_rotation(obj)
    inputs = reach.addon.bridge.inputs.figure_inputs
    before = inputs(obj)
    assert inputs(obj) == before
    CHANGES[change](obj)
    assert inputs(obj) != before


def test_the_pose_the_goals_and_the_armatures_place_are_no_input(reach):
    obj = four_limbs()
    inputs = reach.addon.bridge.inputs.figure_inputs
    before = inputs(obj)
    obj.pose.bones["forearm.L"].rotation_quaternion = (0.9, 0.3, 0.0, 0.0)
    obj.reach.constraints["hand.L"].goal.location += Vector((0.1, 0.0, 0.0))
    obj.location += Vector((1.0, 0.0, 0.0))
    obj.reach.stats.message = "something else"
    bpy.context.view_layer.update()
    assert inputs(obj) == before


def test_a_settings_group_read_the_first_time_is_no_change(reach):
    """Blender stores a group of settings the first time it is read, empty (every setting at
    its default): the figure is built from the same as before."""
    obj = four_limbs()
    inputs = reach.addon.bridge.inputs.figure_inputs
    before = inputs(obj)
    assert obj.reach.method.kind == "goldfarb"
    assert inputs(obj) == before
    obj.reach.method.kind = "dls"
    assert inputs(obj) != before
