"""A 53-DOF adult human (1.75 m), after the 1990 interactive Jack figure (seed 001).

Blender's conventions (see :mod:`._skeleton`): metres, Z up, facing −Y, the figure's
left side at +X, every bone along its local +Y axis. The rest pose θ = 0 stands upright
with the arms hanging and the palms facing the thighs; it is strictly inside every
limit.

DOFs (53 with root translation, 50 without):

- trunk 21: ``pelvis`` (root) translation x, y, z (±1 m, world axes) and rotation
  heading, pitch, roll; ``spine1``..``spine3``, ``neck`` and ``head`` 3 each (flexion
  about local X, lateral bending about Z, axial twist about Y);
- per arm 9: ``clavicle`` 2 (elevation, protraction), ``upper_arm`` 3 (flexion,
  abduction, internal twist, with a convex limit polygon over flexion × abduction),
  ``forearm`` 2 (elbow flexion, pronation), ``hand`` 2 (wrist flexion, radial deviation);
- per leg 7: ``thigh`` 3 (flexion, abduction, internal twist), ``shin`` 1 (knee
  flexion), ``foot`` 2 (dorsiflexion, inversion), ``toe`` 1 (extension).

Every rotational DOF is signed anatomically (flexion, abduction, … positive) on both
sides: the right side's DOFs are the mirror images of the left's. Each joint sits at
its parent's tail, except where anatomy puts it elsewhere on the parent: the hips at
the sides of the pelvis (whose bone runs up from between the hips to the sacrum) and
the clavicles at the sternum, beside the top of ``spine3``.
"""

from __future__ import annotations

import math

from ..constraint import Effector
from ..exceptions import SolverInputError
from ..figure import Dof, Figure
from ._skeleton import Bone, Vec3, build_figure, effector_at, mirror, rot

__all__ = [
    "ARM_LENGTH",
    "LEG_LENGTH",
    "SHOULDER_POLYGON",
    "add_shoulder_polygons",
    "arm_bones",
    "human_figure",
    "leg_bones",
    "limb_effectors",
    "limb_length",
    "palm_effector",
]

FORWARD: Vec3 = (0.0, -1.0, 0.0)
UP: Vec3 = (0.0, 0.0, 1.0)

# Rest landmarks of the left side and the midline [m].
HIP_CENTRE = (0.0, 0.0, 0.93)
SACRUM_TOP = (0.0, 0.0, 1.00)
CHEST_TOP = (0.0, 0.0, 1.45)
NECK_TOP = (0.0, 0.0, 1.55)
HEAD_TOP = (0.0, 0.0, 1.75)
EYES = (0.0, -0.08, 1.65)
STERNUM = (0.02, 0.0, 1.40)
SHOULDER = (0.18, 0.0, 1.42)
ELBOW = (0.18, 0.0, 1.11)
WRIST = (0.18, 0.0, 0.85)
FINGERTIP = (0.18, 0.0, 0.66)
PALM = (0.165, 0.0, 0.77)
HIP = (0.09, 0.0, 0.93)
KNEE = (0.09, 0.0, 0.50)
ANKLE = (0.09, 0.0, 0.08)
BALL = (0.09, -0.13, 0.02)
TOE_TIP = (0.09, -0.19, 0.02)
SOLE = (0.09, -0.05, 0.0)

ARM_LENGTH = math.dist(SHOULDER, PALM)
"""Shoulder joint to palm centre at rest [m] (≈ 0.65)."""
LEG_LENGTH = math.dist(HIP, ANKLE)
"""Hip joint to ankle joint at rest [m] (0.85)."""

SHOULDER_POLYGON = (
    (-0.95, -0.4),
    (0.5, -0.55),
    (2.3, -0.3),
    (3.05, 0.7),
    (2.5, 2.6),
    (0.8, 2.95),
    (-0.95, 1.5),
)
"""Convex limit polygon over (flexion, abduction) of each shoulder [rad]: extension
with high abduction and full flexion with full abduction are cut off. No vertex lies on
a bound (flexion [−1, 3.1], abduction [−0.6, 3]), so no three limits meet at one
point (a degenerate vertex)."""

SPINE_SEGMENTS = ("spine1", "spine2", "spine3")


def _trunk_joint(flexion: tuple[float, float], lateral: float, twist: float) -> tuple[Dof, ...]:
    return (
        rot("x", flexion[0], flexion[1], "flexion"),
        rot("z", -lateral, lateral, "lateral bending (+ to the right)"),
        rot("y", -twist, twist, "axial twist (+ to the left)"),
    )


def arm_bones(
    parent: str, *, clavicle_dofs: bool = True, twist_at_wrist: bool = False
) -> list[Bone]:
    """Bones of both arms (left first, then the mirrored right).

    Args:
        parent: The clavicles' parent segment.
        clavicle_dofs: Give each clavicle elevation and protraction; False fixes it.
        twist_at_wrist: Put forearm pronation first at the wrist (3 wrist DOFs) instead
            of second at the elbow.

    Returns:
        ``clavicle``, ``upper_arm``, ``forearm``, ``hand`` for ``.L`` then ``.R``.
    """
    pronation = rot("y", -1.5, 1.35, "pronation")
    clavicle = (
        (rot("z", -0.1, 0.5, "elevation"), rot("x", -0.3, 0.3, "protraction"))
        if clavicle_dofs
        else ()
    )
    shoulder = (
        rot("x", -1.0, 3.1, "flexion"),
        rot("z", -0.6, 3.0, "abduction"),
        rot("y", -1.2, 1.4, "internal twist"),
    )
    elbow = (rot("x", -0.05, 2.5, "flexion"),) + (() if twist_at_wrist else (pronation,))
    wrist: tuple[Dof, ...] = (
        rot("-z", -1.2, 1.4, "flexion"),
        rot("x", -0.6, 0.35, "radial deviation"),
    )
    if twist_at_wrist:
        wrist = (pronation, *wrist)
    left = [
        Bone("clavicle.L", parent, STERNUM, SHOULDER, FORWARD, clavicle),
        Bone("upper_arm.L", "clavicle.L", SHOULDER, ELBOW, FORWARD, shoulder),
        Bone("forearm.L", "upper_arm.L", ELBOW, WRIST, FORWARD, elbow),
        Bone("hand.L", "forearm.L", WRIST, FINGERTIP, FORWARD, wrist),
    ]
    return _with_right_side(left, parent)


def leg_bones(parent: str) -> list[Bone]:
    """Bones of both legs (left first, then the mirrored right) below ``parent``."""
    left = [
        Bone(
            "thigh.L",
            parent,
            HIP,
            KNEE,
            FORWARD,
            (
                rot("x", -0.5, 2.1, "flexion"),
                rot("z", -0.5, 0.8, "abduction"),
                rot("y", -0.8, 0.7, "internal twist"),
            ),
        ),
        Bone("shin.L", "thigh.L", KNEE, ANKLE, FORWARD, (rot("-x", -0.05, 2.4, "flexion"),)),
        Bone(
            "foot.L",
            "shin.L",
            ANKLE,
            BALL,
            UP,
            (rot("x", -0.9, 0.35, "dorsiflexion"), rot("-y", -0.35, 0.6, "inversion")),
        ),
        Bone("toe.L", "foot.L", BALL, TOE_TIP, UP, (rot("x", -0.6, 1.2, "extension"),)),
    ]
    return _with_right_side(left, parent)


def _with_right_side(left: list[Bone], parent: str) -> list[Bone]:
    """``left`` followed by its mirror image, with ``.L`` renamed ``.R``.

    The first mirrored bone hangs from ``parent``; the others from mirrored parents.
    """
    right = [
        bone.mirrored(bone.name[:-2] + ".R", parent if k == 0 else f"{bone.parent}"[:-2] + ".R")
        for k, bone in enumerate(left)
    ]
    return left + right


def add_shoulder_polygons(figure: Figure) -> None:
    """Add :data:`SHOULDER_POLYGON` over (flexion, abduction) of both upper arms."""
    for side in (".L", ".R"):
        figure.add_polygon_limit("upper_arm" + side, (0, 1), SHOULDER_POLYGON)


def human_figure(*, root_translation: bool = True) -> Figure:
    """The 53-DOF human (50 without root translation), standing at the origin.

    Args:
        root_translation: Give the pelvis 3 translational DOFs (bounded to ±1 m along
            world X, Y, Z) before its 3 rotations.

    Returns:
        The figure: 22 segments, rest pose θ = 0 strictly inside every limit.
    """
    pelvis_dofs: tuple[Dof, ...] = (
        rot("y", -math.pi, math.pi, "heading"),
        rot("x", -0.5 * math.pi, 0.5 * math.pi, "pitch"),
        rot("z", -0.5 * math.pi, 0.5 * math.pi, "roll"),
    )
    if root_translation:
        # The pelvis frame has x = world X, y = world Z, z = world −Y.
        moves = (("x", "location x"), ("-z", "location y"), ("y", "location z"))
        pelvis_dofs = (
            *(Dof.translation(axis, lower=-1.0, upper=1.0, name=name) for axis, name in moves),
            *pelvis_dofs,
        )
    spine_top = [SACRUM_TOP, (0.0, 0.0, 1.15), (0.0, 0.0, 1.30), CHEST_TOP]
    bones = [Bone("pelvis", None, HIP_CENTRE, SACRUM_TOP, FORWARD, pelvis_dofs)]
    parent = "pelvis"
    for k, name in enumerate(SPINE_SEGMENTS):
        dofs = _trunk_joint((-0.3, 0.5), 0.3, 0.3)
        bones.append(Bone(name, parent, spine_top[k], spine_top[k + 1], FORWARD, dofs))
        parent = name
    bones.append(
        Bone("neck", parent, CHEST_TOP, NECK_TOP, FORWARD, _trunk_joint((-0.6, 0.7), 0.5, 0.8))
    )
    bones.append(
        Bone("head", "neck", NECK_TOP, HEAD_TOP, FORWARD, _trunk_joint((-0.4, 0.4), 0.3, 0.5))
    )
    bones += arm_bones("spine3")
    bones += leg_bones("pelvis")
    figure = build_figure(bones)
    add_shoulder_polygons(figure)
    return figure


def palm_effector(figure: Figure, side: str) -> Effector:
    """Effector at the centre of a palm: x axis = palm normal, y axis = along the fingers.

    Args:
        figure: A figure with ``hand.L``/``hand.R`` laid out as by :func:`arm_bones`.
        side: ``".L"`` or ``".R"``.

    Returns:
        The effector, fixed in the hand.
    """
    point, normal = (PALM, (-1.0, 0.0, 0.0)) if side == ".L" else (mirror(PALM), (1.0, 0.0, 0.0))
    return effector_at(figure, "hand" + side, point, normal, (0.0, 0.0, -1.0))


def limb_effectors(figure: Figure) -> dict[str, Effector]:
    """Effectors at the palms, the soles and the ankles of a :func:`human_figure`.

    Palms: x axis = palm normal, y axis = along the fingers. Soles (below the ankle, on
    the floor at rest): x axis = sole normal (down at rest), y axis = toward the toes.
    Ankles: the ankle joint, with the foot's axes.

    Args:
        figure: A figure made by :func:`human_figure`.

    Returns:
        ``{"hand.L", "hand.R", "foot.L", "foot.R", "ankle.L", "ankle.R"}`` → effector.

    Raises:
        SolverInputError: If the figure lacks the hands or feet.
    """
    effectors = {f"hand{side}": palm_effector(figure, side) for side in (".L", ".R")}
    down, toes = (0.0, 0.0, -1.0), FORWARD
    for side, sole, ankle in ((".L", SOLE, ANKLE), (".R", mirror(SOLE), mirror(ANKLE))):
        effectors[f"foot{side}"] = effector_at(figure, "foot" + side, sole, down, toes)
        effectors[f"ankle{side}"] = effector_at(figure, "foot" + side, ankle, down, toes)
    return effectors


def limb_length(name: str) -> float:
    """Length of the limb an effector ends, for normalising residuals [m].

    Args:
        name: ``"arm"``, ``"leg"`` or a key of :func:`limb_effectors` (``"hand.L"``…).

    Returns:
        :data:`ARM_LENGTH` (shoulder to palm) for arms and hands, :data:`LEG_LENGTH`
        (hip to ankle) for legs, feet and ankles.

    Raises:
        SolverInputError: For any other name.
    """
    kind = name.split(".")[0]
    if kind in ("arm", "hand"):
        return ARM_LENGTH
    if kind in ("leg", "foot", "ankle"):
        return LEG_LENGTH
    raise SolverInputError(f"unknown limb {name!r}; use 'arm', 'leg' or a key of limb_effectors()")
