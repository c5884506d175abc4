"""The demo's summary: figures over the drag events, the printed table, and the checks.

The checks are what the summary shows: every goal reached within
:data:`RESIDUAL_TOLERANCE` arm lengths (each event and the final pose), the ankles kept
on their floor goals, and no joint limit violated by more than :data:`LIMIT_TOLERANCE`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np
from drags import Segment
from figure import FEET
from monitor import Monitor

RESIDUAL_TOLERANCE = 1e-4
"""Largest distance from a goal [arm lengths] the demo accepts (each event, final pose)."""

LIMIT_TOLERANCE = 1e-6
"""Largest joint-limit excess [rad] the demo accepts: the turn single precision leaves a
stored rotation (the solver's ``rotations.ROTATION_ROUNDING``). Quaternion bones are read
back as the Euler angles within that turn that keep their limits best."""


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``."""
    return float(np.percentile(np.asarray(values, dtype=float), q))


def summarize(
    events: list[dict[str, Any]],
    arm: float,
    final: dict[str, float],
    monitor: Monitor,
    limits: tuple[float, str, int],
    drag_seconds: float,
    render_seconds: float,
) -> dict[str, Any]:
    """The demo's figures, as written into ``events.json``.

    Args:
        events: Every drag event, in order.
        arm: The arm's length [m], the unit of the residuals.
        final: Per constraint, its residual in Blender's final pose [m].
        monitor: The depsgraph handler that watched the drags.
        limits: :meth:`Monitor.limits`: the largest violation [rad], its limit, the poses.
        drag_seconds: Time the drags took [s].
        render_seconds: Time the render took [s].

    Returns:
        The summary, by name.
    """
    limit_violation, worst_limit, poses_checked = limits
    ms = [e["milliseconds"] for e in events]
    solve_ms = [e["solve_milliseconds"] for e in events]
    event_residuals = [e["residual"] for e in events]
    return {
        "events": len(events),
        "arm_length": arm,
        "ms_per_event": {
            "median": statistics.median(ms),
            "p90": percentile(ms, 90),
            "max": max(ms),
        },
        "solve_ms": {"median": statistics.median(solve_ms), "max": max(solve_ms)},
        "iterations": {
            "median": statistics.median(e["iterations"] for e in events),
            "max": max(e["iterations"] for e in events),
        },
        "statuses": {
            s: sum(e["status"] == s for e in events) for s in {e["status"] for e in events}
        },
        "residual_over_arm": {
            "median": statistics.median(event_residuals) / arm,
            "max": max(event_residuals) / arm,
        },
        "final_residuals": final,
        "feet_drift": max(monitor.feet_drift, *(final[n] for n in FEET)),
        "limit_violation": limit_violation,
        "worst_limit": worst_limit,
        "poses_checked_for_limits": poses_checked,
        "pose_measurements": monitor.updates,
        "measurement_ms_per_update": 1000.0 * monitor.seconds / max(monitor.updates, 1),
        "drag_seconds": drag_seconds,
        "render_seconds": render_seconds,
    }


def print_summary(summary: dict[str, Any], segments: list[Segment]) -> None:
    """Print the summary table."""
    arm = summary["arm_length"]
    print()
    print(
        f"Reach demo, Blender {bpy.app.version_string}: 4 position constraints, ankles "
        f"(foot.L, foot.R) held on the floor, wrists (hand.L, hand.R) dragged"
    )
    print()
    header = f"  {'drag':28s} {'events':>6s}  {'ms/event: median':>16s} {'p90':>6s} {'max':>6s}"
    print(header + f"  {'iterations':>10s}  {'max residual/arm':>16s}")
    rows = [(s.name, s.events) for s in segments]
    rows.append(("all", [e for s in segments for e in s.events]))
    for name, events in rows:
        ms = [e["milliseconds"] for e in events]
        print(
            f"  {name:28s} {len(events):6d}  {statistics.median(ms):16.1f} "
            f"{percentile(ms, 90):6.1f} {max(ms):6.1f}  "
            f"{statistics.median(e['iterations'] for e in events):10.0f}  "
            f"{max(e['residual'] for e in events) / arm:16.1e}"
        )
    print()
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(summary["statuses"].items()))
    print(
        f"  per event: solve alone median {summary['solve_ms']['median']:.1f} ms "
        f"(of {summary['ms_per_event']['median']:.1f}); solver status: {statuses}"
    )
    residual = summary["residual_over_arm"]
    print(
        f"  residual ÷ arm length ({arm:.3f} m), the largest of the 4 per event: "
        f"median {residual['median']:.1e}, max {residual['max']:.1e}"
    )
    print(
        "  final pose, effector to goal (Blender's pose): "
        + ", ".join(f"{k} {v * 1000:.4f} mm" for k, v in summary["final_residuals"].items())
    )
    print(
        f"  feet drift: max {summary['feet_drift'] * 1000:.4f} mm from the floor goals "
        f"(Blender's pose after each of {summary['pose_measurements']} depsgraph updates, "
        f"measuring took {summary['measurement_ms_per_update']:.2f} ms each)"
    )
    excess = math.degrees(summary["limit_violation"])
    verdict = (
        f"VIOLATED ({summary['worst_limit']} by {excess:.3g}°)"
        if summary["limit_violation"] > LIMIT_TOLERANCE
        else f"never violated (largest excess {excess:.1g}°, single-precision rounding)"
    )
    print(f"  joint limits: {verdict}, {summary['poses_checked_for_limits']} poses checked")


def failures(summary: dict[str, Any]) -> list[str]:
    """What the demo's figures show to be wrong (empty when all is well)."""
    arm = summary["arm_length"]
    found = []
    if summary["residual_over_arm"]["max"] > RESIDUAL_TOLERANCE:
        found.append(
            f"a drag event left a constraint {summary['residual_over_arm']['max']:.2g} arm "
            f"lengths from its goal (allowed {RESIDUAL_TOLERANCE:g})"
        )
    for name, value in summary["final_residuals"].items():
        if value > RESIDUAL_TOLERANCE * arm:
            found.append(f"in the final pose, {name} is {value * 1000:.3g} mm from its goal")
    if summary["feet_drift"] > RESIDUAL_TOLERANCE * arm:
        found.append(
            f"the ankles drifted {summary['feet_drift'] * 1000:.3g} mm off the floor goals"
        )
    if summary["limit_violation"] > LIMIT_TOLERANCE:
        found.append(f"joint limit {summary['worst_limit']} was violated")
    return found
