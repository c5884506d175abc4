"""Drags with every goal type at once on the Rigify basic human, in Blender.

    .venv-blender-5.0/bin/python -m bench.blender.mixed_goals [--quick] [--events N] [--seed S]

Six constraints of six kinds hold the metarig while the left hand's goal is dragged
along a reachable path: a position on the left hand, a position and orientation on the
right hand, a plane under the left foot, an aim of the head, a half-space above the
right foot and a position on the chest (elbow IK limits on both forearms). Every goal
is met at the start, and every point of the path is the hand's place in a pose within
the limits, so every event can meet every goal. Each event runs as a user's drag runs it
(``DragSession.step``: goal update, solve within the time budget, pose write, depsgraph
update). In the same process, on the very same problems, the solver alone is also run
with the paper's identity start metric and as the previous solver
(``previous_solver.PREVIOUS``), each warm-started from its own previous pose with the same
budget. Results: ``bench/results/mixed.json`` and ``mixed.md`` (the targets:
median ≤ 6 iterations and p90 ≤ 15 per event, median event ≤ 5 ms).
"""

from __future__ import annotations

import math
import time
from typing import Any

import bpy
import numpy as np

from bench import previous_solver
from bench.blender import rigs
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about
from tests.fixtures.goal_kinds import MIXED, add_mixed

CONSTRAINTS = MIXED
DRAGGED = "hand.L"
ARM = ("shoulder.L", "upper_arm.L", "forearm.L")
SPREAD_DEG = 45.0
"""Half-width of the random arm angles of DOFs without bounds [deg]."""
WAYPOINTS_EVERY = 15
"""Drag events between two random arm poses of the path."""
TARGETS = {"median iterations": 6, "p90 iterations": 15, "median event ms": 5.0}


def setup_rig() -> Any:
    obj = rigs.new_metarig()
    rigs.set_elbow_limits(obj, ("forearm.L", "forearm.R"))
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    add_mixed(bpy.ops, obj)
    bpy.context.view_layer.update()
    return obj


def arm_path(reach: Any, obj: Any, events: int, rng: np.random.Generator) -> np.ndarray:
    """The dragged hand's places along a path through random arm poses within the limits."""
    bridge = reach.addon.bridge
    setup = bridge.goals.build_problem(obj, bpy.context.scene)
    figure = setup.rig.figure
    start = bridge.pose.read_pose(obj, setup.rig)
    dofs = [i for bone in ARM for i in figure.segment(bone).dof_indices]
    spread = math.radians(SPREAD_DEG)
    low = np.maximum(figure.lower[dofs], -spread)
    high = np.minimum(figure.upper[dofs], spread)
    leaf = setup.names.index(DRAGGED)
    count = events // WAYPOINTS_EVERY + 2
    waypoints = [start[dofs]] + [rng.uniform(low, high) for _ in range(count)]
    points = []
    for k in range(events):
        a, b = divmod(k + 1, WAYPOINTS_EVERY)
        theta = start.copy()
        t = b / WAYPOINTS_EVERY
        theta[dofs] = (1 - t) * waypoints[a] + t * waypoints[a + 1]
        points.append(setup.problem.effector_states(theta)[0][leaf])
    return np.array(points)


def reach_drag(reach: Any, obj: Any, path: np.ndarray) -> tuple[list[dict[str, Any]], list[Any]]:
    """Reach's drag events, and each event's problem and start pose for the peers."""
    goal = obj.reach.constraints[DRAGGED].goal
    drag = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    distance = obj.reach.reach_distance
    events, problems = [], []
    for point in path:
        before = drag.theta.copy()
        stats = drag.step(point)
        problems.append((drag.setup.problem, before, stats.budget))
        events.append(
            {
                "iterations": stats.iterations,
                "event_ms": stats.milliseconds,
                "solve_ms": stats.solve_milliseconds,
                "met": stats.residual <= distance,
                "status": str(stats.status),
            }
        )
    drag.finish()
    return events, problems


def peer_drag(problems: list[Any], distance: float, tolerance: float, run: Any) -> list[dict]:
    """A solver alone on the same problems, warm-started from its own previous pose."""
    theta = problems[0][1]
    events = []
    for problem, _, budget in problems:
        result = run(problem, theta, budget, tolerance)
        theta = result.x
        residual = math.sqrt(max(float(np.max(problem.potentials(theta))), 0.0))
        events.append(
            {
                "iterations": int(result.nit),
                "solve_ms": 1e3 * result.elapsed,
                "met": residual <= distance,
                "status": str(result.status),
            }
        )
    return events


def summary(events: list[dict[str, Any]]) -> dict[str, float]:
    iterations = np.array([e["iterations"] for e in events], dtype=float)
    solve_ms = np.array([e["solve_ms"] for e in events])
    out = {
        "events": len(events),
        "median iterations": float(np.median(iterations)),
        "p90 iterations": float(np.percentile(iterations, 90)),
        "median solve ms": float(np.median(solve_ms)),
        "p90 solve ms": float(np.percentile(solve_ms, 90)),
        "met": float(np.mean([e["met"] for e in events])),
        "time_limit": float(np.mean([e["status"] == "time_limit" for e in events])),
    }
    if "event_ms" in events[0]:
        event_ms = np.array([e["event_ms"] for e in events])
        out["median event ms"] = float(np.median(event_ms))
        out["p90 event ms"] = float(np.percentile(event_ms, 90))
    return out


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "mixed", "40 drag events", {"events": Count("events", 40, 300)}
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    reach = rigs.load_reach()
    previous = previous_solver.load()
    started = time.perf_counter()
    try:
        obj = setup_rig()
        path = arm_path(reach, obj, args.events, rng)
        events, problems = reach_drag(reach, obj, path)
        settings = obj.reach
        distance, tolerance = settings.reach_distance, settings.tolerance

        def identity(problem: Any, theta: Any, budget: float, tol: float) -> Any:
            return reach.solver.solve(
                problem,
                theta,
                time_limit=budget,
                tolerance=tol,
                restarts=0,
                method=reach.solver.Goldfarb(start_metric="identity"),
            )

        def before(problem: Any, theta: Any, budget: float, tol: float) -> Any:
            other = previous_solver.transplant(problem, previous)
            return previous.solve(other, theta, budget, tol, restarts=0)

        runs = {
            "Reach (drag session)": events,
            "identity start (Zhao & Badler 1994)": peer_drag(
                problems, distance, tolerance, identity
            ),
            f"previous solver ({previous_solver.PREVIOUS})": peer_drag(
                problems, distance, tolerance, before
            ),
        }
    finally:
        rigs.unload_reach()
    summaries = {name: summary(run) for name, run in runs.items()}
    reach_summary = summaries["Reach (drag session)"]
    previous_summary = summaries[f"previous solver ({previous_solver.PREVIOUS})"]
    targets = {
        key: {
            "target": bound,
            "reach": reach_summary[key],
            "previous": previous_summary.get(key.replace("event", "solve")),
            "met": reach_summary[key] <= bound,
        }
        for key, bound in TARGETS.items()
    }
    meta = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "events": args.events,
        "seed": args.seed,
        "constraints": [
            dict(zip(("name", "bone", "effector", "goal", "chain"), c, strict=True))
            for c in CONSTRAINTS
        ],
        "wall_s": round(time.perf_counter() - started, 1),
    }
    record = {**meta, "summaries": summaries, "targets": targets, "runs": runs}
    columns = ["solver", *next(iter(summaries.values())).keys()]
    rows = []
    for name, values in summaries.items():
        rows.append([name, *(f"{values.get(c, float('nan')):.3g}" for c in columns[1:])])
    lines = [
        "# Mixed goal types: drags of the Rigify basic human",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}, {args.events} events, seed {args.seed}.",
        "Constraints: " + ", ".join(f"{c[0]} ({c[3].lower()})" for c in CONSTRAINTS) + ".",
        "",
        *table(columns, rows),
        "",
        "## Targets",
        "",
        *table(
            ["target", "bound", "Reach", "met?"],
            [
                [k, v["target"], f"{v['reach']:.3g}", "yes" if v["met"] else "no"]
                for k, v in targets.items()
            ],
        ),
    ]
    for line in lines:
        print(line)
    write_results(args.output, record, lines)


if __name__ == "__main__":
    main()
