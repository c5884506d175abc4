"""The viewport overlay: its geometry headless, its drawing where the GPU allows it."""

from __future__ import annotations

import bpy
import gpu
import pytest
from layout_check import Host
from mathutils import Matrix, Vector
from rigs import four_limbs


def overlay_of(reach, obj):
    marks = reach.addon.overlay.overlay_geometry(obj).marks
    return {mark.name: mark for mark in marks}


def test_met_constraints_are_green_points_and_an_unmet_one_red_with_its_miss(reach):
    obj = four_limbs()
    hand = obj.reach.constraints["hand.L"].goal
    hand.location = Vector(hand.location) + Vector((0.6, 0.0, 0.0))  # beyond the arm
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    marks = overlay_of(reach, obj)
    assert set(marks) == {"foot.L", "foot.R", "hand.L", "hand.R"}
    for name in ("foot.L", "foot.R", "hand.R"):
        assert marks[name].met and marks[name].text == ""
        assert (marks[name].end - marks[name].start).length <= 1e-4  # on its goal
    unmet = marks["hand.L"]
    assert not unmet.met
    assert unmet.end == hand.matrix_world.translation
    assert "out of reach by" in unmet.text  # the verdict's own words
    assert (unmet.start - obj.matrix_world @ obj.pose.bones["forearm.L"].tail).length <= 1e-5


def test_a_plane_goal_is_drawn_to_its_nearest_point_and_a_pin_is_marked(reach):
    obj = four_limbs()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="spine.004", effector="TAIL", goal_type="PLANE", name="neck"
    ) == {"FINISHED"}
    plane = obj.reach.constraints["neck"].goal
    plane.rotation_euler = (0.0, 0.0, 0.0)  # the plane's normal along world Z
    plane.location = Vector(plane.location) + Vector((0.3, 0.2, 0.05))
    assert bpy.ops.reach.pin_bone(armature=obj.name, bone="spine.002") == {"FINISHED"}
    bpy.context.view_layer.update()
    marks = overlay_of(reach, obj)
    neck = marks["neck"]
    assert neck.end.z == pytest.approx(plane.matrix_world.translation.z, abs=1e-6)
    assert (neck.end.x, neck.end.y) == pytest.approx((neck.start.x, neck.start.y), abs=1e-6)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="spine.006", goal_type="ORIENTATION", name="look"
    ) == {"FINISHED"}
    obj.reach.constraints["look"].goal.location.x += 0.5  # where the empty stands is no goal
    bpy.context.view_layer.update()
    look = overlay_of(reach, obj)["look"]
    assert look.end == look.start  # no line to draw
    pins = [m for m in marks.values() if m.pinned]
    assert [m.name for m in pins] == ["Pin spine.002"]
    obj.reach.constraints["neck"].enabled = False
    assert "neck" not in overlay_of(reach, obj)  # disabled constraints are not drawn


def test_only_visible_figures_with_the_overlay_on_are_drawn(reach):
    obj = four_limbs()
    shown = reach.addon.overlay.shown_figures
    assert shown(bpy.context) == [obj]
    obj.reach.show_overlay = False
    assert shown(bpy.context) == []
    obj.reach.show_overlay = True
    obj.hide_set(True)
    assert shown(bpy.context) == []


def test_the_switch_is_in_the_viewport_overlays_popover_and_the_figure_panel(reach):
    overlay = reach.addon.overlay
    assert overlay.draw_toggle in bpy.types.VIEW3D_PT_overlay._dyn_ui_initialize()
    assert len(overlay._state.handles) == 2  # the lines' and the labels' draw handlers
    obj = four_limbs()
    host = Host()
    overlay.draw_toggle(host, bpy.context)
    assert host.layout.props() == ["show_overlay"]
    figure = reach.addon.panel.REACH_PT_figure
    drawn = Host()
    figure.draw(drawn, bpy.context)
    assert "show_overlay" in drawn.layout.props()
    obj.reach.is_figure = False
    host = Host()
    overlay.draw_toggle(host, bpy.context)
    assert host.layout.props() == []  # not a figure: nothing to show


def test_changing_the_overlay_switch_rebuilds_no_figure(reach):
    obj = four_limbs()
    inputs = reach.addon.bridge.inputs.figure_inputs
    before = inputs(obj)
    obj.reach.show_overlay = not obj.reach.show_overlay
    assert inputs(obj) == before


def front_view(centre, half_width: float = 1.2) -> Matrix:
    """An orthographic front view (world Z up) ``2 · half_width`` wide around ``centre``."""
    look = Matrix(((1, 0, 0, 0), (0, 0, 1, 0), (0, -1, 0, 0), (0, 0, 0, 1)))
    return Matrix.Scale(1.0 / half_width, 4) @ look @ Matrix.Translation(-Vector(centre))


@pytest.mark.skipif(
    not hasattr(gpu, "init"), reason="this Blender draws nothing on the GPU in background mode"
)
def test_the_lines_and_labels_draw_offscreen(reach):
    obj = four_limbs()
    hand = obj.reach.constraints["hand.L"].goal
    hand.location = Vector(hand.location) + Vector((0.6, 0.0, 0.0))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    overlay = reach.addon.overlay
    drawn = [overlay.overlay_geometry(obj)]
    view = front_view(obj.matrix_world @ obj.pose.bones["spine.003"].head)
    size = 200
    gpu.init()
    offscreen = gpu.types.GPUOffScreen(size, size)
    with offscreen.bind():
        framebuffer = gpu.state.active_framebuffer_get()
        framebuffer.clear(color=(0.0, 0.0, 0.0, 0.0))
        overlay.draw_offscreen(drawn, view, size, labels=False)
        lines = red_pixels(framebuffer, size)
        framebuffer.clear(color=(0.0, 0.0, 0.0, 0.0))
        overlay.draw_offscreen(drawn, view, size, lines=False)
        labels = red_pixels(framebuffer, size)
    offscreen.free()
    assert lines > 20  # the unmet hand's line
    assert labels > 20  # and its miss written beside it


def red_pixels(framebuffer, size: int) -> int:
    """How many pixels of the bound framebuffer are drawn red."""
    pixels = framebuffer.read_color(0, 0, size, size, 4, 0, "FLOAT")
    pixels.dimensions = size * size * 4
    values = list(pixels)
    return sum(1 for k in range(0, len(values), 4) if values[k] > 0.5 and values[k + 1] < 0.5)
