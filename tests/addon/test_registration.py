"""Every panel, list and operator registers; the sidebar's panels show where they should."""

from __future__ import annotations

import bpy
import rigs
from rigs import figure

PANELS = (
    "REACH_PT_figure",
    "REACH_PT_constraints",
    "REACH_PT_constraint_settings",
    "REACH_PT_joint",
    "REACH_PT_joint_polygon",
    "REACH_PT_groups",
    "REACH_PT_solver",
    "REACH_PT_stats",
)


LISTS = ("REACH_UL_constraints", "REACH_UL_polygon", "REACH_UL_groups", "REACH_UL_group_members")


OPERATORS = (
    "remove_constraint",
    "polygon_add_vertex",
    "polygon_remove_vertex",
    "polygon_clear",
    "group_add",
    "group_remove",
    "group_member_add",
    "group_member_remove",
)


ARMATURE_PANELS = PANELS[1:]


def test_panels_lists_and_operators_register(reach):
    for name in (*PANELS, *LISTS):
        assert hasattr(bpy.types, name), name
    for name in OPERATORS:
        assert hasattr(bpy.ops.reach, name), name
        assert hasattr(bpy.types, f"REACH_OT_{name}"), name
    for name in PANELS:
        panel = getattr(bpy.types, name)
        assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == (
            "VIEW_3D",
            "UI",
            "Reach",
        )


def test_panels_show_for_an_armature_and_hide_for_other_objects(reach):
    panel = reach.addon.panel
    obj = figure()
    obj.data.bones.active = obj.data.bones["upper_arm.L"]
    rigs.limbs(obj, feet=False)
    for name in ARMATURE_PANELS:
        assert getattr(panel, name).poll(bpy.context), name
    bpy.ops.object.empty_add()
    for name in ARMATURE_PANELS:
        assert not getattr(panel, name).poll(bpy.context), name


def test_active_constraint_and_polygon_panels_need_something_active(reach):
    panel = reach.addon.panel
    obj = rigs.metarig()
    obj.data.bones.active = None
    assert panel.REACH_PT_constraints.poll(bpy.context)
    assert not panel.REACH_PT_constraint_settings.poll(bpy.context)
    assert not panel.REACH_PT_joint_polygon.poll(bpy.context)
    obj.data.bones.active = obj.data.bones["forearm.L"]
    assert bpy.ops.reach.add_constraint(armature=obj.name) == {"FINISHED"}
    assert panel.REACH_PT_constraint_settings.poll(bpy.context)
    assert panel.REACH_PT_joint_polygon.poll(bpy.context)
