"""Bake 250 frames with 4 constraints on the Rigify human, beside Blender's own IK.

    .venv-blender-5.0/bin/python -m bench.blender.bake [--quick] [--frames N] [--seed S]

The Rigify basic human metarig (elbow limits as in ``versus_ik``) sways in place: the
armature object moves forward, sideways and down along a keyed path, both feet stay on
goals on the floor, and both hands follow goals keyed on circles in front of the chest
(4 position constraints: hands from the clavicles, feet from the thighs). In one run,
on the same scene and goals:

* Blender's Standard IK (500 iterations) with an IK constraint per limb on the same
  effectors, chains and goal empties: the time to evaluate every frame
  (``scene.frame_set``), which is when Blender's IK solves;
* Reach's ``reach.bake`` over the same frames (the operator as a script calls it):
  its wall time and frames per second, including setting each frame, solving and
  keying the moved bones at the end;
* the same bake again over the keys the first one wrote (a bake redone after an edit):
  every frame then starts from a keyed pose, read back from single precision;
* the same bake with the left hand's goal held out of reach on every frame: what a
  frame whose goal cannot be met costs against a met one;
* and, in a scene of its own, a bake of a walk on Rigify's basic human control rig, its
  torso keyed forward and each foot's head and end on keyed goals (``tests/addon/walks.py``),
  against Blender playing the same frames.

Reach's compiled kernel is loaded and checked before the runs, its time given apart: a
session pays it once, on its first solve, not on every frame of a bake.

Every run is measured on Blender's evaluated pose afterwards (Reach's from its keys played
back): per frame the largest effector-to-goal distance over its limb's length.
Results: ``bench/results/bake.json`` and ``bake.md``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import bpy
import numpy as np
from mathutils import Vector

from bench.blender import rigs
from bench.blender.scenarios import Limb
from bench.harness import ROOT, BenchmarkParser, Count, import_path, table, write_results
from bench.machine import about

LIMBS = (
    Limb(
        "hand.L",
        "forearm.L",
        ("forearm.L", "upper_arm.L", "shoulder.L"),
        ("upper_arm.L", "forearm.L"),
    ),
    Limb(
        "hand.R",
        "forearm.R",
        ("forearm.R", "upper_arm.R", "shoulder.R"),
        ("upper_arm.R", "forearm.R"),
    ),
    Limb("foot.L", "shin.L", ("shin.L", "thigh.L"), ("thigh.L", "shin.L")),
    Limb("foot.R", "shin.R", ("shin.R", "thigh.R"), ("thigh.R", "shin.R")),
)
"""The four constraints: effector (a bone's tail), chain and the limb's own bones."""

KEY_EVERY = 5
"""Frames between the keys of the armature's path and the hands' circles."""
RADIUS = 0.08
"""The hands' circles' radius [m]."""


def scene_with_goals(frames: int, rng: np.random.Generator) -> tuple[Any, dict[str, Any]]:
    """The metarig, a goal empty at each effector, the keyed path and circles."""
    obj = rigs.new_metarig()
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, frames
    rigs.set_elbow_limits(obj, ("forearm.L", "forearm.R"))
    bpy.context.view_layer.update()
    targets = {}
    for limb in LIMBS:
        tail = obj.matrix_world @ obj.pose.bones[limb.bone].tail
        if limb.name.startswith("hand"):  # in front of the chest, the elbow bent
            tail = tail + Vector((-0.2 if tail.x > 0.0 else 0.2, -0.1, 0.0))
        targets[limb.name] = rigs.add_empty(f"goal {limb.name}", tuple(tail))
    phases = rng.uniform(0.0, 2.0 * math.pi, size=2)
    for frame in range(1, frames + 1, KEY_EVERY):
        t = 2.0 * math.pi * (frame - 1) / 100.0
        obj.location = (0.02 * math.sin(t), -0.04 * math.sin(0.5 * t), -0.04 - 0.02 * math.cos(t))
        obj.keyframe_insert("location", frame=frame)
        for name, phase in zip(("hand.L", "hand.R"), phases, strict=True):
            goal = targets[name]
            start = goal.get("start") or list(goal.location)
            goal["start"] = start
            goal.location = (
                start[0],
                start[1] + RADIUS * (math.cos(t + phase) - math.cos(phase)),
                start[2] + RADIUS * (math.sin(t + phase) - math.sin(phase)),
            )
            goal.keyframe_insert("location", frame=frame)
    bpy.context.scene.frame_set(1)
    return obj, targets


def residuals(obj: Any, targets: dict[str, Any], frames: int) -> np.ndarray:
    """Per frame, the largest effector-to-goal distance over its limb's length."""
    scene = bpy.context.scene
    worst = np.zeros(frames)
    lengths = np.array([rigs.limb_length(obj, limb) for limb in LIMBS])
    for k, frame in enumerate(range(1, frames + 1)):
        scene.frame_set(frame)
        points = rigs.effector_points(obj, LIMBS)
        goals = np.array([tuple(targets[limb.name].matrix_world.translation) for limb in LIMBS])
        worst[k] = float((np.linalg.norm(points - goals, axis=1) / lengths).max())
    return worst


def blender_ik(obj: Any, targets: dict[str, Any], frames: int) -> dict[str, Any]:
    """Blender's Standard IK: the time to evaluate every frame, and its residuals."""
    rigs.add_blender_ik(obj, LIMBS, targets)
    settings = rigs.configure_blender_ik(obj, "LEGACY", 500)
    scene = bpy.context.scene
    scene.frame_set(1)
    began = time.perf_counter()
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
    seconds = time.perf_counter() - began
    worst = residuals(obj, targets, frames)
    rigs.remove_blender_ik(obj)
    rigs.reset_pose(obj)
    scene.frame_set(1)
    return {"settings": settings, "seconds": seconds, **spread(worst, frames, seconds)}


def reach_bake(obj: Any, targets: dict[str, Any], frames: int) -> dict[str, Any]:
    """Reach: make the figure, add the constraints, bake; time it, then its residuals."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.constrain(obj, LIMBS, targets)
    return timed_bake(obj, targets, frames)


def timed_bake(obj: Any, targets: dict[str, Any], frames: int) -> dict[str, Any]:
    """One ``reach.bake`` of the armature's constraints: its time, then its residuals."""
    bpy.context.scene.frame_set(1)
    began = time.perf_counter()
    result = bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=frames)
    seconds = time.perf_counter() - began
    assert result == {"FINISHED"}, result
    worst = residuals(obj, targets, frames)
    return {"seconds": seconds, **spread(worst, frames, seconds)}


def out_of_reach(frames: int, seed: int) -> dict[str, Any]:
    """The same bake with the left hand's goal held a metre and a half out of reach."""
    obj, targets = scene_with_goals(frames, np.random.default_rng(seed))
    goal = targets["hand.L"]
    goal.animation_data_clear()
    goal.location = (goal.location[0] + 1.5, goal.location[1], goal.location[2])
    return reach_bake(obj, targets, frames)


def control_walk(cycles: int) -> dict[str, Any]:
    """Reach's bake of a walk on Rigify's basic human control rig, generated here: its
    legs in FK, its torso keyed forward (no DOF of the figure: each frame's torso
    carries the legs), each foot control's head and end on goals keyed along its steps
    (``tests/addon/walks.py``), the chains from the FK thighs. Its time, the time Blender
    takes to play the frames as keyed before it (each frame set), and the residuals:
    per frame the largest distance of a foot control's end from its goal over the leg."""
    walks = import_path("walks", ROOT / "tests" / "addon" / "walks.py")
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = walks.control_rig("FK")
    frames, names = walks.keyed_walk(obj, cycles, walks.control_feet("FK"), "torso")
    scene = bpy.context.scene
    began = time.perf_counter()
    for frame in frames:
        scene.frame_set(frame)
    played = time.perf_counter() - began
    scene.frame_set(frames[0])
    began = time.perf_counter()
    result = bpy.ops.reach.bake(armature=obj.name, frame_start=frames[0], frame_end=frames[-1])
    seconds = time.perf_counter() - began
    assert result == {"FINISHED"}, result
    bones = obj.pose.bones
    leg = sum(obj.data.bones[f"ORG-{part}.L"].length for part in ("thigh", "shin"))
    worst = np.zeros(len(frames))
    for k, frame in enumerate(frames):
        scene.frame_set(frame)
        for name in names:
            constraint = obj.reach.constraints[name]
            pose = bones[constraint.bone]
            point = pose.head if constraint.effector == "HEAD" else pose.tail
            off = (obj.matrix_world @ point - constraint.goal.matrix_world.translation).length
            worst[k] = max(worst[k], off / leg)
    return {
        "seconds": seconds,
        "played_ms_per_frame": 1000.0 * played / len(frames),
        "bones": len(bones),
        "frames": len(frames),
        **spread(worst, len(frames), seconds),
    }


def spread(worst: np.ndarray, frames: int, seconds: float) -> dict[str, Any]:
    """Frames per second and the residuals' spread (÷ limb length)."""
    return {
        "frames_per_second": frames / seconds,
        "ms_per_frame": 1000.0 * seconds / frames,
        "residual_median": float(np.median(worst)),
        "residual_max": float(worst.max()),
        "share_1e-5": float(np.mean(worst <= 1e-5)),
    }


def main() -> None:
    parser = BenchmarkParser(__doc__, "bake", "50 frames", {"frames": Count("frames", 50, 250)})
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    reach = rigs.load_reach()
    began = time.perf_counter()
    reach.solver.kernel.loading.status()  # loaded now, not inside the first bake's frames
    kernel_ms = 1e3 * (time.perf_counter() - began)
    started = time.perf_counter()
    try:
        obj, targets = scene_with_goals(args.frames, rng)
        blender = blender_ik(obj, targets, args.frames)
        baked = reach_bake(obj, targets, args.frames)
        again = timed_bake(obj, targets, args.frames)  # every frame starts from its keys
        unmet = out_of_reach(args.frames, args.seed)
        walking = control_walk(2 if args.quick else 6)
    finally:
        rigs.unload_reach()
    record = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "frames": args.frames,
        "seed": args.seed,
        "constraints": [limb.name for limb in LIMBS],
        "wall_s": round(time.perf_counter() - started, 1),
        "kernel_load_ms": round(kernel_ms, 1),
        "reach_bake": baked,
        "reach_bake_again": again,
        "reach_bake_out_of_reach": unmet,
        "blender_standard_ik": blender,
        "control_rig_walk": walking,
    }
    rows = [
        [
            name,
            f"{run['seconds']:.2f}",
            f"{run['frames_per_second']:.1f}",
            f"{run['ms_per_frame']:.1f}",
            f"{run['residual_median']:.1e}",
            f"{run['residual_max']:.1e}",
            f"{run['share_1e-5']:.0%}",
        ]
        for name, run in (
            ("Reach bake (solve + keys)", baked),
            ("Reach bake again, over its own keys", again),
            ("Reach bake, the left hand's goal out of reach", unmet),
            ("Blender Standard IK, 500 it. (evaluate)", blender),
        )
    ]
    costlier = unmet["ms_per_frame"] / baked["ms_per_frame"]
    lines = [
        "# Bake: 250 frames, 4 constraints, Rigify basic human",
        "",
        f"Blender {record['blender']}, {record['cpu_model']}, {args.frames} frames, "
        f"seed {args.seed}. Residual: the largest effector-to-goal distance ÷ limb length "
        "per frame, on Blender's evaluated pose. Reach's compiled kernel is loaded and "
        f"checked before the runs ({kernel_ms:.0f} ms, once a session, on its first solve).",
        "",
        *table(
            ["run", "seconds", "frames/s", "ms/frame", "residual median", "max", "≤1e-5"],
            rows,
        ),
        "",
        f"A frame with a goal out of reach costs {costlier:.2f}× a met frame (the residual "
        "columns of that run show how far the goal stays out of reach).",
        "",
        f"A walk on Rigify's basic human control rig ({walking['bones']} bones, legs in FK, "
        "the torso keyed forward, each foot control's head and end on keyed goals, chains "
        f"from the FK thighs), {walking['frames']} frames: Reach's bake "
        f"{walking['ms_per_frame']:.1f} ms a frame ({walking['frames_per_second']:.0f} "
        f"frames/s), {walking['ms_per_frame'] / walking['played_ms_per_frame']:.1f}× "
        f"Blender playing the frames as keyed ({walking['played_ms_per_frame']:.2f} ms a "
        f"frame); residual median {walking['residual_median']:.1e}, max "
        f"{walking['residual_max']:.1e} of the leg.",
    ]
    write_results(args.output, record, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
