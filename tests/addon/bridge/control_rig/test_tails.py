"""Tails of control rigs: a goal on the tip of Rigify's tail, posed through the tail's FK
controls, whose curl (each control copying the one above's turn) Reach writes around; met
on the deform tip bone, only controls written."""

from __future__ import annotations

import bpy
import pytest
from control_rigs import SKELETON, generated, skeleton_channels, solved
from mathutils import Euler, Matrix, Vector

KINDS = ("wolf", "horse", "cat", "bird", "basic_quadruped")


def tail_of(reach, obj):
    """The tail Reach finds: the longest chain beyond the trunk whose controls curl."""
    model = reach.addon.bridge.control_rig.model.control_model(obj)
    return max((end for end in model.ends if end.curls), key=lambda end: len(end.controls))


def tip_point(obj, tail) -> tuple[str, str]:
    """The deform bone at the tail's tip and which of its ends lies there (HEAD/TAIL)."""
    tip = tail.controls[-1]
    bones = obj.pose.bones
    deform = next(c for c, k in tail.copies if k == tip and c.startswith("DEF-"))
    end = bones[tip].tail
    near_head = (bones[deform].head - end).length < (bones[deform].tail - end).length
    return deform, "HEAD" if near_head else "TAIL"


def tip_goal(obj, tail, chain_start: str = "", turn=(0.6, -0.4)) -> tuple[str, str]:
    """A constraint "tip" on the tail's deform tip, its goal the tip swung about the
    tail's base by ``turn`` (about world Z, then X) and drawn in a tenth."""
    deform, effector = tip_point(obj, tail)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=deform, effector=effector, chain_start=chain_start, name="tip"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["tip"].goal
    base = obj.matrix_world @ obj.pose.bones[tail.controls[0]].head
    swing = Matrix.Rotation(turn[0], 3, "Z") @ Matrix.Rotation(turn[1], 3, "X")
    goal.location = tuple(base + swing @ ((Vector(goal.location) - base) * 0.9))
    bpy.context.view_layer.update()
    return deform, effector


def miss(obj, deform: str, effector: str) -> float:
    """How far the deform tip lies from the goal of "tip", as Blender evaluates it."""
    bone = obj.pose.bones[deform]
    point = obj.matrix_world @ (bone.head if effector == "HEAD" else bone.tail)
    return (point - Vector(obj.reach.constraints["tip"].goal.location)).length


def length(obj, tail) -> float:
    return sum(obj.data.bones[name].length for name in tail.controls)


def turn_master(obj, tail, angles=(0.4, 0.3, -0.2)) -> str:
    """Turn the tail's master (the control the first curl copies) by hand; its name."""
    master = obj.pose.bones[tail.curls[tail.controls[0]][0].source]
    master.rotation_mode = "QUATERNION"
    master.rotation_quaternion = Euler(angles).to_quaternion()
    bpy.context.view_layer.update()
    return master.name


@pytest.mark.parametrize("kind", KINDS)
def test_a_goal_on_the_tails_tip_is_met_on_its_deform_bone_through_its_controls(reach, kind):
    obj = generated(kind)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    tail = tail_of(reach, obj)
    deform, effector = tip_goal(obj, tail)
    before = miss(obj, deform, effector)
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert before > 0.1 * length(obj, tail)
    assert miss(obj, deform, effector) <= 1e-5 * length(obj, tail) + 2e-6
    assert moved == set(tail.controls)


@pytest.mark.parametrize(("kind", "start"), [("wolf", "torso"), ("cat", "hips"), ("horse", "")])
def test_a_tail_curled_by_its_master_is_met_with_the_master_left_as_set(reach, kind, start):
    # Each control copies the turn of the one above (the first its master's) into its
    # own: Reach writes the controls' own turns around those copies.
    obj = generated(kind)
    tail = tail_of(reach, obj)
    master = turn_master(obj, tail)
    turned = tuple(obj.pose.bones[master].matrix_basis.copy())
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    deform, effector = tip_goal(obj, tail, chain_start=start, turn=(-0.5, 0.3))
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert miss(obj, deform, effector) <= 1e-5 * length(obj, tail) + 2e-6
    assert set(tail.controls) <= moved and master not in moved
    assert tuple(obj.pose.bones[master].matrix_basis) == turned
    assert not any(n.startswith(SKELETON) for n in moved)


def test_the_tail_is_found_by_the_rigs_constraints(reach, capfd):
    obj = generated("wolf")
    tail = tail_of(reach, obj)
    model = reach.addon.bridge.control_rig.model.control_model(obj)
    assert tail.controls == ("spine.003", "spine.002", "spine.001", "spine")
    # it hangs from the hips' spine FK control (below the hips' share); the hips' tweak
    # carrying it is no link of it
    joint = model.trunk.joint(tail.hang)
    assert (joint.control, joint.layer) == ("spine_fk.004", True)
    assert model.trunk.joint(joint.parent).control == "hips"
    assert [c.source for name in tail.controls for c in tail.curls[name]] == [
        "spine_master.003",
        "spine.003",
        "spine.002",
        "spine.001",
    ]
    # each deform bone of the tail stands on the control whose ends it spans
    for k, name in enumerate(("DEF-spine.003", "DEF-spine.002", "DEF-spine.001", "DEF-spine")):
        stand = model.stand(name)
        assert stand is not None and stand.bone == tail.controls[k]
    # a spine FK control carries the chest's joints, shoulders and neck: no end of its own
    assert not any(c.startswith("spine_fk") for end in model.ends for c in end.controls)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert "spine.003 → spine.002 → spine.001 → spine" in capfd.readouterr().out


def test_a_tweak_moved_by_hand_remakes_the_tail_and_its_tip_is_still_met(reach):
    obj = generated("wolf")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    tail = tail_of(reach, obj)
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    assert rig.is_current(obj)
    tweak = obj.pose.bones["tweak_spine.002"]
    tweak.location = (0.0, 0.0, 0.02)
    bpy.context.view_layer.update()
    assert not rig.is_current(obj)  # the bones it carries are off their controls
    deform, effector = tip_goal(obj, tail)
    solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert miss(obj, deform, effector) <= 1e-5 * length(obj, tail) + 2e-6
    # the moved tweak's bones no longer follow one control: Reach says so by name
    with pytest.raises(RuntimeError, match=r"'DEF-spine\.002' moves with no limb"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="DEF-spine.002", effector="HEAD")


def test_a_driven_tail_control_is_named_as_why_the_tip_is_not_met(reach):
    obj = generated("cat")
    tail = tail_of(reach, obj)
    driven = tail.controls[1]
    curve = obj.pose.bones[driven].driver_add("rotation_quaternion", 1)
    curve.driver.expression = "0.2"
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    tip_goal(obj, tail)
    bpy.ops.reach.solve(armature=obj.name)
    message = obj.reach.stats.message
    assert "not met on Blender's pose" in message and driven in message, message
    assert "driver" in message


def test_a_dragged_tail_tip_keeps_on_its_goal_and_writes_controls_only(reach):
    obj = generated("horse")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    tail = tail_of(reach, obj)
    deform, effector = tip_goal(obj, tail, turn=(0.0, 0.0))
    before = skeleton_channels(obj)
    goal = obj.reach.constraints["tip"].goal
    base = obj.matrix_world @ obj.pose.bones[tail.controls[0]].head
    reach_out = Vector(goal.location) - base  # swung about the tail's base, aside and down
    size = length(obj, tail)
    swings = [Euler((-0.4 * k / 12, 0.0, 0.7 * k / 12)).to_matrix() for k in range(1, 13)]
    path = [{"name": "", "location": tuple(base + swing @ reach_out)} for swing in swings]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert skeleton_channels(obj) == before
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert miss(obj, deform, effector) <= 1e-5 * size + 2e-6
