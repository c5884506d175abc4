"""What one evaluation of a Rigify control rig costs, by what asks Blender for it.

    .venv-blender-5.0/bin/python -m bench.blender.evaluation [--quick] [--frames N]

Rigify's basic human and human metarigs are generated into control rigs in this process
(so that every driver runs as it does for an animator), their legs in FK, and a walk is
keyed on the FK controls (``tests/addon/walks.py``). Per frame, the median and mean time of
each way of having Blender evaluate the rig:

- a frame change alone (``scene.frame_set``: the keyed motion played);
- a pose write: one FK control's rotation written through its property (whose update
  tags the armature's geometry, as an edit by hand or by a script does) and the view
  layer updated;
- a bulk write: the same channel written as Reach writes controls (a drag, a live update,
  a bake's placing): with ``foreach_set`` and a transform tag
  (``control_pose.write_channels``), the view layer updated;
- the pose write with the rig's parent-switch drivers muted (the ``var == n`` expressions
  on its Armature constraints' target weights), to see whether they are what it costs;
- a key write: the same control's key on that frame moved and the frame set again, so
  that Blender evaluates the new value through the animation instead of a pose write.

Results: ``bench/results/evaluation.json`` and ``evaluation.md``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import bpy

from bench.blender import rigs
from bench.harness import ROOT, BenchmarkParser, Count, import_path, table, write_results
from bench.machine import about

RIGS = {"basic human": "armature_basic_human_metarig_add", "human": "armature_human_metarig_add"}
"""The metarigs generated, by name, with the operator that adds each."""

CONTROL = "thigh_fk.L"
"""The FK control written."""


def _rig(walks: Any, add: str, frames: int) -> tuple[Any, range]:
    """A control rig generated from metarig ``add``, walking in FK over ``frames`` frames."""
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.object, add)()
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    for side in "LR":
        obj.pose.bones[f"thigh_parent.{side}"]["IK_FK"] = 1.0
    obj.update_tag()
    bpy.context.view_layer.update()
    feet = {"foot_fk.L": ("thigh_fk.L", 0.0), "foot_fk.R": ("thigh_fk.R", 0.5)}
    cycles = max(1, frames // walks.CYCLE)
    return obj, walks.walk(obj, cycles, feet, "torso")


def _times_ms(frames: range, each: Callable[[int], None]) -> dict[str, float]:
    """The median and mean time [ms] of ``each`` over ``frames`` (the scene starts off them)."""
    bpy.context.scene.frame_set(frames[0] - 1)
    times = []
    for frame in frames:
        began = time.perf_counter()
        each(frame)
        times.append(time.perf_counter() - began)
    return {"median": 1e3 * statistics.median(times), "mean": 1e3 * statistics.fmean(times)}


def _curve(reach: Any, obj: Any) -> Any:
    """The F-curve of the written control's quaternion x."""
    path = f'pose.bones["{CONTROL}"].rotation_quaternion'
    curve = reach.addon.bridge.keys.fcurve(obj, path, 1)
    if curve is None:
        raise RuntimeError(f"the walk keyed no {path}[1]")
    return curve


def measure(walks: Any, reach: Any, add: str, count: int) -> dict[str, Any]:
    """Each way's median ms a frame on the control rig generated from ``add``."""
    obj, frames = _rig(walks, add, count)
    scene, view_layer = bpy.context.scene, bpy.context.view_layer
    control = obj.pose.bones[CONTROL]
    curve = _curve(reach, obj)
    keys = {round(point.co[0]): point for point in curve.keyframe_points}

    def frame_change(frame: int) -> None:
        scene.frame_set(frame)

    def pose_write(frame: int) -> None:
        control.rotation_quaternion[1] += 1e-4
        view_layer.update()

    write_channels = reach.addon.bridge.control_rig.control_pose.write_channels

    def bulk_write(frame: int) -> None:
        turn = list(control.rotation_quaternion)
        turn[1] += 1e-4
        write_channels(obj, {CONTROL: {"rotation_quaternion": turn}})
        view_layer.update()

    def key_write(frame: int) -> None:
        point = keys[frame]
        point.co[1] += 1e-4
        scene.frame_set(frame)

    result = {
        "bones": len(obj.pose.bones),
        "drivers": len(obj.animation_data.drivers),
        "frames": len(frames),
        "frame_change": _times_ms(frames, frame_change),
        "pose_write": _times_ms(frames, pose_write),
        "bulk_write": _times_ms(frames, bulk_write),
        "key_write": _times_ms(frames, key_write),
    }
    switches = [
        d for d in obj.animation_data.drivers if d.data_path.endswith(".weight") and not d.mute
    ]
    for driver in switches:
        driver.mute = True
    result["switch_drivers"] = len(switches)
    result["pose_write_muted"] = _times_ms(frames, pose_write)
    return result


def _cell(times: dict[str, float]) -> str:
    return f"{times['median']:.2f} ({times['mean']:.2f})"


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "evaluation", "48 frames", {"frames": Count("frames", 48, 144)}
    )
    args = parser.parse_args()
    walks = import_path("walks", ROOT / "tests" / "addon" / "walks.py")
    reach = rigs.load_reach()
    started = time.perf_counter()
    runs: dict[str, dict[str, Any]] = {}
    try:
        for name, add in RIGS.items():
            runs[name] = measure(walks, reach, add, args.frames)
    finally:
        rigs.unload_reach()
    record = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "wall_s": round(time.perf_counter() - started, 1),
        "runs": runs,
    }
    rows = [
        [
            name,
            run["bones"],
            f"{run['switch_drivers']} of {run['drivers']}",
            _cell(run["frame_change"]),
            _cell(run["pose_write"]),
            _cell(run["bulk_write"]),
            _cell(run["pose_write_muted"]),
            _cell(run["key_write"]),
        ]
        for name, run in runs.items()
    ]
    lines = [
        "# One evaluation of a Rigify control rig, by what asks for it",
        "",
        f"Blender {record['blender']}, {record['cpu_model']}; the rigs generated in this "
        "process, legs in FK, a walk keyed on the FK controls; ms a frame over "
        f"{args.frames} frames, median (mean).",
        "",
        *table(
            [
                "rig",
                "bones",
                "switch drivers",
                "frame change",
                "pose write",
                "bulk write",
                "pose write, switches muted",
                "key write",
            ],
            rows,
        ),
        "",
        "A pose write is a control set through its property, as by hand or by a script; a "
        "bulk write is how a drag, live and a bake's placing of the controls have Blender "
        "evaluate the rig; a key write is the same value given through the animation.",
    ]
    write_results(args.output, record, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
