"""What every operator shares: the armature it acts on, its poll, its reports."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import SQUARE, add_vertices, figure, four_limbs
from test_registration import OPERATORS


def test_operators_are_unavailable_without_an_armature_and_say_why(reach):
    bpy.ops.object.empty_add()
    assert not bpy.ops.reach.solve.poll()
    with pytest.raises(RuntimeError, match="Add an armature first: Reach poses armatures"):
        bpy.ops.reach.solve(armature="Empty")


def test_operators_are_disabled_without_an_armature_and_say_why(reach):
    bpy.ops.object.empty_add()
    for name in OPERATORS:
        operator = getattr(bpy.ops.reach, name)
        assert not operator.poll(), name
        with pytest.raises(RuntimeError, match="Add an armature first"):
            operator()


def test_solve_acts_on_the_named_armature_whatever_is_active(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.05, -0.05, -0.05))
    bpy.context.view_layer.objects.active = goal
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-5
    with pytest.raises(RuntimeError, match=r"object 'Goal hand\.L' is a empty, not an armature"):
        bpy.ops.reach.solve()


def test_list_operators_act_on_the_named_armature_whatever_is_active(reach):
    obj = figure()
    bpy.ops.object.empty_add()
    assert bpy.context.active_object != obj
    assert bpy.ops.reach.group_add(armature=obj.name) == {"FINISHED"}
    result = bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.001")
    assert result == {"FINISHED"}
    add_vertices(obj, "upper_arm.L", SQUARE[:1])
    assert len(obj.reach.groups[0].members) == 1
    assert len(obj.reach.joints["upper_arm.L"].polygon) == 1
    with pytest.raises(RuntimeError, match="not an armature"):
        bpy.ops.reach.group_add()
