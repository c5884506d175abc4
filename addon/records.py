"""The records of what solves did (:class:`EventStats`), and where the last drag's are kept.

The records live here, below every feature that fills them, so that the stored
settings import no feature. A drag's events are kept in memory for the session
(:func:`keep_drag`, read as ``Object.reach.drag_events``), not in the armature object:
every evaluation of an object copies all it stores, so a long drag stored there made
every later evaluation of that armature slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final


@dataclass(frozen=True)
class EventStats:
    """What one drag event cost and achieved (one item of ``Object.reach.drag_events``).

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
        outcome: The solver's outcome (met, not reachable, local minimum, unfinished).
        out_of_reach: How far the farthest goal proved out of reach lies beyond its
            chain (world units; 0 when none is).
        unmet: Constraints not met within the armature's "met within" distance on
            Blender's evaluated pose.
        diverging: Bones Blender poses otherwise than Reach wrote them.
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
    outcome: str
    out_of_reach: float
    unmet: tuple[str, ...]
    diverging: tuple[str, ...] = ()


@dataclass
class DragRecords:
    """The last finished drag's events of each armature object, kept for the session.

    Filled by :func:`keep_drag` when a drag finishes (each armature's replacing its
    last), read by :func:`last_drag`; never emptied, since ``session_uid`` names no
    other object while Blender runs. It lives between events because the drag's record
    is read after the drag, by the panel and by scripts, and not stored in the object.

    Attributes:
        drags: By armature object (its ``session_uid``), the events of its last drag.
    """

    drags: dict[int, tuple[EventStats, ...]] = field(default_factory=dict)


_state: Final = DragRecords()
"""The drags' records of this Blender session."""


def keep_drag(obj: Any, events: Sequence[EventStats]) -> None:
    """Keep ``events`` as the last drag of armature object ``obj`` (replacing any before)."""
    _state.drags[obj.session_uid] = tuple(events)


def last_drag(obj: Any) -> tuple[EventStats, ...]:
    """The events of the last drag finished on ``obj`` in this session (empty if none)."""
    return _state.drags.get(obj.session_uid, ())
