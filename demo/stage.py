"""The picture: meshes on the bones, a floor, goal markers and trails, camera, render.

The figure is drawn with Workbench in object colours: bone-shaped octahedra parented to
the bones, a sphere for the head, the floor a thin slab (Workbench's shadows need closed
meshes), a marker on each goal and a curve along each hand's path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bpy
from drags import Segment
from errors import DemoError
from figure import FEET, HANDS
from mathutils import Vector
from shapes import octahedron, slab, sphere

RESOLUTION = (960, 720)
CAMERA: dict[str, Any] = {"lens": 50, "target": (0.0, -0.15, 0.9), "offset": (3.0, -2.4, 1.0)}
"""The camera looks at ``target`` from ``target + offset`` (front left of the figure)."""

WIDTHS = {
    "spine.004": 0.03,
    "spine.005": 0.03,
    "spine.006": 0.02,
    "spine": 0.075,
    "pelvis": 0.03,
    "shoulder": 0.035,
    "upper_arm": 0.04,
    "forearm": 0.032,
    "hand": 0.025,
    "thigh": 0.06,
    "shin": 0.045,
    "foot": 0.03,
    "toe": 0.025,
    "heel": 0.015,
}
"""Half-widths [m] of the bones' meshes, by the first matching name prefix."""

COLORS = {
    "body": (0.85, 0.62, 0.45, 1.0),
    "head": (0.85, 0.62, 0.45, 1.0),
    "floor": (0.95, 0.95, 0.95, 1.0),
    "foot goal": (0.15, 0.35, 0.9, 1.0),
    "hand goal": (0.9, 0.15, 0.1, 1.0),
    "trail": (0.95, 0.6, 0.05, 1.0),
    "left foot": (0.1, 0.3, 0.95, 1.0),
    "right foot": (0.9, 0.1, 0.1, 1.0),
    "gaze": (0.1, 0.7, 0.2, 1.0),
}


def mesh_object(
    name: str,
    vertices: Sequence[Sequence[float]],
    faces: Sequence[Sequence[int]],
    color: tuple[float, ...],
) -> Any:
    """A mesh object in the scene's collection, drawn in ``color``."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v) for v in vertices], [], [tuple(f) for f in faces])
    mesh.validate()
    mesh.update()
    result = bpy.data.objects.new(name, mesh)
    result.color = color
    bpy.context.scene.collection.objects.link(result)
    return result


def dress(obj: Any, goals: dict[str, Any], segments: list[Segment]) -> None:
    """Segment meshes on the bones, a floor, goal markers and the hands' trails."""
    dress_figure(obj)
    for name, goal in goals.items():
        vertices, faces = sphere(0.022, 8, 16)
        kind = "foot goal" if name in FEET else "hand goal"
        marker = mesh_object(f"Marker {name}", vertices, faces, COLORS[kind])
        marker.parent = goal
    for hand in HANDS:
        points = [e["hand_goals"][hand] for s in segments for e in s.events]
        trail(f"Trail {hand}", points, COLORS["trail"])
    bpy.context.view_layer.update()


def trail(name: str, points: Sequence[Sequence[float]], color: tuple[float, ...]) -> Any:
    """A thin tube through ``points``, drawn in ``color``."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    curve.bevel_depth = 0.004
    spline = curve.splines.new("POLY")
    spline.points.add(len(points) - 1)
    for point, location in zip(spline.points, points, strict=True):
        point.co = (*location, 1.0)
    result = bpy.data.objects.new(name, curve)
    result.color = color
    bpy.context.scene.collection.objects.link(result)
    return result


def dress_figure(obj: Any) -> None:
    """Segment meshes on the bones, a head and a floor."""
    for bone in obj.data.bones:
        if bone.name.startswith("breast"):
            continue
        width = next((w for prefix, w in WIDTHS.items() if bone.name.startswith(prefix)), 0.02)
        vertices, faces = octahedron(bone.length, width)
        part = mesh_object(f"Body {bone.name}", vertices, faces, COLORS["body"])
        part.parent = obj
        part.parent_type = "BONE"
        part.parent_bone = bone.name  # sits at the bone's tail, in the bone's axes
    head_bone = obj.data.bones["spine.006"]
    vertices, faces = sphere(0.085)
    head = mesh_object("Body head", vertices, faces, COLORS["head"])
    head.parent = obj
    head.parent_type = "BONE"
    head.parent_bone = head_bone.name
    head.location = (0.0, -0.45 * head_bone.length, 0.0)
    vertices, faces = slab(6.0, 0.05)
    mesh_object("Floor", vertices, faces, COLORS["floor"])


def stage(
    path: Path,
    target: Sequence[float] = CAMERA["target"],
    offset: Sequence[float] = CAMERA["offset"],
    resolution: tuple[int, int] = RESOLUTION,
) -> None:
    """Camera, world and Workbench settings; the picture goes to ``path``.

    The camera looks at ``target`` from ``target + offset``.
    """
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.data.lens = CAMERA["lens"]
    scene.collection.objects.link(camera)
    look_at = Vector(target)
    camera.location = look_at + Vector(offset)
    camera.rotation_euler = (look_at - camera.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = camera
    world = bpy.data.worlds.new("World")
    world.color = (0.93, 0.94, 0.96)
    scene.world = world
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = str(path)
    scene.view_settings.view_transform = "Standard"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.studio_light = "basic.sl"
    shading.color_type = "OBJECT"
    shading.show_shadows = True  # Workbench's shadows need closed meshes (the floor is a slab)
    shading.shadow_intensity = 0.4
    scene.display.light_direction = (0.5, 0.5, 0.7)


def render(path: Path) -> float:
    """Render the scene with Workbench into ``path``; return the seconds it took."""
    start = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    seconds = time.perf_counter() - start
    if not path.is_file():
        raise DemoError(f"the render did not write {path}")
    return seconds
