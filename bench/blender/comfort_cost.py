"""What comfort costs a drag event and a Solve: Comfort 1 against Comfort off.

Run with Blender 5.0 as a Python module, from the repository root::

    .venv-blender-5.0/bin/python -m bench.blender.comfort_cost [--quick] [--events N]
        [--targets N] [--seed S]

On the Rigify basic human metarig, for each of ``versus_ik``'s scenarios (the same
limbs, chains, limits, drag paths and random targets, ``bench.blender.scenarios``), the
add-on's own events run twice in one process, with the armature's Comfort at 0 and at 1:
a drag of the scenario's goal along its path (``DragSession.step``: goal move, solve,
pose write, depsgraph updates) and random targets each solved from rest by Solve's
process. Per scenario: the median and 90th-percentile ms per event and their ratio
(comfort 1, the default, over comfort 0). Comfort off takes no comfort round. Then a
whole-body reach as a new figure has it, on the metarig and on a BVH skeleton read by
Blender's importer: Human Limits, the feet planted as contacts, the left hand's goal on a
chain to the root dragged forward and down, at Comfort 0 (the default before it was on)
and 1. How natural the poses are is ``natural``'s to measure.

Writes ``bench/results/comfort_cost.json`` and ``.md``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from bench import machine
from bench.blender import rigs, scenarios
from bench.blender.events import STEP, move
from bench.blender.poses import Poser
from bench.blender.reach_events import start_drag
from bench.harness import BenchmarkParser, Count, write_results
from tests.fixtures import bvh

SCENARIOS = ("arm", "limbs", "arm_limits", "limbs_limits", "arm_polygon", "limbs_polygon")
COMFORTS = (0.0, 1.0)
BODIES = {
    # body: its feet, the bones their chains start from, its left hand
    "the basic human metarig": (("foot.L", "foot.R"), ("thigh.L", "thigh.R"), "hand.L"),
    "a BVH skeleton (Blender's importer)": (
        ("LeftFoot", "RightFoot"),
        ("LeftUpLeg", "RightUpLeg"),
        "LeftHand",
    ),
}
REACH = (0.0, -0.5, -0.6)
"""Where a whole-body drag takes the hand [m]: forward (−Y) and down."""


def staged(reach: Any, scenario: scenarios.Scenario, comfort: float) -> tuple[Any, Any, Any]:
    """The metarig with the scenario's limits and Reach constraints at ``comfort``; its
    goals and the rig the add-on builds."""
    obj = rigs.new_metarig()
    rigs.set_elbow_limits(obj, scenario.elbow_limits)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.set_polygons(obj, scenario.polygons)
    obj.reach.comfort = comfort
    for limb in scenario.limbs:
        assert bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=limb.bone,
            effector="TAIL",
            chain_start=limb.chain[-1],
            name=limb.name,
        ) == {"FINISHED"}
    bpy.context.view_layer.update()
    goals = [obj.reach.constraints[limb.name].goal for limb in scenario.limbs]
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    return obj, goals, rig


def run(reach: Any, key: str, comfort: float, args: Any) -> dict[str, Any]:
    """One scenario's drag and random targets at ``comfort``."""
    scenario = scenarios.SCENARIOS[key]
    rng = np.random.default_rng([args.seed, SCENARIOS.index(key)])
    obj, goals, rig = staged(reach, scenario, comfort)
    rest = rigs.effector_points(obj, scenario.limbs)
    lengths = np.array([rigs.limb_length(obj, limb) for limb in scenario.limbs])
    poser = Poser(obj, rig, scenario)
    dragged = [limb.name for limb in scenario.limbs].index(scenario.dragged)
    path = poser.drag_path(rng, args.events, STEP * lengths[dragged])
    drag = start_drag(reach, obj, goals, rest, dragged)
    drag_ms = []
    for point in path:
        begin = time.perf_counter()
        drag.step(point)
        drag_ms.append(1e3 * (time.perf_counter() - begin))
    targets = [poser.random(scenario.bones, rng) for _ in range(args.targets)]
    random_ms = []
    bridge = reach.addon.bridge
    for pose in targets:
        rigs.reset_pose(obj)
        bridge.pose.write_pose(obj, rig, pose)
        bpy.context.view_layer.update()
        points = rigs.effector_points(obj, scenario.limbs)
        rigs.reset_pose(obj)
        bpy.context.view_layer.update()
        begin = time.perf_counter()
        move(goals, points)
        bpy.context.view_layer.update()
        poser_step = bridge.posing.Poser(obj, bpy.context.scene, bpy.context.view_layer)
        poser_step.solve(restarts=obj.reach.restarts)
        random_ms.append(1e3 * (time.perf_counter() - begin))
    return {
        "drag_median_ms": statistics.median(drag_ms),
        "drag_p90_ms": float(np.percentile(drag_ms, 90)),
        "solve_median_ms": statistics.median(random_ms),
        "solve_p90_ms": float(np.percentile(random_ms, 90)),
        "last_message": obj.reach.stats.message,
    }


def whole_body(reach: Any, body: str, comfort: float, events: int) -> dict[str, Any]:
    """A whole-body reach dragged in ``events`` events at ``comfort``: Human Limits, the
    feet planted as contacts, the hand's goal on a chain to the root taken forward and down
    (the default settings but for Comfort)."""
    feet, thighs, hand = BODIES[body]
    if hand == "hand.L":
        obj = rigs.new_metarig()
    else:
        bpy.ops.wm.read_homefile(use_empty=True)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "skeleton.bvh"
            path.write_text(bvh.bvh_text())
            bpy.ops.import_anim.bvh(filepath=str(path), global_scale=bvh.SCALE)
        obj = bpy.context.active_object
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    obj.reach.comfort = comfort
    for foot, thigh in zip(feet, thighs, strict=True):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=foot, chain_start=thigh, contact=True
        ) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=hand, chain_start="", name="hand"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    bpy.context.view_layer.update()
    start = np.array(goal.matrix_world.translation)
    drag = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    times, residuals = [], []
    for k in range(1, events + 1):
        begin = time.perf_counter()
        stats = drag.step(start + np.array(REACH) * k / events)
        times.append(1e3 * (time.perf_counter() - begin))
        residuals.append(stats.residual)
    return {
        "drag_median_ms": statistics.median(times),
        "drag_p90_ms": float(np.percentile(times, 90)),
        "largest_residual_m": max(residuals),
    }


def row(label: str, by: dict[str, Any], rest: Callable[[Any, Any], str]) -> str:
    """A table row: ``label`` and the drag's ms at comfort 0 and 1, then ``rest`` of them.

    The drag's cells: median ms off and on, their ratio, p90 ms off and on.
    """
    off, on = by["0"], by["1"]
    return (
        f"| {label} | {off['drag_median_ms']:.2f} | {on['drag_median_ms']:.2f} "
        f"| {on['drag_median_ms'] / off['drag_median_ms']:.2f} "
        f"| {off['drag_p90_ms']:.2f} | {on['drag_p90_ms']:.2f} | {rest(off, on)} |"
    )


def main() -> None:
    counts = {"events": Count("drag events", 40, 200), "targets": Count("random targets", 10, 50)}
    parser = BenchmarkParser(__doc__, "comfort_cost", "40 drag events, 10 targets", counts)
    args = parser.parse_args()
    started = time.perf_counter()
    reach = rigs.load_reach()
    try:
        results = {
            key: {f"{comfort:g}": run(reach, key, comfort, args) for comfort in COMFORTS}
            for key in SCENARIOS
        }
        bodies = {
            body: {f"{c:g}": whole_body(reach, body, c, args.events) for c in COMFORTS}
            for body in BODIES
        }
    finally:
        rigs.unload_reach()
    meta = {
        **machine.about(),
        "blender": bpy.app.version_string,
        "events": args.events,
        "targets": args.targets,
        "seed": args.seed,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    lines = [
        "# What comfort costs",
        "",
        f"Blender {meta['blender']}, the basic human metarig, {args.events} drag events and "
        f"{args.targets} Solves from rest per scenario (``versus_ik``'s), comfort 0 (off) and 1 "
        "(the default) in one process. ms per event, the whole event as the add-on runs "
        "it.",
        "",
        "| scenario | drag ms, off | drag ms, 1 | ratio | p90 off | p90 1 | Solve ms, off "
        "| Solve ms, 1 | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        row(
            scenarios.SCENARIOS[key].title,
            by,
            lambda off, on: (
                f"{off['solve_median_ms']:.1f} | {on['solve_median_ms']:.1f} "
                f"| {on['solve_median_ms'] / off['solve_median_ms']:.2f}"
            ),
        )
        for key, by in results.items()
    ]
    lines += [
        "",
        "Whole-body reaches as a new figure has them: Human Limits, both feet planted as "
        "contacts (chains from the thighs), the left hand's goal on a chain to the root "
        f"dragged 50 cm forward and 60 cm down in {args.events} events; Comfort 0 (the "
        "default before Comfort was on) against 1 (the default).",
        "",
        "| body | drag ms, off | drag ms, 1 | ratio | p90 off | p90 1 | largest residual, off "
        "| largest residual, 1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        row(
            body,
            by,
            lambda off, on: (
                f"{1e3 * off['largest_residual_m']:.2g} mm "
                f"| {1e3 * on['largest_residual_m']:.2g} mm"
            ),
        )
        for body, by in bodies.items()
    ]
    for line in lines:
        print(line)
    write_results(args.output, {"meta": meta, "scenarios": results, "whole_body": bodies}, lines)


if __name__ == "__main__":
    main()
