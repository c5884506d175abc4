"""Benchmark every solver method through the add-on in Blender 5.0.

Run from the repository root with the Blender 5.0 virtualenv::

    .venv-blender-5.0/bin/python -m bench.blender.methods [--quick] [--targets N]
        [--events N]

The Rigify basic human metarig (the forearms limited as in ``versus_ik``'s limits
scenarios: ``scenarios.ELBOW_LIMITS_DEG``), Reach constraints
on both hands (chains from the shoulders) and both feet (from the thighs), as the
add-on's tests build it. For each method of ``solver.METHODS`` chosen in the solver
panel (``Object.reach.method.kind``, default options):

(a) ``solve``: the left hand's goal put at a random reachable place (the hand's tail at
a random pose of the left arm inside its limits), the pose reset to rest, then
``bpy.ops.reach.solve``: the hand's distance from its goal on Blender's evaluated pose
over the arm's length, the operator's time, and the solver's iterations and status;
(b) ``drag``: ``bpy.ops.reach.drag_goal`` replays the left hand's goal along the hand's
path from rest to a random arm pose (the add-on's drag, 0.1 s per event): each event's
largest residual over the arm's length, solve time, iterations and limit violation.

Writes ``bench/results/methods_blender.json`` and ``.md``.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import bpy
import numpy as np

from bench import machine
from bench.blender.rigs import load_reach, new_metarig, reset_pose, set_elbow_limits, unload_reach
from bench.harness import BenchmarkParser, Count, table, write_results

METHODS = ("goldfarb", "lbfgsb", "dls", "jacobian_transpose")
ARM = ("shoulder.L", "upper_arm.L", "forearm.L")
LIMBS = (("hand", "forearm", "shoulder"), ("foot", "shin", "thigh"))
COLUMNS = (
    "task",
    "method",
    "runs",
    "≤ 1e-6 × arm",
    "≤ 1e-3 × arm",
    "median ms",
    "median iterations",
    "max violation",
)
COUNTS = {
    "targets": Count("solve targets and drag paths", 3, 20),
    "events": Count("events per drag path", 5, 20),
}
"""The command line's counts: full and ``--quick``."""


def build_rig() -> Any:
    """The metarig with the limits scenarios' elbows as a Reach figure, four constraints."""
    obj = new_metarig()
    set_elbow_limits(obj, ("forearm.L", "forearm.R"))
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    for side in ("L", "R"):
        for name, bone, start in LIMBS:
            made = bpy.ops.reach.add_constraint(
                armature=obj.name,
                bone=f"{bone}.{side}",
                effector="TAIL",
                chain_start=f"{start}.{side}",
                name=f"{name}.{side}",
            )
            assert made == {"FINISHED"}
    return obj


def hand_places(reach: Any, obj: Any, count: int, steps: int, seed: int) -> list[np.ndarray]:
    """``count`` paths of ``steps`` hand places each, from rest to a random arm pose."""
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    figure = rig.figure
    rng = np.random.default_rng(seed)
    bone = [entry.name for entry in rig.layout].index("forearm.L")
    length = obj.data.bones["forearm.L"].length
    paths = []
    for _ in range(count):
        end = np.zeros(figure.n_dofs)
        for name in ARM:
            for i in figure.segment(name).dof_indices:
                end[i] = rng.uniform(max(figure.lower[i], -1.0), min(figure.upper[i], 1.0))
        path = []
        for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
            frame = figure.forward(t * end)[bone]
            path.append(frame[:3, :3] @ (0.0, length, 0.0) + frame[:3, 3])
        paths.append(np.array(path))
    return paths


def _row(task: str, method: str, runs: list[dict[str, float]]) -> dict[str, Any]:
    row: dict[str, Any] = {"task": task, "method": method, "runs": len(runs)}
    for tolerance in (1e-6, 1e-3):
        row[f"success_{tolerance:g}"] = sum(r["error"] <= tolerance for r in runs) / len(runs)
    row["median_ms"] = statistics.median(r["ms"] for r in runs)
    row["median_iterations"] = statistics.median(r["iterations"] for r in runs)
    row["max_violation"] = max(r["violation"] for r in runs)
    row["statuses"] = sorted({str(r["status"]) for r in runs})
    return row


def _from_rest(obj: Any, location: Any) -> Any:
    """The rest pose with the left hand's goal at ``location``; the goal."""
    reset_pose(obj)
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = tuple(location)
    bpy.context.view_layer.update()
    return goal


def solves(obj: Any, method: str, targets: list[np.ndarray], arm: float) -> dict[str, Any]:
    """(a): ``reach.solve`` from rest to each target."""
    runs = []
    for target in targets:
        _from_rest(obj, target)
        started = time.perf_counter()
        assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        ms = 1000.0 * (time.perf_counter() - started)
        bpy.context.view_layer.update()
        tail = np.array(obj.matrix_world @ obj.pose.bones["forearm.L"].tail)
        stats = obj.reach.stats
        runs.append(
            {
                "error": float(np.linalg.norm(tail - target)) / arm,
                "ms": ms,
                "iterations": stats.iterations,
                "violation": 0.0,
                "status": stats.status,
            }
        )
    row = _row("Rigify human: reach.solve", method, runs)
    row["max_violation"] = None  # the operator reports none; the drag events do
    return row


def drags(obj: Any, method: str, paths: list[np.ndarray], arm: float) -> dict[str, Any]:
    """(b): ``reach.drag_goal`` replays along each path from rest."""
    runs = []
    for path in paths:
        goal = _from_rest(obj, (0.0, 0.0, 0.0))
        points = [{"name": "", "location": tuple(place)} for place in path]
        done = bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=points)
        assert done == {"FINISHED"}
        runs += [
            {
                "error": event.residual / arm,
                "ms": event.solve_milliseconds,
                "iterations": event.iterations,
                "violation": event.max_violation,
                "status": event.status,
            }
            for event in obj.reach.drag_events
        ]
    return _row("Rigify human: drag replay", method, runs)


def main() -> None:
    """Run the benchmark and write its results."""
    args = BenchmarkParser(__doc__ or "", "methods_blender", "a few paths", COUNTS).parse_args()
    reach = load_reach()
    try:
        obj = build_rig()
        arm = float(sum(obj.data.bones[b].length for b in ("upper_arm.L", "forearm.L")))
        paths = hand_places(reach, obj, args.targets, args.events, args.seed)
        targets = [path[-1] for path in paths]
        rows = []
        for method in METHODS:
            obj.reach.method.kind = method
            rows.append(solves(obj, method, targets, arm))
            rows.append(drags(obj, method, paths, arm))
    finally:
        unload_reach()
    rows.sort(key=lambda r: (r["task"] != "Rigify human: reach.solve", METHODS.index(r["method"])))
    cells = [
        (
            r["task"],
            r["method"],
            r["runs"],
            f"{100 * r['success_1e-06']:.0f}%",
            f"{100 * r['success_0.001']:.0f}%",
            f"{r['median_ms']:.1f}",
            f"{r['median_iterations']:g}",
            "–" if r["max_violation"] is None else f"{r['max_violation']:.1e}",
        )
        for r in rows
    ]
    markdown = ["# Every method through the add-on on the Rigify human", "", *table(COLUMNS, cells)]
    print("\n".join(markdown))
    record = {**machine.about(), "methods": rows, "quick": args.quick}
    write_results(args.output, record, markdown)


if __name__ == "__main__":
    main()
