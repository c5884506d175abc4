"""Live mode: a depsgraph handler that keeps every constraint met while things move.

Seed 001's "manipulation with constraints": with live mode on, moving a goal, the
armature object or a bone outside the constraints' chains (by G, R, a script, …)
re-solves at once, so that e.g. the feet stay on the floor while the hips are dragged.
Live sessions end with :func:`stop`, when the file is reloaded, or when the add-on is
disabled.
"""

from __future__ import annotations

from typing import Any

import bpy

from .adapter import ReachError
from .session import LiveSession

_sessions: dict[str, LiveSession] = {}


def is_live(armature: str) -> bool:
    """Whether live mode is on for the armature object named ``armature``."""
    return armature in _sessions


def session(armature: str) -> LiveSession | None:
    """The live session of ``armature``, if live mode is on."""
    return _sessions.get(armature)


def start(obj: Any, context: Any) -> LiveSession:
    """Turn live mode on for ``obj`` and solve once.

    Raises:
        ReachError: If the armature's constraints cannot be solved now.
    """
    live = LiveSession(obj)
    if not live.update(context.scene, context.view_layer):
        raise ReachError(f"live mode not started: {live.last_error}")
    _sessions[obj.name] = live
    if _on_depsgraph_update not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(_on_depsgraph_update)
    return live


def stop(armature: str | None = None) -> None:
    """Turn live mode off for ``armature`` (all armatures when None)."""
    if armature is None:
        _sessions.clear()
    else:
        _sessions.pop(armature, None)
    if not _sessions and _on_depsgraph_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(_on_depsgraph_update)


def _on_depsgraph_update(scene: Any, depsgraph: Any) -> None:
    view_layer = depsgraph.view_layer
    for name, live in list(_sessions.items()):
        if bpy.data.objects.get(name) is None:
            _sessions.pop(name, None)
            continue
        live.update(scene, view_layer)
