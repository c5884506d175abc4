"""The sidebar's lists: every entry of every list drawn against Blender's RNA."""

from __future__ import annotations

import types

import bpy
import pytest
from layout_check import Host
from test_panel import rich_figure

COLLECTIONS = {
    "REACH_UL_constraints": lambda obj: (obj.reach, "constraints"),
    "REACH_UL_polygon": lambda obj: (obj.reach.joints["upper_arm.L"], "polygon"),
    "REACH_UL_groups": lambda obj: (obj.reach, "groups"),
    "REACH_UL_group_members": lambda obj: (obj.reach.groups["Spine"], "members"),
    "REACH_UL_followers": lambda obj: (obj.reach, "followers"),
}


def draw_rows(cls, data, collection, layout_type="DEFAULT"):
    """``draw_item`` of list ``cls`` for every entry of ``data.<collection>``."""
    layouts = []
    for index, item in enumerate(getattr(data, collection)):
        host = Host(layout_type)
        host.draw_row = types.MethodType(cls.draw_row, host)
        cls.draw_item(host, bpy.context, host.layout, data, item, 0, data, "", index)
        layouts.append(host.layout)
    return layouts


def test_every_list_has_entries_to_draw_here(reach):
    names = {c.__name__ for c in reach.addon.lists.classes}
    assert names == set(COLLECTIONS)


@pytest.mark.parametrize("name", sorted(COLLECTIONS))
def test_every_entry_of_every_list_draws(reach, name):
    obj = rich_figure()
    cls = getattr(reach.addon.lists, name)
    data, collection = COLLECTIONS[name](obj)
    layouts = draw_rows(cls, data, collection)
    assert len(layouts) == len(getattr(data, collection)) > 0
    for layout in layouts:
        assert layout.everything()


def test_constraint_rows_show_the_chain_and_the_goal(reach):
    obj = rich_figure()
    bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand.L", chain_start="upper_arm.L", name="reach"
    )
    layouts = draw_rows(reach.addon.lists.REACH_UL_constraints, obj.reach, "constraints")
    assert "hand.L ← upper_arm.L" in layouts[-1].labels()
    assert {"enabled", "goal_type", "name", "goal", "weight"} <= set(layouts[-1].props())
    # a compact or grid list shows the name alone
    (grid,) = draw_rows(reach.addon.lists.REACH_UL_constraints, obj.reach, "constraints", "GRID")[
        -1:
    ]
    assert grid.labels() == ["reach"]


def test_polygon_rows_number_the_vertices_and_name_their_axes(reach):
    obj = rich_figure()
    joint = obj.reach.joints["upper_arm.L"]
    layouts = draw_rows(reach.addon.lists.REACH_UL_polygon, joint, "polygon")
    assert [layout.labels()[0] for layout in layouts] == ["1", "2", "3", "4"]
    values = [d for d in layouts[0].everything() if d.function == "prop"]
    assert [(d.arguments["index"], d.arguments["text"]) for d in values] == [
        (0, joint.polygon_axes[0]),
        (1, joint.polygon_axes[1]),
    ]


def test_group_rows_count_their_bones_and_members_search_the_bones(reach):
    obj = rich_figure()
    (group,) = draw_rows(reach.addon.lists.REACH_UL_groups, obj.reach, "groups")
    assert "2 bones" in group.labels()
    members = draw_rows(
        reach.addon.lists.REACH_UL_group_members, obj.reach.groups["Spine"], "members"
    )
    for layout in members:
        searches = [d for d in layout.everything() if d.function == "prop_search"]
        assert [d.arguments["search_property"] for d in searches] == ["bones"]


def test_a_compact_constraint_list_draws_the_full_row(reach):
    obj = rich_figure()
    default = draw_rows(reach.addon.lists.REACH_UL_constraints, obj.reach, "constraints")
    compact = draw_rows(reach.addon.lists.REACH_UL_constraints, obj.reach, "constraints", "COMPACT")
    assert [layout.props() for layout in compact] == [layout.props() for layout in default]
    assert [layout.labels() for layout in compact] == [layout.labels() for layout in default]


def test_follower_rows_show_the_bone_and_search_its_control_among_the_bones(reach):
    obj = rich_figure()
    (row,) = draw_rows(reach.addon.lists.REACH_UL_followers, obj.reach, "followers")
    assert row.labels() == ["hand.L"]
    (search,) = [d for d in row.everything() if d.function == "prop_search"]
    assert search.arguments["search_data"] == obj.data
    assert search.arguments["search_property"] == "bones"
