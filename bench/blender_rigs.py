"""Blender side of ``bench_blender.py``: the add-on loaded as a user's Blender loads it,
the Rigify metarig with Reach constraints and Blender IK constraints on the same limbs,
and the measurements both are judged by (residuals from Blender's evaluated pose, joint
limits read from the evaluated local rotations).

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
from mathutils import Matrix  # noqa: E402

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


def local_rotations(obj: Any, bones: Iterable[str]) -> dict[str, np.ndarray]:
    """Each bone's evaluated rotation relative to its rest frame in its parent (the
    rotation part of what ``matrix_basis`` would be), as a 3×3 array."""
    ev = evaluated(obj)
    result = {}
    for name in bones:
        pose_bone = ev.pose.bones[name]
        bone = ev.data.bones[name]
        pose = np.array(pose_bone.matrix, dtype=float)
        rest = np.array(bone.matrix_local, dtype=float)
        if bone.parent is not None:
            parent_pose = np.array(pose_bone.parent.matrix, dtype=float)
            parent_rest = np.array(bone.parent.matrix_local, dtype=float)
            # M = M_p · (B_p⁻¹ B) · L  ⇒  L = (B_p⁻¹ B)⁻¹ M_p⁻¹ M
            local = np.linalg.solve(
                np.linalg.solve(parent_rest, rest), np.linalg.solve(parent_pose, pose)
            )
        else:
            local = np.linalg.solve(rest, pose)
        rotation = local[:3, :3]
        u, _, vt = np.linalg.svd(rotation)  # drop float32 noise and any scale
        result[name] = u @ vt
    return result


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


# --- joint limits as each side reads them ------------------------------------------------


def ik_limits(obj: Any, bone: str) -> dict[str, tuple[float, float]]:
    """The bone's enabled IK limits per axis [rad]."""
    pose_bone = obj.pose.bones[bone]
    return {
        axis: (getattr(pose_bone, f"ik_min_{axis}"), getattr(pose_bone, f"ik_max_{axis}"))
        for axis in "xyz"
        if getattr(pose_bone, f"use_ik_limit_{axis}")
    }


def _excess(angle: float, low: float, high: float) -> float:
    """How far an angle (any turn of it) lies outside [low, high] [rad]."""
    best = math.inf
    for turn in (-1, 0, 1):
        a = angle + 2.0 * math.pi * turn
        best = min(best, max(0.0, low - a, a - high))
    return best


def euler_solutions(rotation: np.ndarray, order: str) -> tuple[dict[str, float], dict[str, float]]:
    """The two sets of Euler angles in ``order`` that give the rotation, by axis [rad]:
    Blender's, and the one with the middle angle mirrored (π − it) and the others turned
    by π."""
    euler = Matrix(rotation.tolist()).to_euler(order)
    first = {"x": euler.x, "y": euler.y, "z": euler.z}
    middle = order[1].lower()
    second = {
        axis: (math.pi - value if axis == middle else value + math.pi)
        for axis, value in first.items()
    }
    return first, second


def euler_box_violation(
    rotation: np.ndarray, limits: dict[str, tuple[float, float]], order: str
) -> float:
    """Reach's reading: the rotation as Euler angles in ``order`` (Reach's default for
    quaternion bones: YXZ) against per-axis bounds; the better of the two Euler
    solutions counts [rad]."""
    if not limits:
        return 0.0
    return min(
        max(_excess(angles[axis], *bounds) for axis, bounds in limits.items())
        for angles in euler_solutions(rotation, order)
    )


def euler_box_distance(
    rotation: np.ndarray, limits: dict[str, tuple[float, float]], order: str
) -> float:
    """Reach's reading as a rotation distance: the angle [rad] from the rotation to the
    nearest rotation whose Euler angles in ``order`` lie within the bounds (axes without
    limits free). Unlike :func:`euler_box_violation` it does not blow up near gimbal
    lock (X ≈ ±90° in YXZ), where Euler angles far outside the box can describe a
    rotation close to one inside."""
    if euler_box_violation(rotation, limits, order) <= 1e-12:
        return 0.0
    low = np.array([limits.get(axis, (-np.inf, np.inf))[0] for axis in "xyz"])
    high = np.array([limits.get(axis, (-np.inf, np.inf))[1] for axis in "xyz"])

    def gap(angles: np.ndarray) -> float:  # ‖R − Q‖²_F = 8 sin²(φ/2)
        other = euler_matrix(dict(zip("xyz", angles, strict=True)), order)
        return float(np.sum((rotation - other) ** 2))

    euler = Matrix(rotation.tolist()).to_euler(order)
    first = np.array((euler.x, euler.y, euler.z))
    middle = "xyz".index(order[1].lower())
    second = first + math.pi
    second[middle] = math.pi - first[middle]
    best = math.inf
    for start in (first, second):
        angles = np.array(
            [
                min(
                    (a + 2.0 * math.pi * turn for turn in (-1, 0, 1)),
                    key=lambda v, k=k: max(0.0, low[k] - v, v - high[k]),
                )
                for k, a in enumerate(start)
            ]
        )
        angles = np.clip(angles, low, high)
        value, step = gap(angles), 0.1
        for _ in range(200):
            h = 1e-7
            grad = np.array(
                [(gap(angles + h * e) - gap(angles - h * e)) / (2 * h) for e in np.eye(3)]
            )
            trial = np.clip(angles - step * grad, low, high)
            trial_value = gap(trial)
            if trial_value < value:
                if value - trial_value < 1e-16:
                    angles, value = trial, trial_value
                    break
                angles, value, step = trial, trial_value, 2.0 * step
            else:
                step *= 0.25
                if step < 1e-12:
                    break
        best = min(best, value)
    return 2.0 * math.asin(min(1.0, math.sqrt(best / 8.0)))


def _ellipse_clamp(
    ax: float, az: float, amin: Sequence[float], amax: Sequence[float]
) -> tuple[float, float]:
    """Blender's ``EllipseClamp`` (intern/iksolver/intern/IK_Math.h)."""
    x, xlim = (-ax, -amin[0]) if ax < 0.0 else (ax, amax[0])
    z, zlim = (-az, -amin[1]) if az < 0.0 else (az, amax[1])
    tiny = 1e-20
    if abs(xlim) < tiny or abs(zlim) < tiny:
        x, z = min(x, xlim), min(z, zlim)
    else:
        invx, invz = 1.0 / (xlim * xlim), 1.0 / (zlim * zlim)
        if x * x * invx + z * z * invz <= 1.0:
            return ax, az
        if abs(x) < tiny:
            x, z = 0.0, zlim
        else:
            rico = z / x
            x = math.sqrt(1.0 / (invx + invz * rico * rico))
            z = rico * x
    return (-x if ax < 0.0 else x), (-z if az < 0.0 else z)


def swing_twist_violation(rotation: np.ndarray, limits: dict[str, tuple[float, float]]) -> float:
    """Blender's Standard IK reading (IK_QSphericalSegment): the rotation split into a
    swing of the Y axis and a twist about it; the twist angle is bounded by the Y limits,
    the swing's quaternion X and Z components by sin(limit/2), on a quarter ellipse per
    quadrant when both X and Z are limited. Returns the angle [rad] between the
    rotation and the nearest one that reading allows."""
    if not limits:
        return 0.0
    r = rotation
    tau = 2.0 * math.atan2(r[0, 2] - r[2, 0], r[0, 0] + r[1, 1] + r[2, 2] + 1.0)
    twist = 0.0
    if "y" in limits:
        low, high = (min(max(v, -math.pi), math.pi) for v in limits["y"])
        twist = max(0.0, low - tau, tau - high)
    num = 2.0 * (1.0 + r[1, 1])
    if num < 1e-20:
        ax, az = 0.0, 1.0
    else:
        ax, az = -r[2, 1] / math.sqrt(num), r[0, 1] / math.sqrt(num)
    amin, amax = [0.0, 0.0], [0.0, 0.0]
    for k, axis in ((0, "x"), (1, "z")):
        if axis in limits:
            low, high = (min(max(v, -math.pi), math.pi) for v in limits[axis])
            amin[k], amax[k] = -math.sin(0.5 * high), -math.sin(0.5 * low)
    cx, cz = ax, az
    if "x" in limits and "z" in limits:
        cx, cz = _ellipse_clamp(ax, az, amin, amax)
    elif "x" in limits:
        cx = min(max(ax, amin[0]), amax[0])
    elif "z" in limits:
        cz = min(max(az, amin[1]), amax[1])

    def quaternion(x: float, z: float) -> np.ndarray:
        return np.array((math.sqrt(max(0.0, 1.0 - x * x - z * z)), x, 0.0, z))

    if (cx, cz) == (ax, az):
        return twist
    q, c = quaternion(ax, az), quaternion(cx, cz)
    swing = 2.0 * math.atan2(float(np.linalg.norm(q - c)), float(np.linalg.norm(q + c)))
    return max(twist, swing)


def limit_violations(
    obj: Any, bones: Iterable[str], order: str = "YXZ"
) -> tuple[float, float, float]:
    """Largest violation [deg] over ``bones`` of their IK limits in the evaluated pose:
    (Reach's Euler-box reading as a rotation distance, the same as an excess of Euler
    angles, Blender's swing-twist reading)."""
    bones = list(bones)
    if not bones:
        return 0.0, 0.0, 0.0
    rotations = local_rotations(obj, bones)
    box = euler = swing = 0.0
    for name in bones:
        limits = ik_limits(obj, name)
        box = max(box, euler_box_distance(rotations[name], limits, order))
        euler = max(euler, euler_box_violation(rotations[name], limits, order))
        swing = max(swing, swing_twist_violation(rotations[name], limits))
    return math.degrees(box), math.degrees(euler), math.degrees(swing)


def polygon_excess(point: Sequence[float], vertices: Sequence[Sequence[float]]) -> float:
    """How far ``point`` lies outside the convex polygon: the largest signed distance
    past an edge's line (0 inside), in the units of the vertices."""
    return max(0.0, polygon_signed(point, vertices))


def polygon_signed(point: Sequence[float], vertices: Sequence[Sequence[float]]) -> float:
    """The largest signed distance of ``point`` past the lines of the convex polygon's
    edges: positive outside (how far past the most violated edge), negative inside
    (minus the distance to the nearest edge's line), in the units of the vertices."""
    corners = np.asarray(vertices, dtype=float)
    edges = np.roll(corners, -1, axis=0) - corners
    area = float(np.sum(corners[:, 0] * edges[:, 1] - corners[:, 1] * edges[:, 0]))
    inward = np.column_stack((-edges[:, 1], edges[:, 0])) * math.copysign(1.0, area)
    inward /= np.linalg.norm(inward, axis=1)[:, None]
    outside = -np.sum(inward * (np.asarray(point, dtype=float) - corners), axis=1)
    return float(np.max(outside))


def joint_polygon(obj: Any, bone: str) -> tuple[str, str, list[tuple[float, float]]]:
    """(Euler order, polygon axes, vertices [rad]) of the bone's Reach limit polygon,
    as the add-on's ``build_rig`` reads them."""
    joint = obj.reach.joints[bone]
    mode = obj.pose.bones[bone].rotation_mode
    order = mode if mode in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX") else joint.euler_order
    return order, joint.polygon_axes, [tuple(v.value) for v in joint.polygon]


def rotation_polygon_signed(
    rotation: np.ndarray, order: str, axes: str, vertices: Sequence[Sequence[float]]
) -> float:
    """:func:`polygon_signed` of a bone's local rotation against its limit polygon
    [rad]: the rotation as Euler angles in ``order`` (as Reach reads the bone), the two
    angles of ``axes`` against the polygon; the better of the two Euler solutions
    counts."""
    return min(
        polygon_signed([math.remainder(angles[a.lower()], 2.0 * math.pi) for a in axes], vertices)
        for angles in euler_solutions(rotation, order)
    )


def polygon_signed_pose(obj: Any, bones: Iterable[str]) -> float:
    """The largest :func:`polygon_signed` [deg] over ``bones`` of their limit polygons in
    the evaluated pose (each evaluated local rotation read as Reach reads the bone's
    channels): positive is the largest violation, negative means every bone is inside
    by at least that much."""
    bones = list(bones)
    if not bones:
        return -math.inf
    rotations = local_rotations(obj, bones)
    return math.degrees(
        max(rotation_polygon_signed(rotations[b], *joint_polygon(obj, b)) for b in bones)
    )


def euler_matrix(angles: dict[str, float], order: str) -> np.ndarray:
    """R for Euler angles about x, y, z applied in ``order`` (Blender's convention:
    ``XYZ`` is R_z · R_y · R_x)."""
    result = np.eye(3)
    for axis in order:
        c, s = math.cos(angles[axis.lower()]), math.sin(angles[axis.lower()])
        if axis == "X":
            step = np.array(((1, 0, 0), (0, c, -s), (0, s, c)))
        elif axis == "Y":
            step = np.array(((c, 0, s), (0, 1, 0), (-s, 0, c)))
        else:
            step = np.array(((c, -s, 0), (s, c, 0), (0, 0, 1)))
        result = step @ result
    return result
