"""What comfort costs a drag event and a Solve: Comfort 1 against Comfort off.

Run with Blender 5.0 as a Python module, from the repository root::

    .venv-blender-5.0/bin/python -m bench.blender.comfort_cost [--quick] [--events N]
        [--targets N] [--seed S]

On the Rigify basic human metarig, for each of ``versus_ik``'s scenarios (the same
limbs, chains, limits, drag paths and random targets, ``bench.blender.scenarios``), the
add-on's own events run on two metarigs in one file, one with the armature's Comfort at 0
and one at 1, each event taken on one and then the other so that the machine's slower
spells fall on both: a drag of the scenario's goal along its path
(``DragSession.step``: goal move, solve, pose write, depsgraph updates) and random targets
each solved from rest by Solve's process. Per scenario: the median and 90th-percentile ms
per event and their ratio (comfort 1, the default, over comfort 0). Comfort off takes no
comfort round. Then a whole-body reach as a new figure has it, on the metarig and on a
BVH skeleton read by Blender's importer, two bodies in one file likewise: Human Limits,
the feet planted as contacts (or pinned, or a priority above the hand's), the left hand's
goal on a chain to the root dragged forward and down, at Comfort 0 (the default before it
was on) and 1. How natural the poses are is
``natural``'s to measure.

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


def staged(
    reach: Any, scenario: scenarios.Scenario, comfort: float, fresh: bool = True
) -> tuple[Any, Any, Any]:
    """The metarig with the scenario's limits and Reach constraints at ``comfort``, in a new
    file (``fresh``) or beside what the file has; its goals and the rig the add-on builds."""
    if fresh:
        obj = rigs.new_metarig()
    else:
        bpy.ops.object.armature_basic_human_metarig_add()
        obj = bpy.context.active_object
        bpy.ops.object.mode_set(mode="OBJECT")
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


def timed(step: Callable[[], Any]) -> float:
    """ms ``step`` takes."""
    begin = time.perf_counter()
    step()
    return 1e3 * (time.perf_counter() - begin)


def run(reach: Any, key: str, args: Any) -> dict[str, dict[str, Any]]:
    """One scenario's drag and random targets at each comfort, on one metarig per comfort
    in one file, their events taken in turn (so the machine's slower spells fall on both)."""
    scenario = scenarios.SCENARIOS[key]
    rng = np.random.default_rng([args.seed, SCENARIOS.index(key)])
    staged_by = [staged(reach, scenario, c, fresh=k == 0) for k, c in enumerate(COMFORTS)]
    obj, _, rig = staged_by[0]
    rest = rigs.effector_points(obj, scenario.limbs)
    lengths = np.array([rigs.limb_length(obj, limb) for limb in scenario.limbs])
    poser = Poser(obj, rig, scenario)
    dragged = [limb.name for limb in scenario.limbs].index(scenario.dragged)
    path = poser.drag_path(rng, args.events, STEP * lengths[dragged])
    drags = [start_drag(reach, o, g, rest, dragged) for o, g, _ in staged_by]
    drag_ms: list[list[float]] = [[] for _ in COMFORTS]
    for point in path:
        for k, drag in enumerate(drags):
            drag_ms[k].append(timed(lambda drag=drag, point=point: drag.step(point)))
    targets = [poser.random(scenario.bones, rng) for _ in range(args.targets)]
    random_ms: list[list[float]] = [[] for _ in COMFORTS]
    bridge = reach.addon.bridge
    for pose in targets:
        rigs.reset_pose(obj)
        bridge.pose.write_pose(obj, rig, pose)
        bpy.context.view_layer.update()
        points = rigs.effector_points(obj, scenario.limbs)
        for k, (each, its_goals, _) in enumerate(staged_by):
            rigs.reset_pose(each)
            bpy.context.view_layer.update()

            def solve(each: Any = each, its_goals: Any = its_goals, points: Any = points) -> None:
                move(its_goals, points)
                bpy.context.view_layer.update()
                step = bridge.posing.Poser(each, bpy.context.scene, bpy.context.view_layer)
                step.solve(restarts=each.reach.restarts)

            random_ms[k].append(timed(solve))
    return {
        f"{comfort:g}": {
            "drag_median_ms": statistics.median(drag_ms[k]),
            "drag_p90_ms": float(np.percentile(drag_ms[k], 90)),
            "solve_median_ms": statistics.median(random_ms[k]),
            "solve_p90_ms": float(np.percentile(random_ms[k], 90)),
            "last_message": staged_by[k][0].reach.stats.message,
        }
        for k, comfort in enumerate(COMFORTS)
    }


HELD = {
    "contacts": "the feet planted as contacts",
    "pins": "the feet pinned",
    "priorities": "the feet's goals at priority 0, the hand's at 1",
}
"""How a whole-body reach holds the feet: as a new figure has them, or by pins or
priorities (a descent by levels)."""


def whole_body(reach: Any, body: str, events: int, held: str) -> dict[str, dict[str, Any]]:
    """A whole-body reach dragged in ``events`` events at each comfort, one body per
    comfort in one file, their events taken in turn: Human Limits, the feet held as
    :data:`HELD` says, the hand's goal on a chain to the root taken forward and down (the
    default settings but for Comfort and how the feet are held)."""
    feet, thighs, hand = BODIES[body]
    bpy.ops.wm.read_homefile(use_empty=True)
    drags, starts, objects = [], [], []
    for comfort in COMFORTS:
        if hand == "hand.L":
            bpy.ops.object.armature_basic_human_metarig_add()
            bpy.ops.object.mode_set(mode="OBJECT")
        else:
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
                armature=obj.name, bone=foot, chain_start=thigh, contact=held == "contacts"
            ) == {"FINISHED"}
            obj.reach.constraints[len(obj.reach.constraints) - 1].pinned = held == "pins"
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=hand, chain_start="", name="hand"
        ) == {"FINISHED"}
        obj.reach.constraints["hand"].priority = int(held == "priorities")
        goal = obj.reach.constraints["hand"].goal
        bpy.context.view_layer.update()
        starts.append(np.array(goal.matrix_world.translation))
        objects.append(obj)
    for obj in objects:  # each session once every body is in the file
        goal = obj.reach.constraints["hand"].goal
        drags.append(reach.addon.drag_session.DragSession(bpy.context, obj, goal))
    times: list[list[float]] = [[] for _ in COMFORTS]
    residuals: list[list[float]] = [[] for _ in COMFORTS]
    for k in range(1, events + 1):
        for c, drag in enumerate(drags):
            begin = time.perf_counter()
            stats = drag.step(starts[c] + np.array(REACH) * k / events)
            times[c].append(1e3 * (time.perf_counter() - begin))
            residuals[c].append(stats.residual)
    return {
        f"{comfort:g}": {
            "drag_median_ms": statistics.median(times[c]),
            "drag_p90_ms": float(np.percentile(times[c], 90)),
            "largest_residual_m": max(residuals[c]),
        }
        for c, comfort in enumerate(COMFORTS)
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
        results = {key: run(reach, key, args) for key in SCENARIOS}
        bodies = {
            f"{body}, {HELD[held]}": whole_body(reach, body, args.events, held)
            for body in BODIES
            for held in HELD
        }
    finally:
        rigs.unload_reach()
    record = machine.record(
        args.quick,
        "Comfort 1 against Comfort off: versus_ik's drags and Solves from rest, and "
        "whole-body reaches dragged",
        blender=bpy.app.version_string,
        events=args.events,
        targets=args.targets,
        seed=args.seed,
        wall_s=round(time.perf_counter() - started, 1),
        scenarios=results,
        whole_body=bodies,
    )
    lines = [
        "# What comfort costs",
        "",
        f"Blender {record['blender']}, the basic human metarig, {args.events} drag events and "
        f"{args.targets} Solves from rest per scenario (``versus_ik``'s), comfort 0 (off) and 1 "
        "(the default) on two figures in one file, their events in turn. ms per event, the "
        "whole event as the add-on runs it.",
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
        "Whole-body reaches: Human Limits, both feet planted as contacts (chains from the "
        "thighs; as a new figure has them), or pinned, or at priority 0 below which the hand "
        "is at 1 (a descent by levels), the left hand's goal on a chain to the root "
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
    write_results(args.output, record, lines)


if __name__ == "__main__":
    main()
