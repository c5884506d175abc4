"""Scenes for the add-on's tests: the Rigify human metarig with goals on hands and feet,
and the checks several test modules share."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import bpy
import numpy as np
import pytest
from mathutils import Euler, Matrix, Vector

ARM = ("upper_arm", "forearm", "hand")
LEG = ("thigh", "shin", "foot")

# (X, Z) rotations of upper_arm.L [rad]: a convex quadrilateral and a non-convex dart
SQUARE = ((-0.4, -0.3), (0.5, -0.3), (0.5, 0.6), (-0.4, 0.6))
DART = ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (0.0, 0.0), (-0.5, 0.5))


def metarig(kind: str = "basic") -> Any:
    """A Rigify human metarig ('basic': 29 bones; 'full': with fingers and face)."""
    if kind == "basic":
        bpy.ops.object.armature_basic_human_metarig_add()
    else:
        bpy.ops.object.armature_human_metarig_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def chain_length(obj: Any, bones: tuple[str, ...]) -> float:
    """Sum of the bones' lengths (armature units)."""
    return float(sum(obj.data.bones[b].length for b in bones))


def world_tail(obj: Any, bone: str) -> np.ndarray:
    """A bone's tail in world space, from Blender's evaluated pose."""
    return np.array(obj.matrix_world @ obj.pose.bones[bone].tail)


def limbs(
    obj: Any, *, feet: bool = True, hands: bool = True, arm_chain: str = "shoulder"
) -> dict[str, str]:
    """Constraints on the feet (to the thighs) and hands (to the shoulders): name → goal empty."""
    limbs = [("foot", "shin", "thigh")] * feet + [("hand", "forearm", arm_chain)] * hands
    made: dict[str, str] = {}
    for side in ("L", "R"):
        for name, bone, start in limbs:
            label = f"{name}.{side}"
            result = bpy.ops.reach.add_constraint(
                armature=obj.name,
                bone=f"{bone}.{side}",
                effector="TAIL",
                chain_start=f"{start}.{side}",
                name=label,
            )
            assert result == {"FINISHED"}
            made[label] = obj.reach.constraints[label].goal.name
    return made


def pose_channels(obj: Any) -> dict[str, tuple[str, ...]]:
    """Every pose bone's rotation mode and raw channels, bit for bit (floats as hex)."""
    return {
        b.name: (
            b.rotation_mode,
            *(
                float(v).hex()
                for v in (
                    *b.location,
                    *b.rotation_euler,
                    *b.rotation_quaternion,
                    *b.rotation_axis_angle,
                    *b.scale,
                )
            ),
        )
        for b in obj.pose.bones
    }


def channel_values(channels: tuple[str, ...]) -> list[float]:
    """The floats of a :func:`pose_channels` entry."""
    return [float.fromhex(v) for v in channels[1:]]


def figure():
    obj = metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    return obj


def four_limbs():
    obj = metarig()
    for side in ("L", "R"):
        forearm = obj.pose.bones[f"forearm.{side}"]
        forearm.use_ik_limit_x = True
        forearm.ik_min_x = math.radians(-150)
        forearm.ik_max_x = 0.0
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    limbs(obj)
    return obj


def reachable_path(rig, obj, bone, bones, n, seed):
    """Hand locations along a straight line in joint space from the current pose to a
    random pose within the limits: every one is reachable."""
    rng = np.random.default_rng(seed)
    figure = rig.figure
    start = np.zeros(figure.n_dofs)
    end = start.copy()
    for name in bones:
        for i in figure.segment(name).dof_indices:
            low = max(figure.lower[i], -1.0)
            high = min(figure.upper[i], 1.0)
            end[i] = rng.uniform(low, high)
    k = [e.name for e in rig.layout].index(bone)
    length = obj.data.bones[bone].length
    points = []
    for t in np.linspace(0.0, 1.0, n + 1)[1:]:
        frame = figure.forward((1 - t) * start + t * end)[k]
        points.append(
            {"name": "", "location": tuple(frame[:3, :3] @ (0.0, length, 0.0) + frame[:3, 3])}
        )
    return points


def solve_fails(obj, match, **options):
    before = pose_channels(obj)
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.reach.solve(armature=obj.name, **options)
    assert pose_channels(obj) == before


def pose_xz(obj, bone, x, z):
    """Pose a quaternion bone at rotations x about X and z about Z in its joint's order."""
    order = obj.reach.joints[bone].euler_order
    obj.pose.bones[bone].rotation_quaternion = Euler((x, 0.0, z), order).to_quaternion()


def add_vertices(obj, bone, vertices):
    for x, z in vertices:
        pose_xz(obj, bone, x, z)
        result = bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone=bone)
        assert result == {"FINISHED"}


def region_view(
    center: Any, *, perspective: bool = True, width: int = 800, height: int = 600
) -> tuple[Any, Any]:
    """A 3D viewport's region and ``RegionView3D`` stand-ins with real matrices.

    The view looks along +Y (a front view) at ``center`` from 3 units away, Z up:
    perspective with a 50° vertical field of view, or orthographic 2 units high.

    Returns:
        ``(region, region_data)``: width and height; perspective_matrix, view_matrix,
        is_perspective and view_perspective, as Blender's own objects have them.
    """
    eye = Vector(center) + Vector((0.0, -3.0, 0.0))
    camera = Matrix.Translation(eye) @ Euler((math.pi / 2, 0.0, 0.0)).to_matrix().to_4x4()
    view_matrix = camera.inverted()
    near, far, aspect = 0.1, 100.0, width / height
    if perspective:
        f = 1.0 / math.tan(math.radians(50.0) / 2.0)
        window = Matrix(
            (
                (f / aspect, 0.0, 0.0, 0.0),
                (0.0, f, 0.0, 0.0),
                (0.0, 0.0, (far + near) / (near - far), 2.0 * far * near / (near - far)),
                (0.0, 0.0, -1.0, 0.0),
            )
        )
    else:
        top = 1.0
        window = Matrix(
            (
                (1.0 / (top * aspect), 0.0, 0.0, 0.0),
                (0.0, 1.0 / top, 0.0, 0.0),
                (0.0, 0.0, -2.0 / (far - near), -(far + near) / (far - near)),
                (0.0, 0.0, 0.0, 1.0),
            )
        )
    region = SimpleNamespace(width=width, height=height)
    region_data = SimpleNamespace(
        perspective_matrix=window @ view_matrix,
        view_matrix=view_matrix,
        is_perspective=perspective,
        view_perspective="PERSP" if perspective else "ORTHO",
    )
    return region, region_data


def fcurve_paths(obj):
    """Data paths keyed on ``obj`` (layered actions in 5.0, flat ones in 4.2)."""
    action = obj.animation_data.action
    if hasattr(action, "fcurves") and len(action.fcurves):
        return {c.data_path for c in action.fcurves}
    paths = set()
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                paths.update(c.data_path for c in bag.fcurves)
    return paths


def window_context() -> SimpleNamespace:
    """A context whose window manager records a modal operator's progress, handlers and
    timers (no window exists headless), over the real scene and view layer."""
    manager = SimpleNamespace(progress=[], handlers=[], timers=[])
    manager.progress_begin = lambda low, high: manager.progress.append(("begin", low, high))
    manager.progress_update = lambda value: manager.progress.append(("update", value))
    manager.progress_end = lambda: manager.progress.append(("end",))
    manager.modal_handler_add = manager.handlers.append
    manager.event_timer_add = lambda step, window=None: manager.timers.append("timer") or "timer"
    manager.event_timer_remove = manager.timers.remove
    return SimpleNamespace(
        scene=bpy.context.scene,
        view_layer=bpy.context.view_layer,
        active_object=bpy.context.active_object,
        window=SimpleNamespace(),
        window_manager=manager,
    )
