"""Reach's events on the Rigify metarig: random targets solved from rest, and drags.

Part of ``bench.blender.versus_ik``: each event as a user's Blender runs it (``reach.solve``'s
path, the drag session), measured as Blender IK's events are (``events``).
"""

from __future__ import annotations

import math
import time
from types import ModuleType
from typing import Any

import bpy
import numpy as np

from bench.blender import joint_limits, rigs, scenarios
from bench.blender.events import Stage, measure, move
from bench.blender.poses import polygon_dofs


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
        poser, inputs = bridge.kept.poser(obj, scene, view_layer)  # as reach.solve starts
        step = poser.solve(restarts=settings.restarts)
        bridge.kept.keep(obj, poser, inputs)
        setup, outcome = step.setup, step.outcome
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
