"""The Reach tool in pose mode's toolbar, and the pin it toggles with one key."""

from __future__ import annotations

from types import SimpleNamespace

import bpy
import pytest
from bl_ui.space_toolsystem_common import ToolSelectPanelHelper
from control_rigs import generated
from layout_check import CheckingLayout
from rigs import four_limbs
from test_drag import event, mouse_at
from test_drag_bone import harness


def pose_tools() -> dict[str, object]:
    space = ToolSelectPanelHelper._tool_class_from_space_type("VIEW_3D")
    tools = ToolSelectPanelHelper._tools_flatten(space.tools_from_context(bpy.context, "POSE"))
    return {t.idname: t for t in tools if t is not None}


def test_the_tool_is_in_pose_modes_toolbar_with_its_keys_in_its_header(reach):
    tools = pose_tools()
    assert "reach.drag_tool" in tools
    order = list(tools)
    assert order.index("reach.drag_tool") == order.index("builtin.transform") + 1
    tool = reach.addon.tool.REACH_TL_drag
    keys = {(idname, item["type"], item.get("shift", False)) for idname, item, _ in tool.bl_keymap}
    assert keys == {
        ("reach.drag_bone", "LEFTMOUSE", False),
        ("view3d.select_box", "LEFTMOUSE", False),
        ("reach.pin_toggle", "P", False),
        ("reach.pin_toggle", "P", True),
        ("view3d.select", "LEFTMOUSE", False),
    }
    for idname, _, settings in tool.bl_keymap:  # each key runs a real operator
        group, name = idname.split(".")
        rna = getattr(getattr(bpy.ops, group), name).get_rna_type()
        for prop, _ in (settings or {}).get("properties", []):
            assert prop in rna.properties, (idname, prop)
    layout = CheckingLayout()
    tool.draw_settings(bpy.context, layout, None)
    assert layout.labels() == [reach.addon.tool.KEYS]


def test_p_pins_a_bone_where_it_is_and_again_unpins_it_leaving_nothing(reach):
    obj = four_limbs()
    objects = set(bpy.data.objects.keys())
    assert bpy.ops.reach.pin_toggle(armature=obj.name, bone="spine.002") == {"FINISHED"}
    pin = obj.reach.constraints["Pin spine.002"]
    assert pin.pinned and pin.goal_type == "POSITION" and pin.effector == "HEAD"
    assert pin.goal.matrix_world.translation == obj.matrix_world @ obj.pose.bones["spine.002"].head
    assert bpy.ops.reach.pin_toggle(armature=obj.name, bone="spine.002") == {"FINISHED"}
    assert "Pin spine.002" not in obj.reach.constraints
    assert set(bpy.data.objects.keys()) == objects


def test_shift_p_pins_the_rotation_and_the_selected_bones_without_a_bone(reach):
    obj = four_limbs()
    for bone in bones_to_select(obj):
        bone.select = bone.name in {"spine.002", "spine.003"}
    assert bpy.ops.reach.pin_toggle(armature=obj.name, rotation=True) == {"FINISHED"}
    turns = [c for c in obj.reach.constraints if c.name.startswith("Pin turn")]
    assert sorted(c.bone for c in turns) == ["spine.002", "spine.003"]
    assert all(c.pinned and c.goal_type == "ORIENTATION" for c in turns)
    assert bpy.ops.reach.pin_toggle(armature=obj.name, bone="spine.002") == {"FINISHED"}
    assert "Pin spine.002" in obj.reach.constraints  # the point: a pin of its own
    for bone in bones_to_select(obj):
        bone.select = False
    with pytest.raises(RuntimeError, match="no bone of 'metarig' under the mouse or selected"):
        bpy.ops.reach.pin_toggle(armature=obj.name)


def bones_to_select(obj):
    """What carries the selection flag: the pose bones from Blender 5.0, the bones before."""
    has = "select" in bpy.types.PoseBone.bl_rna.properties
    return list(obj.pose.bones) if has else list(obj.data.bones)


def test_p_over_a_bone_pins_that_bone(reach):
    obj = four_limbs()
    _, context = harness(reach, obj)
    under = reach.addon.pin_ops.bone_under_mouse
    shin = obj.pose.bones["shin.R"]
    over = mouse_at(context, (obj.matrix_world @ shin.head).lerp(obj.matrix_world @ shin.tail, 0.6))
    assert under(context, event("P", "PRESS", *over), obj.name) == "shin.R"
    assert under(context, event("P", "PRESS", 3, 3), obj.name) == ""  # nothing there
    assert under(SimpleNamespace(region=None, region_data=None, active_object=obj), None, "") == ""


def test_a_bone_that_cannot_be_pinned_is_refused_in_the_words_of_add_constraint(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    refused = r"^Error: a constraint on 'chest': 'chest' turns the spine by parts"
    with pytest.raises(RuntimeError, match=refused):  # no fault of Reach's own
        bpy.ops.reach.pin_toggle(armature=obj.name, bone="chest")
    with pytest.raises(RuntimeError, match=refused):
        bpy.ops.reach.pin_toggle(armature=obj.name, bone="chest", rotation=True)
    assert len(obj.reach.constraints) == 0
    assert bpy.ops.reach.pin_toggle(armature=obj.name, bone="torso") == {"FINISHED"}
    assert obj.reach.constraints["Pin torso"].pinned


def test_a_pin_refused_for_one_selected_bone_leaves_none_of_them(reach):
    obj = four_limbs()
    objects = set(bpy.data.objects.keys())
    for bone in bones_to_select(obj):
        bone.select = bone.name in {"spine.002", "shoulder.L"}
    obj.pose.bones["shoulder.L"].location = (float("nan"), 0.0, 0.0)
    with pytest.raises(RuntimeError, match=r"bone 'shoulder\.L' has no finite place"):
        bpy.ops.reach.pin_toggle(armature=obj.name)
    assert [c.name for c in obj.reach.constraints] == ["foot.L", "hand.L", "foot.R", "hand.R"]
    assert set(bpy.data.objects.keys()) == objects
