"""Registration: the classes in order, the root pointer ``Object.reach``, the handlers.

The app handlers live in :mod:`.handlers`.
"""

from __future__ import annotations

import bpy
from bpy.props import PointerProperty

from . import (
    bake,
    comfort_ops,
    drag,
    drag_bone,
    figure_ops,
    follower_ops,
    handlers,
    joint_axes,
    joint_ops,
    live,
    live_ops,
    operator_base,
    overlay,
    panel,
    pin_ops,
    plant,
    properties,
    solve_ops,
    tool,
)
from .bridge import kept

classes = (
    *properties.classes,
    *figure_ops.classes,
    *follower_ops.classes,
    *pin_ops.classes,
    *comfort_ops.classes,
    *solve_ops.classes,
    *drag.classes,
    *drag_bone.classes,
    *live_ops.classes,
    *bake.classes,
    *plant.classes,
    *joint_ops.classes,
    *joint_axes.classes,
    *panel.classes,
)


def register() -> None:
    """Register classes, in order, the root pointer ``Object.reach`` and the app handlers."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.reach = PointerProperty(type=properties.ReachSettings)  # type: ignore[attr-defined, func-returns-value]
    handlers.register()
    overlay.register()
    tool.register()


def unregister() -> None:
    """Undo :func:`register`, ending live mode and any drag first."""
    live.stop()
    operator_base.drag_ended()
    kept.forget()
    handlers.unregister()
    overlay.unregister()
    tool.unregister()
    del bpy.types.Object.reach  # type: ignore[attr-defined]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
