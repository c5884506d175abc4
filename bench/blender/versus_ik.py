"""Benchmark Reach against Blender's own IK on the same rig, targets and process.

Run with Blender 5.0 as a Python module, from the repository root::

    .venv-blender-5.0/bin/python -m bench.blender.versus_ik [--quick] [--targets N] [--events N]
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
  ``scenarios``, stored in ``obj.reach.joints`` as the joint panel stores it), on the
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
(the rest pose). Only one method's constraints exist at a time. Each method's events are
measured in ten parts taken in turn (``ROUNDS``: Blender's methods, then Reach, then
again), so that the minutes a shared machine runs slower fall on every method alike; Reach's
drag replays the path before each part, untimed, to go on from there.

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
on two cores; ``--quick`` about twenty seconds. ``drag_whatif`` measures the
speed-ups that the profile suggests.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from types import ModuleType
from typing import Any

import bpy
import numpy as np

from bench import machine
from bench.blender import joint_limits, rigs, scenarios
from bench.blender.drag_profile import profile_drag
from bench.blender.events import (
    BLENDER_METHODS,
    METHOD_TITLES,
    POLYGON_NOTE,
    STEP,
    SUCCESS,
    VIOLATING_DEG,
    Stage,
    blender_events,
    move,
)
from bench.blender.poses import Poser
from bench.blender.reach_events import reach_drag, reach_random
from bench.blender.versus_ik_report import columns, dump, markdown, print_table, summary
from bench.harness import BenchmarkParser, Count, write_files

ROUNDS = 10
"""Each method's events are measured in this many parts taken in turn (Blender's methods,
then Reach, then again), so that a machine's slower minutes fall on every method alike."""

# --- a scenario ----------------------------------------------------------------------------


def pose_write_floor(
    bridge: ModuleType, obj: Any, view_layer: Any, events: int = 50
) -> list[float]:
    """Seconds of each of ``events`` pose writes as Reach's writer makes one, without IK.

    Every bone's rotation channels set at once (``foreach_set``), the add-on's tag for
    channels written so (:func:`.bridge.arrays.pose_written`), the view layer updated:
    what any event that writes a pose costs Blender, before any solve. Standard IK's
    event writes no channel: Blender evaluates the armature, IK and all, without
    copying a changed pose into its evaluated object.
    """
    bones = obj.pose.bones
    channels = np.empty(4 * len(bones), np.float32)
    bones.foreach_get("rotation_quaternion", channels)
    rest = channels.copy()
    seconds = []
    for k in range(events):
        channels[0] = rest[0] - 1e-6 * (k % 2)
        begin = time.perf_counter()
        bones.foreach_set("rotation_quaternion", channels)
        bridge.arrays.pose_written(obj)
        view_layer.update()
        seconds.append(time.perf_counter() - begin)
    bones.foreach_set("rotation_quaternion", rest)
    bridge.arrays.pose_written(obj)
    view_layer.update()
    return seconds


def run_scenario(
    reach: ModuleType, scenario: scenarios.Scenario, args: argparse.Namespace
) -> dict[str, Any]:
    rng = np.random.default_rng([args.seed, list(scenarios.SCENARIOS).index(scenario.key)])
    bridge = reach.addon.bridge
    obj = rigs.new_metarig()
    rigs.set_elbow_limits(obj, scenario.elbow_limits)
    view_layer = bpy.context.view_layer
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.set_polygons(obj, scenario.polygons)
    rigs.constrain(obj, scenario.limbs)
    view_layer.update()
    goals = [obj.reach.constraints[limb.name].goal for limb in scenario.limbs]
    rest = rigs.effector_points(obj, scenario.limbs)
    empties = [
        rigs.add_empty(f"IK target {limb.name}", p)
        for limb, p in zip(scenario.limbs, rest, strict=True)
    ]
    lengths = np.array([rigs.limb_length(obj, limb) for limb in scenario.limbs])
    stage = Stage(obj, scenario, lengths)
    rig = bridge.plain_rig.build_rig(obj)
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
    written = pose_write_floor(bridge, obj, view_layer)

    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    settings: dict[str, Any] = {}
    everything = list(range(len(scenario.limbs)))
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
    spent: dict[str, float] = {}
    chunks = zip(
        np.array_split(np.arange(args.targets), ROUNDS),
        np.array_split(np.arange(args.events), ROUNDS),
        strict=True,
    )
    for targets, events in chunks:
        rigs.add_blender_ik(
            obj, scenario.limbs, dict(zip([lb.name for lb in scenario.limbs], empties, strict=True))
        )
        for key, _title, solver, iterations, precision in BLENDER_METHODS:
            if scenario.blender_methods is not None and key not in scenario.blender_methods:
                continue
            settings[key] = rigs.configure_blender_ik(obj, solver, iterations, precision)
            began = time.perf_counter()
            done = runs.setdefault(key, {"random": [], "drag": []})
            done["random"] += blender_events(
                stage, empties, random_targets_array[targets], everything
            )
            move(empties, rest)
            view_layer.update()
            # Blender's IK solves every event from the pose channels: a drag's part needs
            # none of the path before it
            done["drag"] += blender_events(stage, empties, drag_targets[events], [dragged])
            move(empties, rest)
            view_layer.update()
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - began
        rigs.remove_blender_ik(obj)
        obj.pose.ik_solver = "LEGACY"
        rigs.reset_pose(obj)
        view_layer.update()
        began = time.perf_counter()
        done = runs.setdefault("reach", {"random": [], "drag": []})
        done["random"] += reach_random(reach, stage, goals, random_targets_array[targets])
        # Reach's drag goes on from the path's last part (replayed, its events not kept)
        path = drag_targets[: events[-1] + 1] if len(events) else drag_targets[:0]
        done["drag"] += reach_drag(reach, stage, goals, path, dragged, rest)[
            len(path) - len(events) :
        ]
        spent["reach"] = spent.get("reach", 0.0) + time.perf_counter() - began
    for key, title, *_ in (*BLENDER_METHODS, ("reach", "Reach")):
        if key in spent:
            print(f"  {title:22s} done in {spent[key]:6.1f} s", flush=True)
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
            for order, axes, vertices in [joint_limits.joint_polygon(obj, bone)]
        },
        **({"note": POLYGON_NOTE} if scenario.polygons else {}),
        "dragged": scenario.dragged,
        "drag_step_m": float(step),
        "fk_gap_m": fk_gap,
        "depsgraph_update_without_ik_ms": 1e3 * statistics.median(floor),
        "pose_write_update_ms": 1e3 * statistics.median(written),
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


def main() -> None:
    counts = {"targets": Count("random targets", 20, 200), "events": Count("drag events", 40, 300)}
    parser = BenchmarkParser(__doc__, "blender", "20 targets, 40 drag events", counts)
    parser.add_argument(
        "--scenarios", default=",".join(scenarios.SCENARIOS), help="comma-separated"
    )
    parser.add_argument("--no-profile", dest="profile", action="store_false")
    parser.add_argument(
        "--profile-scenarios", default="arm,limbs", help="drags to profile, comma-separated"
    )
    args = parser.parse_args()
    keys = [key.strip() for key in args.scenarios.split(",") if key.strip()]
    unknown = [key for key in keys if key not in scenarios.SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; choose from {list(scenarios.SCENARIOS)}")

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
            "elbow_limits_deg": scenarios.ELBOW_LIMITS_DEG,
            "shoulder_polygon_deg": {
                "bone": "upper_arm.L (upper_arm.R: the mirror image, Z negated)",
                "axes": "XZ",
                "euler_order": "YXZ",
                "vertices": scenarios.SHOULDER_POLYGON_DEG,
            },
            "violating_deg": VIOLATING_DEG,
            "random_spread_deg": scenarios.SPREAD_DEG,
        }
        records = {key: run_scenario(reach, scenarios.SCENARIOS[key], args) for key in keys}
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
