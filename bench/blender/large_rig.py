"""Drag events and live updates on a 2,000-bone armature with 200 constraints, in Blender.

    .venv-blender-5.0/bin/python -m bench.blender.large_rig [--quick] [--events N] [--seed S]

An armature of 2,000 bones, each 5 cm, each bone's parent one of the 30 made before it
(a random tree), with constraints on 200 of its leaf bones, their goals where the bones'
tails are. A drag (``DragSession``, the operator's own session) moves one goal 1 cm an
event; a live session (``live.start``) follows the same goal moved 1 cm an update (timed
from the update's call to its written pose). Per event: wall time against the time
budget (*Time budget*, 0.1 s: what an event may take; with *Adaptive* the solve gets it
less the rest of the event); the set-up and the first event apart (they also build what
the session keeps).

Results: ``bench/results/large_rig.json`` and ``large_rig.md``.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from bench.blender import rigs
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about, described

BONES = 2000
CONSTRAINTS = 200
STEP = 0.01
"""How far the dragged goal moves an event [m]."""


def armature(rng: np.random.Generator) -> tuple[Any, list[str]]:
    """The armature (object mode) and its leaf bones."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    data = bpy.data.armatures.new("large")
    obj = bpy.data.objects.new("large", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    parents = [-1] + [int(rng.integers(max(0, k - 30), k)) for k in range(1, BONES)]
    bones = []
    for k, parent in enumerate(parents):
        bone = data.edit_bones.new(f"b{k}")
        if parent < 0:
            bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 0.05)
        else:
            above = bones[parent]
            direction = rng.normal(size=3) * 0.3 + np.array(above.tail - above.head) / 0.05
            direction /= np.linalg.norm(direction)
            bone.parent = above
            bone.use_connect = True
            bone.tail = tuple(np.array(above.tail) + 0.05 * direction)
        bones.append(bone)
    bpy.ops.object.mode_set(mode="OBJECT")
    inner = set(parents)
    return obj, [f"b{k}" for k in range(BONES) if k not in inner]


def constrained(seed: int) -> tuple[Any, Any]:
    """The armature made a figure, with its constraints; and the goal to move."""
    import bpy

    obj, leaves = armature(np.random.default_rng(seed))
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    chosen = [leaves[i] for i in np.linspace(0, len(leaves) - 1, CONSTRAINTS).astype(int)]
    for bone in chosen:
        result = bpy.ops.reach.add_constraint(
            armature=obj.name, bone=bone, effector="TAIL", name=bone
        )
        assert result == {"FINISHED"}, result
    bpy.context.view_layer.update()
    return obj, obj.reach.constraints[chosen[0]].goal


def drag(reach: Any, events: int, seed: int) -> dict[str, Any]:
    import bpy

    obj, goal = constrained(seed)
    start = np.array(goal.location)
    began = time.perf_counter()
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    setup_ms = 1e3 * (time.perf_counter() - began)
    budget = float(obj.reach.time_budget)
    records = []
    for event in range(1, events + 1):
        stats = session.step(tuple(start + STEP * event * np.array([1.0, 0.3, 0.2])))
        records.append(
            {"ms": stats.milliseconds, "budget_ms": 1e3 * budget, "solve_ms": 1e3 * stats.budget}
        )
    session.finish()
    return {"setup_ms": setup_ms, **summary(records)}


def live(reach: Any, events: int, seed: int) -> dict[str, Any]:
    import bpy

    obj, goal = constrained(seed)
    start = np.array(goal.location)
    budget = float(obj.reach.time_budget)
    scene = bpy.context.scene
    live = reach.addon.live
    began = time.perf_counter()
    session = live.start(obj, scene)
    setup_ms = 1e3 * (time.perf_counter() - began)
    records = []
    for event in range(1, events + 1):
        goal.location = tuple(start + STEP * event * np.array([1.0, 0.3, 0.2]))
        with live.paused():  # the update is timed here, not in the depsgraph handler
            bpy.context.view_layer.update()
        began = time.perf_counter()
        assert session.update(scene)
        records.append({"ms": 1e3 * (time.perf_counter() - began), "budget_ms": 1e3 * budget})
    live.stop(obj.name)
    return {"setup_ms": setup_ms, **summary(records)}


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    later = records[1:]
    ratios = [r["ms"] / r["budget_ms"] for r in later]
    return {
        "first_event_ms": records[0]["ms"],
        "median_ms": statistics.median(r["ms"] for r in later),
        "median_budget_ms": statistics.median(r["budget_ms"] for r in later),
        "median_over_budget": statistics.median(ratios),
        "max_over_budget": max(ratios),
        "events": records,
    }


def markdown(record: dict[str, Any]) -> list[str]:
    lines = [
        f"# Drag and live mode on a {BONES:,}-bone armature with {CONSTRAINTS} constraints",
        "",
        described(record) + f" · Blender {record['blender']}",
        "",
        record["task"],
        "",
    ]
    lines += table(
        [
            "session",
            "set-up ms",
            "first event ms",
            "later events: median ms",
            "budget ms",
            "time / budget median",
            "max",
        ],
        [
            (
                name,
                f"{run['setup_ms']:.0f}",
                f"{run['first_event_ms']:.0f}",
                f"{run['median_ms']:.1f}",
                f"{run['median_budget_ms']:.1f}",
                f"{run['median_over_budget']:.2f}",
                f"{run['max_over_budget']:.2f}",
            )
            for name, run in record["sessions"].items()
        ],
    )
    return lines


def main() -> None:
    parser = BenchmarkParser(__doc__, "large_rig", "4 events", {"events": Count("events", 4, 12)})
    args = parser.parse_args()
    reach = rigs.load_reach()
    import bpy

    try:
        sessions = {
            "drag": drag(reach, args.events, args.seed),
            "live": live(reach, args.events, args.seed),
        }
    finally:
        rigs.unload_reach()
    for name, run in sessions.items():
        print(
            f"{name}: set-up {run['setup_ms']:.0f} ms, first event {run['first_event_ms']:.0f} "
            f"ms, later events {run['median_ms']:.1f} ms ({run['median_over_budget']:.2f}× the "
            f"budget, max {run['max_over_budget']:.2f}×)"
        )
    record = {
        **about(),
        "blender": bpy.app.version_string,
        "quick": args.quick,
        "task": (
            f"{BONES} bones, {CONSTRAINTS} position constraints on leaf bones, one goal moved "
            f"{100 * STEP:g} cm an event, {args.events} events, seed {args.seed}; time against "
            "the time budget (what an event may take; the solve gets the rest, adaptive)."
        ),
        "sessions": sessions,
    }
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
