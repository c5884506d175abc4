"""Warm drag events on the scaled figures of ``bench.solver.scale``, as the add-on runs them.

A drag starts at a random pose inside the limits with every goal where its effector is
(so the goals are met), then moves one goal a little per event along a circle while the
others hold; each event is ``problem.with_goals({dragged: goal})`` and ``solve`` from
the previous event's pose with ``restarts=0`` and the add-on's default budget and
tolerance (``addon/drag_session.py``, ``addon/bridge/solving.py``).

:func:`drag_case` sums a drag up (median time per event, events per second, time per
iteration); :func:`drag_fits` fits the time per iteration against the variables n and
the goal residuals m (3 per position goal) on log–log axes.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from typing import Any

import numpy as np

from bench.solver.scale_figures import Scaled, build, choose_sites, make_problem
from solver import goals, solve
from tests.fixtures.models import random_feasible_pose

TIME_LIMIT = 0.1
"""The add-on's default time budget of a drag event [s]."""
TOLERANCE = 1e-10
"""The add-on's default tolerance."""
RADIUS = 0.05
"""Radius of the dragged goal's circle [m] (the figures are 1 m long)."""
TURN = 2.0 * math.pi / 30.0
"""Angle the dragged goal moves per event along its circle [rad] (about 1 cm)."""


def drag(
    scaled: Scaled,
    sites: list[tuple[str, float]],
    dragged: int,
    events: int,
    rng: np.random.Generator,
    *,
    time_limit: float | None = TIME_LIMIT,
) -> list[dict[str, Any]]:
    """Per event: wall time [s] of ``with_goals`` and ``solve``, iterations, status, G.

    Args:
        scaled: The figure.
        sites: Its effectors (see ``scale_figures.choose_sites``).
        dragged: Which of them is dragged.
        events: Drag events.
        rng: Picks the start pose.
        time_limit: Each event's budget [s] (None: none).
    """
    figure = scaled.figure
    probe = make_problem(scaled, sites)
    theta = random_feasible_pose(figure, rng)
    points = probe.effector_states(theta)[0]
    problem = make_problem(scaled, sites, points)
    centre = points[dragged]
    records = []
    for event in range(1, events + 1):
        angle = event * TURN
        offset = RADIUS * np.array([math.cos(angle) - 1.0, math.sin(angle), 0.0])
        began = time.perf_counter()
        problem = problem.with_goals({dragged: goals.Position(centre + offset)})
        result = solve(problem, theta, time_limit=time_limit, tolerance=TOLERANCE, restarts=0)
        elapsed = time.perf_counter() - began
        theta = result.x
        records.append(
            {
                "time_s": elapsed,
                "iterations": result.nit,
                "status": str(result.status),
                "objective": result.fun,
                "time_per_iteration_s": elapsed / max(result.nit, 1),
            }
        )
    return records


def drag_case(
    kind: str, n_dofs: int, constraints: int, events: int, rng: np.random.Generator
) -> dict[str, Any]:
    """A drag of the last of ``constraints`` goals on a ``kind`` figure of ``n_dofs`` DOFs."""
    scaled = build(kind, n_dofs)
    sites = choose_sites(scaled, constraints)
    records = drag(scaled, sites, len(sites) - 1, events, rng)
    times = [record["time_s"] for record in records]
    median = statistics.median(times)
    return {
        "figure": kind,
        "n_dofs": n_dofs,
        "constraints": constraints,
        "residuals": 3 * constraints,
        "variables": int(make_problem(scaled, sites).variables.size),
        "events": events,
        "median_ms": 1e3 * median,
        "p90_ms": 1e3 * float(np.percentile(times, 90)),
        "events_per_s": 1.0 / median,
        "median_iterations": statistics.median(record["iterations"] for record in records),
        "median_time_per_iteration_ms": 1e3
        * statistics.median(record["time_per_iteration_s"] for record in records),
        "median_objective": statistics.median(record["objective"] for record in records),
        "statuses": dict(Counter(record["status"] for record in records)),
        "runs": records,
    }


def _fit(xs: list[float], ys: list[float]) -> dict[str, float] | None:
    """Slope and R² of the least-squares line through (log x, log y)."""
    if len(set(xs)) < 2:
        return None
    lx, ly = np.log(np.array(xs)), np.log(np.array(ys))
    slope, intercept = np.polyfit(lx, ly, 1)
    spread = float(np.sum((ly - ly.mean()) ** 2))
    residual = float(np.sum((ly - (slope * lx + intercept)) ** 2))
    return {"exponent": float(slope), "r2": 1.0 - residual / spread if spread > 0 else 1.0}


def drag_fits(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Growth of the time per iteration: against n for each m, against m for each n."""
    rows = []
    for axis, across in (("variables", "residuals"), ("residuals", "variables")):
        for fixed in sorted({case[across] for case in cases}):
            chosen = [case for case in cases if case[across] == fixed]
            fit = _fit(
                [case[axis] for case in chosen],
                [case["median_time_per_iteration_ms"] for case in chosen],
            )
            if fit is not None:
                values = [case[axis] for case in chosen]
                rows.append({"against": axis, across: fixed, "values": values, **fit})
    return rows
