"""The drag's gestures (``gestures``): a moved object stays under the mouse, a turned one
keeps its place and size and turns by the mouse's angle."""

from __future__ import annotations

import math

import bpy
import pytest
import rigs
from bpy_extras import view3d_utils
from mathutils import Matrix, Vector

CENTER = Vector((0.2, 0.5, 1.3))


def parented_empty() -> bpy.types.Object:
    """An empty under a turned, scaled parent: its ``location`` is not in world space."""
    bpy.ops.wm.read_homefile(use_empty=True)
    parent = bpy.data.objects.new("parent", None)
    child = bpy.data.objects.new("child", None)
    for obj in (parent, child):
        bpy.context.scene.collection.objects.link(obj)
    parent.location = (0.4, -0.2, 0.3)
    parent.rotation_euler = (0.3, -0.5, 1.1)
    parent.scale = (1.5, 0.7, 2.0)
    child.parent = parent
    child.location = (0.1, 0.2, 0.3)
    child.rotation_euler = (0.2, 0.1, -0.4)
    child.scale = (0.5, 0.5, 0.5)
    bpy.context.view_layer.update()
    return child


@pytest.mark.parametrize("perspective", [True, False])
def test_a_moved_object_stays_under_the_mouse_at_its_depth(reach, perspective):
    gestures = reach.addon.gestures
    child = parented_empty()
    region, region_data = rigs.region_view(CENTER, perspective=perspective)
    view = reach.addon.view.ViewMatrices.from_region(region, region_data)
    start = child.matrix_world.translation.copy()
    grabbed = tuple(view3d_utils.location_3d_to_region_2d(region, region_data, start))
    move = gestures.Move.of(view, (round(grabbed[0]), round(grabbed[1])), child)
    mouse = (move.mouse[0] + 90, move.mouse[1] - 40)
    child.location = move.location_at(mouse)
    bpy.context.view_layer.update()
    now = child.matrix_world.translation
    drawn = view3d_utils.location_3d_to_region_2d(region, region_data, now)
    offset = Vector(grabbed) - Vector(move.mouse)  # the grab point's rounding
    assert (drawn - Vector(mouse) - offset).length <= 1e-3
    normal = region_data.view_matrix.inverted().col[2].xyz
    assert abs((now - start).dot(normal)) <= 1e-5  # the depth is kept


@pytest.mark.parametrize("axis", ["X", "Y", "Z"])
def test_a_move_along_an_axis_moves_the_object_along_that_world_axis_only(reach, axis):
    gestures = reach.addon.gestures
    child = parented_empty()
    region, region_data = rigs.region_view(CENTER)
    view = reach.addon.view.ViewMatrices.from_region(region, region_data)
    start = child.matrix_world.translation.copy()
    move = gestures.Move.of(view, (400, 300), child)
    move.axis = axis
    child.location = move.location_at((470, 250))
    bpy.context.view_layer.update()
    moved = child.matrix_world.translation - start
    along = reach.addon.view.AXIS_KEYS[axis]
    assert (moved - along * moved.dot(along)).length <= 1e-6
    if axis != "Y":  # the front view looks along Y: a move along it is none
        assert moved.length > 0.01


def test_a_turn_keeps_place_and_size_and_turns_by_the_mouses_angle(reach):
    gestures = reach.addon.gestures
    child = parented_empty()
    region, region_data = rigs.region_view(CENTER)
    view = reach.addon.view.ViewMatrices.from_region(region, region_data)
    base = child.matrix_world.copy()
    pivot = view3d_utils.location_3d_to_region_2d(region, region_data, base.translation)
    start = (round(pivot[0]) + 100, round(pivot[1]))
    turn = gestures.Turn.of(view, start, child, "ROTATE")
    matrix, angle = turn.matrix_at((round(pivot[0]), round(pivot[1]) + 100))
    assert math.degrees(angle) == pytest.approx(90.0, abs=1.0)
    assert turn.text(angle) == f"rotate {math.degrees(angle):.1f}°"
    location, rotation, scale = matrix.decompose()
    old_location, old_rotation, old_scale = base.decompose()
    assert (location - old_location).length <= 1e-6
    assert (scale - old_scale).length <= 1e-6
    toward = Vector((0.0, -1.0, 0.0))  # the front view looks along +Y
    expected = Matrix.Rotation(angle, 3, toward) @ old_rotation.to_matrix()
    assert rotation.rotation_difference(expected.to_quaternion()).angle <= 1e-5


def test_a_trackball_turns_by_the_mouses_travel(reach):
    gestures = reach.addon.gestures
    child = parented_empty()
    region, region_data = rigs.region_view(CENTER)
    view = reach.addon.view.ViewMatrices.from_region(region, region_data)
    turn = gestures.Turn.of(view, (400, 300), child, "TRACKBALL")
    matrix, angle = turn.matrix_at((430, 340))
    assert angle == pytest.approx(math.hypot(30, 40) * reach.addon.view.TRACKBALL_SPEED)
    assert turn.text(angle).startswith("trackball ")
    speed = reach.addon.view.TRACKBALL_SPEED
    # the front view: right is world X, up is world Z; mouse up tips the top away
    expected = (
        Matrix.Rotation(30 * speed, 3, "Z")
        @ Matrix.Rotation(-40 * speed, 3, "X")
        @ child.matrix_world.decompose()[1].to_matrix()
    )
    assert matrix.decompose()[1].rotation_difference(expected.to_quaternion()).angle <= 1e-5
