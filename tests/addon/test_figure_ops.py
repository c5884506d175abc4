"""``reach.figure_from_armature``, ``reach.add_constraint`` and ``reach.remove_constraint``."""

from __future__ import annotations

import bpy
import pytest
import rigs
from rigs import figure


def test_add_constraint_reports_unknown_bones_and_goals(reach):
    obj = rigs.metarig()
    with pytest.raises(RuntimeError, match=r"armature 'metarig' has no bone 'wing\.L'"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="wing.L")
    with pytest.raises(
        RuntimeError, match=r"chain start 'thigh\.L' is not 'forearm\.L' or one of its parents"
    ):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="forearm.L", chain_start="thigh.L")
    with pytest.raises(RuntimeError, match="no object named 'Nowhere' for the goal"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="forearm.L", goal="Nowhere")
    assert len(obj.reach.constraints) == 0


def test_remove_constraint_removes_the_active_one_and_keeps_its_goal(reach):
    obj = figure()
    goals = rigs.limbs(obj, feet=False)
    assert obj.reach.active_constraint == 1
    assert bpy.ops.reach.remove_constraint(armature=obj.name) == {"FINISHED"}
    assert [c.name for c in obj.reach.constraints] == ["hand.L"]
    assert obj.reach.active_constraint == 0
    assert goals["hand.R"] in bpy.data.objects


def test_remove_constraint_by_name_deletes_the_goal_when_asked(reach):
    obj = figure()
    goals = rigs.limbs(obj)
    result = bpy.ops.reach.remove_constraint(
        armature=obj.name, constraint="hand.L", delete_goal=True
    )
    assert result == {"FINISHED"}
    assert "hand.L" not in obj.reach.constraints
    assert goals["hand.L"] not in bpy.data.objects
    assert all(goals[name] in bpy.data.objects for name in ("hand.R", "foot.L", "foot.R"))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def test_remove_constraint_keeps_a_goal_another_constraint_uses(reach):
    obj = figure()
    goals = rigs.limbs(obj, feet=False)
    shared = goals["hand.L"]
    result = bpy.ops.reach.add_constraint(armature=obj.name, bone="hand.L", goal=shared)
    assert result == {"FINISHED"}
    result = bpy.ops.reach.remove_constraint(
        armature=obj.name, constraint="hand.L", delete_goal=True
    )
    assert result == {"FINISHED"}
    assert shared in bpy.data.objects
    assert "hand.L" not in obj.reach.constraints


def test_remove_constraint_raises_if_there_is_none(reach):
    obj = figure()
    with pytest.raises(RuntimeError, match="no constraint to remove"):
        bpy.ops.reach.remove_constraint(armature=obj.name)
    rigs.limbs(obj, feet=False)
    with pytest.raises(RuntimeError, match="no constraint 'elbow'"):
        bpy.ops.reach.remove_constraint(armature=obj.name, constraint="elbow")
    assert len(obj.reach.constraints) == 2


def test_a_contact_on_a_toe_holds_it_whole_and_one_on_the_heel_bone_beside_it_a_point(reach):
    # The foot continues into its toe, a leaf: held by its tip alone, the toe would turn
    # about it and sink its joint into the ground. The heel bone beside it stays a point.
    obj = rigs.metarig()
    for bone in ("toe.L", "heel.02.L"):
        result = bpy.ops.reach.add_constraint(armature=obj.name, bone=bone, contact=True, name=bone)
        assert result == {"FINISHED"}
    kinds = {c.name: c.goal_type for c in obj.reach.constraints}
    assert kinds == {"toe.L": "POSITION_ORIENTATION", "heel.02.L": "POSITION"}
