"""Warm drag events on the scaled figures of ``bench_scale.py``, as the add-on runs them.

A drag starts at a random pose inside the limits with every goal where its effector is
(so the goals are met), then moves one goal a little per event along a circle while the
others hold; each event is ``problem.with_goals({dragged: goal})`` and ``solve`` from
the previous event's pose with ``restarts=0`` and the add-on's default budget and
tolerance (``addon/drag_session.py``, ``addon/bridge/solving.py``).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from fixtures.models import random_feasible_pose
from scale_figures import Scaled, make_problem

from solver import goals, solve

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
