"""Benchmark Reach against Blender's own IK on the same rig, targets and process.

Run with Blender 5.0 as a Python module, from the repository root::

    .venv-b50/bin/python bench/bench_blender.py [--quick] [--targets N] [--events N]
        [--scenarios arm,limbs,arm_limits,limbs_limits,arm_polygon,limbs_polygon]
        [--seed S] [--no-profile]

The Rigify basic human metarig (29 bones) gets, per scenario, Reach constraints (the
add-on built, validated, installed and enabled as a user's Blender does it) and Blender
IK constraints on the same effectors, chains and targets:

* ``arm``: the left wrist (tail of forearm.L), chain shoulder.L → forearm.L, 9 DOF;
* ``limbs``: both hands (tails of hand.L/R, chains to the spine root) and both feet
  (tails of foot.L/R, chains foot → thigh → spine), 54 DOF;
* ``arm_limits`` / ``limbs_limits``: the same with the forearms' IK limits
  X ∈ [0°, 140°], Y ∈ [-90°, 90°], Z ∈ [-10°, 10°] (Blender's ik_min/ik_max, which
  Reach reads as bounds on its Euler YXZ angles);
* ``arm_polygon`` / ``limbs_polygon``: a convex limit polygon on the upper arms' two
  swing rotations, X and Z of Reach's Euler YXZ reading (``SHOULDER_POLYGON_DEG`` in
  ``blender_rigs``, stored in ``obj.reach.joints`` as the joint panel stores it), on the
  wrist with the chain upper_arm.L → forearm.L (6 DOF) and on four limbs each from its
  own root joint (hands from the upper arms, feet from the thighs; 36 DOF): with the
  clavicles and the spine in the chains they aim the arms around the polygon, which
  then cuts nothing. Blender cannot express a polygon: only its Standard IK runs,
  without any limit, for reference. Random poses and drag paths stay inside the
  polygons, so every target is reachable with them. A pose's polygon violation is
  read from each upper arm's evaluated local rotation as Euler YXZ angles (as Reach
  reads the bone): the largest signed distance of (X, Z) past an edge's line, in
  degrees (0 inside); for Reach also from ``bridge.pose.read_pose``.

Per scenario two kinds of events: ``random`` — targets made by forward kinematics of
random poses (within the limits, under both readings of them below), each solved from
the rest pose (Reach: pose reset, then Solve's process: goals moved, depsgraph update,
build_problem, solve_from_pose with the armature's restarts, write_pose, depsgraph update);
and ``drag`` — one goal (wrist.L / hand.L) dragged along a reachable path with steps of
2% of its limb length while the other goals hold (Reach: ``DragSession.step``, warm
started, the armature's time budget). Blender's IK (Standard = 'LEGACY' and iTaSC, 500
and 50 iterations; iTaSC also at its finest precision, 1e-4 m instead of 0.005 m) is
timed as goal move + ``view_layer.update()``; it always solves from the pose channels
(the rest pose). Only one method's constraints exist at a time.

Every residual is measured on Blender's evaluated pose: distance effector → target over
the limb length (sum of the limb's own bone lengths; the spine is not counted), the
largest over the scenario's effectors. Limit violations are read from the evaluated
local rotations of the limited bones in two ways, each as the angle to the nearest
allowed rotation: Reach's reading (Euler YXZ angles within the bounds; the raw excess
of the Euler angles is kept in the JSON too) and Blender Standard IK's (twist about Y
within the Y limits, swing of the Y axis within sin(limit/2) on a quarter ellipse per
quadrant, IK_QSphericalSegment); for Reach also from ``bridge.pose.read_pose`` against the
figure's limits.

Writes ``bench/results/blender.json``, ``bench/results/blender.md`` and, unless
``--no-profile``, ``bench/results/blender_profile.txt``: where Reach's per-event time
goes in the one-arm and four-limb drags (phases timed by wrapping the add-on's and the
solver's functions, then a cProfile listing of a second pass). Takes about three minutes
on two cores; ``--quick`` about twenty seconds. ``blender_drag_whatif.py`` measures the
speed-ups that the profile suggests.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import pstats
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import machine  # first: one BLAS thread for numpy and bpy

sys.path.insert(0, str(Path(__file__).resolve().parent))

import blender_rigs as rigs
import bpy
import numpy as np
from harness import BenchmarkParser, Count, write_files

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

    def __init__(self, obj: Any, rig: Any, scenario: rigs.Scenario) -> None:
        self.obj = obj
        self.rig = rig
        self.scenario = scenario
        self.figure = rig.figure
        self.index = {entry.name: k for k, entry in enumerate(rig.layout)}
        self.limits = {bone: rigs.ik_limits(obj, bone) for bone in scenario.elbow_limits}
        self.polygons = polygon_dofs(obj, rig, scenario.polygons)

    def euler(self, theta: np.ndarray, bone: str) -> np.ndarray:
        entry = self.rig.bone(bone)
        angles = {
            axis.lower(): float(theta[entry.rotation + j])
            for j, axis in enumerate(entry.order[::-1])
        }
        return rigs.euler_matrix(angles, entry.order)

    def allowed(self, theta: np.ndarray) -> bool:
        """Inside the limited bones' limits under Blender's swing-twist reading too, and
        inside the limit polygons."""
        return all(
            rigs.swing_twist_violation(self.euler(theta, bone), limits) <= 1e-7
            for bone, limits in self.limits.items()
        ) and all(
            rigs.polygon_excess(theta[[i, j]], vertices) <= 0.0
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
                    rigs.SPREAD_DEG["spine" if bone.startswith("spine") else "default"]
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

    def effector(self, theta: np.ndarray, limb: rigs.Limb) -> np.ndarray:
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
        _, axes, vertices = rigs.joint_polygon(obj, bone)
        entry = rig.bone(bone)
        i, j = (rig.figure.dof_index(bone, entry.axis_position(axis)) for axis in axes)
        result[bone] = (i, j, vertices)
    return result


# --- one event ------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """A scenario set up on the metarig: what every event of every method is measured on."""

    obj: Any
    scenario: rigs.Scenario
    lengths: np.ndarray
    """Each limb's length [m], in the scenario's order of limbs."""


def measure(stage: Stage, targets: np.ndarray, elapsed: float) -> dict[str, Any]:
    obj, scenario = stage.obj, stage.scenario
    points = rigs.effector_points(obj, scenario.limbs)
    error = float(np.max(np.linalg.norm(points - targets, axis=1) / stage.lengths))
    box, euler, swing = rigs.limit_violations(obj, scenario.elbow_limits)
    run = {
        "ms": 1e3 * elapsed,
        "error": error,
        "violation_box": box,
        "violation_euler": euler,
        "violation_swing": swing,
    }
    if scenario.polygons:
        signed = rigs.polygon_signed_pose(obj, scenario.polygons)
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
    reach: ModuleType, obj: Any, scenario: rigs.Scenario, rig: Any, theta: np.ndarray
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
                rigs.polygon_excess(read[[i, j]], vertices)
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


# --- where a drag event's time goes -------------------------------------------------------


class PhaseClock:
    """Wraps module functions and a view layer to add up the time spent in each."""

    def __init__(self) -> None:
        self.totals: defaultdict[str, float] = defaultdict(float)
        self.patched: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        totals = self.totals

        def timed(*args: Any, **kwargs: Any) -> Any:
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] += time.perf_counter() - begin

        setattr(owner, name, timed)
        self.patched.append((owner, name, original))

    def restore(self) -> None:
        for owner, name, original in reversed(self.patched):
            setattr(owner, name, original)
        self.patched.clear()


class TimedViewLayer:
    """Stands in for ``DragSession.view_layer``: the step's first update follows the goal
    move, the second the pose write."""

    def __init__(self, view_layer: Any, clock: PhaseClock, first: str, second: str) -> None:
        self.view_layer = view_layer
        self.clock = clock
        self.labels = (first, second)
        self.calls = 0

    def update(self) -> None:
        label = self.labels[self.calls % 2]
        self.calls += 1
        begin = time.perf_counter()
        self.view_layer.update()
        self.clock.totals[label] += time.perf_counter() - begin


def profile_drag(
    reach: ModuleType,
    obj: Any,
    goals: list[Any],
    targets: np.ndarray,
    dragged: int,
    rest: np.ndarray,
) -> tuple[dict[str, Any], str]:
    """Phase times per event of the drag (one pass) and a cProfile listing (another)."""
    bridge = reach.addon.bridge
    events = len(targets)
    solver = reach.solver
    clock = PhaseClock()
    labels = {
        "goal": "  depsgraph update after goal move",
        "build": "  refresh_goals (goal objects → solver goals)",
        "build_goal": "    build_goal (the goal empties that moved)",
        "problem": "    Problem.with_goals (goals restacked, chains kept)",
        "run": "  run_solve",
        "solve": "    solve (the solver)",
        "evaluate": "      problem.evaluate_variables (G and ∇G)",
        "gauss": "      problem.gauss_newton_variables (metric)",
        "frames": "      kinematics.frames (FK of all 29 bones; in the two above)",
        "write": "  PoseWriter.write (foreach_get / foreach_set)",
        "pose": "  depsgraph update after the pose is written",
    }
    clock.wrap(bridge.goals, "refresh_goals", labels["build"])
    clock.wrap(bridge.goals, "build_goal", labels["build_goal"])
    clock.wrap(solver.problem.Problem, "with_goals", labels["problem"])
    clock.wrap(bridge.solving, "run_solve", labels["run"])
    clock.wrap(bridge.solving, "solve", labels["solve"])
    clock.wrap(solver.problem.Problem, "evaluate_variables", labels["evaluate"])
    clock.wrap(solver.problem.Problem, "gauss_newton_variables", labels["gauss"])
    clock.wrap(solver.kinematics.Kinematics, "frames", labels["frames"])
    clock.wrap(bridge.pose.PoseWriter, "write", labels["write"])
    iterations, evaluations = [], []
    try:
        drag = start_drag(reach, obj, goals, rest, dragged)
        drag.view_layer = TimedViewLayer(drag.view_layer, clock, labels["goal"], labels["pose"])
        clock.totals.clear()
        begin = time.perf_counter()
        for points in targets:
            stats = drag.step(points[dragged])
            iterations.append(stats.iterations)
            assert drag.last is not None
            evaluations.append(drag.last.result.nfev)
        total = time.perf_counter() - begin
    finally:
        clock.restore()
    spent = {key: 1e3 * clock.totals[label] / events for key, label in labels.items()}
    phases = {"step total (DragSession.step)": 1e3 * total / events}
    for key, label in labels.items():
        phases[label] = spent[key]
        if key == "frames":
            phases["      rest of the solver (metric, projections, line search, set-up)"] = (
                spent["solve"] - spent["evaluate"] - spent["gauss"]
            )
            phases["    run_solve outside solve (potentials, residuals)"] = (
                spent["run"] - spent["solve"]
            )
    phases["  rest of step (goal move, checks, stats)"] = phases[
        "step total (DragSession.step)"
    ] - sum(spent[key] for key in ("goal", "build", "run", "write", "pose"))
    phases["iterations per event (mean)"] = statistics.fmean(iterations)
    phases["objective evaluations per event (mean)"] = statistics.fmean(evaluations)

    drag = start_drag(reach, obj, goals, rest, dragged)
    profiler = cProfile.Profile()
    profiler.enable()
    for points in targets:
        drag.step(points[dragged])
    profiler.disable()
    text = io.StringIO()
    listing = pstats.Stats(profiler, stream=text)
    listing.sort_stats("cumulative").print_stats(45)
    listing.sort_stats("tottime").print_stats(30)
    return phases, text.getvalue()


# --- a scenario ----------------------------------------------------------------------------


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = np.array([run["ms"] for run in runs])
    errors = np.array([run["error"] for run in runs])
    row: dict[str, Any] = {
        "events": len(runs),
        "median_ms": float(np.median(times)),
        "p90_ms": float(np.percentile(times, 90)),
        "max_ms": float(np.max(times)),
        "median_error": float(np.median(errors)),
        "max_error": float(np.max(errors)),
        **{f"success_{t:g}": float(np.mean(errors <= t)) for t in SUCCESS},
        "max_violation_box_deg": max(run["violation_box"] for run in runs),
        "max_violation_euler_deg": max(run["violation_euler"] for run in runs),
        "max_violation_swing_deg": max(run["violation_swing"] for run in runs),
        "violating_events_box": sum(run["violation_box"] > VIOLATING_DEG for run in runs),
        "violating_events_swing": sum(run["violation_swing"] > VIOLATING_DEG for run in runs),
    }
    if "solve_ms" in runs[0]:
        row["median_solve_ms"] = statistics.median(run["solve_ms"] for run in runs)
        row["median_iterations"] = statistics.median(run["iterations"] for run in runs)
        row["statuses"] = dict(Counter(run["status"] for run in runs))
        row["max_violation_read_deg"] = max(run["violation_read"] for run in runs)
    if "violation_polygon" in runs[0]:
        polygon = np.array([run["violation_polygon"] for run in runs])
        row["median_violation_polygon_deg"] = float(np.median(polygon))
        row["max_violation_polygon_deg"] = float(np.max(polygon))
        row["violating_events_polygon"] = int(np.sum(polygon > VIOLATING_DEG))
        signed = np.array([run["polygon_signed"] for run in runs])
        row["boundary_events_polygon"] = int(np.sum(signed >= -VIOLATING_DEG))
    if "violation_polygon_read" in runs[0]:
        row["max_violation_polygon_read_deg"] = max(run["violation_polygon_read"] for run in runs)
    return row


def columns(runs: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per-event records as one list per field, floats to 4 significant digits."""
    return {
        key: [float(f"{run[key]:.4g}") if isinstance(run[key], float) else run[key] for run in runs]
        for key in runs[0]
    }


def run_scenario(
    reach: ModuleType, scenario: rigs.Scenario, args: argparse.Namespace
) -> dict[str, Any]:
    rng = np.random.default_rng([args.seed, list(rigs.SCENARIOS).index(scenario.key)])
    bridge = reach.addon.bridge
    obj = rigs.new_metarig()
    rigs.set_elbow_limits(obj, scenario.elbow_limits)
    view_layer = bpy.context.view_layer
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.set_polygons(obj, scenario.polygons)
    for limb in scenario.limbs:
        result = bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=limb.bone,
            effector="TAIL",
            chain_start=limb.chain[-1],
            name=limb.name,
        )
        assert result == {"FINISHED"}
    view_layer.update()
    goals = [obj.reach.constraints[limb.name].goal for limb in scenario.limbs]
    rest = rigs.effector_points(obj, scenario.limbs)
    empties = [
        rigs.add_empty(f"IK target {limb.name}", p)
        for limb, p in zip(scenario.limbs, rest, strict=True)
    ]
    lengths = np.array([rigs.limb_length(obj, limb) for limb in scenario.limbs])
    stage = Stage(obj, scenario, lengths)
    rig = bridge.rig.build_rig(obj)
    setup = bridge.goals.build_problem(obj, bpy.context.scene, rig)
    variables = int(np.count_nonzero(setup.problem.variable_mask))
    chain_dofs = sum(len(rig.figure.segment(b).dofs) for b in scenario.bones)
    poser = Poser(obj, rig, scenario)

    # random targets: Blender's forward kinematics of random poses
    poses = [poser.random(scenario.bones, rng) for _ in range(args.targets)]
    random_targets = []
    fk_gap = 0.0
    for theta in poses:
        rigs.reset_pose(obj)
        bridge.pose.write_pose(obj, rig, theta)
        view_layer.update()
        points = rigs.effector_points(obj, scenario.limbs)
        fk_gap = max(
            fk_gap,
            max(
                float(np.linalg.norm(points[k] - poser.effector(theta, limb)))
                for k, limb in enumerate(scenario.limbs)
            ),
        )
        random_targets.append(points)
    random_targets_array = np.array(random_targets)
    rigs.reset_pose(obj)
    view_layer.update()

    dragged = [limb.name for limb in scenario.limbs].index(scenario.dragged)
    step = STEP * lengths[dragged]
    path = poser.drag_path(rng, args.events, step)
    drag_targets = np.repeat(rest[None], args.events, axis=0)
    drag_targets[:, dragged] = path

    print(
        f"\n== {scenario.title}: {variables} variables ({chain_dofs} DOF in the chains), "
        f"limb lengths {', '.join(f'{v:.3f}' for v in lengths)} m, "
        f"{args.targets} random targets, {args.events}-event drag of {scenario.dragged} "
        f"(step {1e3 * step:.1f} mm); FK Blender vs Reach figure {fk_gap:.1e} m",
        flush=True,
    )

    # depsgraph floor: one bone channel changed, armature re-evaluated, no IK
    floor = []
    bone = obj.pose.bones[scenario.limbs[0].bone]
    for k in range(50):
        begin = time.perf_counter()
        bone.location = (0.0, 0.0, 1e-6 * (k % 2))
        view_layer.update()
        floor.append(time.perf_counter() - begin)
    bone.location = (0.0, 0.0, 0.0)
    view_layer.update()

    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    settings: dict[str, Any] = {}
    everything = list(range(len(scenario.limbs)))
    rigs.add_blender_ik(
        obj, scenario.limbs, dict(zip([lb.name for lb in scenario.limbs], empties, strict=True))
    )
    for key, title, solver, iterations, precision in BLENDER_METHODS:
        if scenario.blender_methods is not None and key not in scenario.blender_methods:
            continue
        settings[key] = rigs.configure_blender_ik(obj, solver, iterations, precision)
        began = time.perf_counter()
        random_runs = blender_events(stage, empties, random_targets_array, everything)
        move(empties, rest)
        view_layer.update()
        drag_runs = blender_events(stage, empties, drag_targets, [dragged])
        move(empties, rest)
        view_layer.update()
        runs[key] = {"random": random_runs, "drag": drag_runs}
        print(f"  {title:22s} done in {time.perf_counter() - began:6.1f} s", flush=True)
    rigs.remove_blender_ik(obj)
    obj.pose.ik_solver = "LEGACY"
    rigs.reset_pose(obj)
    view_layer.update()

    began = time.perf_counter()
    reach_settings = obj.reach
    settings["reach"] = {
        "random": f"reach.solve's process: restarts={reach_settings.restarts}, no time limit",
        "drag": (
            f"DragSession.step: restarts=0, time_budget={reach_settings.time_budget:g} s, "
            f"adaptive={reach_settings.adaptive}"
        ),
        "tolerance": float(f"{reach_settings.tolerance:.6g}"),
        "reach_distance": float(f"{reach_settings.reach_distance:.6g}"),
    }
    runs["reach"] = {
        "random": reach_random(reach, stage, goals, random_targets_array),
        "drag": reach_drag(reach, stage, goals, drag_targets, dragged, rest),
    }
    print(f"  {'Reach':22s} done in {time.perf_counter() - began:6.1f} s", flush=True)
    methods = [method for method in METHOD_TITLES if method in runs]

    record: dict[str, Any] = {
        "title": scenario.title,
        "limbs": [
            {
                "name": limb.name,
                "effector": f"{limb.bone} tail",
                "chain": list(limb.chain),
                "length_m": float(length),
            }
            for limb, length in zip(scenario.limbs, lengths, strict=True)
        ],
        "variables": variables,
        "elbow_limits": list(scenario.elbow_limits),
        "limit_polygons": {
            bone: {
                "euler_order": order,
                "axes": axes,
                "vertices_deg": [
                    [round(math.degrees(v), 4) for v in vertex] for vertex in vertices
                ],
            }
            for bone in scenario.polygons
            for order, axes, vertices in [rigs.joint_polygon(obj, bone)]
        },
        **({"note": POLYGON_NOTE} if scenario.polygons else {}),
        "dragged": scenario.dragged,
        "drag_step_m": float(step),
        "fk_gap_m": fk_gap,
        "depsgraph_update_without_ik_ms": 1e3 * statistics.median(floor),
        "settings": settings,
        "summary": {
            kind: {method: summary(runs[method][kind]) for method in methods}
            for kind in ("random", "drag")
        },
        "events": {
            method: {kind: columns(runs[method][kind]) for kind in ("random", "drag")}
            for method in methods
        },
    }
    if args.profile and scenario.key in args.profile_scenarios.split(","):
        print("  profiling Reach's drag ...", flush=True)
        phases, listing = profile_drag(reach, obj, goals, drag_targets, dragged, rest)
        record["drag_profile_ms_per_event"] = phases
        record["drag_profile_listing"] = listing
    return record


# --- output --------------------------------------------------------------------------------

COLUMNS = (
    ("method", "{}", "", 22),
    ("median ms", "{:.2f}", "median_ms", 10),
    ("p90 ms", "{:.2f}", "p90_ms", 9),
    ("max ms", "{:.2f}", "max_ms", 9),
    ("med. err", "{:.1e}", "median_error", 9),
    ("max err", "{:.1e}", "max_error", 9),
    ("ok 1e-6", "{:.0%}", "success_1e-06", 8),
    ("ok 1e-3", "{:.0%}", "success_0.001", 8),
    ("viol. box°", "{:.2f}", "max_violation_box_deg", 11),
    ("viol. swing°", "{:.2f}", "max_violation_swing_deg", 13),
)
"""(header, format, summary field or "" for the method's title, printed width)."""
POLYGON_COLUMNS = (
    ("viol. poly°", "{:.2f}", "max_violation_polygon_deg", 12),
    ("poly. viol.", "{:d}", "violating_events_polygon", 12),
    ("poly. binds", "{:d}", "boundary_events_polygon", 12),
)
"""Columns added for scenarios with limit polygons."""


def record_columns(record: dict[str, Any]) -> tuple[tuple[str, str, str, int], ...]:
    return COLUMNS + (POLYGON_COLUMNS if record.get("limit_polygons") else ())


def table_rows(record: dict[str, Any]) -> list[tuple[str, list[str]]]:
    rows = []
    for kind in ("random", "drag"):
        for method, row in record["summary"][kind].items():
            cells = [
                fmt.format(row[field] if field else METHOD_TITLES[method])
                for _, fmt, field, _ in record_columns(record)
            ]
            rows.append((kind, cells))
    return rows


def print_table(record: dict[str, Any]) -> None:
    shown = record_columns(record)
    header = " ".join(
        f"{name:{'<' if k == 0 else '>'}{w}s}" for k, (name, _, _, w) in enumerate(shown)
    )
    print(f"\n{record['title']} — {record['variables']} variables")
    print(f"{'kind':7s}{header}")
    for kind, cells in table_rows(record):
        line = " ".join(
            f"{cell:{'<' if k == 0 else '>'}{w}s}"
            for k, (cell, (_, _, _, w)) in enumerate(zip(cells, shown, strict=True))
        )
        print(f"{kind:7s}{line}")


def markdown(meta: dict[str, Any], records: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Reach vs Blender's IK on the Rigify basic human metarig",
        "",
        f"{meta['date']} · {meta['cpu_model']}, {meta['cpu_count']} cores · Blender "
        f"{meta['blender']} (bpy module) · Python {meta['python']} · numpy {meta['numpy']}",
        "",
        "Per event: time from goal move to the evaluated pose (ms); residual = largest "
        "effector-to-target distance over its limb length, on Blender's evaluated pose; "
        "ok = share of events with every residual within 1e-6 / 1e-3 × limb length; "
        "viol. box° = largest angle from an elbow's evaluated local rotation to the "
        "nearest rotation inside its IK limits read as Reach reads them (bounds on Euler "
        "YXZ angles); viol. swing° = the same for Blender Standard IK's reading (twist "
        "about Y bounded by the Y limits, swing bounded by sin(limit/2) on a quarter "
        "ellipse per quadrant). random: from the rest pose to FK targets of random "
        "poses (inside the limits in both readings); drag: one goal dragged, steps of "
        "2% of its limb length, the other goals held (Reach warm starts; Blender's IK "
        "always solves from the pose channels, i.e. the rest pose). With limit polygons: "
        "viol. poly° = largest signed distance of an upper arm's (X, Z) angles past an "
        "edge of its polygon, the evaluated local rotation read as Reach reads the bone "
        "(Euler YXZ), 0 inside; poly. viol. = events with viol. poly° > 0.001°; "
        "poly. binds = events on (within 0.001°) or past a polygon's boundary.",
        "",
        "| method | settings |",
        "|---|---|",
    ]
    for method, title in METHOD_TITLES.items():
        used = [record["settings"].get(method) for record in records.values()]
        used = [settings for settings in used if settings is not None]
        if used:
            shown = ", ".join(f"{k}={v}" for k, v in used[0].items())
            lines.append(f"| {title} | {shown} |")
    lines.append("")
    for record in records.values():
        lines.append(
            f"## {record['title']} — {record['variables']} variables, "
            f"{record['summary']['random']['reach']['events']} random targets, "
            f"{record['summary']['drag']['reach']['events']}-event drag of {record['dragged']}"
        )
        lines.append("")
        lines.append(
            f"Depsgraph update without IK: {record['depsgraph_update_without_ik_ms']:.2f} ms."
        )
        lines.append("")
        if "note" in record:
            lines.append(record["note"])
            lines.append("")
        for bone, polygon in record.get("limit_polygons", {}).items():
            corners = ", ".join(f"({x:g}, {z:g})" for x, z in polygon["vertices_deg"])
            lines.append(
                f"Limit polygon of {bone} over rotations {', '.join(polygon['axes'])} "
                f"(Euler {polygon['euler_order']}) [deg]: {corners}."
            )
        if record.get("limit_polygons"):
            lines.append("")
        shown = record_columns(record)
        lines.append("| kind | " + " | ".join(name for name, *_ in shown) + " |")
        lines.append("|---|" + "---|" * len(shown))
        for kind, cells in table_rows(record):
            lines.append(f"| {kind} | " + " | ".join(cells) + " |")
        lines.append("")
        if record["elbow_limits"]:
            for kind in ("random", "drag"):
                counts = ", ".join(
                    f"{title} {row['violating_events_box']}/{row['violating_events_swing']}"
                    f" (Euler-angle excess up to {row['max_violation_euler_deg']:.1f}°)"
                    for method, row in record["summary"][kind].items()
                    for title in [METHOD_TITLES[method]]
                )
                lines.append(f"Events violating (box/swing, > 0.001°), {kind}: {counts}.")
            lines.append("")
        for kind in ("random", "drag"):
            row = record["summary"][kind]["reach"]
            lines.append(
                f"Reach {kind}: median solve {row['median_solve_ms']:.2f} ms, median "
                f"{row['median_iterations']:g} iterations, statuses {row['statuses']}, "
                f"largest violation read back by read_pose {row['max_violation_read_deg']:.2g}°"
                + (
                    f", of the polygons alone {row['max_violation_polygon_read_deg']:.2g}°."
                    if "max_violation_polygon_read_deg" in row
                    else "."
                )
            )
        lines.append("")
        if "drag_profile_ms_per_event" in record:
            lines.append("Reach drag event, where the time goes (ms per event):")
            lines.append("")
            lines.append("| phase | ms |")
            lines.append("|---|---|")
            for phase, value in record["drag_profile_ms_per_event"].items():
                indent = len(phase) - len(phase.lstrip(" "))
                lines.append(f"| {'&nbsp;' * indent}{phase.strip()} | {value:.2f} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def dump(meta: dict[str, Any], records: dict[str, dict[str, Any]]) -> str:
    """JSON, indented, but each per-event list on one line."""
    compact: dict[str, str] = {}
    shown = {}
    for key, record in records.items():
        events = {}
        for method, kinds in record["events"].items():
            for kind, fields in kinds.items():
                for name, values in fields.items():
                    token = f"@@{len(compact)}@@"
                    compact[token] = json.dumps(values, separators=(",", ":"))
                    events.setdefault(method, {}).setdefault(kind, {})[name] = token
        shown[key] = {**record, "events": events}
    text = json.dumps({**meta, "scenarios": shown}, indent=1)
    for token, values in compact.items():
        text = text.replace(f'"{token}"', values)
    return text + "\n"


def main() -> None:
    counts = {"targets": Count("random targets", 20, 200), "events": Count("drag events", 40, 300)}
    parser = BenchmarkParser(__doc__, "blender", "20 targets, 40 drag events", counts)
    parser.add_argument("--scenarios", default=",".join(rigs.SCENARIOS), help="comma-separated")
    parser.add_argument("--no-profile", dest="profile", action="store_false")
    parser.add_argument(
        "--profile-scenarios", default="arm,limbs", help="drags to profile, comma-separated"
    )
    args = parser.parse_args()
    keys = [key.strip() for key in args.scenarios.split(",") if key.strip()]
    unknown = [key for key in keys if key not in rigs.SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; choose from {list(rigs.SCENARIOS)}")

    started = time.perf_counter()
    reach = rigs.load_reach()
    try:
        meta = {
            **machine.about(),
            "blender": bpy.app.version_string,
            "targets": args.targets,
            "events": args.events,
            "seed": args.seed,
            "drag_step": f"{STEP:g} x limb length",
            "success": [f"every effector within {t:g} x limb length" for t in SUCCESS],
            "elbow_limits_deg": rigs.ELBOW_LIMITS_DEG,
            "shoulder_polygon_deg": {
                "bone": "upper_arm.L (upper_arm.R: the mirror image, Z negated)",
                "axes": "XZ",
                "euler_order": "YXZ",
                "vertices": rigs.SHOULDER_POLYGON_DEG,
            },
            "violating_deg": VIOLATING_DEG,
            "random_spread_deg": rigs.SPREAD_DEG,
        }
        records = {key: run_scenario(reach, rigs.SCENARIOS[key], args) for key in keys}
    finally:
        rigs.unload_reach()
    meta["wall_s"] = round(time.perf_counter() - started, 1)

    for record in records.values():
        print_table(record)
        if "drag_profile_ms_per_event" in record:
            print(f"\nReach drag event, {record['title']}, ms per event:")
            for phase, value in record["drag_profile_ms_per_event"].items():
                print(f"  {phase:72s} {value:8.2f}")
    print(f"\nwall time {meta['wall_s']} s")

    listings = []
    for record in records.values():
        text = record.pop("drag_profile_listing", None)
        if text is not None:
            listings.append(f"==== Reach drag: {record['title']}\n\n{text}")
    profile = args.output.with_name(args.output.stem + "_profile.txt")
    files = {
        args.output: dump(meta, records),
        args.output.with_suffix(".md"): markdown(meta, records),
    }
    write_files({**files, profile: "\n\n".join(listings)} if listings else files)


if __name__ == "__main__":
    main()
