"""Plant Contacts on walks whose feet slide: the slide before and after, and ms per frame.

    .venv-blender-5.0/bin/python -m bench.blender.plant [--quick] [--cycles N]

The walk is the add-on tests' (``tests/addon/walks.py``): the Rigify basic human
metarig's hips keyed forward at 24 fps, its feet stepping (a stance on the ground, a
swing in an arc), baked by Reach and its constraints removed. Its hips are then keyed
2%, 5% and 10% faster, so that each stance slides 0.8, 2 and 4 cm, as motion put on a
character of other proportions does; a walk with the legs all but straight is keyed 20%
fast, so that late in each stance a planted foot lies out of its leg's reach (the hips
give a little); the 5% walk is also written as BVH by Blender's
exporter and read back by its importer. The same walk is made on the control rig Rigify
generates from the metarig, its legs in FK (its FK controls keyed, the torso then keyed
5% fast) and in IK (its foot controls keyed, then carried forward 5% of the torso's
travel), and in FK with the legs all but straight, the torso keyed 20% fast (its torso
gives). ``reach.plant_contacts`` plants each, and per
foot the toe's (the ball's) travel over each true stance is measured on Blender's pose
before and after, with the operator's time per frame (finding the stances, keying the
constraints, baking, measuring again), also against the time Blender takes to play the
clip (each frame set and the toes read), measured just before in the same process.
Results: ``bench/results/plant.json`` and ``plant.md``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from bench.blender import rigs
from bench.harness import ROOT, BenchmarkParser, Count, import_path, table, write_results
from bench.machine import about

SLIDES = (1.02, 1.05, 1.10)
"""How much faster than the clean walk's the hips are keyed."""


def _travel(points: np.ndarray, stances: list[tuple[int, int]]) -> list[float]:
    """How far apart each stance's positions of a point lie [m] (frames from 1)."""
    out = []
    for first, last in stances:
        held = points[first - 1 : last]
        out.append(float(np.linalg.norm(held[:, None] - held[None], axis=2).max()))
    return out


def _turns(obj: Any, frames: range, bones: list[str]) -> list[list[Any]]:
    """Each bone's rotation in the armature (a quaternion) on each frame."""
    turns = []
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        turns.append([obj.pose.bones[name].matrix.to_quaternion() for name in bones])
    return turns


def _twist(before: list[list[Any]], after: list[list[Any]]) -> float:
    """The most any bone turned about its own length from ``before`` to ``after`` [°]."""
    most = 0.0
    for was, now in zip(before, after, strict=True):
        for a, b in zip(was, now, strict=True):
            degrees = float(np.degrees(abs((a.inverted() @ b).to_swing_twist("Y")[1])))
            most = max(most, min(degrees, 360.0 - degrees))
    return most


def _walk(walks: Any, cycles: int, slide: float, drop: float | None = None) -> tuple[Any, range]:
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    drop = walks.DROP if drop is None else drop
    frames = walks.walk(obj, cycles, drop=drop)
    walks.key_hips(obj, frames, slide * walks.STRIDE / walks.CYCLE, drop=drop)
    return obj, frames


def _bvh(walks: Any, obj: Any, frames: range, folder: Path) -> Any:
    """``obj``'s walk written as BVH and read back, as a new file's only armature."""
    path = folder / "walk.bvh"
    bpy.context.view_layer.objects.active = obj
    bpy.ops.export_anim.bvh(filepath=str(path), frame_start=frames[0], frame_end=frames[-1])
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_anim.bvh(filepath=str(path), use_fps_scale=False, axis_forward="Y", axis_up="Z")
    bpy.context.scene.render.fps = walks.FPS
    return bpy.context.active_object


def measure(
    walks: Any,
    reach: Any,
    obj: Any,
    frames: range,
    cycles: int,
    prefix: str = "",
    drawn: bool = False,
    straight: bool = False,
) -> dict[str, Any]:
    """Plant ``obj``'s walk: the toes' travel over each true stance before and after
    (on the skeleton's feet, ``prefix`` naming a control rig's); ``drawn``: with the
    toes' paths and the frames each was held, for ``plant.png``; ``straight``: a walk whose
    legs cannot reach their planted feet (the hips give), timed as a target of its own."""
    ends = {prefix + "foot.L": "tail", prefix + "foot.R": "tail"}
    trunk = {prefix + "spine": "head", prefix + "spine.006": "tail"}  # the hips, the head
    truth = {
        prefix + foot: [(a, b) for a, b in runs if b - a >= 4]
        for foot, runs in walks.stances(cycles).items()
    }
    began = time.perf_counter()
    before = walks.world_points(obj, frames, ends)
    played = time.perf_counter() - began  # Blender setting each frame, the toes read
    body = walks.world_points(obj, frames, trunk)
    legs = [f"{prefix}{part}.{side}" for part in ("thigh", "shin", "foot") for side in "LR"]
    turned = _turns(obj, frames, legs)
    began = time.perf_counter()
    result = bpy.ops.reach.plant_contacts(
        armature=obj.name, frame_start=frames[0], frame_end=frames[-1]
    )
    seconds = time.perf_counter() - began
    after = walks.world_points(obj, frames, ends)
    moved = walks.world_points(obj, frames, trunk)
    twist = _twist(turned, _turns(obj, frames, legs))
    hips, head = trunk
    shifted = np.linalg.norm(moved[hips] - body[hips], axis=1)
    tilted = np.linalg.norm((moved[head] - moved[hips]) - (body[head] - body[hips]), axis=1)
    slid = [t for foot in ends for t in _travel(before[foot], truth[foot])]
    kept = [t for foot in ends for t in _travel(after[foot], truth[foot])]
    toes = {f"{prefix}foot.{c.bone.rsplit('.', 1)[-1]}": c.name for c in obj.reach.constraints}
    toes = {foot: name for foot, name in toes.items() if name.endswith("toe planted")}
    held: dict[str, list[bool]] = {foot: [] for foot in ends}
    for frame in frames:  # which toes the plant held, frame by frame
        reach.addon.bridge.keys.apply_switches(obj, frame)
        for foot in ends:
            held[foot].append(foot in toes and obj.reach.constraints[toes[foot]].enabled)
    picture = {
        "frames": list(frames),
        "feet": {
            foot.removeprefix(prefix): {
                "truth": [
                    list(stance) for stance in walks.stances(cycles)[foot.removeprefix(prefix)]
                ],
                "held": held[foot],
                "before": before[foot].round(6).tolist(),
                "after": after[foot].round(6).tolist(),
            }
            for foot in ends
        },
    }
    return {
        "result": sorted(result),
        "frames": len(frames),
        "stances": len(slid),
        "before_mm_max": 1e3 * max(slid),
        "before_mm_mean": 1e3 * float(np.mean(slid)),
        "after_mm_max": 1e3 * max(kept),
        "after_mm_mean": 1e3 * float(np.mean(kept)),
        "hips_mm_max": 1e3 * float(shifted.max()),
        "head_mm_max": 1e3 * float(tilted.max()),
        "twist_deg_max": twist,
        "ms_per_frame": 1e3 * seconds / len(frames),
        "straight": straight,
        "played_ms_per_frame": 1e3 * played / len(frames),
        **({"picture": picture} if drawn else {}),
    }


def main() -> None:
    parser = BenchmarkParser(__doc__, "plant", "2 strides", {"cycles": Count("cycles", 2, 6)})
    args = parser.parse_args()
    reach = rigs.load_reach()
    walks = import_path("walks", ROOT / "tests" / "addon" / "walks.py")
    started = time.perf_counter()
    runs: dict[str, dict[str, Any]] = {}
    try:
        for slide in SLIDES:
            obj, frames = _walk(walks, args.cycles, slide)
            runs[f"metarig, hips {slide - 1:.0%} fast"] = measure(
                walks, reach, obj, frames, args.cycles, drawn=slide == 1.05
            )
        obj, frames = _walk(walks, args.cycles, 1.20, 0.0)
        runs["metarig, legs straight, hips 20% fast"] = measure(
            walks, reach, obj, frames, args.cycles, drawn=True, straight=True
        )
        obj, frames = _walk(walks, args.cycles, 1.05)
        with tempfile.TemporaryDirectory() as folder:
            imported = _bvh(walks, obj, frames, Path(folder))
            runs["BVH of the metarig's walk, hips 5% fast"] = measure(
                walks, reach, imported, frames, args.cycles
            )
        for mode in ("FK", "IK"):
            bpy.ops.wm.read_homefile(use_empty=True)
            obj, frames = walks.control_walk(mode, args.cycles, 1.05)
            runs[f"control rig, legs in {mode}, feet 5% astray"] = measure(
                walks, reach, obj, frames, args.cycles, "ORG-"
            )
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, frames = walks.control_walk("FK", args.cycles, 1.20, 0.0)
        runs["control rig, legs in FK, straight, torso 20% fast"] = measure(
            walks, reach, obj, frames, args.cycles, "ORG-", straight=True
        )
    finally:
        rigs.unload_reach()
    record = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "cycles": args.cycles,
        "wall_s": round(time.perf_counter() - started, 1),
        "runs": runs,
    }
    rows = [
        [
            name,
            run["frames"],
            run["stances"],
            f"{run['before_mm_max']:.1f} ({run['before_mm_mean']:.1f})",
            f"{run['after_mm_max']:.2f} ({run['after_mm_mean']:.2f})",
            f"{run['hips_mm_max']:.1f}",
            f"{run['head_mm_max']:.2f}",
            f"{run['twist_deg_max']:.1f}",
            f"{run['ms_per_frame']:.1f}",
            f"{run['played_ms_per_frame']:.2f}",
            f"{run['ms_per_frame'] / run['played_ms_per_frame']:.1f}",
        ]
        for name, run in runs.items()
    ]
    lines = [
        "# Plant Contacts: a walk whose feet slide",
        "",
        f"Blender {record['blender']}, {record['cpu_model']}, {args.cycles} strides of each "
        "foot at 24 fps. Toe travel: over each stance the walk was made with (stances cut by "
        "the clip's ends left out), how far apart the ball of the foot's positions lie on "
        "Blender's pose, largest (mean); hips moved: the most the hips' joint moved on any "
        "frame; head against the hips: the most the head's top moved against the hips' "
        "joint (the trunk tilted); legs' twist: the most a thigh, shin or foot turned "
        "about its own length against the motion on any frame; ms per frame: the whole "
        "operator's time; played: "
        "Blender setting each frame of the clip in the same process (the toes read), which "
        "the plant's time is also given against, as this machine's timings vary by up to "
        "half from run to run.",
        "",
        *table(
            [
                "walk",
                "frames",
                "stances",
                "toe travel before, mm",
                "after, mm",
                "hips moved, mm",
                "head against the hips, mm",
                "legs' twist, °",
                "ms/frame",
                "played, ms/frame",
                "× played",
            ],
            rows,
        ),
        "",
        "Targets: each stance's toe travel ≤ 3 mm after; no thigh, shin or foot turned about "
        "its own length over 10° from the motion; ≤ 10 ms a frame, apart for the walks whose "
        "legs cannot reach their planted feet.",
    ]
    write_results(args.output, record, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
