"""Every function Reach adds to Blender's app handlers, added once with the add-on.

- After a file is opened: a drag that loading ended and the problems Solve and drags
  kept (:mod:`.bridge.kept`) are forgotten, bone names are followed
  (:func:`.renames.repair`), and live mode comes back where it was saved on
  (:func:`.live.restore_after_load`).
- After each depsgraph update: bones renamed in the interface are followed, then every
  live session re-solves if something its goals see moved (:func:`.live.depsgraph_updated`).
- After a frame change: every live session follows the frame (:func:`.live.frame_changed`).
- After an undo or a redo: the problems Solve and drags kept are forgotten.

All are persistent (kept when a file is opened); live mode's part does nothing
while no armature is live.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.app.handlers import persistent

from . import live, operator_base, renames
from .bridge import kept

__all__ = ["others_on_frame_change", "register", "unregister"]


@persistent  # type: ignore[untyped-decorator]
def _on_load(*_args: Any) -> None:
    operator_base.drag_ended()  # loading a file ends every modal operator
    kept.forget()  # the problems Solve and drags kept are of the file closed
    for obj in bpy.data.objects:
        if obj.type == "ARMATURE":
            renames.repair(obj)
    live.restore_after_load()


@persistent  # type: ignore[untyped-decorator]
def _on_depsgraph_update(scene: Any, depsgraph: Any) -> None:
    if not renames.being_written():  # Reach's own writes rename nothing
        for update in depsgraph.updates:
            obj = update.id.original
            if isinstance(obj, bpy.types.Object) and obj.type == "ARMATURE":
                renames.repair(obj)  # a bone renamed in the interface
    live.depsgraph_updated(scene, depsgraph)


@persistent  # type: ignore[untyped-decorator]
def _on_undo(*_args: Any) -> None:
    # undo and redo read the file's data anew: a kept problem's goals may be others now
    kept.forget()


@persistent  # type: ignore[untyped-decorator]
def _on_frame_change(scene: Any, depsgraph: Any) -> None:
    # a render's depsgraph is the render's own: it is not updated from here
    viewport = depsgraph is not None and depsgraph.mode == "VIEWPORT"
    live.frame_changed(scene, depsgraph if viewport else None)


def others_on_frame_change() -> bool:
    """Whether a function not Reach's runs on a frame change (and might pose bones)."""
    handlers = bpy.app.handlers
    return any(
        handler is not _on_frame_change
        for handler in (*handlers.frame_change_pre, *handlers.frame_change_post)
    )


def _handlers() -> tuple[tuple[Any, Any], ...]:
    handlers = bpy.app.handlers
    return (
        (handlers.load_post, _on_load),
        (handlers.depsgraph_update_post, _on_depsgraph_update),
        (handlers.frame_change_post, _on_frame_change),
        (handlers.undo_post, _on_undo),
        (handlers.redo_post, _on_undo),
    )


def register() -> None:
    """Add each handler to its list (once)."""
    for handlers, handler in _handlers():
        if handler not in handlers:
            handlers.append(handler)


def unregister() -> None:
    """Remove each handler :func:`register` added."""
    for handlers, handler in _handlers():
        if handler in handlers:
            handlers.remove(handler)
