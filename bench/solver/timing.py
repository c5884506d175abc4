"""Timing a problem's evaluation for the solver benchmarks."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from solver import Problem

WARM_UP = 20
"""Untimed calls before the timed ones."""


def evaluate_times(problem: Problem, poses: list[np.ndarray], calls: int) -> list[float]:
    """Times [s] of ``calls`` calls of ``problem.evaluate``, cycling through ``poses``: the
    problem keeps the last pose's kinematics, so timing one pose over and over would time
    that cache."""
    for k in range(WARM_UP):
        problem.evaluate(poses[k % len(poses)])
    times = []
    for k in range(calls):
        theta = poses[k % len(poses)]
        start = time.perf_counter()
        problem.evaluate(theta)
        times.append(time.perf_counter() - start)
    return times
