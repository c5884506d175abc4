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


def key_hips(
    obj: Any,
    frames: range,
    speed: float,
    bone: str = HIPS,
    rise: float = 0.0,
    noise: float = 0.0,
    drop: float = DROP,
) -> None:
    """Key the hips ``bone`` moving forward (−Y) ``speed`` metres a frame, lowered by
    ``drop``, rising ``rise`` metres a metre forward (a slope), each key off by random
    noise of ``noise`` metres (a capture's jitter, the same each run)."""
    hips = obj.pose.bones[bone]
    # the world's metres into the bone's rest frame (an imported armature is scaled)
    to_local = (obj.matrix_world.to_3x3() @ obj.data.bones[bone].matrix_local.to_3x3()).inverted()
    jitter = np.random.default_rng(7).normal(0.0, noise, (len(frames), 3))
    for k, frame in enumerate(frames):
        forward = speed * (frame - frames[0])
        hips.location = to_local @ Vector((0.0, -forward, rise * forward - drop) + jitter[k])
        hips.keyframe_insert("location", frame=frame)


def cycle(fps: float = FPS) -> int:
    """Frames per stride at ``fps`` frames a second (a stride takes a second)."""
    return round(CYCLE * fps / FPS)


def stances(cycles: int, fps: float = FPS) -> dict[str, list[tuple[int, int]]]:
    """Per foot, the frames (first, last) it stands in the walk of :func:`walk`."""
    found: dict[str, list[tuple[int, int]]] = {}
    frames = cycle(fps)
    for foot, (_, phase) in FEET.items():
        down = [((f - 1) / frames + phase) % 1.0 < STANCE for f in range(1, cycles * frames + 1)]
        runs, start = [], None
        for k, on in enumerate([*down, False]):
            if on and start is None:
                start = k
            elif not on and start is not None:
                runs.append((start + 1, k))
                start = None
        found[foot] = runs
    return found


def _foot_offset(frame: int, phase: float, frames: int = CYCLE) -> tuple[float, float]:
    """How far forward a foot is (metres along −Y) and how high, at ``frame`` of a walk
    of ``frames`` frames a stride."""
    c = (frame - 1) / frames + phase
    n = math.floor(c)
    u = c - n
    planted = (n - phase + STANCE / 2.0) * STRIDE
    if u < STANCE:
        return planted, 0.0
    s = (u - STANCE) / (1.0 - STANCE)
    return planted + STRIDE * s * s * (3.0 - 2.0 * s), LIFT * math.sin(math.pi * s)


def walk(obj: Any, *args: Any, **options: Any) -> range:
    """Key a clean walk on ``obj`` (:func:`keyed_walk`, whose arguments these are), bake
    it and remove its constraints; its frames."""
    frames, names = keyed_walk(obj, *args, **options)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=frames[0], frame_end=frames[-1]) == {
        "FINISHED"
    }
    for name in names:
        bpy.ops.reach.remove_constraint(armature=obj.name, constraint=name, delete_goal=True)
    return frames


def keyed_walk(
    obj: Any,
    cycles: int = 2,
    feet: dict[str, tuple[str, float]] = FEET,
    hips: str = HIPS,
    ends: dict[str, Vector] | None = None,
    fps: float = FPS,
    slope: float = 0.0,
    drop: float = DROP,
) -> tuple[range, list[str]]:
    """Key a clean walk of ``cycles`` strides on ``obj`` to bake: the hips keyed, each
    foot's head and end constrained to goals keyed along its steps; the frames and the
    constraints' names.

    ``feet`` names each foot bone (the basic metarig's, or a control rig's foot control)
    with its chain's start and its phase, ``hips`` the bone keyed forward; ``ends`` gives
    a foot's end in armature space where it is not its bone's tail (the toes' joint of a
    skeleton whose tails are not its joints). At ``fps`` frames a second a stride takes
    a second; ``slope`` metres up a metre forward, the ground rises (the hips with it);
    the hips are lowered ``drop`` metres from rest (0: the legs all but straight).
    """
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = round(fps), 1.0
    stride = cycle(fps)
    frames = range(1, cycles * stride + 1)
    scene.frame_start, scene.frame_end = frames[0], frames[-1]
    key_hips(obj, frames, STRIDE / stride, hips, slope, drop=drop)
    rest = obj.data.bones
    names = []
    for foot, (thigh, phase) in feet.items():
        for effector in ("HEAD", "TAIL"):
            name = f"walk {foot} {effector}"
            bpy.ops.reach.add_constraint(
                armature=obj.name, bone=foot, effector=effector, chain_start=thigh, name=name
            )
            names.append(name)
            goal = obj.reach.constraints[name].goal
            tail = (ends or {}).get(foot, rest[foot].tail_local)
            point = rest[foot].head_local if effector == "HEAD" else tail
            start = obj.matrix_world @ point
            for frame in frames:
                forward, up = _foot_offset(frame, phase, stride)
                goal.location = start + Vector((0.0, -forward, up + slope * forward))
                goal.keyframe_insert("location", frame=frame)
    return frames, names


def control_walk(mode: str, cycles: int, slide: float, drop: float = DROP) -> tuple[Any, range]:
    """Rigify's basic human control rig walking ``cycles`` strides, its legs in ``mode``
    ("FK" or "IK"), its feet sliding: in FK its torso keyed ``slide`` times too fast, in
    IK its foot controls also carried forward by that share of its travel; its torso
    lowered ``drop`` metres (:func:`walk`); the rig and its frames."""
    obj = control_rig(mode)
    feet = control_feet(mode)
    frames = walk(obj, cycles, feet, "torso", drop=drop)
    speed = STRIDE / CYCLE
    key_hips(obj, frames, slide * speed, "torso", drop=drop)
    if mode == "IK":
        drift(obj, list(feet), frames, (slide - 1.0) * speed)
    return obj, frames


def control_rig(mode: str) -> Any:
    """Rigify's basic human control rig, generated here, its legs in ``mode`` ("FK", "IK")."""
    bpy.ops.object.armature_basic_human_metarig_add()
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    for side in "LR":
        obj.pose.bones[f"thigh_parent.{side}"]["IK_FK"] = 1.0 if mode == "FK" else 0.0
    obj.update_tag()
    bpy.context.view_layer.update()
    return obj


def control_feet(mode: str) -> dict[str, tuple[str, float]]:
    """A control rig's feet for :func:`walk` in ``mode``: the foot controls, their chains'
    starts and their phases."""
    if mode == "FK":
        return {"foot_fk.L": ("thigh_fk.L", 0.0), "foot_fk.R": ("thigh_fk.R", 0.5)}
    return {"foot_ik.L": ("", 0.0), "foot_ik.R": ("", 0.5)}


def drift(obj: Any, bones: list[str], frames: range, speed: float) -> None:
    """Key ``bones`` (a control rig's IK foot controls) also moving forward ``speed``
    metres a frame, as well as where the walk keyed them, so that they slide."""
    scene = bpy.context.scene
    for bone in bones:
        pose = obj.pose.bones[bone]
        to_local = (
            obj.matrix_world.to_3x3() @ obj.data.bones[bone].matrix_local.to_3x3()
        ).inverted()
        for frame in frames:
            scene.frame_set(frame)
            pose.location += to_local @ Vector((0.0, -speed * (frame - frames[0]), 0.0))
            pose.keyframe_insert("location", frame=frame)


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
