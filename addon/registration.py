"""One ordered tuple of classes, registered in order, and the root pointer ``Object.reach``.

A load handler forgets an interactive drag that loading a file ended.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.app.handlers import persistent
from bpy.props import PointerProperty

from . import drag, figure_ops, joint_ops, live, operator_base, panel, properties, solve_ops

classes = (
    *properties.classes,
    *figure_ops.classes,
    *solve_ops.classes,
    *drag.classes,
    *live.classes,
    *joint_ops.classes,
    *panel.classes,
)


@persistent  # type: ignore[untyped-decorator]
def _on_load(*_args: Any) -> None:
    operator_base.drag_ended()  # loading a file ends every modal operator


def register() -> None:
    """Register classes, in order, the root pointer ``Object.reach`` and the load handler."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.reach = PointerProperty(type=properties.ReachSettings)  # type: ignore[attr-defined, func-returns-value]
    bpy.app.handlers.load_post.append(_on_load)


def unregister() -> None:
    """Undo :func:`register`, ending live mode and any drag first."""
    live.stop()
    operator_base.drag_ended()
    if _on_load in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load)
    del bpy.types.Object.reach  # type: ignore[attr-defined]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
