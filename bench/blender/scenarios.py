"""The scenarios of ``bench.blender.versus_ik``: which limbs of the Rigify metarig get goals,
their chains, and the joint limits (elbow IK limits, shoulder limit polygons) each adds.

Plain data, no ``bpy``: ``rigs`` builds the rig a scenario describes.
"""

from __future__ import annotations

from dataclasses import dataclass

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
