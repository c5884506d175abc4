"""What every operator shares: the armature it acts on, its poll, its reports."""

from __future__ import annotations

import re

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import SQUARE, add_vertices, figure, four_limbs
from test_drag import event, interactive, invoked, mouse_at
from test_registration import OPERATORS


def test_operators_are_unavailable_without_an_armature_and_say_why(reach):
    bpy.ops.object.empty_add()
    assert not bpy.ops.reach.solve.poll()
    with pytest.raises(RuntimeError, match="Add an armature first: Reach poses armatures"):
        bpy.ops.reach.solve(armature="Empty")


def test_operators_are_disabled_without_an_armature_and_say_why(reach):
    bpy.ops.object.empty_add()
    for name in OPERATORS:
        operator = getattr(bpy.ops.reach, name)
        assert not operator.poll(), name
        with pytest.raises(RuntimeError, match="Add an armature first"):
            operator()


def test_solve_acts_on_the_named_armature_whatever_is_active(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.05, -0.05, -0.05))
    bpy.context.view_layer.objects.active = goal
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-5
    with pytest.raises(RuntimeError, match=r"object 'Goal hand\.L' is a empty, not an armature"):
        bpy.ops.reach.solve()


def test_list_operators_act_on_the_named_armature_whatever_is_active(reach):
    obj = figure()
    bpy.ops.object.empty_add()
    assert bpy.context.active_object != obj
    assert bpy.ops.reach.group_add(armature=obj.name) == {"FINISHED"}
    result = bpy.ops.reach.group_member_add(armature=obj.name, bone="spine.001")
    assert result == {"FINISHED"}
    add_vertices(obj, "upper_arm.L", SQUARE[:1])
    assert len(obj.reach.groups[0].members) == 1
    assert len(obj.reach.joints["upper_arm.L"].polygon) == 1
    with pytest.raises(RuntimeError, match="not an armature"):
        bpy.ops.reach.group_add()


DRAG_UNDER_WAY = (
    r"a drag of 'Goal hand\.L' on 'metarig' is under way; "
    r"confirm it \(left click or Enter\) or cancel it \(right click or Esc\) first"
)


def dragging(reach, obj, goal):
    """An interactive drag of ``goal``, one mouse move under way: (operator, context, start)."""
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    invoked(drag, context, start)
    to = mouse_at(context, start + Vector((0.05, 0.0, 0.05)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"RUNNING_MODAL"}
    return drag, context, start


def test_a_second_drag_is_refused_while_one_runs_and_the_first_still_restores(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    other = obj.reach.constraints["hand.R"].goal
    before = rigs.pose_channels(obj)
    where = {o.name: tuple(float(v).hex() for v in o.location) for o in (goal, other)}
    first, context, _ = dragging(reach, obj, goal)
    dragged = rigs.pose_channels(obj)
    path = [{"name": "", "location": (0.3, 0.0, 1.2)}]
    with pytest.raises(RuntimeError, match=DRAG_UNDER_WAY) as caught:
        bpy.ops.reach.drag_goal(armature=obj.name, goal=other.name, path=path)
    assert "Traceback" not in str(caught.value)
    for name in ("solve", "clamp_pose", "live"):
        with pytest.raises(RuntimeError, match=DRAG_UNDER_WAY):
            getattr(bpy.ops.reach, name)(armature=obj.name)
    second, context_2 = interactive(reach, obj, other)
    assert second.invoke(context_2, event("MOUSEMOVE", "NOTHING", 10, 10)) == {"CANCELLED"}
    assert len(second.reports) == 1
    assert second.reports[0][0] == {"ERROR"}
    assert re.fullmatch(DRAG_UNDER_WAY, second.reports[0][1])
    assert context_2.window_manager.handlers == []
    assert rigs.pose_channels(obj) == dragged
    assert first.modal(context, event("ESC")) == {"CANCELLED"}
    assert rigs.pose_channels(obj) == before
    assert {o.name: tuple(float(v).hex() for v in o.location) for o in (goal, other)} == where
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=other.name, path=path) == {"FINISHED"}


def test_a_failing_drag_event_restores_the_pose_and_the_goal_and_reports(reach, monkeypatch):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    before = rigs.pose_channels(obj)
    goal_before = tuple(float(v).hex() for v in goal.location)
    drag, context, start = dragging(reach, obj, goal)
    assert rigs.pose_channels(obj) != before

    def failing(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(reach.addon.bridge.solving, "run_solve", failing)
    to = mouse_at(context, start + Vector((0.06, 0.0, 0.05)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"CANCELLED"}
    assert rigs.pose_channels(obj) == before
    assert tuple(float(v).hex() for v in goal.location) == goal_before
    assert context.area.headers[-1] is None
    ((kind, message),) = drag.reports
    assert kind == {"ERROR"}
    assert message == UNEXPECTED.format("ZeroDivisionError: float division by zero")
    monkeypatch.undo()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}  # no drag is left running


UNEXPECTED = (
    "Reach failed on an error of its own, not of your data ({}); "
    "the pose and the goals are as they were. The system console shows the details"
)


def test_an_unexpected_error_restores_the_pose_and_goals_and_is_reported(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    before = rigs.pose_channels(obj)
    goal_before = tuple(float(v).hex() for v in goal.location)

    class Failing(reach.addon.operator_base.ArmatureOperator):
        def __init__(self):
            self.armature = obj.name
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

        def run(self, context):
            obj.pose.bones["forearm.L"].rotation_euler = (0.4, 0.0, 0.0)
            goal.location = (1.0, 2.0, 3.0)
            return {} + {}

    operator = Failing()
    assert operator.execute(bpy.context) == {"CANCELLED"}
    message = "TypeError: unsupported operand type(s) for +: 'dict' and 'dict'"
    assert operator.reports == [({"ERROR"}, UNEXPECTED.format(message))]
    assert rigs.pose_channels(obj) == before
    assert tuple(float(v).hex() for v in goal.location) == goal_before


def test_loading_a_file_ends_a_drag_that_was_running(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    drag, context = interactive(reach, obj, goal)
    invoked(drag, context, Vector(goal.location))
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = four_limbs()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    drag.end(context)  # the viewport draw handler a real window would have dropped


EDIT_MODE = (
    r"Leave edit mode first \(Tab\): Reach reads and writes the pose, "
    r"which edit mode neither shows nor updates"
)


def test_operators_refuse_edit_mode_and_a_bone_added_there_works_once_out(reach):
    obj = four_limbs()
    bpy.ops.object.mode_set(mode="EDIT")
    tip = obj.data.edit_bones.new("finger.L")
    hand = obj.data.edit_bones["hand.L"]
    tip.head, tip.tail, tip.parent = hand.tail, hand.tail + Vector((0.0, 0.0, -0.05)), hand
    for name in (*OPERATORS, "figure_from_armature", "add_constraint", "solve", "clamp_pose"):
        operator = getattr(bpy.ops.reach, name)
        assert not operator.poll(), name
        with pytest.raises(RuntimeError, match=EDIT_MODE):
            operator(armature=obj.name)
    bpy.ops.object.mode_set(mode="POSE")
    result = bpy.ops.reach.add_constraint(
        armature=obj.name, bone="finger.L", chain_start="upper_arm.L"
    )
    assert result == {"FINISHED"}
    goal = obj.reach.constraints[-1].goal
    goal.location = Vector(goal.location) + Vector((0.02, 0.0, 0.02))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    tail = obj.matrix_world @ obj.pose.bones["finger.L"].tail
    assert (tail - goal.matrix_world.translation).length <= 1e-5


def test_an_armature_in_edit_mode_is_refused_by_name_too(reach):
    obj = four_limbs()
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.context.view_layer.objects.active = bpy.data.objects["Goal hand.L"]
    with pytest.raises(RuntimeError, match="armature 'metarig' is in edit mode. " + EDIT_MODE):
        bpy.ops.reach.solve(armature=obj.name)
