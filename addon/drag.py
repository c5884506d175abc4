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

import math
import time
from typing import Any

import bpy
from bpy.props import CollectionProperty, StringProperty
from bpy.types import Operator
from mathutils import Matrix, Vector

from .bridge.rig import armature_object
from .drag_session import DragSession, drag_header
from .errors import BlenderDataError, ReachError
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
from .view import (
    AXIS_KEYS,
    ViewMatrices,
    drag_delta,
    drag_rotation,
    location_to_region,
    moved_location,
    parent_space,
    rotated_matrix,
)

CONFIRM = {"LEFTMOUSE", "RET", "NUMPAD_ENTER"}
"""Events that keep the dragged pose."""
CANCEL = {"RIGHTMOUSE", "ESC"}
"""Events that restore the pose and the goal."""
MODE_TEXT = {"ROTATE": "rotate", "TRACKBALL": "trackball"}
"""How the header names a turning drag."""


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
        start_mouse: Region coordinate of the mouse when the drag started [px].
        start_location: The goal's ``location`` when the drag started.
        depth: The goal's world location when the drag started: the drag's depth.
        to_parent: World move → ``location`` move (None: the goal has no parent).
        axis: The world axis the drag (or the turn) is constrained to, or None.
        mode: "MOVE", "ROTATE" (R) or "TRACKBALL" (R twice).
        mouse: The last mouse position [px].
        turn_start: Mouse position when the goal began to turn [px].
        turn_base: The goal's world matrix when it began to turn.
        pivot: Region coordinate of the goal, the centre of the turn [px].
        step_end: When the last event's work ended (``perf_counter``), 0 before any.
        drawn: When the viewport last drew, 0 before it did.
        draw_handle: The viewport draw handler that notes ``drawn``.
    """

    goal: StringProperty(  # type: ignore[valid-type]
        name="Goal", description="The goal empty to drag; empty: the active object"
    )
    path: CollectionProperty(  # type: ignore[valid-type]
        type=ReachPathPoint, name="Path", description="Locations to replay as drag events"
    )

    drag: DragSession
    view: ViewMatrices
    start_mouse: tuple[int, int]
    start_location: Vector
    depth: Vector
    to_parent: Matrix | None
    axis: str | None
    mode: str
    mouse: tuple[int, int]
    turn_start: tuple[int, int]
    turn_base: Matrix
    pivot: tuple[float, float]
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

    def run(self, context: Any) -> Result:
        """Replay ``path`` as drag events; on a bad event, restore the pose and cancel."""
        drag = self.begin(context)
        try:
            for point in self.path:
                drag.step(point.location)
        except ReachError as error:
            drag.cancel()
            raise BlenderDataError(
                f"drag cancelled at event {len(drag.events) + 1}: {error}"
            ) from error
        drag.finish()
        if drag.last is not None and drag.last.unmet:
            self.report({"WARNING"}, drag.obj.reach.stats.message)  # type: ignore[attr-defined]
        return {"FINISHED"}

    def invoke(self, context: Any, event: Any) -> Result:
        """Start an interactive drag; a ``path`` (or no 3D viewport) is replayed instead."""
        if len(self.path) > 0 or context.area is None or context.area.type != "VIEW_3D":
            return self.execute(context)
        try:
            check_ready(self.armature, context)
            self.drag = self.begin(context)
        except Exception as error:  # every failure is reported, never a traceback
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}
        goal = self.drag.goal
        drag_started(self.drag.obj.name, goal.name)
        self.view = ViewMatrices.from_region(context.region, context.region_data)
        self.start_mouse = (event.mouse_region_x, event.mouse_region_y)
        self.start_location = goal.location.copy()
        self.depth = goal.matrix_world.translation.copy()
        parent = goal.parent
        self.to_parent = parent_space(
            parent.matrix_world if parent is not None else None, goal.matrix_parent_inverse
        )
        self.axis = None
        self.mode = "MOVE"
        self.mouse = self.start_mouse
        self.step_end = 0.0
        self.drawn = 0.0
        self.draw_handle = bpy.types.SpaceView3D.draw_handler_add(
            self.note_drawn, (), "WINDOW", "POST_PIXEL"
        )
        context.window_manager.modal_handler_add(self)
        context.area.header_text_set(
            "Reach: drag the goal · X/Y/Z axis · R rotate · LMB/Enter confirm · RMB/Esc cancel"
        )
        return {"RUNNING_MODAL"}

    def modal(self, context: Any, event: Any) -> Result:
        """One window event of an interactive drag; a failure restores and cancels it."""
        try:
            return self.handle(context, event)
        except Exception as error:  # every failure is reported, never a traceback
            self.end(context)
            self.drag.cancel()
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}

    def handle(self, context: Any, event: Any) -> Result:
        """One window event of an interactive drag."""
        if event.type == "MOUSEMOVE":
            self.mouse = (event.mouse_region_x, event.mouse_region_y)
            if self.mode == "MOVE":
                return self.move(context, self.mouse)
            return self.rotate(context, self.mouse)
        if event.value != "PRESS":
            return {"RUNNING_MODAL"}
        if event.type in AXIS_KEYS:
            if self.mode == "TRACKBALL":
                self.mode = "ROTATE"
            self.axis = None if self.axis == event.type else event.type
        elif event.type == "R":
            self.begin_turn("TRACKBALL" if self.mode == "ROTATE" else "ROTATE")
        elif event.type == "G" and self.mode != "MOVE":
            self.begin_move()
        elif event.type in CONFIRM:
            self.end(context)
            self.drag.finish()
            return {"FINISHED"}
        elif event.type in CANCEL:
            self.end(context)
            self.drag.cancel()
            return {"CANCELLED"}
        return {"RUNNING_MODAL"}

    def move(self, context: Any, mouse: tuple[int, int]) -> Result:
        """Drag the goal to where the mouse points and solve; show how it went."""
        drag = self.drag
        if self.drawn > self.step_end > 0.0:
            drag.note_redraw(self.drawn - self.step_end)
        delta = drag_delta(self.view, self.start_mouse, mouse, self.depth, self.axis)
        try:
            stats = drag.step(moved_location(self.start_location, delta, self.to_parent))
        except ReachError as error:
            self.report({"WARNING"}, str(error))  # type: ignore[attr-defined]
            return {"RUNNING_MODAL"}
        self.step_end = time.perf_counter()
        context.area.header_text_set(drag_header(stats, self.axis))
        return {"RUNNING_MODAL"}

    def begin_turn(self, mode: str) -> None:
        """Turn the goal from now on (``mode`` "ROTATE" or "TRACKBALL"), from where it is."""
        goal = self.drag.goal
        self.mode = mode
        self.axis = None
        self.turn_start = self.mouse
        self.turn_base = goal.matrix_world.copy()
        self.pivot = location_to_region(self.view, self.turn_base.translation)

    def begin_move(self) -> None:
        """Move the goal again (G), from where it is and where the mouse is."""
        goal = self.drag.goal
        self.mode = "MOVE"
        self.axis = None
        self.start_mouse = self.mouse
        self.start_location = goal.location.copy()
        self.depth = goal.matrix_world.translation.copy()

    def rotate(self, context: Any, mouse: tuple[int, int]) -> Result:
        """Turn the goal as the mouse turns about it (or as a trackball) and solve."""
        rotation, angle = drag_rotation(
            self.view, self.pivot, self.turn_start, mouse, self.mode, self.axis
        )
        try:
            stats = self.drag.turn(rotated_matrix(self.turn_base, rotation))
        except ReachError as error:
            self.report({"WARNING"}, str(error))  # type: ignore[attr-defined]
            return {"RUNNING_MODAL"}
        self.step_end = time.perf_counter()
        turn = f"{MODE_TEXT[self.mode]} {math.degrees(angle):.1f}°"
        context.area.header_text_set(drag_header(stats, self.axis, turn))
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


classes = (REACH_OT_drag_goal,)
