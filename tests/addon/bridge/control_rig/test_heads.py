"""Heads and necks of control rigs: a look-at on Rigify's ``head`` control, its chain from
the neck or the trunk, met on the deform head bone, only controls written."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
from control_rigs import SKELETON, evaluations, generated, skeleton_channels, solved
from mathutils import Matrix, Vector

KINDS = ("human", "basic_human", "wolf", "horse", "cat", "bird")


def deform_head(obj) -> str:
    """The deform bone that follows the ``head`` control (through the ORG bone copying it)."""

    def copies(bone, target: str) -> bool:
        return any(c.type == "COPY_TRANSFORMS" and c.subtarget == target for c in bone.constraints)

    bones = obj.pose.bones
    original = next(b.name for b in bones if b.name.startswith("ORG-") and copies(b, "head"))
    return next(b.name for b in bones if b.name.startswith("DEF-") and copies(b, original))


def look(obj, chain_start: str, turn=(0.7, -0.35)) -> Vector:
    """A look-at constraint "look" on ``head``, its goal 1 m along the head's axis turned
    by ``turn`` (about the world's Z, then X); the goal's place."""
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="head", chain_start=chain_start, goal_type="AIM", name="look"
    ) == {"FINISHED"}
    head = obj.pose.bones["head"]
    axis = (obj.matrix_world.to_3x3() @ (head.tail - head.head)).normalized()
    aim = Matrix.Rotation(turn[0], 3, "Z") @ Matrix.Rotation(turn[1], 3, "X") @ axis
    goal = obj.reach.constraints["look"].goal
    goal.location = tuple(obj.matrix_world @ head.head + aim.normalized())
    bpy.context.view_layer.update()
    return Vector(goal.location)


def aim_error(obj, target: Vector) -> float:
    """The angle (degrees) between the deform head bone's axis and the way to ``target``."""
    bone = obj.pose.bones[deform_head(obj)]
    root, tip = obj.matrix_world @ bone.head, obj.matrix_world @ bone.tail
    return math.degrees((tip - root).angle(target - root))


@pytest.mark.parametrize("kind", KINDS)
def test_a_look_at_on_the_head_with_its_chain_from_the_neck_is_met_on_the_deform_head(reach, kind):
    obj = generated(kind)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    target = look(obj, "neck")
    before = aim_error(obj, target)
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert before > 20.0 and aim_error(obj, target) <= 0.05
    assert moved == {"neck", "head"}


@pytest.mark.parametrize("kind", ["basic_human", "wolf"])
@pytest.mark.parametrize("start", ["torso", "chest", "head", ""])
def test_the_heads_chain_may_start_at_the_trunk_at_the_head_or_by_default_the_neck(
    reach, kind, start
):
    # The neck's follow (0.5 by default) blends the torso's turn into it in world space:
    # with the chain from the torso or chest, Blender's evaluation places the neck and head
    # where Reach's figure has them.
    obj = generated(kind)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    target = look(obj, start, turn=(0.5, -0.25))
    moved = solved(obj)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert aim_error(obj, target) <= 0.05
    expected = {
        "torso": {"torso", "chest", "neck", "head"},
        "chest": {"chest", "neck", "head"},
        "head": {"head"},
        "": {"neck", "head"},
    }[start]
    assert moved <= expected and "head" in moved
    assert not any(n.startswith(SKELETON) for n in moved)


@pytest.mark.parametrize("follow", [0.0, 1.0])
def test_a_head_that_follows_the_neck_or_the_torso_is_met_either_way(reach, follow):
    obj = generated("basic_human")
    obj.pose.bones["torso"]["head_follow"] = follow
    obj.update_tag()
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    target = look(obj, "neck", turn=(-0.6, 0.3))
    assert solved(obj) == {"neck", "head"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert aim_error(obj, target) <= 0.05


def test_the_head_and_neck_are_found_by_the_rigs_constraints(reach, capfd):
    obj = generated("basic_human")
    model = reach.addon.bridge.control_rig.model.control_model(obj)
    head = next(end for end in model.ends if "head" in end.controls)
    assert head.controls == ("neck", "head")
    assert ("ORG-spine.006", "head") in head.copies
    # it hangs from the spine's top FK control, a layer of the trunk below the chest's share
    joint = model.trunk.joint(head.hang)
    assert (joint.control, joint.layer, joint.parent) == ("spine_fk.003", True, "MCH-spine.003")
    assert "spine_fk.003" not in head.controls
    stand = model.stand("DEF-spine.006")
    assert stand is not None and stand.bone == "head"
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert "beyond the trunk: neck → head" in capfd.readouterr().out


def test_a_dragged_look_at_keeps_the_head_on_its_goal_and_writes_controls_only(reach):
    obj = generated("wolf")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    start = look(obj, "neck", turn=(0.0, 0.0))
    before = skeleton_channels(obj)
    ends = [start + Vector((0.3 * math.sin(t), 0.2 * t, -0.2 * t)) for t in np.linspace(0, 1, 13)]
    path = [{"name": "", "location": tuple(p)} for p in ends[1:]]
    goal = obj.reach.constraints["look"].goal
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert skeleton_channels(obj) == before
    assert aim_error(obj, Vector(goal.location)) <= 0.05
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message


def test_a_dragged_look_at_makes_no_pass_that_the_last_found_useless(reach):
    # The horse's neck follows half the torso's turn and lands about 6e-6 of its length
    # off whatever pass writes it: once a second pass has found that, each later event of
    # the drag places the neck and head in one evaluation of the rig, the head on its goal
    obj = generated("horse")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    start = look(obj, "neck", turn=(0.0, -0.3))
    assert solved(obj) == {"neck", "head"}
    goal = obj.reach.constraints["look"].goal
    centre = obj.matrix_world @ obj.pose.bones["head"].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)

    def event(k: int) -> None:
        place = centre + Matrix.Rotation(0.03 * k, 3, "Z") @ (start - centre)
        stats = session.step(place)
        assert not stats.unmet and not stats.diverging, stats
        assert aim_error(obj, place) <= 0.05

    counts = evaluations(obj, (lambda k=k: event(k) for k in range(1, 13)))
    session.finish()
    assert counts[0] == 2 and counts[1:] == [1] * 11, counts
