"""A rig built by hand whose deform bones follow controls through its own constraints:
a constraint on a deform bone is on its control, only controls are written, and the
goal is met on the deform bones Blender evaluates."""

from __future__ import annotations

import math
import re

import bpy
import pytest
from control_rigs import channels
from mathutils import Matrix, Vector

ARM = (("upper", (0.0, 0.0, 1.5), (0.3, 0.0, 1.5)), ("fore", None, (0.55, 0.05, 1.5)))
HAND = ("hand", None, (0.65, 0.05, 1.5))

FOLLOWS = {
    # how each deform bone follows its control
    "copy": ("COPY_TRANSFORMS",),
    "child": ("CHILD_OF",),
    "parts": ("COPY_ROTATION", "COPY_LOCATION"),
}


def hand_made_rig(how: dict[str, tuple[str, ...]], control_roll: float = 0.0):
    """A root, a control chain (upper, fore, hand) and a deform chain following it.

    Each deform bone DEF-x follows control x by the constraints ``how[x]`` (with a Child
    Of, it has no parent); the controls are rolled by ``control_roll`` against the deform
    bones, so a deform bone's frame is not its control's.
    """
    data = bpy.data.armatures.new("hand-made")
    obj = bpy.data.objects.new("hand-made", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    root = data.edit_bones.new("root")
    root.head, root.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    root.use_deform = False
    for prefix, roll, deform in (("", control_roll, False), ("DEF-", 0.0, True)):
        parent, head = root, None
        for name, start, tail in (*ARM, HAND):
            bone = data.edit_bones.new(prefix + name)
            bone.head = start if start is not None else head
            bone.tail = tail
            bone.roll = roll
            child = deform and "CHILD_OF" in how[name]  # its parent would move it too
            bone.parent = None if child else parent
            bone.use_connect = start is None and not child
            bone.use_deform = deform
            parent, head = bone, tail
    bpy.ops.object.mode_set(mode="OBJECT")
    for name in ("upper", "fore", "hand"):
        pose_bone = obj.pose.bones["DEF-" + name]
        for kind in how[name]:
            constraint = pose_bone.constraints.new(kind)
            constraint.target, constraint.subtarget = obj, name
            if kind == "CHILD_OF":  # keep the bone where it is: the inverse of the control now
                constraint.inverse_matrix = (
                    obj.matrix_world @ obj.pose.bones[name].matrix
                ).inverted()
    bpy.context.view_layer.update()
    return obj


def deform_tail(obj, name: str) -> Vector:
    return obj.matrix_world @ obj.pose.bones[name].tail


def constrain_the_hand_and_solve(obj, offset) -> float:
    """A constraint on DEF-hand's tail from DEF-upper, its goal moved by ``offset``, solved.

    Returns:
        How far DEF-hand's tail ends from the goal, over the arm's length; only the
        controls were written.
    """
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="DEF-hand", effector="TAIL", chain_start="DEF-upper", name="end"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["end"].goal
    assert (goal.location - deform_tail(obj, "DEF-hand")).length <= 1e-6
    goal.location += Vector(offset)
    bpy.context.view_layer.update()
    deform = channels(obj, "DEF-")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert channels(obj, "DEF-") == deform  # only the controls were written
    arm = sum(obj.data.bones["DEF-" + n].length for n in ("upper", "fore", "hand"))
    return (deform_tail(obj, "DEF-hand") - goal.location).length / arm


@pytest.mark.parametrize("how", ["copy", "child", "parts"])
@pytest.mark.parametrize("roll", [0.0, 1.1])
def test_a_deform_bone_constrained_poses_its_controls_and_meets_its_goal(reach, capfd, how, roll):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS[how]), roll)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "3 bone(s) follow a control through their own constraints" in out
    assert "DEF-hand → hand" in out and "bone constraints" not in out
    assert constrain_the_hand_and_solve(obj, (-0.15, 0.1, -0.12)) <= 1e-5
    assert obj.reach.stats.message == "all constraints met"
    moved = [n for n in ("upper", "fore", "hand") if obj.pose.bones[n].matrix_basis != Matrix()]
    assert moved and obj.pose.bones["root"].matrix_basis == Matrix()


def test_an_orientation_goal_on_a_deform_bone_turns_it_not_its_control_frame(reach):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["copy"]), 0.7)
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="DEF-hand",
        effector="TAIL",
        goal_type="POSITION_ORIENTATION",
        chain_start="DEF-upper",
        name="end",
    ) == {"FINISHED"}
    goal = obj.reach.constraints["end"].goal
    turn = Matrix.Rotation(math.radians(25.0), 4, "Z")
    where = goal.matrix_world.translation + Vector((-0.1, 0.05, -0.05))
    goal.matrix_world = Matrix.Translation(where) @ turn @ goal.matrix_world.to_3x3().to_4x4()
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    hand = obj.matrix_world @ obj.pose.bones["DEF-hand"].matrix
    assert (
        hand.to_quaternion().rotation_difference(goal.matrix_world.to_quaternion())
    ).angle <= 1e-4
    assert obj.reach.stats.message == "all constraints met"


def flatten_controls(obj) -> None:
    """Hang the fore and hand controls from the root: no chain of controls any more."""
    bpy.ops.object.mode_set(mode="EDIT")
    for name in ("fore", "hand"):
        bone = obj.data.edit_bones[name]
        bone.use_connect, bone.parent = False, obj.data.edit_bones["root"]
    bpy.ops.object.mode_set(mode="OBJECT")


REFUSED = (
    "'DEF-hand' moves with control 'hand' and chain start 'DEF-upper' with 'upper', which is "
    "not above it; start the chain at 'hand' or a bone above it"
)


@pytest.mark.parametrize("how", ["copy", "parts"])
@pytest.mark.parametrize("roll", [0.0, 0.4])
def test_a_flat_rigs_chain_poses_its_controls_through_the_deform_bones(reach, capfd, how, roll):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS[how]), roll)
    flatten_controls(obj)
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert "upper → fore → hand" in capfd.readouterr().out
    controls = channels(obj, "")
    assert constrain_the_hand_and_solve(obj, (-0.15, 0.1, -0.2)) <= 1e-5
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    moved = {n for n, c in channels(obj, "").items() if controls[n] != c}
    assert moved == {"upper", "fore", "hand"}  # the flat fore and hand moved as well as turned
    assert obj.pose.bones["hand"].location.length > 0.01
    with pytest.raises(RuntimeError, match=r"chain start 'DEF-hand' is not above 'DEF-upper'"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="DEF-upper", chain_start="DEF-hand")


def test_a_rig_whose_deform_bones_copy_no_hierarchy_refuses_a_chain_across_controls(reach):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["child"]))
    flatten_controls(obj)  # and the deform bones, each a Child Of, have no parents either
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    with pytest.raises(RuntimeError, match=re.escape(REFUSED)):
        bpy.ops.reach.add_constraint(
            armature=obj.name, bone="DEF-hand", chain_start="DEF-upper", name="end"
        )
    assert len(obj.reach.constraints) == 0


def test_controls_flattened_since_the_figure_was_made_are_posed_as_a_flat_rig(reach):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["copy"]))
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="DEF-hand", effector="TAIL", chain_start="DEF-upper", name="end"
    ) == {"FINISHED"}
    flatten_controls(obj)
    goal = obj.reach.constraints["end"].goal
    goal.location.x -= 0.1
    bpy.context.view_layer.update()
    deform = channels(obj, "DEF-")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert channels(obj, "DEF-") == deform
    assert (deform_tail(obj, "DEF-hand") - goal.location).length <= 1e-5


def test_a_bone_half_following_is_named_among_the_constrained_bones(reach, capfd):
    how = dict.fromkeys(("upper", "fore"), FOLLOWS["copy"]) | {"hand": ("COPY_ROTATION",)}
    obj = hand_made_rig(how)
    obj.pose.bones["DEF-hand"].constraints[0].influence = 0.5
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "2 bone(s) follow a control" in out
    assert (
        "1 bone(s) with bone constraints, which Blender applies after Reach's pose: DEF-hand" in out
    )


def test_a_child_of_on_a_bone_whose_parent_moves_is_not_followed(reach):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["copy"]))
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones["DEF-hand"].use_connect = False
    bpy.ops.object.mode_set(mode="OBJECT")
    hand = obj.pose.bones["DEF-hand"]
    hand.constraints.remove(hand.constraints[0])
    child = hand.constraints.new("CHILD_OF")  # on top of DEF-fore, which follows fore
    child.target, child.subtarget = obj, "hand"
    bpy.context.view_layer.update()
    followers = reach.addon.bridge.followers.find_followers(obj)
    assert set(followers) == {"DEF-upper", "DEF-fore"}
    assert followers["DEF-fore"].control == "fore"


def test_a_control_set_by_hand_takes_a_bone_its_constraints_do_not_say_onto_it(reach, capfd):
    # DEF-hand copies only the hand control's rotation; hanging from DEF-fore, which
    # follows fore, it still moves with hand rigidly: the animator says so
    how = dict.fromkeys(("upper", "fore"), FOLLOWS["copy"]) | {"hand": ("COPY_ROTATION",)}
    obj = hand_made_rig(how)
    assert bpy.ops.reach.follower_add(armature=obj.name, bone="DEF-hand", control="hand") == {
        "FINISHED"
    }
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "3 bone(s) follow a control" in out and "bone constraints" not in out
    assert constrain_the_hand_and_solve(obj, (-0.1, 0.12, -0.08)) <= 1e-5
    assert obj.reach.stats.message == "all constraints met"
    assert bpy.ops.reach.follower_remove(armature=obj.name) == {"FINISHED"}
    assert len(obj.reach.followers) == 0


@pytest.mark.parametrize(
    ("bone", "control", "refused"),
    [
        ("DEF-hand", "nowhere", "armature 'hand-made' has no bone 'nowhere'"),
        ("hand", "hand", "'hand' cannot move with itself"),
        ("fore", "DEF-fore", "'DEF-fore' moves with 'fore' already"),
    ],
)
def test_a_control_set_by_hand_is_refused_by_name_when_it_cannot_be(reach, bone, control, refused):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["copy"]))
    with pytest.raises(RuntimeError, match=re.escape(refused)):
        bpy.ops.reach.follower_add(armature=obj.name, bone=bone, control=control)
    assert len(obj.reach.followers) == 0


def test_a_control_set_by_hand_follows_renames_and_a_deleted_one_can_be_forgotten(reach):
    obj = hand_made_rig(dict.fromkeys(("upper", "fore", "hand"), FOLLOWS["copy"]))
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    bpy.ops.reach.follower_add(armature=obj.name, bone="DEF-hand", control="hand")
    obj.data.bones["hand"].name = "palm"
    bpy.context.view_layer.update()  # renames are followed on the next update
    assert obj.reach.followers["DEF-hand"].control == "palm"
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones.remove(obj.data.edit_bones["palm"])
    bpy.ops.object.mode_set(mode="OBJECT")
    missing = reach.addon.renames.missing_bones(obj)
    assert missing == {"palm": ["the control of 'DEF-hand'"]}
    with pytest.raises(RuntimeError, match="rename the bones back, or forget the names"):
        bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert bpy.ops.reach.forget_bone(armature=obj.name, bone="palm") == {"FINISHED"}
    assert len(obj.reach.followers) == 0


def test_a_control_set_by_hand_that_the_bone_does_not_follow_is_not_called_met(reach):
    how = dict.fromkeys(("upper", "fore"), FOLLOWS["copy"]) | {"hand": ()}
    obj = hand_made_rig(how)  # DEF-hand hangs from DEF-fore: the hand control moves it not
    bpy.ops.reach.follower_add(armature=obj.name, bone="DEF-hand", control="hand")
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert constrain_the_hand_and_solve(obj, (-0.1, 0.12, -0.08)) > 1e-3
    assert obj.reach.stats.message.startswith("not met on Blender's pose: end ")
    assert "DEF-hand: it does not follow 'hand', which Reach poses in its place" in (
        obj.reach.stats.message
    )
