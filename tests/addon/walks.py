"""A walk made in the test: the basic human metarig's hips keyed forward, its feet stepping.

The feet's paths (each a stance on the ground, then a swing in an arc) are held by
Reach's constraints on each foot's head and end and baked; the constraints are then
removed, leaving a clean walk keyed on the hips and legs. Keying the hips again faster
(:func:`key_hips`) makes the feet slide while they stand, as motion put on a character
of other proportions does.
"""

from __future__ import annotations

import math
from typing import Any

import bpy
import numpy as np
from mathutils import Vector

FPS = 24
CYCLE = 24
"""Frames per stride of each foot."""
STANCE = 0.6
"""The share of a stride a foot stands."""
STRIDE = 0.7
"""Metres a foot steps forward each stride (the hips' travel per stride)."""
LIFT = 0.08
"""Metres a foot rises in the middle of its swing."""
DROP = 0.06
"""Metres the hips are lowered, so that the knees bend."""
FEET = {"foot.L": ("thigh.L", 0.0), "foot.R": ("thigh.R", 0.5)}
"""Each foot's thigh and the share of a stride it steps after the left."""
HIPS = "spine"


def key_hips(obj: Any, frames: range, speed: float) -> None:
    """Key the hips moving forward (−Y) ``speed`` metres a frame, lowered by :data:`DROP`."""
    hips = obj.pose.bones[HIPS]
    to_local = obj.data.bones[HIPS].matrix_local.to_3x3().inverted()
    for frame in frames:
        hips.location = to_local @ Vector((0.0, -speed * (frame - frames[0]), -DROP))
        hips.keyframe_insert("location", frame=frame)


def stances(cycles: int) -> dict[str, list[tuple[int, int]]]:
    """Per foot, the frames (first, last) it stands in the walk of :func:`walk`."""
    found: dict[str, list[tuple[int, int]]] = {}
    for foot, (_, phase) in FEET.items():
        down = [((f - 1) / CYCLE + phase) % 1.0 < STANCE for f in range(1, cycles * CYCLE + 1)]
        runs, start = [], None
        for k, on in enumerate([*down, False]):
            if on and start is None:
                start = k
            elif not on and start is not None:
                runs.append((start + 1, k))
                start = None
        found[foot] = runs
    return found


def _foot_offset(frame: int, phase: float) -> tuple[float, float]:
    """How far forward a foot is (metres along −Y) and how high, at ``frame``."""
    c = (frame - 1) / CYCLE + phase
    n = math.floor(c)
    u = c - n
    planted = (n - phase + STANCE / 2.0) * STRIDE
    if u < STANCE:
        return planted, 0.0
    s = (u - STANCE) / (1.0 - STANCE)
    return planted + STRIDE * s * s * (3.0 - 2.0 * s), LIFT * math.sin(math.pi * s)


def walk(obj: Any, cycles: int = 2) -> range:
    """Key a clean walk of ``cycles`` strides on the basic metarig ``obj``; its frames."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    frames = range(1, cycles * CYCLE + 1)
    scene.frame_start, scene.frame_end = frames[0], frames[-1]
    key_hips(obj, frames, STRIDE / CYCLE)
    rest = obj.data.bones
    names = []
    for foot, (thigh, phase) in FEET.items():
        for effector in ("HEAD", "TAIL"):
            name = f"walk {foot} {effector}"
            bpy.ops.reach.add_constraint(
                armature=obj.name, bone=foot, effector=effector, chain_start=thigh, name=name
            )
            names.append(name)
            goal = obj.reach.constraints[name].goal
            point = rest[foot].head_local if effector == "HEAD" else rest[foot].tail_local
            start = obj.matrix_world @ point
            for frame in frames:
                forward, up = _foot_offset(frame, phase)
                goal.location = start + Vector((0.0, -forward, up))
                goal.keyframe_insert("location", frame=frame)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=frames[0], frame_end=frames[-1]) == {
        "FINISHED"
    }
    for name in names:
        bpy.ops.reach.remove_constraint(armature=obj.name, constraint=name, delete_goal=True)
    return frames


def world_points(obj: Any, frames: range, points: dict[str, str]) -> dict[str, np.ndarray]:
    """Per bone in ``points``, its "head" or "tail" in world space on each frame."""
    scene = bpy.context.scene
    found = {bone: np.empty((len(frames), 3)) for bone in points}
    for k, frame in enumerate(frames):
        scene.frame_set(frame)
        for bone, end in points.items():
            pose = obj.pose.bones[bone]
            found[bone][k] = tuple(obj.matrix_world @ (pose.head if end == "head" else pose.tail))
    return found
