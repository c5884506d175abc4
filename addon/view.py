"""The mouse → 3D mapping of the drag, as pure functions of the view's matrices.

:func:`mouse_to_location` is ``bpy_extras.view3d_utils.region_2d_to_location_3d`` on a
:class:`ViewMatrices` record instead of a live region: the region's size, the view's
perspective matrix, the inverse of its view matrix and whether it is a perspective view.
:func:`drag_delta` turns two mouse positions into the goal's move (optionally along one
world axis) and :func:`parent_space` takes it into the space of the goal's ``location``.
"""

from __future__ import annotations

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
