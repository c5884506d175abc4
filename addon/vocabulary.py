"""The words Reach's settings and bridge share: goal types (and their UI), axes, Euler order.

The settings (:mod:`.properties`) and the bridge both import them from here, so the
settings depend on no feature.
"""

from __future__ import annotations

__all__ = ["AXES", "DEFAULT_EULER_ORDER", "GOAL_TYPES", "GOAL_TYPE_UI"]

GOAL_TYPES = (
    "POSITION",
    "ORIENTATION",
    "POSITION_ORIENTATION",
    "AIM",
    "LINE",
    "PLANE",
    "HALF_SPACE",
)
"""The goal types a constraint may have (``ReachConstraint.goal_type``)."""

GOAL_TYPE_UI = {
    "POSITION": (
        "Position",
        "Bring the effector point to the goal's location",
        "EMPTY_SINGLE_ARROW",
    ),
    "ORIENTATION": (
        "Orientation",
        "Turn two bone axes (X and Y by default) to the goal's X and Y",
        "ORIENTATION_LOCAL",
    ),
    "POSITION_ORIENTATION": (
        "Position and orientation",
        "Both, weighted by the position weight",
        "EMPTY_AXIS",
    ),
    "AIM": ("Aim", "Aim a bone axis (Y by default) at the goal's location", "LIGHT_SPOT"),
    "LINE": (
        "Line",
        "Keep the effector on the line through the goal along its Z axis",
        "EMPTY_SINGLE_ARROW",
    ),
    "PLANE": (
        "Plane",
        "Keep the effector on the plane through the goal, normal to its Z axis",
        "MESH_PLANE",
    ),
    "HALF_SPACE": (
        "Half-space",
        "Keep the effector on the side of the plane its Z axis points to",
        "MOD_SOLIDIFY",
    ),
}
"""Label, description and icon of each goal type."""
"""Per goal type, its name, description and icon in the interface."""

AXES = "XYZ"
"""Blender's axes, in the order of its Euler and location channels."""

DEFAULT_EULER_ORDER = "YXZ"
"""The Euler order Reach reads a quaternion or axis-angle bone in, until the user picks one."""
