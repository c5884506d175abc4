"""Direct manipulation in Blender: a bone dragged against its goal dragged, and the overlay.

    .venv-blender-5.2/bin/python -m bench.blender.direct [--quick] [--events N]

On the rig Rigify generates from the human metarig (706 bones), in the same process:
the left hand's IK control dragged by its goal (``reach.drag_goal`` with a constraint
on ``hand_ik.L``, chain from ``torso``) and grabbed directly (``reach.drag_bone`` on
the same control and chain), along the same path; ms per drag event (mean) and their
ratio, the largest residual on Blender's deform bones and the verdict. Then the
overlay's cost per redraw (:func:`overlay_geometry`, median) with the four limbs
constrained and two bones pinned, and, where Blender draws offscreen in background
mode (5.2), a picture of the overlay over the rig's deform bones
(``bench/results/overlay.png``). Results: ``bench/results/direct.json`` and
``direct.md``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import bpy
import numpy as np
from mathutils import Matrix, Vector

from bench.blender import rigs
from bench.blender.control_rigs import generated
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about

PICTURE = Path(__file__).resolve().parents[1] / "results" / "overlay.png"


def drag_path(rig: Any, events: int) -> list[dict]:
    """The left hand's IK control moved toward the shoulder, a fifth of the way."""
    start = rig.matrix_world @ rig.pose.bones["hand_ik.L"].head
    shoulder = rig.matrix_world @ rig.pose.bones["upper_arm_fk.L"].head
    steps = range(1, events + 1)
    return [{"name": "", "location": start.lerp(shoulder, 0.2 * k / events)} for k in steps]


def timed_drag(rig: Any, operator: Any, events: int, **options: Any) -> dict[str, Any]:
    """Mean ms per event of a replayed drag (the operator's own events' times)."""
    path = drag_path(rig, events)
    assert operator(armature=rig.name, path=path, **options) == {"FINISHED"}
    times = [e.milliseconds for e in rig.reach.drag_events]
    hand = rig.matrix_world @ rig.pose.bones["DEF-hand.L"].head
    return {
        "mean_ms": float(np.mean(times)),
        "residual": (hand - Vector(path[-1]["location"])).length,
        "verdict": rig.reach.stats.message,
    }


def compare_drags(events: int) -> dict[str, Any]:
    """drag_goal against drag_bone on the same control, chain and path."""
    _, rig = generated("human")
    assert bpy.ops.reach.figure_from_armature(armature=rig.name) == {"FINISHED"}
    bone = timed_drag(
        rig,
        bpy.ops.reach.drag_bone,
        events,
        bone="hand_ik.L",
        effector="HEAD",
        chain_start="torso",
    )
    for pose_bone in rig.pose.bones:  # the same start for the goal's drag
        pose_bone.matrix_basis = Matrix.Identity(4)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.add_constraint(
        armature=rig.name, bone="hand_ik.L", effector="HEAD", chain_start="torso", name="hand"
    ) == {"FINISHED"}
    goal = timed_drag(
        rig, bpy.ops.reach.drag_goal, events, goal=rig.reach.constraints["hand"].goal.name
    )
    return {
        "bones": len(rig.data.bones),
        "drag_goal_ms": goal["mean_ms"],
        "drag_bone_ms": bone["mean_ms"],
        "ratio": bone["mean_ms"] / goal["mean_ms"],
        "drag_bone_residual": bone["residual"],
        "drag_bone_verdict": bone["verdict"],
        "drag_goal_verdict": goal["verdict"],
    }


def overlay_cost(reach: Any, repeats: int) -> tuple[dict[str, Any], Any]:
    """Median ms of the overlay's geometry per redraw, four limbs constrained, two pins."""
    _, rig = generated("human")
    assert bpy.ops.reach.figure_from_armature(armature=rig.name) == {"FINISHED"}
    for end in ("hand_ik.L", "hand_ik.R", "foot_ik.L", "foot_ik.R"):
        assert bpy.ops.reach.add_constraint(
            armature=rig.name, bone=end, effector="HEAD", name=end
        ) == {"FINISHED"}
    hand = rig.reach.constraints["hand_ik.L"].goal
    hand.location = Vector(hand.location) + Vector((0.9, 0.0, 0.0))  # out of reach: red
    for bone in ("torso", "shoulder.R"):
        assert bpy.ops.reach.pin_toggle(armature=rig.name, bone=bone) == {"FINISHED"}
    assert bpy.ops.reach.solve(armature=rig.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    geometry = reach.addon.overlay.overlay_geometry
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        geometry(rig)
        times.append(1e3 * (time.perf_counter() - begin))
    marks = geometry(rig).marks
    return {
        "bones": len(rig.data.bones),
        "marks": len(marks),
        "unmet": sum(1 for m in marks if not m.met),
        "median_ms": float(np.median(times)),
    }, rig


def picture(reach: Any, rig: Any, size: int = 640) -> bool:
    """Draw the overlay over the rig's deform bones offscreen and save it (if Blender can)."""
    import gpu
    from gpu_extras.batch import batch_for_shader

    if not hasattr(gpu, "init"):
        return False
    gpu.init()
    centre = rig.matrix_world @ rig.pose.bones["torso"].head + Vector((0.6, 0.0, 0.3))
    look = Matrix(((1, 0, 0, 0), (0, 0, 1, 0), (0, -1, 0, 0), (0, 0, 0, 1)))
    view = Matrix.Scale(1.0 / 1.6, 4) @ look @ Matrix.Translation(-centre)
    bones = [b for b in rig.pose.bones if b.name.startswith("DEF-")]
    segments = [rig.matrix_world @ p for b in bones for p in (b.head, b.tail)]
    overlay = reach.addon.overlay
    offscreen = gpu.types.GPUOffScreen(size, size)
    with offscreen.bind():
        framebuffer = gpu.state.active_framebuffer_get()
        framebuffer.clear(color=(0.16, 0.16, 0.16, 1.0))
        with gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
            gpu.matrix.load_matrix(view)
            gpu.matrix.load_projection_matrix(Matrix.Identity(4))
            shader = gpu.shader.from_builtin("POLYLINE_UNIFORM_COLOR")
            shader.uniform_float("viewportSize", (float(size), float(size)))
            shader.uniform_float("lineWidth", 1.5)
            shader.uniform_float("color", (0.7, 0.7, 0.7, 1.0))
            batch_for_shader(shader, "LINES", {"pos": segments}).draw(shader)
        overlay.draw_offscreen([overlay.overlay_geometry(rig)], view, size)
        pixels = framebuffer.read_color(0, 0, size, size, 4, 0, "FLOAT")
    offscreen.free()
    pixels.dimensions = size * size * 4
    image = bpy.data.images.new("overlay", size, size, alpha=True)
    image.pixels.foreach_set(np.array(pixels, dtype=np.float32))
    image.filepath_raw = str(PICTURE)
    image.file_format = "PNG"
    image.save()
    return True


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "direct", "10 drag events", {"events": Count("events", 10, 40)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    try:
        drags = compare_drags(args.events)
        overlay, rig = overlay_cost(reach, 30)
        drawn = picture(reach, rig)
    finally:
        rigs.unload_reach()
    meta = {**about(), "blender": bpy.app.version_string}
    lines = [
        "# Direct manipulation",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}, {args.events} drag events. The "
        "left hand's IK control of Rigify's generated human rig dragged toward its shoulder "
        "by its goal (`reach.drag_goal`) and grabbed directly (`reach.drag_bone`), chain "
        "from `torso`, along the same path; ms per event is the mean of the drag's own "
        "event times; the residual is the deform hand's miss at the last event.",
        "",
        *table(
            [
                "rig",
                "bones",
                "drag_goal ms/event",
                "drag_bone ms/event",
                "ratio",
                "residual",
                "verdict",
            ],
            [
                [
                    "human",
                    drags["bones"],
                    f"{drags['drag_goal_ms']:.2f}",
                    f"{drags['drag_bone_ms']:.2f}",
                    f"{drags['ratio']:.2f}",
                    f"{drags['drag_bone_residual']:.1e}",
                    drags["drag_bone_verdict"],
                ]
            ],
        ),
        "",
        "The overlay's geometry per redraw (median of 30), four limbs constrained (one "
        "hand out of reach) and two controls pinned:",
        "",
        *table(
            ["rig", "bones", "constraints drawn", "unmet", "ms per redraw"],
            [
                [
                    "human",
                    overlay["bones"],
                    overlay["marks"],
                    overlay["unmet"],
                    f"{overlay['median_ms']:.3f}",
                ]
            ],
        ),
    ]
    if drawn:
        lines += ["", "![the overlay over the rig's deform bones](overlay.png)"]
    for line in lines:
        print(line)
    write_results(args.output, {**meta, "drags": drags, "overlay": overlay}, lines)


if __name__ == "__main__":
    main()
