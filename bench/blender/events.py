"""One event on the Rigify metarig measured, and Blender IK's events.

Part of ``bench.blender.versus_ik``: random targets solved from rest and drags, each measured on
Blender's evaluated pose (Reach's events are in ``reach_events``, the random
poses and drag paths in ``poses``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

from bench.blender import joint_limits, rigs, scenarios

SUCCESS = (1e-6, 1e-3)
"""Success thresholds: every effector within this × its limb length of its target."""
STEP = 0.02
"""Drag step: this × the dragged limb's length."""
BLENDER_METHODS = (
    ("standard_500", "Standard IK, 500 it.", "LEGACY", 500, None),
    ("standard_50", "Standard IK, 50 it.", "LEGACY", 50, None),
    ("itasc_500", "iTaSC, 500 it.", "ITASC", 500, None),
    ("itasc_50", "iTaSC, 50 it.", "ITASC", 50, None),
    ("itasc_500_fine", "iTaSC, 500 it., 1e-4", "ITASC", 500, 1e-4),
)
"""(key, title, pose.ik_solver, iterations, iTaSC precision [m] or None for its default
0.005; Blender clamps it to at least 1e-4)."""
METHOD_TITLES = {"reach": "Reach", **{key: title for key, title, *_ in BLENDER_METHODS}}
VIOLATING_DEG = 1e-3
"""An event violates a limit when its violation exceeds this [deg]."""
POLYGON_NOTE = (
    "Blender's IK cannot express a limit polygon: Standard IK runs without limits on the "
    "upper arms, for reference; its polygon violations show what the polygon prevents."
)


# --- one event ------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """A scenario set up on the metarig: what every event of every method is measured on."""

    obj: Any
    scenario: scenarios.Scenario
    lengths: np.ndarray
    """Each limb's length [m], in the scenario's order of limbs."""


def measure(stage: Stage, targets: np.ndarray, elapsed: float) -> dict[str, Any]:
    obj, scenario = stage.obj, stage.scenario
    points = rigs.effector_points(obj, scenario.limbs)
    error = float(np.max(np.linalg.norm(points - targets, axis=1) / stage.lengths))
    box, euler, swing = joint_limits.limit_violations(obj, scenario.elbow_limits)
    run = {
        "ms": 1e3 * elapsed,
        "error": error,
        "violation_box": box,
        "violation_euler": euler,
        "violation_swing": swing,
    }
    if scenario.polygons:
        signed = joint_limits.polygon_signed_pose(obj, scenario.polygons)
        run["polygon_signed"] = signed
        run["violation_polygon"] = max(0.0, signed)
    return run


def move(empties: Sequence[Any], points: np.ndarray) -> None:
    for empty, point in zip(empties, points, strict=True):
        empty.location = tuple(float(v) for v in point)


def blender_events(
    stage: Stage, empties: list[Any], targets: np.ndarray, moved: Sequence[int]
) -> list[dict[str, Any]]:
    """Per event: move the targets in ``moved`` (all for random targets, the dragged
    one for a drag) and let the depsgraph evaluate Blender's IK."""
    view_layer = bpy.context.view_layer
    runs = []
    for points in targets:
        begin = time.perf_counter()
        move([empties[k] for k in moved], points[list(moved)])
        view_layer.update()
        elapsed = time.perf_counter() - begin
        runs.append(measure(stage, points, elapsed))
    return runs
