"""Comfort: the pose a figure relaxes toward wherever its goals leave it free.

``Object.reach.comfort`` (0 off … 1) is the share of the way from the start toward the
reference pose each solve aims at, below every goal (:class:`solver.Comfort`): the rest
pose, or the pose stored by ``reach.store_comfort_pose`` (each bone's rotation and
location as they were, in ``Object.reach.comfort_pose``). Its operators are in
:mod:`.comfort_ops`; the bridge that reads the stored pose as joint values is
:func:`.bridge.comfort.comfort_of`.
"""

from __future__ import annotations

from typing import Any

from bpy.props import FloatVectorProperty
from bpy.types import PropertyGroup

from ..solver.methods import as_method


class ReachStoredBone(PropertyGroup):
    """One bone of the stored comfort pose (its name is the bone's)."""

    rotation: FloatVectorProperty(  # type: ignore[valid-type]
        name="Rotation", size=4, subtype="QUATERNION", default=(1.0, 0.0, 0.0, 0.0)
    )
    location: FloatVectorProperty(name="Location", size=3, subtype="TRANSLATION")  # type: ignore[valid-type]


def draw_comfort(layout: Any, obj: Any) -> None:
    """The comfort slider and its reference pose, in the solver panel."""
    settings = obj.reach
    col = layout.column()
    col.active = as_method(settings.method.kind).honours_comfort  # the others leave it out
    col.prop(settings, "comfort", slider=True)
    stored = len(settings.comfort_pose) > 0
    row = col.row(align=True)
    row.label(text="Toward the stored pose" if stored else "Toward the rest pose")
    op = row.operator("reach.store_comfort_pose", text="", icon="ARMATURE_DATA")
    op.armature = obj.name
    if stored:
        op = row.operator("reach.clear_comfort_pose", text="", icon="X")
        op.armature = obj.name
