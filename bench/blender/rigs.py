"""The add-on loaded as a user's Blender loads it, the Rigify metarig with Reach
constraints and Blender IK constraints on the same limbs, and residuals from Blender's
evaluated pose (the scenarios are in :mod:`~bench.blender.scenarios`, joint limits as
each side reads them in :mod:`~bench.blender.joint_limits`).

The add-on is built with Blender's own ``blender_ext.py``, validated, installed into an
extension repository in :data:`bench.blender.HOME` (where importing :mod:`bench.blender`
pointed Blender's user folders, before ``bpy``) and enabled as
``bl_ext.reach_bench.reach`` (the logic of ``tests/addon/conftest.py``).
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

import bpy  # before addon_utils: importing bpy puts it on sys.path

# isort: split
import addon_utils
import numpy as np

from bench.blender import HOME
from bench.blender.scenarios import ELBOW_LIMITS_DEG, SHOULDER_POLYGON_DEG, Limb
from tools import blender_extension

REPOSITORY = "reach_bench"
MODULE = blender_extension.package_name(REPOSITORY)

# --- loading the add-on -----------------------------------------------------------------


def load_reach() -> ModuleType:
    """Build, validate, install and enable the extension; return its package."""
    package = blender_extension.build(HOME / "build")
    reach = blender_extension.install(package, REPOSITORY, HOME / "repository")
    addon_utils.enable("rigify", default_set=True)
    return reach


def unload_reach() -> None:
    addon_utils.disable(MODULE, default_set=True)
    shutil.rmtree(HOME, ignore_errors=True)


# --- scene ------------------------------------------------------------------------------


def new_metarig() -> Any:
    """An empty file with the Rigify basic human metarig (29 bones), in object mode."""
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def set_elbow_limits(obj: Any, bones: Iterable[str]) -> None:
    for name in bones:
        pose_bone = obj.pose.bones[name]
        for axis, (low, high) in ELBOW_LIMITS_DEG.items():
            setattr(pose_bone, f"use_ik_limit_{axis}", True)
            setattr(pose_bone, f"ik_min_{axis}", math.radians(low))
            setattr(pose_bone, f"ik_max_{axis}", math.radians(high))


def polygon_vertices(bone: str) -> list[tuple[float, float]]:
    """The limit polygon of ``bone`` (an upper arm) [rad], counter-clockwise."""
    vertices = [(math.radians(x), math.radians(z)) for x, z in SHOULDER_POLYGON_DEG]
    if bone.endswith(".R"):
        vertices = [(x, -z) for x, z in reversed(vertices)]
    return vertices


def set_polygons(obj: Any, bones: Iterable[str]) -> None:
    """Give each bone its limit polygon over rotations X and Z in Reach's joint settings
    (what the joint panel's *Add Vertex from Pose* stores), read in Euler YXZ."""
    for name in bones:
        joint = obj.reach.joints.get(name)
        if joint is None:
            joint = obj.reach.joints.add()
            joint.name = name
        joint.euler_order = "YXZ"
        joint.polygon_axes = "XZ"
        joint.polygon.clear()
        for vertex in polygon_vertices(name):
            joint.polygon.add().value = vertex


def reset_pose(obj: Any) -> None:
    """Every pose bone back to its rest channels."""
    for pose_bone in obj.pose.bones:
        pose_bone.location = (0.0, 0.0, 0.0)
        pose_bone.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pose_bone.rotation_euler = (0.0, 0.0, 0.0)
        pose_bone.rotation_axis_angle = (0.0, 0.0, 1.0, 0.0)
        pose_bone.scale = (1.0, 1.0, 1.0)


def limb_length(obj: Any, limb: Limb) -> float:
    return float(sum(obj.data.bones[b].length for b in limb.own))


def add_empty(name: str, location: Sequence[float]) -> Any:
    empty = bpy.data.objects.new(name, None)
    empty.empty_display_size = 0.05
    bpy.context.scene.collection.objects.link(empty)
    empty.location = tuple(location)
    return empty


def evaluated(obj: Any) -> Any:
    return obj.evaluated_get(bpy.context.evaluated_depsgraph_get())


def constrain(obj: Any, limbs: Sequence[Limb], goals: dict[str, Any] | None = None) -> None:
    """Make Figure's constraint on each limb's effector (its bone's tail), chain and name.

    ``goals``: each limb's goal empty by name (None: each constraint makes its own).
    """
    for limb in limbs:
        goal = "" if goals is None else goals[limb.name].name
        result = bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=limb.bone,
            effector="TAIL",
            goal=goal,
            chain_start=limb.chain[-1],
            name=limb.name,
        )
        assert result == {"FINISHED"}, result


def effector_points(obj: Any, limbs: Sequence[Limb]) -> np.ndarray:
    """World positions of the limbs' effectors (bone tails) in Blender's evaluated pose."""
    ev = evaluated(obj)
    world = ev.matrix_world
    return np.array([tuple(world @ ev.pose.bones[limb.bone].tail) for limb in limbs])


# --- Blender's IK ------------------------------------------------------------------------


def add_blender_ik(obj: Any, limbs: Sequence[Limb], targets: dict[str, Any]) -> list[Any]:
    """One IK constraint per limb on its effector bone, its tail at the target empty."""
    made = []
    for limb in limbs:
        constraint = obj.pose.bones[limb.bone].constraints.new("IK")
        constraint.name = f"bench IK {limb.name}"
        constraint.target = targets[limb.name]
        constraint.chain_count = len(limb.chain)
        constraint.use_tail = True
        constraint.use_stretch = False
        made.append(constraint)
    return made


ITASC_PRECISION = 0.005
"""iTaSC's default precision [m] (``pose.ik_param.precision``)."""


def configure_blender_ik(
    obj: Any, solver: str, iterations: int, precision: float | None = None
) -> dict[str, Any]:
    """Select Standard ('LEGACY') or iTaSC and set the iteration count (and iTaSC's
    precision, default when None); return the settings in force."""
    obj.pose.ik_solver = solver
    for pose_bone in obj.pose.bones:
        for constraint in pose_bone.constraints:
            if constraint.type == "IK":
                constraint.iterations = iterations
    settings: dict[str, Any] = {"ik_solver": solver, "constraint.iterations": iterations}
    if solver == "ITASC":
        param = obj.pose.ik_param
        param.iterations = iterations
        param.precision = ITASC_PRECISION if precision is None else precision
        for key in ("mode", "iterations", "precision", "solver", "use_auto_step"):
            value = getattr(param, key)
            settings[f"ik_param.{key}"] = value if not isinstance(value, float) else round(value, 6)
    return settings


def remove_blender_ik(obj: Any) -> None:
    for pose_bone in obj.pose.bones:
        for constraint in list(pose_bone.constraints):
            if constraint.type == "IK":
                pose_bone.constraints.remove(constraint)
