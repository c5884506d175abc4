"""Imported skeletons as their importers give them: effectors, mass, balance and bakes.

    .venv-blender-5.0/bin/python -m bench.blender.imported [--quick]

On the skeletons of ``tests/addon/imported_skeletons.py`` (a Mixamo-named character
through glTF and FBX, the same with its bones askew as a game engine's joint frames point,
a BVH skeleton through glTF in centimetres, Rigify's wolf through glTF with every bone
pointing up), each made a figure with default settings:

(a) ``effectors``: the largest distance of a bone's tail effector (where Reach puts it)
from its one child's joint, and the bone it is on;
(b) ``mass``: Make Figure's total mass, the height from the lowest to the highest joint,
and the centre of mass's height as a share of it;
(c) ``balance``: the character's feet planted as contacts (soles), Balance on, the left
hand's goal (chain to the root) 30 cm forward and 40 cm down: the Solve's ms, its verdict,
and whether the centre of mass ends over the support polygon, beside the same Solve with
Balance off;
(d) ``bake``: the left hand's goal keyed 20 cm in, 10 cm forward and down over 30 frames
and baked, in four states of the character's animation (its T-pose action over a muted NLA
track as glTF's importer leaves it, the action unlinked, the track unmuted, no animation):
the largest distance of the hand from its goal on Blender's playback of the keys.

Results: ``bench/results/imported.json`` and ``imported.md``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import bpy
from mathutils import Vector

from bench.blender import rigs
from bench.harness import ROOT, BenchmarkParser, import_path, table, write_results
from bench.machine import about, described

imported_skeletons = import_path(
    "imported_skeletons", ROOT / "tests" / "addon" / "imported_skeletons.py"
)
KINDS = (
    *imported_skeletons.MIXAMO,
    *imported_skeletons.GAME,
    "gltf_cm",
    *imported_skeletons.ANIMALS,
)
NAMED = imported_skeletons.PREFIX


def figure(folder: Path, kind: str) -> Any:
    """The imported skeleton of ``kind`` made a figure, its hips free to move."""
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = imported_skeletons.append(folder / f"{kind}.blend")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    return obj


def tail(reach: Any, obj: Any, bone: str) -> Vector:
    """Where Reach puts ``bone``'s tail effector on Blender's pose (world)."""
    pose_bone = obj.pose.bones[bone]
    return obj.matrix_world @ reach.addon.bridge.bone_ends.end(pose_bone.bone, pose_bone.matrix)


def effectors(reach: Any, obj: Any) -> dict[str, Any]:
    """(a) The largest offset of a tail effector from its one child's joint."""
    worst, where = 0.0, ""
    for bone in obj.data.bones:
        if len(bone.children) == 1:
            child = obj.matrix_world @ bone.children[0].head_local
            gap = (tail(reach, obj, bone.name) - child).length
            if gap > worst:
                worst, where = gap, bone.name
    return {"largest_m": worst, "bone": where}


def mass(reach: Any, obj: Any) -> dict[str, float]:
    """(b) Total mass, the joints' height and the centre of mass's share of it."""
    heights = [(obj.matrix_world @ b.head_local).z for b in obj.data.bones]
    low, high = min(heights), max(heights)
    centre, total = reach.addon.bridge.mass.centre_of_mass(obj)
    return {"kg": total, "height_m": high - low, "centre_share": (centre.z - low) / (high - low)}


def balance(reach: Any, folder: Path, kind: str, on: bool) -> dict[str, Any]:
    """(c) A forward reach with the feet planted, Balance ``on`` or off."""
    obj = figure(folder, kind)
    for side in ("Left", "Right"):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=f"{NAMED}{side}Foot",
            chain_start=f"{NAMED}{side}UpLeg",
            contact=True,
        ) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=f"{NAMED}LeftForeArm", chain_start="", name="hand"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    goal.location = Vector(goal.location) + Vector((0.0, -0.3, -0.4))
    obj.reach.balance = on
    begin = time.perf_counter()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    ms = 1e3 * (time.perf_counter() - begin)
    verdict = obj.reach.stats.message
    obj.reach.balance = True  # the polygon drawn, whether or not the solve kept to it
    over = bool(reach.addon.overlay.overlay_geometry(obj).balanced)
    return {"solve_ms": ms, "verdict": verdict, "over": over}


def bake(reach: Any, folder: Path, state: str) -> dict[str, Any]:
    """(d) A 30-frame bake in one state of the character's animation, played back."""
    obj = figure(folder, imported_skeletons.MIXAMO[0])
    goal = imported_skeletons.baked_reach(obj, state)
    misses = []
    for frame in range(1, 31):
        bpy.context.scene.frame_set(frame)
        misses.append(
            (tail(reach, obj, f"{NAMED}LeftForeArm") - goal.matrix_world.translation).length
        )
    return {"playback_m": max(misses), "frames_off": sum(m > 1e-4 for m in misses)}


def length(value: float) -> str:
    return f"{100 * value:.2f} cm" if value >= 1e-3 else f"{value:.1e} m"


def main() -> None:
    parser = BenchmarkParser(__doc__, "imported", "the same (it takes seconds)", {})
    args = parser.parse_args()
    reach = rigs.load_reach()
    try:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            imported_skeletons.make(folder)
            shapes = {}
            for kind in KINDS:
                obj = figure(folder, kind)
                shapes[kind] = {"effectors": effectors(reach, obj), "mass": mass(reach, obj)}
            balances = {
                (kind, on): balance(reach, folder, kind, on)
                for kind in imported_skeletons.MIXAMO
                for on in (False, True)
            }
            states = imported_skeletons.ANIMATION_STATES
            bakes = {state: bake(reach, folder, state) for state in states}
    finally:
        rigs.unload_reach()
    meta = {**about(), "blender": bpy.app.version_string}
    lines = [
        "# Imported skeletons: effectors, mass, balance and bakes",
        "",
        f"{described(meta)} · Blender {meta['blender']}. Each skeleton as its importer "
        "gives it, made a figure with default settings.",
        "",
        "(a) The largest distance of a tail effector from its bone's one child's joint; "
        "(b) Make Figure's total mass, the height from the lowest to the highest joint, and "
        "the centre of mass's height over the lowest joint as a share of it.",
        "",
        *table(
            ["skeleton", "tail effector off its joint", "on", "mass", "height", "centre"],
            [
                (
                    kind,
                    length(v["effectors"]["largest_m"]),
                    v["effectors"]["bone"] or "–",
                    f"{v['mass']['kg']:.1f} kg",
                    f"{v['mass']['height_m']:.2f} m",
                    f"{v['mass']['centre_share']:.2f}",
                )
                for kind, v in shapes.items()
            ],
        ),
        "",
        "(c) Feet planted as contacts, the left hand (chain to the root) 30 cm forward and "
        "40 cm down, by a Solve.",
        "",
        *table(
            ["skeleton", "Balance", "Solve ms", "over the feet", "verdict"],
            [
                (kind, "on" if on else "off", f"{v['solve_ms']:.0f}", v["over"], v["verdict"])
                for (kind, on), v in balances.items()
            ],
        ),
        "",
        "(d) The left hand's goal keyed over 30 frames and baked; its largest distance from "
        "the goal on Blender's playback of the keys.",
        "",
        *table(
            ["animation", "playback miss", "frames off"],
            [(state, length(v["playback_m"]), v["frames_off"]) for state, v in bakes.items()],
        ),
    ]
    for line in lines:
        print(line)
    record = {
        **meta,
        "shapes": shapes,
        "balance": {f"{kind} {'on' if on else 'off'}": v for (kind, on), v in balances.items()},
        "bake": bakes,
    }
    write_results(args.output, record, lines)


if __name__ == "__main__":
    main()
