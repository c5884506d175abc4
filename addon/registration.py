"""One ordered tuple of classes, registered in order, and the root pointer ``Object.reach``.

A load handler forgets an interactive drag that loading a file ended; it and a
depsgraph handler follow bones renamed in the interface (:func:`.renames.repair`).
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.app.handlers import persistent
from bpy.props import PointerProperty

from . import (
    bake,
    drag,
    figure_ops,
    joint_axes,
    joint_ops,
    live,
    operator_base,
    panel,
    pin_ops,
    properties,
    renames,
    solve_ops,
)

classes = (
    *properties.classes,
    *figure_ops.classes,
    *pin_ops.classes,
    *solve_ops.classes,
    *drag.classes,
    *live.classes,
    *bake.classes,
    *joint_ops.classes,
    *joint_axes.classes,
    *panel.classes,
)


@persistent  # type: ignore[untyped-decorator]
def _on_load(*_args: Any) -> None:
    operator_base.drag_ended()  # loading a file ends every modal operator
    for obj in bpy.data.objects:
        if obj.type == "ARMATURE":
            renames.repair(obj)


@persistent  # type: ignore[untyped-decorator]
def _on_depsgraph_update(_scene: Any, depsgraph: Any) -> None:
    for update in depsgraph.updates:
        obj = update.id.original
        if isinstance(obj, bpy.types.Object) and obj.type == "ARMATURE":
            renames.repair(obj)  # a bone renamed in the interface


def register() -> None:
    """Register classes, in order, the root pointer ``Object.reach`` and the load handler."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.reach = PointerProperty(type=properties.ReachSettings)  # type: ignore[attr-defined, func-returns-value]
    bpy.app.handlers.load_post.append(_on_load)
    bpy.app.handlers.depsgraph_update_post.append(_on_depsgraph_update)
    live.register_load_handler()


def unregister() -> None:
    """Undo :func:`register`, ending live mode and any drag first."""
    live.stop()
    operator_base.drag_ended()
    for handlers, handler in (
        (bpy.app.handlers.load_post, _on_load),
        (bpy.app.handlers.depsgraph_update_post, _on_depsgraph_update),
    ):
        if handler in handlers:
            handlers.remove(handler)
    live.unregister_load_handler()
    del bpy.types.Object.reach  # type: ignore[attr-defined]
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
