"""The 53-DOF human's four-limb problems, and one run of Reach or SLSQP measured.

Part of ``bench.solver.versus_scipy``.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

import numpy as np

from solver import Constraint, Figure, Goldfarb, Problem, goals, solve
from tests.fixtures.models import (
    limb_effectors,
    limb_length,
)
from tests.fixtures.peers import slsqp

EFFECTORS = ("hand.L", "hand.R", "foot.L", "foot.R")
SUCCESS = 1e-6
"""A run succeeds when every effector is within SUCCESS × its limb length of its target."""
OBJECTIVE_SLACK = (1.01, 1e-14)
"""A peer has reached Reach's objective G at max(1.01 × G, G + 1e-14)."""
FEASIBLE = 1e-9
"""Largest limit violation of an evaluation point that counts as reaching the objective."""
TRACED_TARGETS = 3
"""Targets whose objective-versus-time traces are kept in the JSON (for plots)."""


def make_problem(figure: Figure, targets: dict[str, np.ndarray]) -> Problem:
    effectors = limb_effectors(figure)
    constraints = [
        Constraint(effectors[name], goals.Position(targets[name]), name=name) for name in EFFECTORS
    ]
    return Problem(figure, constraints)


def effector_points(problem: Problem, theta: np.ndarray) -> np.ndarray:
    points, _, _ = problem.effector_states(theta)
    return points


def normalised_error(problem: Problem, theta: np.ndarray, targets: np.ndarray) -> float:
    """Largest effector distance to its target over its limb length."""
    distances = np.linalg.norm(effector_points(problem, theta) - targets, axis=1)
    lengths = np.array([limb_length(name) for name in EFFECTORS])
    return float(np.max(distances / lengths))


def record(
    problem: Problem,
    targets: np.ndarray,
    elapsed: float,
    theta: np.ndarray,
    iterations: int,
    evaluations: int,
    status: str,
) -> dict[str, Any]:
    """One solve's row: time, counts, residual against the targets, violation, pose."""
    error = normalised_error(problem, theta, targets)
    return {
        "time": elapsed,
        "iterations": iterations,
        "evaluations": evaluations,
        "status": status,
        "objective": problem.evaluate(theta)[0],
        "error": error,
        "success": error <= SUCCESS,
        "violation": problem.limits.max_violation(theta),
        "theta": theta,
    }


def run_reach(
    problem: Problem,
    start: np.ndarray,
    targets: np.ndarray,
    *,
    restarts: int = 8,
    start_metric: str = "gauss_newton",
) -> dict[str, Any]:
    began = time.perf_counter()
    method = Goldfarb(start_metric=start_metric)
    result = solve(problem, start, restarts=restarts, method=method)
    elapsed = time.perf_counter() - began
    return record(problem, targets, elapsed, result.x, result.nit, result.nfev, result.status)


def run_slsqp(problem: Problem, start: np.ndarray, targets: np.ndarray) -> dict[str, Any]:
    """SLSQP over the same variables as Reach (DOFs in no chain stay at ``start``)."""
    began = time.perf_counter()
    result = slsqp(problem, start)
    elapsed = time.perf_counter() - began
    return record(problem, targets, elapsed, result.x, result.nit, result.nfev, result.message)


def drag(figure: Figure, rest: np.ndarray, events: int) -> dict[str, list[dict[str, Any]]]:
    """Both hands dragged along a path while the feet hold; every event warm-starts."""
    probe = make_problem(figure, {name: np.zeros(3) for name in EFFECTORS})
    start = dict(zip(EFFECTORS, effector_points(probe, rest), strict=True))
    runs: dict[str, list[dict[str, Any]]] = {"reach": [], "slsqp": []}
    poses = {"reach": rest.copy(), "slsqp": rest.copy()}
    for k in range(events):
        t = (k + 1) / events
        targets = dict(start)
        for side, sign in (("hand.L", 1.0), ("hand.R", -1.0)):
            offset = np.array([0.15 * sign * np.sin(2 * np.pi * t), -0.35 * t, 0.55 * t])
            targets[side] = start[side] + offset
        problem = make_problem(figure, targets)
        points = np.array([targets[name] for name in EFFECTORS])
        reach = run_reach(problem, poses["reach"], points, restarts=0)
        slsqp = run_slsqp(problem, poses["slsqp"], points)
        for name, run in (("reach", reach), ("slsqp", slsqp)):
            runs[name].append(run)
            poses[name] = run["theta"]
    return runs


def strip(run: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in run.items() if key != "theta"}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = sorted(run["time"] for run in runs)
    return {
        "median_time_s": statistics.median(times),
        "p90_time_s": float(np.percentile(times, 90)),
        "success_rate": sum(run["success"] for run in runs) / len(runs),
        "median_iterations": statistics.median(run["iterations"] for run in runs),
        "median_evaluations": statistics.median(run["evaluations"] for run in runs),
        "median_error": statistics.median(run["error"] for run in runs),
        "max_violation": max(run["violation"] for run in runs),
        "statuses": dict(Counter(run["status"] for run in runs)),
    }
