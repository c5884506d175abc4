"""The demo's drags: smooth paths for the hands, replayed with ``reach.drag_goal``.

First each hand reaches to the chest alone, then an empty between the hands carries both
goals up in front, overhead and back on a loop, and then down to the shins. Consecutive
events lie :data:`STEP` apart along Catmull-Rom curves through the waypoints of
:data:`PATHS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import bpy
import numpy as np
from errors import DemoError
from figure import HANDS
from mathutils import Vector

STEP = 0.01
"""Distance between consecutive drag events [m]: about 1.8% of the arm's length."""

PATHS: dict[str, list[Any]] = {
    # Waypoints [m] after the goal's start (world; the figure faces -Y).
    "hand.R": [(-0.45, -0.25, 1.25), (-0.17, -0.38, 1.22)],
    "hand.L": [(0.45, -0.25, 1.25), (0.17, -0.38, 1.22)],
    # (y, z) of the empty between the hands: up in front, overhead, back to the chest
    "both hands along a loop": [(-0.45, 1.45), (-0.35, 1.80), (-0.15, 1.60)],
    # then down to the shins: the figure bends and crouches, its ankles held
    "both hands reach down": [(-0.45, 0.95), (-0.40, 0.50)],
}
"""Where the hands are dragged; consecutive events are ``STEP`` apart along smooth curves."""


def catmull_rom(points: Sequence[Sequence[float]], closed: bool, samples: int = 64) -> np.ndarray:
    """A dense uniform Catmull-Rom curve through ``points`` (``samples`` per span)."""
    p = np.asarray(points, dtype=float)
    # Phantom end points: the neighbours across the seam (closed) or the ends repeated.
    p = np.vstack([p[-1], p, p[0], p[1]]) if closed else np.vstack([p[0], p, p[-1]])
    curve = []
    for k in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[k - 1], p[k], p[k + 1], p[k + 2]
        for t in np.linspace(0.0, 1.0, samples, endpoint=False):
            curve.append(
                0.5
                * (
                    2 * p1
                    + (p2 - p0) * t
                    + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t**2
                    + (3 * p1 - p0 - 3 * p2 + p3) * t**3
                )
            )
    curve.append(p[-2])
    return np.array(curve)


def resample(curve: np.ndarray, step: float) -> list[tuple[float, float, float]]:
    """Points every ``step`` along ``curve`` (by arc length), without its first point."""
    lengths = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(curve, axis=0), axis=1))])
    count = max(1, round(lengths[-1] / step))
    at = np.linspace(0.0, lengths[-1], count + 1)[1:]
    return [tuple(float(np.interp(s, lengths, curve[:, i])) for i in range(3)) for s in at]


@dataclass
class Segment:
    """One drag: a goal moved through ``path`` (its ``location`` channel, world here).

    Attributes:
        name: What the figure does.
        goal: Name of the dragged empty.
        path: The dragged empty's locations, one per event.
        events: Filled in by :func:`drag`.
    """

    name: str
    goal: str
    path: list[tuple[float, float, float]]
    events: list[dict[str, Any]] = field(default_factory=list)


def drag(obj: Any, segment: Segment, goals_at: Callable[[tuple[float, ...]], dict]) -> None:
    """Replay ``segment`` with ``reach.drag_goal``; record its events."""
    path = [{"name": "", "location": point} for point in segment.path]
    result = bpy.ops.reach.drag_goal(armature=obj.name, goal=segment.goal, path=path)
    if result != {"FINISHED"}:
        raise DemoError(f"reach.drag_goal ({segment.name}) returned {result}")
    events = obj.reach.drag_events
    if len(events) != len(path):
        raise DemoError(f"{segment.name}: {len(path)} path points but {len(events)} events")
    for event in events:
        location = tuple(event.location)
        segment.events.append(
            {
                "segment": segment.name,
                "dragged": segment.goal,
                "location": location,
                "hand_goals": {k: list(v) for k, v in goals_at(location).items()},
                "milliseconds": event.milliseconds,
                "solve_milliseconds": event.solve_milliseconds,
                "budget_milliseconds": 1000.0 * event.budget,
                "iterations": event.iterations,
                "status": event.status,
                "objective": event.objective,
                "residual": event.residual,
            }
        )


def parent_keep_world(child: Any, parent: Any) -> None:
    """Parent ``child`` to ``parent`` without moving it."""
    child.parent = parent
    child.matrix_parent_inverse = parent.matrix_world.inverted()
    bpy.context.view_layer.update()


def run_drags(obj: Any, goals: dict[str, Any]) -> list[Segment]:
    """Drag the hands: each alone to the chest, then both along a loop and down."""
    segments: list[Segment] = []

    def world(goal: Any) -> Vector:
        return goal.matrix_world.translation.copy()

    def alone(name: str, waypoints: list[tuple[float, float, float]]) -> None:
        goal = goals[name]
        other = "hand.R" if name == "hand.L" else "hand.L"
        fixed = tuple(world(goals[other]))
        path = resample(catmull_rom([tuple(world(goal)), *waypoints], closed=False), STEP)
        segment = Segment(f"{name} reaches alone", goal.name, path)
        drag(obj, segment, lambda location: {name: location, other: fixed})
        segments.append(segment)

    alone("hand.R", PATHS["hand.R"])
    alone("hand.L", PATHS["hand.L"])

    # Both hands together: an empty between them carries both goals.
    left, right = world(goals["hand.L"]), world(goals["hand.R"])
    hands = bpy.data.objects.new("Hands", None)
    hands.empty_display_type = "PLAIN_AXES"
    hands.empty_display_size = 0.1
    hands.location = (left + right) / 2
    obj.users_collection[0].objects.link(hands)
    bpy.context.view_layer.update()
    for name in HANDS:
        parent_keep_world(goals[name], hands)
    offsets = {"hand.L": left - hands.location, "hand.R": right - hands.location}

    def both(location: tuple[float, ...]) -> dict[str, tuple[float, ...]]:
        return {name: tuple(Vector(location) + offset) for name, offset in offsets.items()}

    for what, closed in (("both hands along a loop", True), ("both hands reach down", False)):
        start = tuple(hands.location)
        waypoints = [start, *((start[0], y, z) for y, z in PATHS[what])]
        path = resample(catmull_rom(waypoints, closed=closed), STEP)
        segment = Segment(what, hands.name, path)
        drag(obj, segment, both)
        segments.append(segment)
    return segments
