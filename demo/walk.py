"""The demo's second part: a walk-like motion baked with ``reach.bake``.

The hips move forward along a gently swaying path (the armature object is animated),
each foot is planted on its own frame ranges (a keyed ``enabled`` switch on its
constraint, and a goal keyed where the foot lands) and free in between, and the head
keeps its eyes on a target that moves across in front of the figure (an aim from an
offset point, along the head bone's forward axis). One bake keys it all; the feet's
trajectories are then measured on Blender's evaluated pose, drawn into the scene and
rendered as a contact sheet of frames, so the planted feet can be seen not to slide.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import bpy
import numpy as np
from figure import FEET, make_figure, world_tail
from mathutils import Vector
from shapes import sphere
from stage import COLORS, dress_figure, mesh_object, stage, trail

FRAMES = (1, 48)
"""The frames baked."""
STEP = 0.2 / 18.0
"""How far the hips move forward per frame [m]."""
LOWER = 0.03
"""How much lower than at rest the hips walk [m] (so a planted leg reaches)."""
AHEAD = 0.1
"""How far ahead of its free place a foot lands [m]."""
PLANTED = {
    "foot.L": ((1, 19, AHEAD), (25, 43, AHEAD)),
    "foot.R": ((1, 10, 0.0), (16, 34, AHEAD), (40, 48, AHEAD)),
}
"""Per foot, its planted frame ranges and how far ahead it lands on each."""
SHEET = (1, 9, 17, 25, 33, 41)
"""The frames of the contact sheet."""
TILE = (480, 360)
"""One frame of the contact sheet [px]."""


def body_location(frame: int) -> Vector:
    """The armature object's location at ``frame``: forward (-Y), swaying, lowered."""
    t = frame - FRAMES[0]
    return Vector((0.02 * math.sin(2.0 * math.pi * t / 24.0), -STEP * t, -LOWER))


def forward_axis(obj: Any, bone: str) -> str:
    """The bone axis (±X or ±Z) that points most forward (-Y) in the rest pose."""
    matrix = (obj.matrix_world @ obj.data.bones[bone].matrix_local).to_3x3()
    best = max(
        (sign * matrix.col[k].dot(Vector((0.0, -1.0, 0.0))), f"{name}_{'XYZ'[k]}")
        for k in (0, 2)
        for sign, name in ((1.0, "POS"), (-1.0, "NEG"))
    )
    return best[1]


def animate(obj: Any) -> dict[str, Any]:
    """Key the hips' path, the feet's plantings and the gaze target; return the goals."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES
    for frame in range(FRAMES[0], FRAMES[1] + 1):
        obj.location = body_location(frame)
        obj.keyframe_insert("location", frame=frame)
    goals = {}
    for name, (bone, start) in FEET.items():
        bpy.ops.reach.add_constraint(
            armature=obj.name, bone=bone, effector="TAIL", chain_start=start, name=name
        )
        goals[name] = obj.reach.constraints[name].goal
    head = "spine.006"
    bpy.ops.reach.add_constraint(
        armature=obj.name, bone=head, goal_type="AIM", chain_start="spine.004", name="gaze"
    )
    gaze = obj.reach.constraints["gaze"]
    gaze.effector, gaze.offset = "OFFSET", (0.0, 0.5 * obj.data.bones[head].length, 0.0)
    gaze.aim_axis = forward_axis(obj, head)
    target = gaze.goal
    goals["gaze"] = target
    for frame, where in ((1, (-0.7, -2.0, 1.6)), (24, (0.0, -2.4, 1.3)), (48, (0.8, -2.2, 1.5))):
        target.location = where
        target.keyframe_insert("location", frame=frame)
    for name, ranges in PLANTED.items():
        entry = obj.reach.constraints[name]
        goal = entry.goal
        for first, last, ahead in ranges:
            scene.frame_set(first)  # where the free foot is, then a step ahead of it
            landing = world_tail(obj, entry.bone) + Vector((0.0, -ahead, LOWER))
            goal.location = landing
            goal.keyframe_insert("location", frame=first)
            for frame, on in ((first, True), (last + 1, False)):
                entry.enabled = on
                obj.keyframe_insert(f'reach.constraints["{name}"].enabled', frame=frame)
        if ranges[0][0] > FRAMES[0]:
            entry.enabled = False
            obj.keyframe_insert(f'reach.constraints["{name}"].enabled', frame=FRAMES[0])
        constant(goal)  # a planted goal stays put until the foot lands again
    scene.frame_set(FRAMES[0])
    return goals


def constant(owner: Any) -> None:
    """Make every key of the object's action hold its value until the next key."""
    action = owner.animation_data.action
    if hasattr(action, "layers") and len(action.layers):
        bags = [
            bag for layer in action.layers for strip in layer.strips for bag in strip.channelbags
        ]
        curves = [curve for bag in bags for curve in bag.fcurves]
    else:
        curves = list(action.fcurves)
    for curve in curves:
        for point in curve.keyframe_points:
            point.interpolation = "CONSTANT"


def measure(obj: Any, goals: dict[str, Any]) -> dict[str, Any]:
    """Per frame the ankles and the gaze's angle off its target, from Blender's pose."""
    scene = bpy.context.scene
    ankles: dict[str, list[list[float]]] = {name: [] for name in PLANTED}
    gaze_degrees = []
    gaze = obj.reach.constraints["gaze"]
    sign = -1.0 if gaze.aim_axis.startswith("NEG") else 1.0
    column = "XYZ".index(gaze.aim_axis[-1])
    for frame in range(FRAMES[0], FRAMES[1] + 1):
        scene.frame_set(frame)
        for name in PLANTED:
            ankles[name].append(list(world_tail(obj, obj.reach.constraints[name].bone)))
        matrix = obj.matrix_world @ obj.pose.bones[gaze.bone].matrix
        eye = matrix @ Vector(gaze.offset)
        axis = sign * np.array(matrix.to_3x3().normalized().col[column])
        toward = np.array(goals["gaze"].matrix_world.translation - eye)
        off = math.atan2(float(np.linalg.norm(np.cross(axis, toward))), float(axis @ toward))
        gaze_degrees.append(math.degrees(off))
    leg = sum(obj.data.bones[b].length for b in ("thigh.L", "shin.L"))
    sliding = {}
    for name, ranges in PLANTED.items():
        track = np.array(ankles[name])
        worst = 0.0
        for first, last, _ in ranges:
            span = track[first - FRAMES[0] : last - FRAMES[0] + 1]
            worst = max(worst, float(np.linalg.norm(span - span[0], axis=1).max()))
        sliding[name] = worst
    return {
        "ankles": ankles,
        "sliding": sliding,
        "leg": leg,
        "gaze_degrees_max": max(gaze_degrees),
    }


def contact_sheet(obj: Any, goals: dict[str, Any], ankles: dict[str, Any], path: Path) -> None:
    """Render :data:`SHEET`'s frames with the feet's trajectories into one picture."""
    dress_figure(obj)
    for name, color in (("foot.L", "left foot"), ("foot.R", "right foot")):
        trail(f"Trajectory {name}", ankles[name], COLORS[color])
    vertices, faces = sphere(0.03, 8, 16)
    mesh_object("Marker gaze", vertices, faces, COLORS["gaze"]).parent = goals["gaze"]
    tiles_dir = path.parent / "walk_frames"
    tiles_dir.mkdir(exist_ok=True)
    stage(tiles_dir / "frame.png", (0.0, -0.3, 0.85), (4.2, -1.6, 0.9), TILE)
    scene = bpy.context.scene
    width, height = TILE
    columns = 3
    rows = math.ceil(len(SHEET) / columns)
    sheet = np.ones((rows * height, columns * width, 4), np.float32)
    for k, frame in enumerate(SHEET):
        scene.frame_set(frame)
        tile = tiles_dir / f"frame_{frame:03d}.png"
        scene.render.filepath = str(tile)
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(str(tile))
        pixels = np.empty(width * height * 4, np.float32)
        image.pixels.foreach_get(pixels)
        bpy.data.images.remove(image)
        row, column = divmod(k, columns)
        top = (rows - 1 - row) * height  # images are stored bottom row first
        sheet[top : top + height, column * width : (column + 1) * width] = pixels.reshape(
            height, width, 4
        )
    image = bpy.data.images.new("walk sheet", columns * width, rows * height, alpha=True)
    image.pixels.foreach_set(sheet.ravel())
    image.filepath_raw = str(path)
    image.file_format = "PNG"
    image.save()


def run(output: Path) -> dict[str, Any]:
    """Make the figure, animate, bake, measure and render; return the walk's summary."""
    obj = make_figure()
    goals = animate(obj)
    began = time.perf_counter()
    result = bpy.ops.reach.bake(armature=obj.name, frame_start=FRAMES[0], frame_end=FRAMES[1])
    seconds = time.perf_counter() - began
    if result != {"FINISHED"}:
        raise RuntimeError(f"the walk's bake returned {result}")
    measured = measure(obj, goals)
    frames = FRAMES[1] - FRAMES[0] + 1
    bpy.ops.wm.save_as_mainfile(filepath=str(output / "walk.blend"), copy=True)
    sheet = output / "walk_sheet.png"
    contact_sheet(obj, goals, measured["ankles"], sheet)
    return {
        "frames": frames,
        "bake_seconds": seconds,
        "frames_per_second": frames / seconds,
        "planted": {name: [r[:2] for r in ranges] for name, ranges in PLANTED.items()},
        **measured,
        "sheet": str(sheet),
    }
