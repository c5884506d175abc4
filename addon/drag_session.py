"""The per-event work of a drag: move the goal, solve warm-started, write the pose.

This is the manipulation loop of Phillips, Zhao & Badler (1990): every event solves
from the previous pose within a time budget, so the figure follows the goal, moved
(:meth:`DragSession.step`) or turned (:meth:`DragSession.turn`: "twist the goal to
swing the elbow").
:class:`DragSession` does one drag; the interactive operator (:mod:`.drag`) and a
``path`` replay drive the same calls. It uses no viewport.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from .bridge import goals, kept, keys, pose, posing, snapshot, solving
from .bridge.arrays import Array
from .bridge.budget import EventBudget
from .bridge.inputs import figure_inputs
from .errors import BlenderDataError, ReachError
from .records import EventStats, keep_drag


def drag_header(stats: EventStats, axis: str | None = None, turn: str | None = None) -> str:
    """The viewport header during a drag: how the last event went.

    It says when a goal is proved out of reach ("out of reach by 12 cm"), the axis the
    drag keeps to and, while the goal turns, by how much ("rotate 30.0°").
    """
    parts = [
        f"Reach: residual {stats.residual:.3g}",
        f"{stats.iterations} iterations",
        f"{stats.milliseconds:.1f} ms/event",
        f"budget {1000 * stats.budget:.0f} ms",
    ]
    if stats.out_of_reach > 0.0:
        parts.append(f"out of reach by {solving.length_text(stats.out_of_reach)}")
    if turn:
        parts.append(turn)
    if stats.diverging:
        parts.append(f"Blender poses otherwise: {', '.join(stats.diverging)}")
    if axis:
        parts.append(f"{'about' if turn else 'along'} {axis}")
    return " · ".join(parts)


class DragSession:
    """A goal dragged through a sequence of locations, re-solving at each.

    Args:
        context: Blender context (scene and view layer are taken from it).
        obj: The armature object.
        goal: The goal empty being dragged (any object the goals depend on).
        key_goal: With auto-keying on, the goal is keyed too (not a goal made for the drag).

    Attributes:
        rebuild: The next event builds the problem afresh (a constraint changed).

    Raises:
        ReachError: If the constraints or the start pose cannot be solved.
    """

    def __init__(self, context: Any, obj: Any, goal: Any, key_goal: bool = True) -> None:
        self.scene = context.scene
        self.key_goal = key_goal
        self.rebuild = False
        self.view_layer = context.view_layer
        self.obj = obj
        self.goal = goal
        self.snapshot = snapshot.PoseSnapshot(obj, [goal])
        self.turned = False
        # the problem of the armature's last Solve or drag, where nothing it is built from
        # changed since (:mod:`.bridge.kept`): a large rig's drag then starts at once
        self.poser, self.inputs = kept.poser(obj, self.scene, self.view_layer)
        self.alone = goals.moves_alone(goal, obj)
        """Whether only the goal's channels place it: each event then reads it as they do
        (:class:`.bridge.goals.Placed`) without evaluating the view layer before its
        solve."""
        self.start = self.poser.begin().copy()
        self.events: list[EventStats] = []
        self.budgeting = EventBudget()
        self.last: solving.Outcome | None = None
        self.last_step: posing.Step | None = None
        self.unplaced = ""
        """Why the drag's end could not place the last event's pose exactly (that pose,
        as the event left it, is kept); empty where it did or had nothing to place."""

    @property
    def setup(self) -> goals.Setup:
        """The problem of the last event (of the pose at the start before any)."""
        setup = self.poser.setup
        assert setup is not None  # built by Poser.begin
        return setup

    @property
    def theta(self) -> Array:
        """The pose of the last event (the start before any)."""
        theta = self.poser.theta
        assert theta is not None  # set by Poser.begin
        return theta

    @property
    def budget(self) -> float:
        """The solve's time limit for the next event [s] (:class:`.bridge.budget.EventBudget`)."""
        return self.budgeting.limit(self.obj.reach)

    def note_redraw(self, seconds: float) -> None:
        """Fold a measured viewport redraw time into the adaptive budget."""
        self.budgeting.note_redraw(seconds)

    def step(self, location: Any) -> EventStats:
        """Move the goal to ``location``, solve warm-started, write the pose.

        Raises:
            ReachError: For a non-finite location or goal; nothing is written then.
        """
        start = time.perf_counter()
        values = tuple(map(float, location))
        if len(values) != 3 or not all(map(math.isfinite, values)):
            raise BlenderDataError(f"drag location {values} is not a finite 3D point")
        previous = tuple(self.goal.location)
        self.goal.location = (values[0], values[1], values[2])
        return self._follow(start, lambda: setattr(self.goal, "location", previous))

    def turn(self, matrix: Any) -> EventStats:
        """Give the goal the world matrix ``matrix`` (a rotation), solve, write the pose.

        Raises:
            ReachError: For a non-finite matrix or goal; nothing is written then.
        """
        start = time.perf_counter()
        if not all(math.isfinite(v) for row in matrix for v in row):
            raise BlenderDataError("the goal's rotation is not finite")
        previous = snapshot.ObjectChannels.of(self.goal)
        self.goal.matrix_world = matrix
        self.turned = True
        return self._follow(start, lambda: previous.put(self.goal))

    def _follow(self, start: float, put_back: Callable[[], None]) -> EventStats:
        """Solve for the goal as just set; on failure put the goal back (``put_back``)."""
        if not self.alone:
            self.view_layer.update()  # what moves with the goal moves now
        budget = self.budget
        try:
            step = self.poser.follow(
                self.goal, alone=self.alone, time_limit=budget, rebuild=self.rebuild
            )
            self.rebuild = False
        except ReachError:
            put_back()
            self.view_layer.update()
            raise
        outcome = step.outcome
        end = time.perf_counter()
        self.last, self.last_step = outcome, step
        self.budgeting.note_event(end - start, outcome.result.elapsed)
        x, y, z = map(float, self.goal.location)
        stats = EventStats(
            location=(x, y, z),
            milliseconds=1000.0 * (end - start),
            solve_milliseconds=outcome.milliseconds,
            budget=budget,
            residual=max(outcome.residuals.values(), default=0.0),
            objective=outcome.result.objective,
            iterations=outcome.result.iterations,
            status=outcome.result.status,
            max_violation=outcome.result.max_violation,
            outcome=outcome.result.outcome,
            out_of_reach=outcome.out_of_reach,
            unmet=tuple(outcome.unmet),
            diverging=tuple(outcome.diverging),
        )
        self.events.append(stats)
        return stats

    def cancel(self) -> None:
        """Restore every bone and the goal exactly as they were."""
        self.snapshot.restore()
        self.view_layer.update()
        self._keep_problem()

    def _keep_problem(self) -> None:
        """Keep the drag's problem for the armature's next Solve or drag (:mod:`.bridge.kept`).

        Only while what it was built from is as it was when the drag began.
        """
        if figure_inputs(self.obj) == self.inputs:
            kept.keep(self.obj, self.poser, self.inputs)

    def finish(self) -> None:
        """Keep the pose: placed exactly, its statistics recorded, keyed with auto-keying on.

        A control rig's limbs left off by the last event where its IK lands them
        (:attr:`.bridge.posing.Step.left`) are placed as a Solve places them first;
        where that fails, the last event's pose is kept as it was, and
        :attr:`unplaced` says why.
        """
        if self.last_step is not None and self.last_step.left:
            as_left = snapshot.PoseSnapshot(self.obj)
            try:
                self.last = self.poser.place_exactly(self.last_step)
            except ReachError as error:
                as_left.restore()
                self.view_layer.update()
                self.unplaced = f"the drag's end left its last pose as it was: {error}"
            self.last_step = None
        keep_drag(self.obj, self.events)
        self._keep_problem()
        if self.last is not None:
            solving.store_stats(self.obj, self.last, self.events[-1].milliseconds)
        if self.scene.tool_settings.use_keyframe_insert_auto:
            rig = self.setup.rig
            changed = pose.changed_bones(rig, self.start, self.theta)
            keys.auto_key(self.scene, self.obj, rig, changed, self.scene.frame_current)
            if not self.key_goal:
                return
            self.goal.keyframe_insert("location", frame=self.scene.frame_current)
            if self.turned:
                channel = keys.rotation_channel(self.goal.rotation_mode)
                self.goal.keyframe_insert(channel, frame=self.scene.frame_current)
