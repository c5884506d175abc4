"""Everything the user sets is stored in the .blend file and survives save → reload."""

from __future__ import annotations

import dataclasses

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


def test_save_reload_solve_gives_the_same_pose(reach, tmp_path):
    obj = four_limbs()
    obj.pose.bones["upper_arm.R"].rotation_mode = "QUATERNION"
    joint = obj.reach.joints["upper_arm.R"]
    joint.euler_order = "ZXY"
    goal = obj.reach.constraints["hand.R"].goal
    goal.location = Vector(goal.location) + Vector((0.0, -0.1, 0.05))
    goal_name = goal.name
    obj.reach.constraints["hand.L"].goal_type = "POSITION_ORIENTATION"
    obj.reach.constraints["hand.L"].w_position = 0.7
    obj.reach.time_budget = 0.05
    start = rigs.pose_channels(obj)
    path = tmp_path / "figure.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    solved = rigs.pose_channels(obj)
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects["metarig"]
    assert rigs.pose_channels(obj) == start
    settings = obj.reach
    assert settings.is_figure
    assert [c.name for c in settings.constraints] == ["foot.L", "hand.L", "foot.R", "hand.R"]
    assert settings.constraints["hand.L"].goal_type == "POSITION_ORIENTATION"
    assert settings.constraints["hand.L"].w_position == np.float32(0.7)
    assert settings.constraints["hand.R"].goal.name == goal_name
    assert settings.joints["upper_arm.R"].euler_order == "ZXY"
    assert settings.time_budget == np.float32(0.05)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    again = rigs.pose_channels(obj)
    for name, channels in solved.items():
        values, other = rigs.channel_values(channels), rigs.channel_values(again[name])
        assert np.allclose(values, other, atol=1e-6), name


def test_the_drag_event_group_stores_the_labelled_fields_of_event_stats(reach):
    records = reach.addon.records
    stats_type = reach.addon.drag_session.EventStats
    group = reach.addon.properties.ReachDragEvent
    stored = [f.name for f in records.stored_fields(stats_type)]
    unstored = {"unmet", "diverging"}
    assert stored == [f.name for f in dataclasses.fields(stats_type) if f.name not in unstored]
    properties = {p.identifier: p for p in group.bl_rna.properties if p.identifier in stored}
    assert sorted(properties) == sorted(stored)
    assert properties["location"].type == "FLOAT" and properties["location"].array_length == 3
    assert properties["iterations"].type == "INT"
    assert properties["status"].type == "STRING"
    assert properties["residual"].type == "FLOAT"
    assert properties["milliseconds"].name == "Event (ms)"


def test_a_drag_event_item_holds_what_the_stats_record_held(reach):
    obj = four_limbs()
    stats = reach.addon.drag_session.EventStats(
        location=(0.1, -0.2, 0.3),
        milliseconds=4.5,
        solve_milliseconds=2.25,
        budget=0.1,
        residual=1e-5,
        objective=1e-10,
        iterations=7,
        status="converged",
        max_violation=0.0,
        outcome="not_reachable",
        out_of_reach=0.12,
        unmet=("hand.L",),
    )
    item = obj.reach.drag_events.add()
    reach.addon.records.store(stats, item)
    assert tuple(item.location) == pytest.approx(stats.location)
    assert item.status == "converged" and item.iterations == 7
    assert item.outcome == "not_reachable"
    assert item.out_of_reach == pytest.approx(0.12)
    for name in ("milliseconds", "solve_milliseconds", "budget", "residual", "objective"):
        assert getattr(item, name) == pytest.approx(getattr(stats, name), rel=1e-6), name


def _numbers(group):
    """The editable number settings of a property group: (name, hard min, hard max)."""
    return [
        (p.identifier, p.hard_min, p.hard_max)
        for p in group.bl_rna.properties
        if p.type in {"FLOAT", "INT"} and not p.is_readonly and p.array_length == 0
    ]


def _groups(obj):
    """Every group of settings a user edits: the figure's, its method's, a constraint's."""
    return {
        "settings": obj.reach,
        "method": obj.reach.method,
        "constraint": obj.reach.constraints["hand.L"],
    }


@pytest.mark.parametrize("method", ["goldfarb", "lbfgsb", "dls", "jacobian_transpose"])
@pytest.mark.parametrize("end", ["hard_min", "hard_max"])
def test_no_setting_allows_a_value_the_solver_refuses(reach, method, end):
    # every number at either end of what the setting allows, one at a time: Solve runs
    # (the goals are met where they stand, so even a huge budget ends at once)
    obj = four_limbs()
    obj.reach.method.kind = method
    skipped = {"active_constraint", "active_group"}  # list indices, not settings
    for where, group in _groups(obj).items():
        for name, low, high in _numbers(group):
            if name in skipped:
                continue
            before = getattr(group, name)
            setattr(group, name, low if end == "hard_min" else high)
            try:
                bpy.ops.reach.solve(armature=obj.name)
            except RuntimeError as error:
                pytest.fail(f"{where}.{name} = {getattr(group, name)}: {error}")
            setattr(group, name, before)
