"""Blender side of ``bench_blender.py``: the add-on loaded as a user's Blender loads it,
the Rigify metarig with Reach constraints and Blender IK constraints on the same limbs,
and residuals from Blender's evaluated pose (joint limits as each side reads them are
in ``blender_limits``).

Importing this module points Blender's user directories at a temporary folder *before*
``bpy`` is imported (nothing touches the real Blender config), and keeps BLAS
single-threaded, as ``bench_solver.py`` does. The add-on is built with Blender's own
``blender_ext.py``, validated, installed into an isolated extension repository and
enabled as ``bl_ext.reach_bench.reach`` (the logic of ``tests/addon/conftest.py``).
"""

from __future__ import annotations

import math
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import machine  # noqa: F401  (first: one BLAS thread for numpy and bpy)
from harness import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import blender_extension

HOME = blender_extension.isolate_user_folders("reach-bench-")

import bpy  # noqa: E402, I001  (bpy first: it puts addon_utils on sys.path)
import addon_utils  # noqa: E402
import numpy as np  # noqa: E402

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


# --- scenarios ----------------------------------------------------------------------------

SPINE = ("spine.003", "spine.002", "spine.001", "spine")

ELBOW_LIMITS_DEG = {"x": (0.0, 140.0), "y": (-90.0, 90.0), "z": (-10.0, 10.0)}
"""The forearms' IK limits of the limits scenarios, in degrees, Blender's ik_min/ik_max.

On the metarig's forearms +X flexes the elbow (the wrist comes forward, to -Y, and up)
on both sides; Y twists the forearm about itself; Z swings it in the arm's plane."""

SPREAD_DEG = {"spine": 15.0, "default": 45.0}
"""Half-width of the random joint angles of DOFs without IK limits [deg]."""

SHOULDER_POLYGON_DEG = (
    (-20.0, -35.0),
    (25.0, -40.0),
    (40.0, -5.0),
    (30.0, 35.0),
    (-5.0, 40.0),
    (-30.0, 10.0),
)
"""The limit polygon of the polygon scenarios on upper_arm.L, over its rotations X
(flexion: +X swings the arm forward) and Z (abduction: +Z raises it) of Reach's
Euler YXZ reading of the quaternion bone [deg], counter-clockwise. A convex hexagon
around the rest pose that cuts every corner of the ±45° square the random poses are
drawn from (about half of the square's area): little extension (arm back), no raising
while the arm is back or lowering while it is forward. upper_arm.R gets the mirror
image (X, −Z): its local X axis is the mirror image of the left one's, negated."""


@dataclass(frozen=True)
class Limb:
    """An effector at the tail of ``bone`` and the chain that moves it.

    Attributes:
        name: Constraint name (Reach) and target name (Blender IK).
        bone: The effector bone; the effector is its tail.
        chain: The bones the chain moves, ``bone`` first, up to the chain start.
        own: The limb's own bones (the chain without the shared spine); their summed
            rest lengths are the limb length that residuals are divided by.
    """

    name: str
    bone: str
    chain: tuple[str, ...]
    own: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    limbs: tuple[Limb, ...]
    dragged: str
    elbow_limits: tuple[str, ...] = ()
    polygons: tuple[str, ...] = ()
    """Bones (upper arms) that get :data:`SHOULDER_POLYGON_DEG` as a limit polygon."""
    blender_methods: tuple[str, ...] | None = None
    """Keys of the Blender IK methods to run (None: all)."""

    def limb(self, name: str) -> Limb:
        return next(limb for limb in self.limbs if limb.name == name)

    @property
    def bones(self) -> list[str]:
        """Every bone in some chain, without repeats."""
        return list(dict.fromkeys(b for limb in self.limbs for b in limb.chain))


def _arm_wrist(side: str) -> Limb:
    own = (f"forearm.{side}", f"upper_arm.{side}", f"shoulder.{side}")
    return Limb(f"wrist.{side}", f"forearm.{side}", own, own)


def _upper_arm_wrist(side: str) -> Limb:
    own = (f"forearm.{side}", f"upper_arm.{side}")
    return Limb(f"wrist.{side}", f"forearm.{side}", own, own)


def _hand(side: str) -> Limb:
    own = (f"hand.{side}", f"forearm.{side}", f"upper_arm.{side}", f"shoulder.{side}")
    return Limb(f"hand.{side}", f"hand.{side}", own + SPINE, own)


def _hand_from_shoulder(side: str) -> Limb:
    own = (f"hand.{side}", f"forearm.{side}", f"upper_arm.{side}")
    return Limb(f"hand.{side}", f"hand.{side}", own, own)


def _foot_from_hip(side: str) -> Limb:
    own = (f"foot.{side}", f"shin.{side}", f"thigh.{side}")
    return Limb(f"foot.{side}", f"foot.{side}", own, own)


def _foot(side: str) -> Limb:
    own = (f"foot.{side}", f"shin.{side}", f"thigh.{side}")
    return Limb(f"foot.{side}", f"foot.{side}", (*own, "spine"), own)


POLYGON_BLENDER_METHODS = ("standard_500", "standard_50")
"""Blender cannot express a limit polygon: its Standard IK runs, unlimited, for
reference (its polygon violations are the point), iTaSC is left out."""

ARM = (_arm_wrist("L"),)
ARM_FROM_SHOULDER = (_upper_arm_wrist("L"),)
"""The wrist with the chain upper_arm.L → forearm.L: without the clavicle (shoulder.L),
whose rotations would otherwise aim the arm around the polygon, the polygon cuts the
wrist's reachable set (measured: of the targets of random poses inside the ±45° square
but outside the polygon, none is out of reach with the clavicle in the chain, 28%
without it)."""
LIMBS = (_hand("L"), _hand("R"), _foot("L"), _foot("R"))
LIMBS_FROM_ROOTS = (
    _hand_from_shoulder("L"),
    _hand_from_shoulder("R"),
    _foot_from_hip("L"),
    _foot_from_hip("R"),
)
"""The four limbs, each from its own root joint (upper arm, thigh), sharing no bone.
With the spine and the clavicles in the hands' chains (``LIMBS``) the shoulder polygons
rarely bind (measured on 100 random targets: Reach's pose touched a polygon in 2 and
Standard IK's never left one; with the clavicles locked, Standard IK left one in 1),
and with chains from the upper arms but the spine in the feet's (shared, as in
``LIMBS``) Blender's IK, which solves the hands' separate IK trees without the spine's
motion, misses most random targets for reasons unrelated to the polygons."""

SCENARIOS = {
    "arm": Scenario("arm", "one arm (9 DOF)", ARM, "wrist.L"),
    "limbs": Scenario("limbs", "four limbs (54 DOF)", LIMBS, "hand.L"),
    "arm_limits": Scenario(
        "arm_limits", "one arm, elbow limits (9 DOF)", ARM, "wrist.L", ("forearm.L",)
    ),
    "limbs_limits": Scenario(
        "limbs_limits",
        "four limbs, elbow limits (54 DOF)",
        LIMBS,
        "hand.L",
        ("forearm.L", "forearm.R"),
    ),
    "arm_polygon": Scenario(
        "arm_polygon",
        "one arm from the shoulder joint, limit polygon (6 DOF)",
        ARM_FROM_SHOULDER,
        "wrist.L",
        polygons=("upper_arm.L",),
        blender_methods=POLYGON_BLENDER_METHODS,
    ),
    "limbs_polygon": Scenario(
        "limbs_polygon",
        "four limbs from their root joints, shoulder limit polygons (36 DOF)",
        LIMBS_FROM_ROOTS,
        "hand.L",
        polygons=("upper_arm.L", "upper_arm.R"),
        blender_methods=POLYGON_BLENDER_METHODS,
    ),
}


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
