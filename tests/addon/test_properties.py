"""Everything the user sets is stored in the .blend file and survives save → reload."""

from __future__ import annotations

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


def _stats(reach, milliseconds):
    return reach.addon.drag_session.EventStats(
        location=(0.1, -0.2, 0.3),
        milliseconds=milliseconds,
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


def test_the_last_drags_events_are_kept_per_armature_and_not_stored_in_it(reach):
    """Every evaluation of an object copies what it stores: a drag's events are kept apart."""
    obj, other = four_limbs(), four_limbs()
    keep = reach.addon.records.keep_drag
    assert obj.reach.drag_events == ()
    keep(obj, [_stats(reach, 1.0), _stats(reach, 2.0)])
    keep(other, [_stats(reach, 3.0)])
    assert [e.milliseconds for e in obj.reach.drag_events] == [1.0, 2.0]
    assert obj.reach.drag_events[0].status == "converged"
    assert obj.reach.drag_events[0].unmet == ("hand.L",)
    obj.name = "renamed"  # the events go with the object, not its name
    assert [e.milliseconds for e in obj.reach.drag_events] == [1.0, 2.0]
    keep(obj, [_stats(reach, 4.0)])  # the next drag replaces the last
    assert [e.milliseconds for e in obj.reach.drag_events] == [4.0]
    assert [e.milliseconds for e in other.reach.drag_events] == [3.0]
    assert "drag_events" not in obj.reach.bl_rna.properties


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
