"""``reach.drag_bone``: a bone grabbed and dragged, the figure's constraints held."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from control_rigs import generated, keyed_bones, skeleton_channels
from mathutils import Vector
from rigs import four_limbs
from test_drag import event, mouse_at, viewport

HEAD = "spine.006"
"""The basic metarig's head: free of the feet's and hands' constraints."""


def grip_point(reach, obj, bone: str) -> np.ndarray:
    """Where a drag grips ``bone`` by its tail, on Blender's pose (Reach's tail effector)."""
    pose_bone = obj.pose.bones[bone]
    end = reach.addon.bridge.bone_ends.end(pose_bone.bone, pose_bone.matrix)
    return np.array(obj.matrix_world @ end)


def goals_met(reach, obj) -> float:
    """The largest miss of the armature's constraints' effectors (tails) on Blender's pose."""
    return max(
        np.linalg.norm(grip_point(reach, obj, c.bone) - np.array(c.goal.matrix_world.translation))
        for c in obj.reach.constraints
    )


def head_path(reach, obj, events: int = 10) -> list[dict]:
    """The head's grip moved 3 cm forward and 2 cm down, in ``events`` steps."""
    start = Vector(grip_point(reach, obj, HEAD))
    move = Vector((0.0, -0.03, -0.02))
    return [{"name": "", "location": start + move * (k / events)} for k in range(1, events + 1)]


def test_a_dragged_bone_follows_the_path_holds_every_constraint_and_leaves_nothing(reach):
    obj = four_limbs()
    spine = rigs.chain_length(obj, tuple(f"spine.{k:03d}" for k in range(1, 7)))
    objects, constraints = set(bpy.data.objects.keys()), list(obj.reach.constraints.keys())
    obj.reach.active_constraint = 1
    path = head_path(reach, obj)
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone=HEAD, path=path) == {"FINISHED"}
    assert len(obj.reach.drag_events) == len(path)
    tail = grip_point(reach, obj, HEAD)
    assert np.linalg.norm(tail - np.array(path[-1]["location"])) <= 1e-5 * spine
    assert goals_met(reach, obj) <= 1e-5 * spine  # the feet and hands stayed on their goals
    assert set(bpy.data.objects.keys()) == objects  # the drag's goal is gone
    assert list(obj.reach.constraints.keys()) == constraints
    assert obj.reach.active_constraint == 1


def test_pin_keeps_the_bone_pinned_where_it_ends(reach):
    obj = four_limbs()
    path = head_path(reach, obj)
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone=HEAD, path=path, pin=True) == {
        "FINISHED"
    }
    pin = obj.reach.constraints[f"Pin {HEAD}"]
    assert pin.pinned and pin.effector == "TAIL"
    where = np.array(pin.goal.matrix_world.translation)
    assert np.allclose(where, grip_point(reach, obj, HEAD), atol=1e-9)  # on the bone, exactly
    # the pin holds the head while a hand is moved
    hand = obj.reach.constraints["hand.L"].goal
    hand.location = Vector(hand.location) + Vector((0.03, 0.0, 0.03))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert np.linalg.norm(grip_point(reach, obj, HEAD) - where) <= 1e-4


def test_a_replay_that_fails_restores_the_pose_and_removes_the_grip(reach):
    obj = four_limbs()
    before, objects = rigs.pose_channels(obj), set(bpy.data.objects.keys())
    path = [*head_path(reach, obj, 3), {"name": "", "location": (float("nan"), 0.0, 0.0)}]
    with pytest.raises(RuntimeError, match="drag cancelled at event 4"):
        bpy.ops.reach.drag_bone(armature=obj.name, bone=HEAD, path=path)
    assert rigs.pose_channels(obj) == before
    assert set(bpy.data.objects.keys()) == objects
    assert [c.name for c in obj.reach.constraints] == ["foot.L", "hand.L", "foot.R", "hand.R"]


def test_a_bone_Reach_cannot_drag_is_refused_by_name_and_nothing_changes(reach):
    obj = four_limbs()
    objects = set(bpy.data.objects.keys())
    with pytest.raises(RuntimeError, match="has no bone 'nose'"):
        bpy.ops.reach.drag_bone(armature=obj.name, bone="nose", path=head_path(reach, obj))
    with pytest.raises(RuntimeError, match=r"chain start 'hand\.L' is not 'spine\.006'"):
        bpy.ops.reach.drag_bone(
            armature=obj.name, bone=HEAD, chain_start="hand.L", path=head_path(reach, obj)
        )
    assert set(bpy.data.objects.keys()) == objects
    assert len(obj.reach.constraints) == 4


# --- picking the bone under the mouse, and the interactive drag -------------------------


def harness(reach, obj, **settings):
    """The bone drag's mixin on a harness, and a front view of the armature."""

    class Harness(reach.addon.drag_bone.DragBone):
        def __init__(self):
            self.armature, self.path, self.reports = obj.name, [], []
            self.bone, self.effector, self.chain_start, self.pin = "", "TAIL", "", False
            for key, value in settings.items():
                setattr(self, key, value)

        def report(self, kind, message):
            self.reports.append((kind, message))

    return Harness(), viewport(Vector(rigs.world_tail(obj, "spine.003")), obj)


def test_the_bone_drawn_nearest_the_mouse_is_picked_with_its_nearer_end(reach):
    obj = four_limbs()
    _, context = harness(reach, obj)
    view = reach.addon.view.ViewMatrices.from_region(context.region, context.region_data)
    pick = reach.addon.drag_bone.pick_bone
    forearm = obj.pose.bones["forearm.L"]
    head, tail = (obj.matrix_world @ p for p in (forearm.head, forearm.tail))
    assert pick(view, mouse_at(context, head.lerp(tail, 0.8)), obj) == ("forearm.L", "TAIL")
    assert pick(view, mouse_at(context, head.lerp(tail, 0.3)), obj) == ("forearm.L", "HEAD")
    assert pick(view, (5.0, 5.0), obj) is None  # a corner of the view: no bone near
    forearm.bone.hide = True
    assert pick(view, mouse_at(context, head.lerp(tail, 0.8)), obj) != ("forearm.L", "TAIL")


def test_the_bone_under_the_mouse_is_dragged_and_esc_restores_everything(reach):
    obj = four_limbs()
    before, objects = rigs.pose_channels(obj), set(bpy.data.objects.keys())
    drag, context = harness(reach, obj)
    start = Vector(grip_point(reach, obj, HEAD))
    assert drag.invoke(context, event("MOUSEMOVE", "NOTHING", *mouse_at(context, start))) == {
        "RUNNING_MODAL"
    }
    assert drag.grip.entry.bone == HEAD
    assert context.area.headers[-1].startswith("Reach: drag the bone")
    to = mouse_at(context, start + Vector((0.02, 0.0, -0.02)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"RUNNING_MODAL"}
    assert rigs.pose_channels(obj) != before
    assert drag.modal(context, event("ESC")) == {"CANCELLED"}
    assert rigs.pose_channels(obj) == before
    assert set(bpy.data.objects.keys()) == objects
    assert len(obj.reach.constraints) == 4 and drag.reports == []


def test_p_pins_where_the_drag_ends_and_r_turns_the_bone(reach):
    obj = four_limbs()
    drag, context = harness(reach, obj, bone=HEAD)
    start = Vector(grip_point(reach, obj, HEAD))
    assert drag.invoke(context, event("MOUSEMOVE", "NOTHING", *mouse_at(context, start))) == {
        "RUNNING_MODAL"
    }
    to = mouse_at(context, start + Vector((0.02, 0.0, -0.02)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"RUNNING_MODAL"}
    turned = obj.pose.bones[HEAD].matrix.to_quaternion()
    assert drag.modal(context, event("R")) == {"RUNNING_MODAL"}
    assert drag.grip.entry.goal_type == "POSITION_ORIENTATION"  # the grip holds the axes
    away = (to[0] + 60, to[1] + 20)
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *away)) == {"RUNNING_MODAL"}
    assert obj.pose.bones[HEAD].matrix.to_quaternion().rotation_difference(turned).angle > 0.05
    assert drag.modal(context, event("P")) == {"RUNNING_MODAL"}
    assert context.area.headers[-1].endswith("pin on")
    assert drag.modal(context, event("RET")) == {"FINISHED"}
    pin = obj.reach.constraints[f"Pin {HEAD}"]
    assert pin.pinned
    assert np.allclose(pin.goal.matrix_world.translation, grip_point(reach, obj, HEAD), atol=1e-9)


def test_a_drag_on_an_armature_not_yet_a_figure_makes_it_one_unless_cancelled(reach):
    obj = rigs.metarig()
    assert not obj.reach.is_figure
    drag, context = harness(reach, obj, bone=HEAD)
    start = Vector(grip_point(reach, obj, HEAD))
    drag.invoke(context, event("MOUSEMOVE", "NOTHING", *mouse_at(context, start)))
    assert obj.reach.is_figure
    assert drag.modal(context, event("ESC")) == {"CANCELLED"}
    assert not obj.reach.is_figure and len(obj.reach.joints) == 0
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone=HEAD, path=head_path(reach, obj, 3)) == {
        "FINISHED"
    }
    assert obj.reach.is_figure and len(obj.reach.constraints) == 0


def test_auto_keying_keys_the_bones_that_moved_and_no_goal(reach):
    obj = four_limbs()
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = True
    path = head_path(reach, obj)
    try:
        assert bpy.ops.reach.drag_bone(armature=obj.name, bone=HEAD, path=path) == {"FINISHED"}
    finally:
        bpy.context.scene.tool_settings.use_keyframe_insert_auto = False
    keyed = keyed_bones(reach, obj)
    assert HEAD in keyed and "spine.005" in keyed
    assert not any(o.name.startswith("Goal Drag") for o in bpy.data.objects)


def test_grabbing_a_control_of_a_control_rig_poses_the_body_it_drives(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    before = skeleton_channels(obj)
    start = obj.matrix_world @ obj.pose.bones["hand_ik.L"].head
    path = [{"name": "", "location": start + Vector((0.0, -0.01, 0.01)) * k} for k in range(1, 6)]
    assert bpy.ops.reach.drag_bone(
        armature=obj.name, bone="hand_ik.L", effector="HEAD", chain_start="torso", path=path
    ) == {"FINISHED"}
    hand = obj.matrix_world @ obj.pose.bones["DEF-hand.L"].head  # what moves the mesh
    assert (hand - Vector(path[-1]["location"])).length <= 1e-5
    assert skeleton_channels(obj) == before  # only controls written
    assert obj.reach.stats.message == "all constraints met"
    assert len(obj.reach.constraints) == 0


def test_a_press_over_no_bone_passes_the_event_on(reach):
    obj = four_limbs()
    drag, context = harness(reach, obj)
    passed = drag.invoke(context, event("MOUSEMOVE", "NOTHING", 3, 3))  # a corner: no bone
    assert passed == {"PASS_THROUGH", "CANCELLED"}
    assert drag.reports == [] and context.window_manager.handlers == []
    assert len(obj.reach.constraints) == 4
