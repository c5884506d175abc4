"""``reach.drag_goal``: a path replayed as drag events, and the interactive drag driven
headless by recorded window events (``invoke`` and ``modal`` on a harness of its mixin)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
import rigs
from bpy_extras import view3d_utils
from mathutils import Matrix, Vector
from rigs import four_limbs, reachable_path


def test_path_replay_reaches_each_goal_and_keeps_the_feet(reach):
    obj = four_limbs()
    hand_goal = obj.reach.constraints["hand.L"].goal
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    limits = rig.figure.limits
    path = reachable_path(
        rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 30, seed=3
    )
    result = bpy.ops.reach.drag_goal(armature=obj.name, goal=hand_goal.name, path=path)
    assert result == {"FINISHED"}
    events = obj.reach.drag_events
    assert len(events) == len(path)
    for event, point in zip(events, path, strict=True):
        assert np.allclose(event.location, point["location"], atol=1e-6)
        assert event.residual <= 1e-4 * arm, (event.residual, event.status)
        assert event.milliseconds > 0.0
        assert event.max_violation <= 1e-9
    # the final pose, as Blender evaluates it
    assert (
        np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(path[-1]["location"]))
        <= 1e-4 * arm
    )
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * arm
    theta = bridge.pose.read_pose(obj, rig)
    assert limits.max_violation(theta) <= 1e-6
    assert np.all(theta >= rig.figure.lower - 1e-6) and np.all(theta <= rig.figure.upper + 1e-6)


def test_a_failed_replay_event_cancels_the_whole_drag(reach):
    obj = four_limbs()
    before = rigs.pose_channels(obj)
    goal = obj.reach.constraints["hand.R"].goal
    start = Vector(goal.location)
    path = [{"name": "", "location": start + Vector((0.0, -0.01 * k, 0.0))} for k in range(3)]
    path.append({"name": "", "location": (float("nan"), 0.0, 0.0)})
    try:
        bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path)
    except RuntimeError as error:
        assert "drag cancelled at event 4" in str(error)
        assert "not a finite 3D point" in str(error)
    else:
        raise AssertionError("a NaN location must cancel the drag")
    assert rigs.pose_channels(obj) == before
    assert tuple(goal.location) == tuple(start)


# --- the interactive drag, driven by recorded events ------------------------------------


def event(kind, value="PRESS", x=0, y=0):
    """A window event record as ``modal`` reads it."""
    return SimpleNamespace(type=kind, value=value, mouse_region_x=x, mouse_region_y=y)


def interactive(reach, obj, goal):
    """The drag operator's mixin on a harness, and a 3D viewport context stand-in.

    The harness keeps what the operator would report; the context has the real scene and
    view layer, a front view of the goal with real matrices, an area recording its header
    text and a window manager recording its modal handlers.
    """

    class Harness(reach.addon.drag.DragGoal):
        def __init__(self):
            self.armature, self.goal, self.path = obj.name, goal.name, []
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

    return Harness(), viewport(goal.matrix_world.translation, bpy.context.active_object)


def viewport(center, active_object):
    """A 3D viewport context stand-in: the real scene and view layer, a front view of
    ``center`` with real matrices, an area recording its header text and a window
    manager recording its modal handlers."""
    area = SimpleNamespace(type="VIEW_3D", headers=[])
    area.header_text_set = area.headers.append
    manager = SimpleNamespace(handlers=[])
    manager.modal_handler_add = manager.handlers.append
    region, region_data = rigs.region_view(center)
    return SimpleNamespace(
        scene=bpy.context.scene,
        view_layer=bpy.context.view_layer,
        active_object=active_object,
        area=area,
        region=region,
        region_data=region_data,
        window_manager=manager,
    )


def invoked(drag, context, start):
    """Invoke ``drag`` with the mouse over ``start``; it then runs modal."""
    assert drag.invoke(context, event("MOUSEMOVE", "NOTHING", *mouse_at(context, start))) == {
        "RUNNING_MODAL"
    }


def mouse_at(context, point):
    """The region pixel (integers, as events have them) where ``point`` is drawn."""
    x, y = view3d_utils.location_3d_to_region_2d(context.region, context.region_data, point)
    return round(x), round(y)


def test_modal_drag_moves_the_goal_then_along_x_and_confirms(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    here = mouse_at(context, start)
    assert drag.invoke(context, event("MOUSEMOVE", "NOTHING", *here)) == {"RUNNING_MODAL"}
    assert context.window_manager.handlers == [drag]
    assert context.area.headers[-1].startswith("Reach: drag the goal")

    first = mouse_at(context, start + Vector((0.04, 0.0, -0.03)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *first)) == {"RUNNING_MODAL"}
    moved = Vector(goal.location) - start
    assert abs(moved.y) <= 1e-6 and abs(moved.x) > 0.03 and abs(moved.z) > 0.02  # view plane

    assert drag.modal(context, event("X")) == {"RUNNING_MODAL"}
    second = mouse_at(context, start + Vector((-0.05, 0.0, 0.04)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *second)) == {"RUNNING_MODAL"}
    along = Vector(goal.location) - start
    region, view = context.region, context.region_data
    expected = (
        view3d_utils.region_2d_to_location_3d(region, view, second, start)
        - view3d_utils.region_2d_to_location_3d(region, view, here, start)
    ).x
    assert along.x == pytest.approx(expected, abs=1e-6)
    assert (along.y, along.z) == (0.0, 0.0)  # along X only, from where the drag started
    assert context.area.headers[-1].endswith("· along X")

    assert drag.modal(context, event("LEFTMOUSE")) == {"FINISHED"}
    assert context.area.headers[-1] is None
    assert drag.reports == []
    bpy.context.view_layer.update()
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    tail = rigs.world_tail(obj, "forearm.L")
    assert np.linalg.norm(tail - np.array(goal.matrix_world.translation)) <= 1e-4 * arm
    events = obj.reach.drag_events
    assert len(events) == 2
    assert tuple(events[-1].location) == pytest.approx(tuple(goal.location))
    assert obj.reach.stats.status and obj.reach.stats.residual <= 1e-4 * arm


def test_a_drags_events_solve_with_openblas_on_one_thread(reach, monkeypatch):
    """Each modal event holds numpy's OpenBLAS to one thread (``bridge.blas``), and puts
    back the count Blender had (here two, a thread per core) when it returns."""
    threads = reach.addon.bridge.blas.openblas_threads()
    assert threads is not None  # every Blender tested here links numpy to OpenBLAS
    solving = reach.addon.bridge.solving
    solve, seen = solving.solve, []

    def counted(*args, **kwargs):
        seen.append(threads.get())
        return solve(*args, **kwargs)

    monkeypatch.setattr(solving, "solve", counted)
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    was = threads.get()
    threads.set(2)
    try:
        invoked(drag, context, start)
        to = mouse_at(context, start + Vector((0.04, 0.0, -0.03)))
        assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"RUNNING_MODAL"}
        assert threads.get() == 2
        assert drag.modal(context, event("LEFTMOUSE")) == {"FINISHED"}
        assert seen and set(seen) == {1}
        assert threads.get() == 2
    finally:
        threads.set(was)


def test_dragging_a_goal_beyond_the_arm_says_by_how_much_in_the_header(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    invoked(drag, context, start)
    near = mouse_at(context, start + Vector((0.02, 0.0, 0.0)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *near)) == {"RUNNING_MODAL"}
    assert "out of reach" not in context.area.headers[-1]
    far = mouse_at(context, start + Vector((2.0, 0.0, 0.0)))  # metres beyond the arm
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *far)) == {"RUNNING_MODAL"}
    header = context.area.headers[-1]
    assert " · out of reach by " in header
    event_stats = drag.drag.events[-1]
    assert event_stats.outcome == "not_reachable"
    # an outer bound: the goal lies at least that far from the hand (here the arm is straight)
    bpy.context.view_layer.update()
    gap = np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location))
    assert 0.0 < event_stats.out_of_reach <= gap * (1 + 1e-6)  # Blender evaluates in float32
    assert drag.modal(context, event("LEFTMOUSE")) == {"FINISHED"}
    assert drag.reports == []  # an interactive drag reports in its header, not as a warning
    assert obj.reach.stats.outcome == "not_reachable"


def test_modal_drag_cancelled_with_esc_restores_everything_bit_for_bit(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    bpy.context.view_layer.update()
    goal = obj.reach.constraints["hand.L"].goal
    before = rigs.pose_channels(obj)
    goal_before = tuple(float(v).hex() for v in goal.location)
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    invoked(drag, context, start)
    to = mouse_at(context, start + Vector((0.05, 0.0, 0.05)))
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *to)) == {"RUNNING_MODAL"}
    assert drag.modal(context, event("LEFTMOUSE", "RELEASE")) == {"RUNNING_MODAL"}
    assert rigs.pose_channels(obj) != before
    assert drag.modal(context, event("ESC")) == {"CANCELLED"}
    assert rigs.pose_channels(obj) == before
    assert tuple(float(v).hex() for v in goal.location) == goal_before
    assert len(obj.reach.drag_events) == 0


def test_invoke_without_a_3d_viewport_replays_the_path(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    drag, context = interactive(reach, obj, goal)
    context.area = None
    drag.path = [SimpleNamespace(location=Vector(goal.location) + Vector((0.0, -0.02, 0.0)))]
    assert drag.invoke(context, event("LEFTMOUSE")) == {"FINISHED"}
    assert len(obj.reach.drag_events) == 1
    assert context.window_manager.handlers == []


def test_r_in_a_replayed_drag_rotates_an_orientation_goal_and_the_bone_follows(reach):
    obj = four_limbs()
    result = bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone="hand.L",
        goal_type="ORIENTATION",
        chain_start="hand.L",
        name="hand turn",
    )
    assert result == {"FINISHED"}
    goal = obj.reach.constraints["hand turn"].goal
    before = goal.matrix_world.to_3x3().normalized()
    drag, context = interactive(reach, obj, goal)
    center = goal.matrix_world.translation
    here = mouse_at(context, center + Vector((0.2, 0.0, 0.0)))
    invoked(drag, context, center + Vector((0.2, 0.0, 0.0)))
    assert drag.modal(context, event("R")) == {"RUNNING_MODAL"}
    pivot = mouse_at(context, center)
    turned = (pivot[0] + (here[0] - pivot[0]) // 2, pivot[1] + (here[0] - pivot[0]) // 2)
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", *turned)) == {"RUNNING_MODAL"}
    header = context.area.headers[-1]
    angle = reach.addon.view.screen_angle(drag.gesture.pivot, here, turned)
    assert abs(math.degrees(angle) - 45.0) < 1.0
    assert f"rotate {math.degrees(angle):.1f}°" in header
    toward = Vector((0.0, -1.0, 0.0))  # the front view looks along +Y
    expected = Matrix.Rotation(angle, 3, toward) @ before
    now = goal.matrix_world.to_3x3().normalized()
    assert np.allclose(np.array(now), np.array(expected), atol=1e-5)
    assert tuple(goal.matrix_world.translation) == pytest.approx(tuple(center), abs=1e-6)
    assert drag.modal(context, event("LEFTMOUSE")) == {"FINISHED"}
    bpy.context.view_layer.update()
    hand = (obj.matrix_world @ obj.pose.bones["hand.L"].matrix).to_3x3().normalized()
    for k in (0, 1):  # the bone's X and Y axes on the goal's
        assert np.dot(np.array(hand.col[k]), np.array(now.col[k])) >= math.cos(1e-3)


def test_r_twice_is_a_trackball_and_esc_puts_the_goals_rotation_back(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.rotation_euler = (0.1, 0.2, 0.3)
    bpy.context.view_layer.update()
    channels = [tuple(float(v).hex() for v in goal.rotation_euler), tuple(goal.location)]
    drag, context = interactive(reach, obj, goal)
    start = Vector(goal.location)
    invoked(drag, context, start)
    drag.modal(context, event("R"))
    drag.modal(context, event("R"))
    assert drag.gesture.mode == "TRACKBALL"
    x, y = mouse_at(context, start)
    assert drag.modal(context, event("MOUSEMOVE", "NOTHING", x + 30, y)) == {"RUNNING_MODAL"}
    assert "trackball 17.2°" in context.area.headers[-1]
    assert tuple(float(v).hex() for v in goal.rotation_euler) != channels[0]
    drag.modal(context, event("Z"))
    assert drag.gesture.mode == "ROTATE" and drag.gesture.axis == "Z"
    assert drag.modal(context, event("ESC")) == {"CANCELLED"}
    assert [tuple(float(v).hex() for v in goal.rotation_euler), tuple(goal.location)] == channels


def test_dragging_the_armature_itself_judges_the_goals_where_it_went(reach):
    # the figure was made with the armature where it stood: after an event far away, the
    # drag's verdict said the goals it left 3 m behind were met
    obj = four_limbs()
    bpy.context.view_layer.objects.active = obj
    path = [{"name": "", "location": where} for where in ((0.0, 0.0, -1e6), (-0.93, -2.0, -2.0))]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal="", path=path) == {"FINISHED"}
    assert tuple(obj.location) == pytest.approx((-0.93, -2.0, -2.0))
    stats = obj.reach.stats
    assert set(stats.unmet.split(", ")) == {"hand.L", "hand.R", "foot.L", "foot.R"}
    for name in ("hand.L", "foot.L"):
        bone = obj.reach.constraints[name].bone
        goal = np.array(obj.reach.constraints[name].goal.location)
        assert np.linalg.norm(rigs.world_tail(obj, bone) - goal) > 1.0
