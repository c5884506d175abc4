"""``reach.drag_goal``: drag a goal and the figure follows, solving at every event.

The manipulation loop of Phillips, Zhao & Badler (1990), in Blender's modal-operator
pattern (``templates_py/operator_modal.py``): ``invoke`` snapshots and starts,
``MOUSEMOVE`` moves the goal in the view plane (X/Y/Z constrain it to a world axis, as G
does), R turns it about the view axis instead (R again: trackball; X/Y/Z: about that
axis, as R does; G: move again), ``LEFTMOUSE``/``RET`` confirms,
``RIGHTMOUSE``/``ESC`` restores and cancels. The
per-event work is :class:`~.drag_session.DragSession`'s, the same as a ``path`` replay
(``execute``). The modal state lives on the operator, declared on :class:`DragGoal`, a
plain mixin a headless test can drive with recorded events.
"""

from __future__ import annotations

import time
from typing import Any

import bpy
from bpy.props import CollectionProperty, StringProperty
from bpy.types import Operator

from .bridge import blas
from .bridge.rig import armature_object
from .drag_session import DragSession, drag_header
from .errors import BlenderDataError, ReachError
from .gestures import Mouse, Move, Turn
from .operator_base import (
    ArmatureOperator,
    Result,
    check_ready,
    drag_ended,
    drag_started,
    failure_message,
    goal_users,
)
from .properties import ReachPathPoint
from .view import AXIS_KEYS, ViewMatrices

CONFIRM = {"LEFTMOUSE", "RET", "NUMPAD_ENTER"}
"""Events that keep the dragged pose."""
CANCEL = {"RIGHTMOUSE", "ESC"}
"""Events that restore the pose and the goal."""


def find_armature(name: str, goal: Any, context: Any) -> Any:
    """The armature named ``name``, or the first figure with a constraint on ``goal``."""
    if name:
        return armature_object(name, context)
    users = goal_users(context.scene.objects, goal)
    if not users:
        raise BlenderDataError(f"'{goal.name}' is the goal of no Reach constraint; pass 'armature'")
    return users[0]


class DragGoal(ArmatureOperator):
    """Mixin: the drag operator's properties, path replay, ``invoke`` and ``modal``.

    Attributes:
        drag: The drag's session (from ``invoke`` on).
        view: The viewport's matrices when the drag started.
        gesture: What the mouse does now: move the goal (G) or turn it (R).
        mouse: The last mouse position [px].
        step_end: When the last event's work ended (``perf_counter``), 0 before any.
        drawn: When the viewport last drew, 0 before it did.
        draw_handle: The viewport draw handler that notes ``drawn``.
    """

    path: CollectionProperty(  # type: ignore[valid-type]
        type=ReachPathPoint, name="Path", description="Locations to replay as drag events"
    )

    goal: str  # the operator's property (a bone drag has none)
    drag: DragSession
    view: ViewMatrices
    gesture: Move | Turn
    mouse: Mouse
    step_end: float
    drawn: float
    draw_handle: Any

    def begin(self, context: Any) -> DragSession:
        """The drag session of :attr:`goal` (the active object) and its armature.

        Raises:
            ReachError: For a missing goal or armature, or constraints that cannot be solved.
        """
        goal = bpy.data.objects.get(self.goal) if self.goal else context.active_object
        if goal is None:
            raise BlenderDataError(
                f"no object named '{self.goal}' to drag"
                if self.goal
                else "no active object to drag"
            )
        return DragSession(context, find_armature(self.armature, goal, context), goal)

    header = "Reach: drag the goal · X/Y/Z axis · R rotate · LMB/Enter confirm · RMB/Esc cancel"
    """The viewport header while the drag starts."""

    def confirm(self) -> None:
        """Keep the dragged pose."""
        self.finish_drag()

    def finish_drag(self) -> None:
        """End the drag keeping its pose; a warning where it could not be placed exactly."""
        self.drag.finish()
        if self.drag.unplaced:
            self.report({"WARNING"}, self.drag.unplaced)  # type: ignore[attr-defined]

    def abandon(self) -> None:
        """Restore the pose and the goal as they were."""
        self.drag.cancel()

    def on_turn(self) -> None:
        """R pressed: the goal is about to be turned."""

    def run(self, context: Any) -> Result:
        """Replay ``path`` as drag events; on a bad event, restore the pose and cancel."""
        drag = self.drag = self.begin(context)
        try:
            for point in self.path:
                drag.step(point.location)
        except ReachError as error:
            self.abandon()
            raise BlenderDataError(
                f"drag cancelled at event {len(drag.events) + 1}: {error}"
            ) from error
        self.confirm()
        if drag.last is not None and drag.last.unmet:
            self.report({"WARNING"}, drag.obj.reach.stats.message)  # type: ignore[attr-defined]
        return {"FINISHED"}

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:
        """Start an interactive drag; a ``path`` (or no 3D viewport) is replayed instead."""
        if len(self.path) > 0 or context.area is None or context.area.type != "VIEW_3D":
            return self.execute(context)
        self.view = ViewMatrices.from_region(context.region, context.region_data)
        self.mouse = (event.mouse_region_x, event.mouse_region_y)
        try:
            check_ready(self.armature, context)
            self.drag = self.begin(context)
        except Exception as error:  # every failure is reported, never a traceback
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}
        goal = self.drag.goal
        drag_started(self.drag.obj.name, goal.name)
        self.gesture = Move.of(self.view, self.mouse, goal)
        self.step_end = 0.0
        self.drawn = 0.0
        self.draw_handle = bpy.types.SpaceView3D.draw_handler_add(
            self.note_drawn, (), "WINDOW", "POST_PIXEL"
        )
        context.window_manager.modal_handler_add(self)
        context.area.header_text_set(self.header)
        return {"RUNNING_MODAL"}

    @blas.held_event
    def modal(self, context: Any, event: Any) -> Result:
        """One window event of an interactive drag; a failure restores and cancels it."""
        try:
            return self.handle(context, event)
        except Exception as error:  # every failure is reported, never a traceback
            self.end(context)
            self.abandon()
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}

    def handle(self, context: Any, event: Any) -> Result:
        """One window event of an interactive drag."""
        gesture = self.gesture
        if event.type == "MOUSEMOVE":
            self.mouse = (event.mouse_region_x, event.mouse_region_y)
            return self.follow(context)
        if event.value != "PRESS":
            return {"RUNNING_MODAL"}
        if event.type in AXIS_KEYS:
            if isinstance(gesture, Turn):
                gesture.mode = "ROTATE"  # an axis ends a trackball turn
            gesture.axis = None if gesture.axis == event.type else event.type
        elif event.type == "R":
            trackball = isinstance(gesture, Turn) and gesture.mode == "ROTATE"
            mode = "TRACKBALL" if trackball else "ROTATE"
            self.on_turn()
            self.gesture = Turn.of(self.view, self.mouse, self.drag.goal, mode)
        elif event.type == "G" and isinstance(gesture, Turn):
            self.gesture = Move.of(self.view, self.mouse, self.drag.goal)
        elif event.type in CONFIRM:
            self.end(context)
            self.confirm()
            return {"FINISHED"}
        elif event.type in CANCEL:
            self.end(context)
            self.abandon()
            return {"CANCELLED"}
        return {"RUNNING_MODAL"}

    def follow(self, context: Any) -> Result:
        """Move or turn the goal as the mouse says and solve; show how it went."""
        drag, gesture = self.drag, self.gesture
        if self.drawn > self.step_end > 0.0:
            drag.note_redraw(self.drawn - self.step_end)
        try:
            if isinstance(gesture, Move):
                stats = drag.step(gesture.location_at(self.mouse))
                header = drag_header(stats, gesture.axis)
            else:
                matrix, angle = gesture.matrix_at(self.mouse)
                stats = drag.turn(matrix)
                header = drag_header(stats, gesture.axis, gesture.text(angle))
        except ReachError as error:
            self.report({"WARNING"}, str(error))  # type: ignore[attr-defined]
            return {"RUNNING_MODAL"}
        self.step_end = time.perf_counter()
        context.area.header_text_set(header)
        return {"RUNNING_MODAL"}

    def note_drawn(self) -> None:
        """Draw handler: note when the viewport drew (for the adaptive budget)."""
        self.drawn = time.perf_counter()

    def end(self, context: Any) -> None:
        """Remove the draw handler and the header text; the drag no longer runs."""
        drag_ended()
        if self.draw_handle is not None:
            bpy.types.SpaceView3D.draw_handler_remove(self.draw_handle, "WINDOW")
            self.draw_handle = None
        if context.area is not None:
            context.area.header_text_set(None)


class REACH_OT_drag_goal(DragGoal, Operator):
    """Drag a goal: the figure follows under its limits (X/Y/Z: an axis; R: rotate it)."""

    bl_idname = "reach.drag_goal"
    bl_label = "Drag Goal"
    bl_options = {"REGISTER", "UNDO", "GRAB_CURSOR", "BLOCKING"}

    goal: StringProperty(  # type: ignore[valid-type]
        name="Goal", description="The goal empty to drag; empty: the active object"
    )


classes = (REACH_OT_drag_goal,)
