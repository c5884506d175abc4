"""Per-event work of the drag loop and of live mode, as plain classes.

The modal operators only translate window events into calls of :class:`DragSession`
and :class:`LiveSession`; a headless run drives the same calls (``reach.drag_goal``
with a ``path``, or depsgraph updates for live mode).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import bpy
import numpy as np

from . import adapter
from .adapter import ReachError

MIN_BUDGET_SHARE = 0.25
"""The adaptive budget never falls below this share of the user's time budget."""

SMOOTHING = 0.3
"""Weight of the newest measurement in the running average of the overhead."""


@dataclass(frozen=True)
class EventStats:
    """What one drag or live event cost and achieved.

    Attributes:
        location: The goal's location (its ``location`` channel) at this event.
        milliseconds: Goal move → solve → write-back → depsgraph update.
        solve_milliseconds: The solve alone.
        budget: The time limit the solve had [s].
        residual: Largest constraint residual √P (world units).
        objective: G_all.
        iterations: Solver iterations.
        status: Solver status.
        max_violation: Largest joint-limit violation of the written pose.
        unmet: Constraints not met within the armature's "met within" distance.
    """

    location: tuple[float, float, float]
    milliseconds: float
    solve_milliseconds: float
    budget: float
    residual: float
    objective: float
    iterations: int
    status: str
    max_violation: float
    unmet: tuple[str, ...]


def store_stats(obj: Any, outcome: adapter.Outcome, milliseconds: float) -> None:
    """Record a solve's statistics on the armature (shown in the panel)."""
    stats = obj.reach.stats
    result = outcome.result
    stats.status = result.status
    stats.objective = result.objective
    stats.residual = max(outcome.residuals.values(), default=0.0)
    stats.iterations = result.iterations
    stats.milliseconds = milliseconds
    stats.unmet = ", ".join(outcome.unmet)
    if outcome.unmet:
        stats.message = "not reachable, as close as the limits allow: " + ", ".join(
            f"{name} ({outcome.residuals[name]:.4g})" for name in outcome.unmet
        )
    else:
        stats.message = "all constraints met"


def check_start(setup: adapter.Setup, theta: adapter.Array) -> None:
    """Raise a :class:`ReachError` naming the limit a start pose violates."""
    limits = setup.rig.figure.limits
    lower, upper = setup.rig.figure.lower, setup.rig.figure.upper
    below = np.flatnonzero(theta < lower - 1e-9)
    above = np.flatnonzero(theta > upper + 1e-9)
    for index in (*below, *above):
        label = setup.rig.figure.dofs[index].name or setup.rig.figure.dof_label(int(index))
        value = math.degrees(theta[index])
        bound = math.degrees(lower[index] if theta[index] < lower[index] else upper[index])
        raise ReachError(
            f"the current pose is outside the limits: {label} is {value:.2f}°, limit {bound:.2f}°; "
            "clamp the pose to the limits first (Clamp to limits)"
        )
    if limits.max_violation(theta) > 1e-9:
        label, amount = limits.worst(theta)
        raise ReachError(
            f"the current pose is outside the limits: {label} is violated by {amount:.4g}; "
            "clamp the pose to the limits first (Clamp to limits)"
        )


def solve_from_pose(
    obj: Any, setup: adapter.Setup, *, time_limit: float | None, restarts: int, clamp: bool = False
) -> adapter.Outcome:
    """Solve from the armature's current pose with its settings.

    Args:
        obj: The armature object.
        setup: Its problem.
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls.
        clamp: First move a pose outside the limits into them.

    Raises:
        ReachError: A start pose outside the limits (unless ``clamp``) or bad input.
    """
    theta = adapter.read_pose(obj, setup.rig)
    if clamp:
        theta = adapter.clamp_to_limits(setup.rig, theta)
    check_start(setup, theta)
    return adapter.run_solve(setup, theta, obj.reach, time_limit=time_limit, restarts=restarts)


class DragSession:
    """A goal dragged through a sequence of locations, re-solving at each.

    Args:
        context: Blender context (scene and view layer are taken from it).
        obj: The armature object.
        goal: The goal empty being dragged (any object the goals depend on).

    Raises:
        ReachError: If the constraints or the start pose cannot be solved.
    """

    def __init__(self, context: Any, obj: Any, goal: Any) -> None:
        self.context = context
        self.scene = context.scene
        self.view_layer = context.view_layer
        self.obj = obj
        self.goal = goal
        self.snapshot = adapter.PoseSnapshot(obj, [goal])
        self.setup = adapter.build_problem(obj, self.scene)
        self.writer = adapter.PoseWriter(obj, self.setup.rig, self.setup.moved)
        self.theta = adapter.read_pose(obj, self.setup.rig)
        check_start(self.setup, self.theta)
        self.start = self.theta.copy()
        self.events: list[EventStats] = []
        self.overhead = 0.0
        self.redraw = 0.0
        self.last: adapter.Outcome | None = None

    @property
    def budget(self) -> float:
        """The solve's time limit for the next event [s]."""
        settings = self.obj.reach
        budget = float(settings.time_budget)
        if not settings.adaptive:
            return budget
        return max(budget - self.overhead - self.redraw, MIN_BUDGET_SHARE * budget)

    def note_redraw(self, seconds: float) -> None:
        """Fold a measured viewport redraw time into the adaptive budget."""
        self.redraw = (1.0 - SMOOTHING) * self.redraw + SMOOTHING * max(seconds, 0.0)

    def step(self, location: Any) -> EventStats:
        """Move the goal to ``location``, solve warm-started, write the pose.

        Raises:
            ReachError: For a non-finite location or goal; nothing is written then.
        """
        start = time.perf_counter()
        values = tuple(float(v) for v in location)
        if len(values) != 3 or not all(math.isfinite(v) for v in values):
            raise ReachError(f"drag location {values} is not a finite 3D point")
        point = (values[0], values[1], values[2])
        previous = tuple(self.goal.location)
        self.goal.location = point
        self.view_layer.update()
        budget = self.budget
        try:
            setup = adapter.refresh_goals(self.obj, self.scene, self.setup)
            outcome = adapter.run_solve(
                setup, self.theta, self.obj.reach, time_limit=budget, restarts=0
            )
        except ReachError:
            self.goal.location = previous
            self.view_layer.update()
            raise
        solved = time.perf_counter()
        if setup.moved != self.setup.moved:
            self.writer = adapter.PoseWriter(self.obj, setup.rig, setup.moved)
        self.writer.write(self.obj, outcome.result.theta)
        self.view_layer.update()
        end = time.perf_counter()
        self.setup = setup
        self.theta = outcome.result.theta
        self.last = outcome
        self.overhead = (1.0 - SMOOTHING) * self.overhead + SMOOTHING * (
            (end - solved) + (solved - start) - outcome.result.elapsed
        )
        stats = EventStats(
            location=point,
            milliseconds=1000.0 * (end - start),
            solve_milliseconds=outcome.milliseconds,
            budget=budget,
            residual=max(outcome.residuals.values(), default=0.0),
            objective=outcome.result.objective,
            iterations=outcome.result.iterations,
            status=outcome.result.status,
            max_violation=outcome.result.max_violation,
            unmet=tuple(outcome.unmet),
        )
        self.events.append(stats)
        return stats

    def cancel(self) -> None:
        """Restore every bone and the goal exactly as they were."""
        self.snapshot.restore()
        self.view_layer.update()

    def finish(self) -> None:
        """Keep the pose: record statistics and, with auto-keying on, insert keys."""
        events = self.obj.reach.drag_events
        events.clear()
        for stats in self.events:
            item = events.add()
            for key, value in asdict(stats).items():
                if key != "unmet":  # shown in the panel for the last solve only
                    setattr(item, key, value)
        if self.last is not None:
            store_stats(self.obj, self.last, self.events[-1].milliseconds)
        if self.scene.tool_settings.use_keyframe_insert_auto:
            changed = changed_bones(self.setup.rig, self.start, self.theta)
            insert_keys(self.obj, self.setup.rig, changed, self.scene.frame_current)
            self.goal.keyframe_insert("location", frame=self.scene.frame_current)


KEY_THRESHOLD = 1e-6
"""A bone is keyed when one of its joint values moved by more than this ([rad] or length)."""


def changed_bones(rig: adapter.Rig, before: adapter.Array, after: adapter.Array) -> list[str]:
    """Bones whose joint values moved by more than :data:`KEY_THRESHOLD` between two poses."""
    differs = np.abs(after - before) > KEY_THRESHOLD
    return [
        entry.name
        for entry, segment in zip(rig.layout, rig.figure.segments, strict=True)
        if differs[segment.dof_indices.start : segment.dof_indices.stop].any()
    ]


def insert_keys(obj: Any, rig: adapter.Rig, bones: list[str], frame: int) -> None:
    """Key the rotation (and location, where it moves) of ``bones`` at ``frame``."""
    paths = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
    for entry in rig.layout:
        if entry.name not in bones:
            continue
        pose_bone = obj.pose.bones[entry.name]
        pose_bone.keyframe_insert(
            paths.get(entry.mode, "rotation_euler"), frame=frame, group=entry.name
        )
        if entry.translation >= 0:
            pose_bone.keyframe_insert("location", frame=frame, group=entry.name)


class LiveSession:
    """Live mode on one armature: re-solve whenever something the goals see moves.

    It watches the goal empties' and the armature's world matrices and the channels of
    bones outside every constraint's chain; when any change (by G, R, a script, …) it
    solves again from the current pose. Bones the user moved by hand are held where
    they were put during that solve.
    """

    def __init__(self, obj: Any) -> None:
        self.armature = obj.name
        self.watched: dict[str, Any] = {}
        self.written: dict[str, tuple[float, ...]] = {}
        self.busy = False
        self.last_error = ""
        self.solves = 0

    def _state(self, obj: Any, scene: Any) -> tuple[dict[str, Any], dict[str, tuple[float, ...]]]:
        objects: dict[str, Any] = {"": tuple(v for row in obj.matrix_world for v in row)}
        for entry in obj.reach.constraints:
            if entry.enabled and entry.goal is not None:
                objects[entry.goal.name] = tuple(v for row in entry.goal.matrix_world for v in row)
        bones = {b.name: _channels(b) for b in obj.pose.bones}
        return objects, bones

    def update(self, scene: Any, view_layer: Any) -> bool:
        """Re-solve if anything moved since the last call; return whether it solved."""
        obj = bpy.data.objects.get(self.armature)
        if obj is None or self.busy:
            return False
        objects, bones = self._state(obj, scene)
        if not self.written:  # first call: remember, solve once
            moved_by_hand: list[str] = []
        elif objects == self.watched and bones == self.written:
            return False
        else:
            moved_by_hand = [
                name for name, channels in bones.items() if self.written.get(name) != channels
            ]
        self.busy = True
        try:
            rig = adapter.build_rig(obj, hold=moved_by_hand)
            setup = adapter.build_problem(obj, scene, rig)
            outcome = solve_from_pose(obj, setup, time_limit=obj.reach.time_budget, restarts=0)
            adapter.write_pose(obj, rig, outcome.result.theta, setup.moved)
            store_stats(obj, outcome, outcome.milliseconds)
            self.last_error = ""
            self.solves += 1
        except ReachError as error:
            self.last_error = str(error)
            obj.reach.stats.message = f"live: {error}"
        finally:
            self.watched, self.written = self._state(obj, scene)
            self.busy = False
        return not self.last_error


def _channels(pose_bone: Any) -> tuple[float, ...]:
    return (
        *pose_bone.location,
        *pose_bone.rotation_euler,
        *pose_bone.rotation_quaternion,
        *pose_bone.rotation_axis_angle,
    )
