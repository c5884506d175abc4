"""One solve from the armature's current pose, and what it achieved in the user's terms.

The solver is Zhao & Badler's (1994): :func:`run_solve` names the constraints it could
not meet; :func:`solve_from_pose` first checks (or clamps) the start pose;
:func:`store_stats` keeps the outcome on the armature for the sidebar.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...solver import SolveResult, solve
from ...solver.limits import clamp_to_limits, outside_limits
from ..errors import BlenderDataError, labelled
from .goals import Setup
from .pose import changed_bones, read_pose, write_pose
from .rig import Array, Rig


@dataclass(frozen=True)
class Outcome:
    """What one solve did, in the user's terms.

    Attributes:
        result: The solver's result.
        residuals: Per enabled constraint, √P: the distance (world units) still to go
            for positional goals, the orientation error expressed as a length for others.
        unmet: Names of constraints whose residual is above ``reach_distance``.
        milliseconds: Wall time of the solve alone.
    """

    result: SolveResult
    residuals: dict[str, float]
    unmet: list[str]
    milliseconds: float


def run_solve(
    setup: Setup, theta0: Array, settings: Any, *, time_limit: float | None, restarts: int
) -> Outcome:
    """Solve, and name the constraints that are not met.

    Args:
        setup: The problem.
        theta0: Start pose, shape (n_dofs,).
        settings: The armature's Reach settings (``Object.reach``): its tolerance and
            "met within" distance.
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls (0 for drags).

    Raises:
        BlenderDataError: A start pose outside the limits or other bad input.
    """
    with labelled(""):
        result = solve(
            setup.problem,
            theta0,
            time_limit=time_limit,
            tolerance=settings.tolerance,
            restarts=restarts,
        )
    values = setup.problem.potentials(result.theta)
    residuals = {
        name: math.sqrt(max(float(v), 0.0)) for name, v in zip(setup.names, values, strict=True)
    }
    unmet = [name for name, r in residuals.items() if r > settings.reach_distance]
    return Outcome(result, residuals, unmet, 1000.0 * result.elapsed)


def check_start(rig: Rig, theta: Array) -> None:
    """Refuse a start pose outside the limits, naming the limit (the solver's own check).

    Raises:
        BlenderDataError: Naming the DOF and its bound in degrees, or the polygon or
            group, and saying how to clamp the pose.
    """
    figure = rig.figure
    violated = outside_limits(figure.limits, theta)
    if violated is None:
        return
    label, amount = violated
    excess = np.maximum(figure.lower - theta, theta - figure.upper)
    index = int(np.argmax(excess))
    if excess[index] >= amount:  # a joint's bound: said in degrees, as the sidebar shows it
        name = figure.dofs[index].name or figure.dof_label(index)
        below = theta[index] < figure.lower[index]
        bound = figure.lower[index] if below else figure.upper[index]
        what = f"{name} is {math.degrees(theta[index]):.2f}°, limit {math.degrees(bound):.2f}°"
    else:
        what = f"{label} is violated by {amount:.4g}"
    raise BlenderDataError(
        f"the current pose is outside the limits: {what}; "
        "clamp the pose to the limits first (Clamp to limits)"
    )


def solve_from_pose(
    obj: Any, setup: Setup, *, time_limit: float | None, restarts: int, clamp: bool = False
) -> Outcome:
    """Solve from the armature's current pose with its settings.

    Args:
        obj: The armature object.
        setup: Its problem.
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls.
        clamp: First move a pose outside the limits into them.

    Raises:
        BlenderDataError: A start pose outside the limits (unless ``clamp``) or bad input.
    """
    rig = setup.rig
    theta = read_pose(obj, rig)
    if clamp:
        theta = clamp_to_limits(theta, rig.figure.limits, rig.figure.lower, rig.figure.upper)
    check_start(rig, theta)
    return run_solve(setup, theta, obj.reach, time_limit=time_limit, restarts=restarts)


def clamp_pose(obj: Any, rig: Rig) -> list[str]:
    """Move the armature's pose into its limits (nearest pose inside them).

    Returns:
        The bones that moved (only these are written).
    """
    figure = rig.figure
    theta = read_pose(obj, rig)
    clamped = clamp_to_limits(theta, figure.limits, figure.lower, figure.upper)
    changed = changed_bones(rig, theta, clamped, threshold=0.0)
    write_pose(obj, rig, clamped, changed)
    return changed


def store_stats(obj: Any, outcome: Outcome, milliseconds: float) -> None:
    """Record a solve's statistics on the armature (shown in the sidebar)."""
    stats = obj.reach.stats
    result = outcome.result
    stats.status = result.status
    stats.objective = result.objective
    stats.residual = max(outcome.residuals.values(), default=0.0)
    stats.iterations = result.iterations
    stats.milliseconds = milliseconds
    stats.unmet = ", ".join(outcome.unmet)
    if outcome.unmet:
        stats.message = "not reachable, as close as the limits allow: " + ", ".join(
            f"{name} ({outcome.residuals[name]:.4g})" for name in outcome.unmet
        )
    else:
        stats.message = "all constraints met"
