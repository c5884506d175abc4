"""Where a foot stands in a clip: its heel's and toe's stances found from their paths.

A point of the foot (its heel or its toe) is down at a frame when it is nearly still and
low: its speed into or out of the frame under :data:`STILL` leg lengths a second, and
its height within
:data:`LOW` leg lengths of the lowest point of either foot at that frame, so that a foot
on the stair above the other's is still down while a foot held up is not. Short gaps
(:data:`GAP`) are closed and short stances (:data:`SHORTEST`) dropped, in seconds, so
the same motion sampled at 30 or 120 frames a second gives the same stances. The
thresholds scale with the leg's length, so that a skeleton in centimetres or metres
reads alike; each can be set.

A foot's stance is the union of its heel's and toe's: the heel is held while it is
down, the toe until it lifts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import BlenderDataError

__all__ = ["GAP", "LOW", "SHORTEST", "STILL", "Foot", "Stance", "Thresholds", "find_stances"]

STILL = 0.25
"""A point moving slower than this many leg lengths a second may be down (a walk's swing
moves the foot 2–4 leg lengths a second, a slide of 5 cm over half a second 0.1)."""

LOW = 0.3
"""A point may be down while it is within this many leg lengths of the lowest point of
either foot at that frame: a stair is about 0.2 leg lengths high, a foot held up
still higher than this."""

GAP = 0.05
"""A pause in a stance shorter than this [s] (noise in the speed) is closed."""

SHORTEST = 0.1
"""A stance shorter than this [s] is dropped (a foot brushing the ground in a swing)."""


@dataclass(frozen=True)
class Thresholds:
    """The tests for a point being down, in leg lengths and seconds (module defaults)."""

    still: float = STILL
    low: float = LOW
    gap: float = GAP
    shortest: float = SHORTEST


@dataclass(frozen=True)
class Stance:
    """One stance of a foot: frame indices into the clip, ends included.

    Attributes:
        start: The first frame the heel or the toe is down.
        end: The last frame the heel or the toe is down.
        heel: The heel's frames down within the stance (first, last); None if it never is.
        toe: The toe's frames down within the stance (first, last); None if it never is.
    """

    start: int
    end: int
    heel: tuple[int, int] | None
    toe: tuple[int, int] | None


@dataclass(frozen=True)
class Foot:
    """A foot's path through the clip: world positions per frame, (frames, 3), Z up."""

    heel: NDArray[np.float64]
    toe: NDArray[np.float64]


def find_stances(
    feet: dict[str, Foot], fps: float, leg: float, thresholds: Thresholds | None = None
) -> dict[str, list[Stance]]:
    """Each foot's stances, in order.

    Args:
        feet: Per foot name, its heel's and toe's paths (every path the same length).
        fps: The clip's frames per second.
        leg: The leg's length (world units): the thresholds' scale.
        thresholds: The tests for a point being down; the module's defaults if None.

    Raises:
        BlenderDataError: For no foot, fewer than two frames, paths of unequal length or
            not finite, or a frame rate or leg length that is not positive.
    """
    limits = thresholds or Thresholds()
    paths = _checked(feet, fps, leg)
    lowest = np.min([path[:, 2] for pair in paths.values() for path in pair], axis=0)
    found: dict[str, list[Stance]] = {}
    for name, (heel, toe) in paths.items():
        heel_down = _down(heel, lowest, fps, leg, limits)
        toe_down = _down(toe, lowest, fps, leg, limits)
        found[name] = [
            Stance(start, end, _within(heel_down, start, end), _within(toe_down, start, end))
            for start, end in _runs(heel_down | toe_down)
        ]
    return found


def _checked(
    feet: dict[str, Foot], fps: float, leg: float
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """The feet's paths as float arrays, or the reason they cannot be read."""
    if not feet:
        raise BlenderDataError("no foot to find stances of: name the feet's bones")
    if not (np.isfinite(fps) and fps > 0.0):
        raise BlenderDataError(f"the clip's frame rate {fps} is not positive")
    if not (np.isfinite(leg) and leg > 0.0):
        raise BlenderDataError(f"the leg length {leg} is not positive")
    paths = {}
    lengths = set()
    for name, foot in feet.items():
        pair = tuple(np.asarray(path, dtype=float) for path in (foot.heel, foot.toe))
        for path in pair:
            if path.ndim != 2 or path.shape[1] != 3 or not np.all(np.isfinite(path)):
                raise BlenderDataError(f"foot '{name}': its path is not finite 3D points")
            lengths.add(len(path))
        paths[name] = (pair[0], pair[1])
    if len(lengths) != 1:
        raise BlenderDataError(f"the feet's paths have different lengths {sorted(lengths)}")
    if lengths.pop() < 2:
        raise BlenderDataError("the clip has fewer than two frames: no motion to clean")
    return paths


def _down(
    path: NDArray[np.float64],
    lowest: NDArray[np.float64],
    fps: float,
    leg: float,
    limits: Thresholds,
) -> NDArray[np.bool_]:
    """Per frame, whether the point is down (still and low), gaps closed, blips dropped."""
    # the slower of the steps into and out of each frame: a landing's first frame and a
    # lift's last are still on one side
    steps = np.linalg.norm(np.diff(path, axis=0), axis=1)
    speed = np.minimum(np.append(steps, np.inf), np.insert(steps, 0, np.inf)) * fps
    down: NDArray[np.bool_] = (speed <= limits.still * leg) & (
        path[:, 2] <= lowest + limits.low * leg
    )
    runs = _runs(down)
    closed = np.zeros_like(down)
    for k, (start, end) in enumerate(runs):
        closed[start : end + 1] = True
        if k + 1 < len(runs) and (runs[k + 1][0] - end - 1) / fps <= limits.gap:
            closed[end + 1 : runs[k + 1][0]] = True
    kept = np.zeros_like(down)
    for start, end in _runs(closed):
        if (end - start + 1) / fps >= limits.shortest:
            kept[start : end + 1] = True
    return kept


def _runs(mask: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """The runs of True in ``mask``: (first, last) index each, in order."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return [(int(s), int(e)) for s, e in zip(starts, ends, strict=True)]


def _within(mask: NDArray[np.bool_], start: int, end: int) -> tuple[int, int] | None:
    """The first and last frames of ``mask`` down between ``start`` and ``end``."""
    frames = np.flatnonzero(mask[start : end + 1])
    if not len(frames):
        return None
    return int(start + frames[0]), int(start + frames[-1])
