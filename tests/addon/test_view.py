"""The drag's mouse → 3D mapping (``view``) equals Blender's ``bpy_extras.view3d_utils``."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import rigs
from bpy_extras import view3d_utils
from mathutils import Euler, Matrix, Vector

CENTER = Vector((0.2, 0.5, 1.3))
COORDS = ((400, 300), (0, 0), (800, 600), (123, 456), (650, 80))
DEPTHS = (CENTER, CENTER + Vector((0.3, 0.8, -0.2)), CENTER + Vector((-0.5, -1.0, 0.4)))


@pytest.mark.parametrize("perspective", [True, False])
def test_mouse_to_location_equals_region_2d_to_location_3d(reach, perspective):
    view_module = reach.addon.view
    region, region_data = rigs.region_view(CENTER, perspective=perspective)
    view = view_module.ViewMatrices.from_region(region, region_data)
    for coord in COORDS:
        for depth in DEPTHS:
            ours = view_module.mouse_to_location(view, coord, depth)
            theirs = view3d_utils.region_2d_to_location_3d(region, region_data, coord, depth)
            assert (ours - theirs).length <= 1e-5 * max(1.0, theirs.length), (coord, depth)


@pytest.mark.parametrize("perspective", [True, False])
def test_a_projected_point_maps_back_onto_itself_at_its_depth(reach, perspective):
    view_module = reach.addon.view
    region, region_data = rigs.region_view(CENTER, perspective=perspective)
    view = view_module.ViewMatrices.from_region(region, region_data)
    rng = np.random.default_rng(4)
    for _ in range(20):
        point = CENTER + Vector(rng.uniform(-0.6, 0.6, 3))
        coord = view3d_utils.location_3d_to_region_2d(region, region_data, point)
        back = view_module.mouse_to_location(view, tuple(coord), point)
        assert (back - point).length <= 1e-5, point


def test_the_view_record_copies_the_matrices(reach):
    view_module = reach.addon.view
    region, region_data = rigs.region_view(CENTER)
    view = view_module.ViewMatrices.from_region(region, region_data)
    assert view.view_inverse == region_data.view_matrix.inverted()
    region_data.perspective_matrix[0][0] += 1.0  # the live view changes; the record does not
    assert view.perspective_matrix != region_data.perspective_matrix
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.width = 10


@pytest.mark.parametrize("axis", ["X", "Y", "Z"])
def test_an_axis_keeps_only_the_move_along_that_world_axis(reach, axis):
    view_module = reach.addon.view
    region, region_data = rigs.region_view(CENTER, perspective=True)
    view = view_module.ViewMatrices.from_region(region, region_data)
    free = view_module.drag_delta(view, (400, 300), (470, 250), CENTER)
    along = view_module.drag_delta(view, (400, 300), (470, 250), CENTER, axis)
    k = "XYZ".index(axis)
    expected = [0.0, 0.0, 0.0]
    expected[k] = free[k]
    assert tuple(along) == pytest.approx(expected, abs=1e-7)
    # a front view: the free move lies in the view plane (X and Z), none along Y
    assert abs(free.y) <= 1e-6 and free.x > 0.0 and free.z < 0.0


def test_a_world_move_becomes_the_same_world_move_of_a_parented_location(reach):
    view_module = reach.addon.view
    parent_world = (
        Matrix.Translation((1.0, -2.0, 0.5))
        @ Euler((0.3, -0.7, 1.1)).to_matrix().to_4x4()
        @ Matrix.Scale(2.0, 4)
    )
    parent_inverse = Matrix.Translation((0.1, 0.0, -0.3)) @ Matrix.Rotation(0.4, 4, "Z")
    to_parent = view_module.parent_space(parent_world, parent_inverse)
    start = Vector((0.2, 0.3, -0.1))
    delta = Vector((0.05, -0.02, 0.04))
    moved = view_module.moved_location(start, delta, to_parent)

    def world(location):
        return (parent_world @ parent_inverse @ Matrix.Translation(location)).translation

    assert (world(moved) - world(start) - delta).length <= 1e-6
    assert view_module.parent_space(None, parent_inverse) is None
    assert view_module.moved_location(start, delta, None) == start + delta
    assert math.isclose((moved - start).length, delta.length / 2.0, rel_tol=1e-5)


def front_view(reach):
    region, region_data = rigs.region_view(CENTER)
    return reach.addon.view.ViewMatrices.from_region(region, region_data), region, region_data


def test_location_to_region_equals_location_3d_to_region_2d(reach):
    view, region, region_data = front_view(reach)
    for point in DEPTHS:
        ours = reach.addon.view.location_to_region(view, point)
        theirs = view3d_utils.location_3d_to_region_2d(region, region_data, point)
        assert ours == pytest.approx(tuple(theirs), abs=1e-3)


def test_screen_angle_is_the_counter_clockwise_turn_about_the_centre(reach):
    angle = reach.addon.view.screen_angle
    assert angle((0, 0), (10, 0), (0, 10)) == pytest.approx(math.pi / 2)
    assert angle((0, 0), (10, 0), (0, -10)) == pytest.approx(-math.pi / 2)
    assert angle((5, 5), (5, 15), (-5, 5)) == pytest.approx(math.pi / 2)
    assert angle((0, 0), (-10, 1), (-10, -1)) == pytest.approx(2 * math.atan(0.1))  # across ±π


def test_rotate_turns_about_the_view_axis_or_a_world_axis_facing_the_viewer(reach):
    view_module = reach.addon.view
    view, _, _ = front_view(reach)  # looks along +Y: the viewer is toward -Y
    rotation, angle = view_module.drag_rotation(view, (400, 300), (500, 300), (400, 400), "ROTATE")
    assert angle == pytest.approx(math.pi / 2)
    # counter-clockwise on screen: screen right (world X) turns to screen up (world Z)
    assert tuple(rotation @ Vector((1, 0, 0))) == pytest.approx((0, 0, 1), abs=1e-6)
    rotation, _ = view_module.drag_rotation(view, (400, 300), (500, 300), (400, 400), "ROTATE", "Y")
    assert tuple(rotation @ Vector((1, 0, 0))) == pytest.approx((0, 0, 1), abs=1e-6)
    rotation, _ = view_module.drag_rotation(view, (400, 300), (500, 300), (400, 400), "ROTATE", "Z")
    assert tuple(rotation @ Vector((1, 0, 0))) == pytest.approx((0, 1, 0), abs=1e-6)


def test_trackball_turns_by_the_mouse_travel_about_the_views_up_and_right(reach):
    view_module = reach.addon.view
    view, _, _ = front_view(reach)
    rotation, angle = view_module.drag_rotation(view, (0, 0), (400, 300), (450, 300), "TRACKBALL")
    assert angle == pytest.approx(50 * view_module.TRACKBALL_SPEED)
    expected = Matrix.Rotation(angle, 3, Vector((0, 0, 1)))  # about the view's up: world Z
    assert np.allclose(np.array(rotation), np.array(expected), atol=1e-6)
    rotation, _ = view_module.drag_rotation(view, (0, 0), (400, 300), (400, 340), "TRACKBALL")
    expected = Matrix.Rotation(-40 * view_module.TRACKBALL_SPEED, 3, Vector((1, 0, 0)))
    assert np.allclose(np.array(rotation), np.array(expected), atol=1e-6)


def test_rotated_matrix_turns_about_the_objects_own_location(reach):
    start = Matrix.LocRotScale(Vector((1, 2, 3)), Euler((0.3, 0.2, 0.1)).to_matrix(), None)
    turn = Matrix.Rotation(0.5, 3, Vector((0, 0, 1)))
    turned = reach.addon.view.rotated_matrix(start, turn)
    assert tuple(turned.translation) == pytest.approx((1, 2, 3))
    assert np.allclose(np.array(turned.to_3x3()), np.array(turn @ start.to_3x3()), atol=1e-6)
