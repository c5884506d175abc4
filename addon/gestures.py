"""The two gestures of a drag, as small objects: move the goal (G) and turn it (R).

Each remembers where it began (the mouse, the goal's location or world matrix) and
maps a mouse position to the goal's new location or world matrix through the pure
functions of :mod:`.view`, so that the modal operator only routes events and a
headless test can drive a gesture with numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mathutils import Matrix, Vector

from .view import (
    ViewMatrices,
    drag_delta,
    drag_rotation,
    location_to_region,
    moved_location,
    parent_space,
    rotated_matrix,
)

Mouse = tuple[int, int]
"""A region coordinate [px]."""

TURN_TEXT = {"ROTATE": "rotate", "TRACKBALL": "trackball"}
"""How the header names a turning drag."""


@dataclass
class Move:
    """Moving an object in the view plane, or along a world axis, as G does.

    Attributes:
        view: The viewport's matrices.
        mouse: Where the move began [px].
        location: The object's ``location`` then.
        depth: Its world location then: the depth the mouse moves it at.
        to_parent: World move → ``location`` move (None: the object has no parent).
        axis: The world axis ("X", "Y", "Z") the move keeps to, or None.
    """

    view: ViewMatrices
    mouse: Mouse
    location: Vector
    depth: Vector
    to_parent: Matrix | None
    axis: str | None = None

    @classmethod
    def of(cls, view: ViewMatrices, mouse: Mouse, obj: Any) -> Move:
        """A move of ``obj`` (an object) beginning at ``mouse``, from where it is."""
        parent = obj.parent
        to_parent = parent_space(
            parent.matrix_world if parent is not None else None, obj.matrix_parent_inverse
        )
        return cls(view, mouse, obj.location.copy(), obj.matrix_world.translation.copy(), to_parent)

    def location_at(self, mouse: Mouse) -> Vector:
        """The object's ``location`` with the mouse at ``mouse``."""
        delta = drag_delta(self.view, self.mouse, mouse, self.depth, self.axis)
        return moved_location(self.location, delta, self.to_parent)


@dataclass
class Turn:
    """Turning an object about its own location, as R does.

    About the view axis or a world axis by the mouse's angle about the object on
    screen, or as a trackball (R twice).

    Attributes:
        view: The viewport's matrices.
        mouse: Where the turn began [px].
        base: The object's world matrix then.
        pivot: Where the object is drawn [px]: the centre of the turn.
        mode: "ROTATE" or "TRACKBALL".
        axis: The world axis ("X", "Y", "Z") to turn about (``ROTATE``), or None.
    """

    view: ViewMatrices
    mouse: Mouse
    base: Matrix
    pivot: tuple[float, float]
    mode: str = "ROTATE"
    axis: str | None = None

    @classmethod
    def of(cls, view: ViewMatrices, mouse: Mouse, obj: Any, mode: str) -> Turn:
        """A turn of ``obj`` (an object) beginning at ``mouse``, from where it is."""
        base = obj.matrix_world.copy()
        return cls(view, mouse, base, location_to_region(view, base.translation), mode)

    def matrix_at(self, mouse: Mouse) -> tuple[Matrix, float]:
        """The object's world matrix with the mouse at ``mouse``, and the angle [rad]."""
        rotation, angle = drag_rotation(
            self.view, self.pivot, self.mouse, mouse, self.mode, self.axis
        )
        return rotated_matrix(self.base, rotation), angle

    def text(self, angle: float) -> str:
        """The header's words for the turn so far ("rotate 30.0°")."""
        return f"{TURN_TEXT[self.mode]} {math.degrees(angle):.1f}°"
