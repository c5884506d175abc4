"""The interactive half of ``reach.drag_goal``: window events → :class:`~.session.DragSession`.

Blender's modal loop (``templates_py/operator_modal.py``): ``invoke`` snapshots and
starts, ``MOUSEMOVE`` moves the goal in the view plane (X/Y/Z constrain it to a world
axis, as G does), ``LEFTMOUSE``/``RET`` confirms, ``RIGHTMOUSE``/``ESC`` restores and
cancels. The per-event work is the session's, the same as a ``path`` replay.
"""

from __future__ import annotations

import time
from typing import Any

import bpy
from bpy_extras import view3d_utils
from mathutils import Vector

from ._types import Result
from .adapter import ReachError
from .session import DragSession

AXIS_KEYS = {
    "X": Vector((1.0, 0.0, 0.0)),
    "Y": Vector((0.0, 1.0, 0.0)),
    "Z": Vector((0.0, 0.0, 1.0)),
}


class DragState:
    """Modal state of one interactive drag (kept on the operator, never in the scene)."""

    def __init__(self, drag: DragSession, context: Any, event: Any) -> None:
        self.drag = drag
        goal = drag.goal
        self.start_location = goal.location.copy()
        self.start_world = goal.matrix_world.translation.copy()
        self.mouse = (event.mouse_region_x, event.mouse_region_y)
        self.axis: str | None = None
        self.step_end = 0.0
        self.drawn = 0.0
        self.handle = bpy.types.SpaceView3D.draw_handler_add(
            self._drawn, (), "WINDOW", "POST_PIXEL"
        )
        parent = goal.parent
        linear = (parent.matrix_world @ goal.matrix_parent_inverse).to_3x3() if parent else None
        self.to_local = linear.inverted_safe() if linear is not None else None

    def _drawn(self) -> None:
        self.drawn = time.perf_counter()

    def location(self, context: Any, event: Any) -> Vector:
        """The goal's new ``location`` for the mouse at ``event``."""
        region, view = context.region, context.region_data
        here = view3d_utils.region_2d_to_location_3d(
            region, view, (event.mouse_region_x, event.mouse_region_y), self.start_world
        )
        there = view3d_utils.region_2d_to_location_3d(region, view, self.mouse, self.start_world)
        delta = here - there
        if self.axis is not None:
            direction = AXIS_KEYS[self.axis]
            delta = direction * delta.dot(direction)
        if self.to_local is not None:
            delta = self.to_local @ delta
        return Vector(self.start_location + delta)

    def end(self, context: Any) -> None:
        """Remove the draw handler and the header text."""
        bpy.types.SpaceView3D.draw_handler_remove(self.handle, "WINDOW")
        if context.area is not None:
            context.area.header_text_set(None)


def drag_invoke(operator: Any, context: Any, event: Any) -> Result:
    """Start an interactive drag; a ``path`` given to invoke is replayed instead."""
    if len(operator.path) > 0 or context.area is None or context.area.type != "VIEW_3D":
        return operator.execute(context)  # type: ignore[no-any-return]
    try:
        drag = operator._start(context)
    except ReachError as error:
        operator.report({"ERROR"}, str(error))
        return {"CANCELLED"}
    operator._state = DragState(drag, context, event)
    context.window_manager.modal_handler_add(operator)
    context.area.header_text_set(
        "Reach: drag the goal · X/Y/Z axis · LMB/Enter confirm · RMB/Esc cancel"
    )
    return {"RUNNING_MODAL"}


def drag_modal(operator: Any, context: Any, event: Any) -> Result:
    """One window event of an interactive drag."""
    state: DragState = operator._state
    drag = state.drag
    if event.type == "MOUSEMOVE":
        if state.drawn > state.step_end > 0.0:
            drag.note_redraw(state.drawn - state.step_end)
        try:
            stats = drag.step(state.location(context, event))
        except ReachError as error:
            operator.report({"WARNING"}, str(error))
            return {"RUNNING_MODAL"}
        state.step_end = time.perf_counter()
        axis = f" · along {state.axis}" if state.axis else ""
        context.area.header_text_set(
            f"Reach: residual {stats.residual:.3g} · {stats.iterations} iterations · "
            f"{stats.milliseconds:.1f} ms/event · budget {1000 * stats.budget:.0f} ms{axis}"
        )
        return {"RUNNING_MODAL"}
    if event.type in AXIS_KEYS and event.value == "PRESS":
        state.axis = None if state.axis == event.type else event.type
        return {"RUNNING_MODAL"}
    if event.type in {"LEFTMOUSE", "RET", "NUMPAD_ENTER"} and event.value == "PRESS":
        state.end(context)
        drag.finish()
        return {"FINISHED"}
    if event.type in {"RIGHTMOUSE", "ESC"} and event.value == "PRESS":
        state.end(context)
        drag.cancel()
        return {"CANCELLED"}
    return {"RUNNING_MODAL"}
