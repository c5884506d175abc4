"""One ordered tuple of classes, registered in order, and the root pointer ``Object.reach``."""

from __future__ import annotations

import bpy
from bpy.props import PointerProperty

from . import drag, figure_ops, joint_ops, live, panel, pin_ops, properties, solve_ops

classes = (
    *properties.classes,
    *figure_ops.classes,
    *pin_ops.classes,
    *solve_ops.classes,
    *drag.classes,
    *live.classes,
    *joint_ops.classes,
    *panel.classes,
)


def register() -> None:
    """Register classes, in order, and the root pointer ``Object.reach``."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.reach = PointerProperty(type=properties.ReachSettings)  # type: ignore[attr-defined, func-returns-value]


def unregister() -> None:
    """Undo :func:`register`, ending live mode first."""
    live.stop()
    del bpy.types.Object.reach  # type: ignore[attr-defined]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
