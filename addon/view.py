"""The mouse → 3D mapping of the drag, as pure functions of the view's matrices.

:func:`mouse_to_location` is ``bpy_extras.view3d_utils.region_2d_to_location_3d`` on a
:class:`ViewMatrices` record instead of a live region: the region's size, the view's
perspective matrix, the inverse of its view matrix and whether it is a perspective view.
:func:`drag_delta` turns two mouse positions into the goal's move (optionally along one
world axis) and :func:`parent_space` takes it into the space of the goal's ``location``.
:func:`drag_rotation` turns them into the goal's rotation, as R does: about the view
axis (the mouse's angle about the goal on screen), about a world axis, or as a
trackball.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mathutils import Matrix, Vector

AXIS_KEYS = {
    "X": Vector((1.0, 0.0, 0.0)),
    "Y": Vector((0.0, 1.0, 0.0)),
    "Z": Vector((0.0, 0.0, 1.0)),
}
"""Keys that constrain a drag to a world axis, as G does, and the axis."""


@dataclass(frozen=True)
class ViewMatrices:
    """What the mouse → 3D mapping needs of a 3D viewport's region.

    Attributes:
        width: The region's width [px].
        height: The region's height [px].
        perspective_matrix: Window matrix times view matrix (``RegionView3D``'s).
        view_inverse: The inverse of the view matrix: the view's frame in world space.
        is_perspective: A perspective (not an orthographic) view.
    """

    width: int
    height: int
    perspective_matrix: Matrix
    view_inverse: Matrix
    is_perspective: bool

    @classmethod
    def from_region(cls, region: Any, region_data: Any) -> ViewMatrices:
        """The matrices of ``region`` (a ``Region``) and its ``RegionView3D``, copied."""
        return cls(
            int(region.width),
            int(region.height),
            region_data.perspective_matrix.copy(),
            region_data.view_matrix.inverted(),
            bool(region_data.is_perspective),
        )


def mouse_to_location(
    view: ViewMatrices, coord: tuple[float, float], depth_location: Vector
) -> Vector:
    """The 3D point under the region coordinate ``coord`` at the depth of ``depth_location``.

    In a perspective view, the point where the ray through ``coord`` meets the plane
    through ``depth_location`` facing the view; in an orthographic view, the point of
    the ray nearest ``depth_location``.
    """
    x = 2.0 * coord[0] / view.width - 1.0
    y = 2.0 * coord[1] / view.height - 1.0
    inverse = view.perspective_matrix.inverted()
    depth = depth_location
    if view.is_perspective:
        origin = view.view_inverse.translation
        near = Vector((x, y, -0.5))
        w = near.dot(inverse[3].xyz) + inverse[3][3]
        direction = (inverse @ near) / w - origin
        normal = view.view_inverse.col[2].xyz
        return origin + direction * ((depth - origin).dot(normal) / direction.dot(normal))
    corner: Vector = inverse.col[0].xyz * x + inverse.col[1].xyz * y + inverse.translation
    toward: Vector = -view.view_inverse.col[2].xyz
    return corner + toward * ((depth - corner).dot(toward) / toward.length_squared)


def drag_delta(
    view: ViewMatrices,
    start: tuple[float, float],
    mouse: tuple[float, float],
    depth_location: Vector,
    axis: str | None = None,
) -> Vector:
    """The world-space move of a point dragged from ``start`` to ``mouse``.

    Args:
        view: The view's matrices.
        start: Region coordinate where the drag started [px].
        mouse: Region coordinate now [px].
        depth_location: The dragged point's world location at the start (its depth).
        axis: "X", "Y" or "Z" to keep only the move along that world axis; None: free.
    """
    delta = mouse_to_location(view, mouse, depth_location) - mouse_to_location(
        view, start, depth_location
    )
    if axis is not None:
        direction = AXIS_KEYS[axis]
        delta = direction * delta.dot(direction)
    return delta


def parent_space(parent_world: Matrix | None, parent_inverse: Matrix) -> Matrix | None:
    """The linear map from a world-space move to a move of an object's ``location``.

    Args:
        parent_world: The parent's world matrix, or None for an object without parent.
        parent_inverse: The object's ``matrix_parent_inverse``.

    Returns:
        A 3×3 matrix, or None when world space is the location's space (no parent).
    """
    if parent_world is None:
        return None
    return (parent_world @ parent_inverse).to_3x3().inverted_safe()


def moved_location(start: Vector, delta: Vector, to_parent: Matrix | None) -> Vector:
    """The ``location`` of an object that started at ``start``, moved by world ``delta``."""
    return start + (delta if to_parent is None else to_parent @ delta)


TRACKBALL_SPEED = 0.01
"""Trackball rotation per pixel of mouse travel [rad], Blender's own."""


def location_to_region(view: ViewMatrices, point: Vector) -> tuple[float, float]:
    """The region coordinate [px] where the world ``point`` is drawn."""
    projected = view.perspective_matrix @ Vector((point[0], point[1], point[2], 1.0))
    w = projected[3] if projected[3] != 0.0 else 1.0
    return (
        0.5 * view.width * (1.0 + projected[0] / w),
        0.5 * view.height * (1.0 + projected[1] / w),
    )


def screen_angle(
    center: tuple[float, float], start: tuple[float, float], mouse: tuple[float, float]
) -> float:
    """The angle [rad] the mouse swept about ``center`` from ``start``.

    Counter-clockwise on screen is positive; the angle lies in (-π, π].
    """
    before = math.atan2(start[1] - center[1], start[0] - center[0])
    after = math.atan2(mouse[1] - center[1], mouse[0] - center[0])
    turn = after - before
    return turn - 2.0 * math.pi * math.ceil((turn - math.pi) / (2.0 * math.pi))


def rotate_axis(view: ViewMatrices, axis: str | None) -> Vector:
    """The world axis of a rotation: the view axis (toward the viewer), or a world axis.

    A world axis is turned to face the viewer, so that a counter-clockwise mouse turns
    the goal counter-clockwise on screen, as R does (an axis in the view plane is kept).
    """
    toward: Vector = view.view_inverse.col[2].xyz.normalized()
    if axis is None:
        return toward
    direction: Vector = AXIS_KEYS[axis].copy()
    return -direction if direction.dot(toward) < -1e-6 else direction


def drag_rotation(
    view: ViewMatrices,
    center: tuple[float, float],
    start: tuple[float, float],
    mouse: tuple[float, float],
    mode: str,
    axis: str | None = None,
) -> tuple[Matrix, float]:
    """The world rotation of a goal turned by the mouse, and its angle [rad].

    Args:
        view: The view's matrices.
        center: Region coordinate of the goal (the pivot) [px].
        start: Region coordinate where the rotation started [px].
        mouse: Region coordinate now [px].
        mode: "ROTATE" (about the view axis, or ``axis``) or "TRACKBALL" (about the
            view's right and up axes, by the mouse's travel).
        axis: "X", "Y" or "Z" to turn about that world axis (``ROTATE`` only).

    Returns:
        A 3×3 rotation matrix (to apply before the goal's own rotation) and the angle.
    """
    if mode == "TRACKBALL":
        right = view.view_inverse.col[0].xyz.normalized()
        up = view.view_inverse.col[1].xyz.normalized()
        pitch = -(mouse[1] - start[1]) * TRACKBALL_SPEED
        yaw = (mouse[0] - start[0]) * TRACKBALL_SPEED
        rotation = Matrix.Rotation(yaw, 3, up) @ Matrix.Rotation(pitch, 3, right)
        return rotation, math.hypot(pitch, yaw)
    angle = screen_angle(center, start, mouse)
    return Matrix.Rotation(angle, 3, rotate_axis(view, axis)), angle


def rotated_matrix(start: Matrix, rotation: Matrix) -> Matrix:
    """The world matrix ``start`` turned by ``rotation`` about its own location."""
    location, turn, scale = start.decompose()
    turned = (rotation @ turn.to_matrix()).to_quaternion()
    return Matrix.LocRotScale(location, turned, scale)
