"""The words Reach's stored settings and its bridge share: goal types, axes, Euler order.

The settings (:mod:`.properties`) and the bridge both import them from here, so the
settings depend on no feature.
"""

from __future__ import annotations

__all__ = ["AXES", "DEFAULT_EULER_ORDER", "GOAL_TYPES"]

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

AXES = "XYZ"
"""Blender's axes, in the order of its Euler and location channels."""

DEFAULT_EULER_ORDER = "YXZ"
"""The Euler order Reach reads a quaternion or axis-angle bone in, until the user picks one."""
