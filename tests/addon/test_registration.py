"""Every panel, list and operator registers, in the sidebar's Reach tab."""

from __future__ import annotations

import bpy

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
