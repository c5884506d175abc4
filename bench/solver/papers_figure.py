"""The 1990 figure's update rates: drags and solves from rest with 7-DOF constraints.

Part of ``bench.solver.papers``.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

import numpy as np

from solver import Constraint, Figure, Problem, goals, solve
from tests.fixtures.models import (
    ARM_LENGTH,
    human_figure,
    limb_effectors,
    limb_length,
    random_feasible_pose,
)

# -- (b) the 1990 figure ---------------------------------------------------------------


TOLERANCES = (1e-6, 1e-3)
"""Success thresholds, × limb length (position) and radians (orientation)."""
STEP = 0.02
"""Drag step, × the dragged limb's length."""
DRAGGED = "hand.L"
"""The effector the drags move."""
ARM_SEGMENTS = ("clavicle.L", "upper_arm.L", "forearm.L", "hand.L")
"""The segments a drag path's poses vary."""
ONE = ("hand.L",)
"""One 7-DOF constraint."""
FOUR = ("hand.L", "hand.R", "foot.L", "foot.R")
"""Four 7-DOF constraints."""


def make_problem(
    figure: Figure, names: tuple[str, ...], goals_by_name: dict[str, tuple[np.ndarray, ...]]
) -> Problem:
    effectors = limb_effectors(figure)
    constraints = [
        Constraint(effectors[name], goals.PositionOrientation(*goals_by_name[name]), name=name)
        for name in names
    ]
    return Problem(figure, constraints)


def effector_goals(
    problem: Problem, names: tuple[str, ...], theta: np.ndarray
) -> dict[str, tuple[np.ndarray, ...]]:
    """Each named effector's (point, x axis, y axis) at ``theta``."""
    points, x, y = problem.effector_states(theta)
    return {name: (points[k], x[k], y[k]) for k, name in enumerate(names)}


def angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angles [rad] between rows of ``a`` and ``b`` (accurate near 0)."""
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def errors(
    problem: Problem,
    names: tuple[str, ...],
    theta: np.ndarray,
    targets: dict[str, tuple[np.ndarray, ...]],
) -> tuple[float, float]:
    """Largest position error over limb length and largest axis angle [rad]."""
    points, x, y = problem.effector_states(theta)
    goal_points = np.array([targets[name][0] for name in names])
    goal_x = np.array([targets[name][1] for name in names])
    goal_y = np.array([targets[name][2] for name in names])
    lengths = np.array([limb_length(name) for name in names])
    position = float(np.max(np.linalg.norm(points - goal_points, axis=1) / lengths))
    turn = float(max(np.max(angle(x, goal_x)), np.max(angle(y, goal_y))))
    return position, turn


def met(position: float, turn: float) -> dict[str, bool]:
    return {f"success_{t:g}": bool(position <= t and turn <= t) for t in TOLERANCES}


def arm_pose(figure: Figure, base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``base`` with the left arm's DOFs taken from a random feasible pose."""
    pose = base.copy()
    sample = random_feasible_pose(figure, rng)
    for segment in ARM_SEGMENTS:
        indices = list(figure.segment(segment).dof_indices)
        pose[indices] = sample[indices]
    return pose


def bspline(keys: np.ndarray, samples: int) -> np.ndarray:
    """A uniform cubic B-spline through control points ``keys``, ends clamped.

    Every sample is a convex combination of keys, so it stays inside linear limits.
    """
    control = np.concatenate([keys[:1], keys[:1], keys, keys[-1:], keys[-1:]])
    spans = len(control) - 3
    u = np.linspace(0.0, spans, samples, endpoint=False)
    u = np.append(u, spans - 1e-12)
    index = np.minimum(u.astype(int), spans - 1)
    t = (u - index)[:, None]
    weights = (
        (1 - t) ** 3 / 6,
        (3 * t**3 - 6 * t**2 + 4) / 6,
        (-3 * t**3 + 3 * t**2 + 3 * t + 1) / 6,
        t**3 / 6,
    )
    return sum(w * control[index + k] for k, w in enumerate(weights))


def drag_path(
    figure: Figure, base: np.ndarray, events: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Poses along a smooth left-arm path with the palm stepping 2% of the arm length."""
    probe = make_problem(figure, ONE, {DRAGGED: (np.zeros(3), *_axes())})
    step = STEP * ARM_LENGTH
    keys = [base.copy()]
    while True:
        keys.append(arm_pose(figure, base, rng))
        fine = bspline(np.array(keys), 400 * len(keys))
        points, x, y = (
            np.array(v) for v in zip(*(probe.effector_states(p) for p in fine), strict=True)
        )
        points, x, y = points[:, 0], x[:, 0], y[:, 0]
        moves = np.maximum(
            np.linalg.norm(np.diff(points, axis=0), axis=1),
            ARM_LENGTH * np.maximum(angle(x[1:], x[:-1]), angle(y[1:], y[:-1])),
        )
        travelled = np.concatenate([[0.0], np.cumsum(moves)])
        if travelled[-1] >= step * (events + 1):
            break
    marks = np.searchsorted(travelled, step * np.arange(1, events + 1))
    return [fine[k] for k in marks]


def _axes() -> tuple[np.ndarray, np.ndarray]:
    return np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])


def drag(names: tuple[str, ...], events: int, rng: np.random.Generator) -> dict[str, Any]:
    figure = human_figure()
    rest = figure.zero_pose()
    poses = drag_path(figure, rest, events, rng)
    probe = make_problem(figure, names, {name: (np.zeros(3), *_axes()) for name in names})
    held = effector_goals(probe, names, rest)
    theta = rest.copy()
    rows = []
    for pose in poses:
        targets = dict(held)
        targets[DRAGGED] = effector_goals(probe, names, pose)[DRAGGED]
        began = time.perf_counter()
        problem = make_problem(figure, names, targets)
        built = time.perf_counter()
        result = solve(problem, theta, restarts=0)
        ended = time.perf_counter()
        theta = result.x
        position, turn = errors(problem, names, theta, targets)
        rows.append(
            {
                "update_s": ended - began,
                "solve_s": ended - built,
                "iterations": result.nit,
                "status": result.status,
                "position_error": position,
                "angle_error_rad": turn,
                "violation": result.max_violation,
                **met(position, turn),
            }
        )
    return summarise(rows, "update_s") | {
        "variables": int(probe.variables.size),
        "median_solve_ms": statistics.median(row["solve_s"] for row in rows) * 1e3,
        "events": rows,
    }


def from_rest(names: tuple[str, ...], targets: int, rng: np.random.Generator) -> dict[str, Any]:
    figure = human_figure()
    rest = figure.zero_pose()
    probe = make_problem(figure, names, {name: (np.zeros(3), *_axes()) for name in names})
    rows = []
    for _ in range(targets):
        goal = effector_goals(probe, names, random_feasible_pose(figure, rng))
        began = time.perf_counter()
        problem = make_problem(figure, names, goal)
        result = solve(problem, rest)
        elapsed = time.perf_counter() - began
        position, turn = errors(problem, names, result.x, goal)
        rows.append(
            {
                "update_s": elapsed,
                "iterations": result.nit,
                "restarts": result.restarts,
                "status": result.status,
                "position_error": position,
                "angle_error_rad": turn,
                "violation": result.max_violation,
                **met(position, turn),
            }
        )
    return summarise(rows, "update_s") | {"variables": int(probe.variables.size), "runs": rows}


def summarise(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    times = [row[key] for row in rows]
    median = statistics.median(times)
    p90 = float(np.percentile(times, 90))
    summary: dict[str, Any] = {
        "count": len(rows),
        "median_ms": median * 1e3,
        "p90_ms": p90 * 1e3,
        "max_ms": max(times) * 1e3,
        "median_hz": 1.0 / median,
        "p90_hz": 1.0 / p90,
        "median_iterations": statistics.median(row["iterations"] for row in rows),
        "median_position_error": statistics.median(row["position_error"] for row in rows),
        "max_position_error": max(row["position_error"] for row in rows),
        "max_angle_error_rad": max(row["angle_error_rad"] for row in rows),
        "max_violation": max(row["violation"] for row in rows),
        "statuses": dict(Counter(row["status"] for row in rows)),
    }
    for t in TOLERANCES:
        summary[f"success_{t:g}"] = sum(row[f"success_{t:g}"] for row in rows) / len(rows)
    return summary
