"""Reach's and Blender IK's events on the Rigify metarig: poses, targets, one event measured.

Part of ``bench_blender.py``: random targets solved from rest and drags, each measured on
Blender's evaluated pose.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import blender_limits as joint_limits
import blender_rigs as rigs
import blender_scenarios as scenarios
import bpy
import numpy as np

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


# --- poses and targets ------------------------------------------------------------------


class Poser:
    """Random poses and forward kinematics of one scenario's figure."""

    def __init__(self, obj: Any, rig: Any, scenario: scenarios.Scenario) -> None:
        self.obj = obj
        self.rig = rig
        self.scenario = scenario
        self.figure = rig.figure
        self.index = {entry.name: k for k, entry in enumerate(rig.layout)}
        self.limits = {bone: joint_limits.ik_limits(obj, bone) for bone in scenario.elbow_limits}
        self.polygons = polygon_dofs(obj, rig, scenario.polygons)

    def euler(self, theta: np.ndarray, bone: str) -> np.ndarray:
        entry = self.rig.bone(bone)
        angles = {
            axis.lower(): float(theta[entry.rotation + j])
            for j, axis in enumerate(entry.order[::-1])
        }
        return joint_limits.euler_matrix(angles, entry.order)

    def allowed(self, theta: np.ndarray) -> bool:
        """Inside the limited bones' limits under Blender's swing-twist reading too, and
        inside the limit polygons."""
        return all(
            joint_limits.swing_twist_violation(self.euler(theta, bone), limits) <= 1e-7
            for bone, limits in self.limits.items()
        ) and all(
            joint_limits.polygon_excess(theta[[i, j]], vertices) <= 0.0
            for i, j, vertices in self.polygons.values()
        )

    def random(self, bones: Sequence[str], rng: np.random.Generator) -> np.ndarray:
        """Uniform angles within the bounds (±SPREAD_DEG where there are none) for
        ``bones``, zero elsewhere; redrawn until allowed under both readings."""
        figure = self.figure
        for _ in range(100_000):
            theta = np.zeros(figure.n_dofs)
            for bone in bones:
                spread = math.radians(
                    scenarios.SPREAD_DEG["spine" if bone.startswith("spine") else "default"]
                )
                for i in figure.segments[self.index[bone]].dof_indices:
                    low, high = figure.lower[i], figure.upper[i]
                    if not np.isfinite(low):
                        low = -spread
                    if not np.isfinite(high):
                        high = spread
                    theta[i] = rng.uniform(low, high)
            if self.allowed(theta):
                return theta
        raise RuntimeError(f"no random pose of {list(bones)} within the limits")

    def effector(self, theta: np.ndarray, limb: scenarios.Limb) -> np.ndarray:
        frame = self.figure.forward(theta)[self.index[limb.bone]]
        length = self.obj.data.bones[limb.bone].length
        return frame[:3, :3] @ np.array((0.0, length, 0.0)) + frame[:3, 3]

    def drag_path(self, rng: np.random.Generator, events: int, step: float) -> np.ndarray:
        """``events`` points ``step`` apart along the dragged effector's path while the
        dragged limb's own bones move smoothly through random poses, from rest."""
        limb = self.scenario.limb(self.scenario.dragged)
        previous = np.zeros(self.figure.n_dofs)
        dense = [self.effector(previous, limb)]
        lengths = [0.0]
        for _ in range(10_000):
            if lengths[-1] >= (events + 1) * step:
                break
            target = self.random(limb.own, rng)
            samples = []
            for s in np.linspace(0.0, 1.0, 121)[1:]:
                theta = previous + (s * s * (3.0 - 2.0 * s)) * (target - previous)
                if not self.allowed(theta):
                    break
                samples.append(self.effector(theta, limb))
            else:
                for point in samples:
                    lengths.append(lengths[-1] + float(np.linalg.norm(point - dense[-1])))
                    dense.append(point)
                previous = target
        else:
            raise RuntimeError(f"no drag path of {events} events within the limits")
        dense_points = np.array(dense)
        marks = np.array(lengths)
        wanted = step * np.arange(1, events + 1)
        return np.column_stack([np.interp(wanted, marks, dense_points[:, k]) for k in range(3)])


def polygon_dofs(
    obj: Any, rig: Any, bones: Sequence[str]
) -> dict[str, tuple[int, int, list[tuple[float, float]]]]:
    """Per bone with a limit polygon: the θ indices of its two DOFs and its vertices."""
    result = {}
    for bone in bones:
        _, axes, vertices = joint_limits.joint_polygon(obj, bone)
        entry = rig.bone(bone)
        i, j = (rig.figure.dof_index(bone, entry.axis_position(axis)) for axis in axes)
        result[bone] = (i, j, vertices)
    return result


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


def reach_extras(
    reach: ModuleType, obj: Any, scenario: scenarios.Scenario, rig: Any, theta: np.ndarray
) -> dict[str, float]:
    """Largest violation [deg] of the figure's limits by the pose read back from the
    bones' channels (``bridge.pose.read_pose``), near the solver's θ; with limit polygons
    also the largest of the polygons alone, measured as for Blender's poses."""
    figure = rig.figure
    read = reach.addon.bridge.pose.read_pose(obj, rig, previous=theta)
    excess = max(
        float(np.max(figure.lower - read, initial=0.0)),
        float(np.max(read - figure.upper, initial=0.0)),
        float(figure.limits.max_violation(read)),
    )
    extras = {"violation_read": math.degrees(excess)}
    if scenario.polygons:
        extras["violation_polygon_read"] = math.degrees(
            max(
                joint_limits.polygon_excess(read[[i, j]], vertices)
                for i, j, vertices in polygon_dofs(obj, rig, scenario.polygons).values()
            )
        )
    return extras


def reach_random(
    reach: ModuleType, stage: Stage, goals: list[Any], targets: np.ndarray
) -> list[dict[str, Any]]:
    """Each target from the rest pose, as ``reach.solve`` does it."""
    obj, scenario = stage.obj, stage.scenario
    bridge = reach.addon.bridge
    scene, view_layer = bpy.context.scene, bpy.context.view_layer
    settings = obj.reach
    runs = []
    for points in targets:
        rigs.reset_pose(obj)
        view_layer.update()
        begin = time.perf_counter()
        move(goals, points)
        view_layer.update()
        setup = bridge.goals.build_problem(obj, scene)
        outcome = bridge.solving.solve_from_pose(
            obj, setup, time_limit=None, restarts=settings.restarts
        )
        bridge.pose.write_pose(obj, setup.rig, outcome.result.theta, setup.movable)
        view_layer.update()
        elapsed = time.perf_counter() - begin
        run = measure(stage, points, elapsed)
        result = outcome.result
        run.update(
            solve_ms=outcome.milliseconds,
            iterations=result.iterations,
            status=result.status,
            **reach_extras(reach, obj, scenario, setup.rig, result.theta),
        )
        runs.append(run)
    return runs


def start_drag(
    reach: ModuleType, obj: Any, goals: list[Any], rest: np.ndarray, dragged: int
) -> Any:
    rigs.reset_pose(obj)
    move(goals, rest)
    bpy.context.view_layer.update()
    return reach.addon.drag_session.DragSession(bpy.context, obj, goals[dragged])


def reach_drag(
    reach: ModuleType,
    stage: Stage,
    goals: list[Any],
    targets: np.ndarray,
    dragged: int,
    rest: np.ndarray,
) -> list[dict[str, Any]]:
    obj, scenario = stage.obj, stage.scenario
    drag = start_drag(reach, obj, goals, rest, dragged)
    runs = []
    for points in targets:
        begin = time.perf_counter()
        stats = drag.step(points[dragged])
        elapsed = time.perf_counter() - begin
        run = measure(stage, points, elapsed)
        run.update(
            step_ms=stats.milliseconds,
            solve_ms=stats.solve_milliseconds,
            budget_ms=1e3 * stats.budget,
            iterations=stats.iterations,
            status=stats.status,
            **reach_extras(reach, obj, scenario, drag.setup.rig, drag.theta),
        )
        runs.append(run)
    return runs
