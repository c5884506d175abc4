"""A human body's joints: where they are in a skeleton, and the ranges a body's joints have.

:func:`human_body` finds the parts: the limbs by their bones' names (:func:`.body.human_joints`),
then the rest by the skeleton's shape around them. The spine runs from the hips (the bone
both thighs hang from, never limited: its turn is the whole figure's) to the chest (the one
both arms hang from); the neck and head continue the chest upward; a clavicle is what an
upper arm hangs from below the chest; a hand or foot continues its forearm or shin.

:func:`ball_limits` turns a part's range of motion into a joint about its own axes: the
twist about the bone's length first, then the smaller swing, then the larger (Euler order
YZX, as the ISB orders a joint's angles), the twist bounded and the swing held in a polygon
on the range's ellipse, each quadrant its own. Every twist spans less than 180°, so no
other reading of the same rotation (``(a + 180°, 180° − b, c + 180°)``) lies within the
limits: no limb turns round behind its bounds. Ranges are a body's active ranges of motion
(the American Academy of Orthopaedic Surgeons' tables, rounded; the ankle's as a deep
squat bends it with the heels down), the spine's and the neck's shared among their joints.

The twist bound is the ISB's: about the bone, after the swing. Measured by a swing–twist
decomposition from the rest pose instead, a thigh twists at most :data:`THIGH_TWIST`
(the Euler twist plus what the swing's two turns add at the polygon's corners), so no knee
points backwards. An upper arm's swing–twist reading grows past its bound at the far
corners of its swing, as a body's does (Codman's paradox): raised from hanging to the
front and then to the side, the arm has turned about its length without twisting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import Array
from .body import human_joints
from .bone_ends import end
from .rigify_names import is_control

__all__ = [
    "CONNECTED",
    "RANGES",
    "SIDES",
    "THIGH_TWIST",
    "Ball",
    "Range",
    "ancestors",
    "ball_limits",
    "body_axes",
    "continuing",
    "ellipse",
    "human_body",
    "knuckles",
    "unit_rest",
]

SIDES = 16
"""Vertices of the polygon a ball joint's swing is held in (it lies inside the ellipse)."""
CONNECTED = 0.1
"""A child continues its parent when its head lies this share of the parent's length
from the parent's tail."""
THIGH_TWIST = 75.0
"""Most twist [deg] of a thigh within its limits, by the swing–twist decomposition."""
UPWARD = 0.5
"""Least cosine between a neck bone and the trunk's up for the neck to go on through it."""


@dataclass(frozen=True)
class Range:
    """A ball joint's range of motion from its rest pose [deg].

    Attributes:
        larger: The body direction the larger swing moves the bone toward ("front", "up").
        extents: How far the larger swing goes (away from ``larger``, toward it).
        smaller: The body direction of the smaller swing ("front", "out": away from the
            body's middle, "left": either way alike).
        sideways: How far the smaller swing goes (away from ``smaller``, toward it).
        twist: How far the bone twists about its length, either way.
        shared: The range is the whole chain's (spine, neck), shared equally by its joints.
        level: ``extents`` are measured from the horizontal, not from the rest pose (an
            arm raised to point up and lowered to hang, whatever its rest pose).
    """

    larger: str
    extents: tuple[float, float]
    smaller: str
    sideways: tuple[float, float]
    twist: float
    shared: bool = False
    level: bool = False


RANGES = {
    "spine": Range("front", (35.0, 85.0), "left", (35.0, 35.0), 40.0, shared=True),
    "neck": Range("front", (50.0, 40.0), "left", (35.0, 35.0), 45.0, shared=True),
    "head": Range("front", (20.0, 20.0), "left", (10.0, 10.0), 35.0),
    "clavicle": Range("up", (10.0, 35.0), "front", (20.0, 25.0), 15.0),
    "upper_arm": Range("up", (100.0, 90.0), "front", (45.0, 130.0), 80.0, level=True),
    "hand": Range("", (75.0, 75.0), "left", (25.0, 25.0), 85.0),
    "thigh": Range("front", (20.0, 120.0), "out", (25.0, 45.0), 45.0),
    "foot": Range("up", (50.0, 55.0), "out", (20.0, 20.0), 25.0),
}
"""Per body part, its joints' range. A hand's larger swing (flexion, about the line of its
knuckles) is as large either way, so the palm's side needs no finding."""


@dataclass(frozen=True)
class Ball:
    """A ball joint's own axes and limits.

    Attributes:
        axes: The joint's X, Y, Z (columns) in the bone's frame; Y is the bone's length.
        polygon: The swing's polygon, vertices (about X, about Z) [rad].
        twist: The most twist about Y, either way [rad].
    """

    axes: Array
    polygon: list[tuple[float, float]]
    twist: float

    @classmethod
    def about(cls, rest: Array, x: Array, polygon: list[tuple[float, float]], twist: float) -> Ball:
        """The ball joint of a bone of rest orientation ``rest`` with its X along ``x``.

        ``x`` is in armature space, across the bone; the joint's Y is the bone's length.
        """
        along = rest[:, 1]
        return cls(rest.T @ np.column_stack((x, along, np.cross(x, along))), polygon, twist)


def unit_rest(bone: Any) -> Array:
    """A Blender bone's rest orientation in armature space, (3, 3), of unit scale."""
    rest = np.array(bone.matrix_local, dtype=float)[:3, :3]
    unit: Array = rest / float(np.cbrt(np.linalg.det(rest)))
    return unit


def ancestors(bone: Any) -> list[Any]:
    """``bone`` and the bones above it, itself first."""
    found = []
    while bone is not None:
        found.append(bone)
        bone = bone.parent
    return found


def _unit(vector: Array) -> Array | None:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 1e-6 else None


def body_axes(front: Array, left: Array) -> dict[str, Array]:
    """The body's directions in armature space: front, up and left, orthonormal."""
    up = np.cross(front, left)
    across = np.cross(up, front)
    return {"front": front, "up": up / np.linalg.norm(up), "left": across / np.linalg.norm(across)}


def ball_limits(
    rest: Array,
    part: str,
    side: str,
    body: dict[str, Array],
    shared: int = 1,
    knuckles: Array | None = None,
) -> Ball | None:
    """The ball joint of a bone of ``part``; None when its range has no direction there.

    Args:
        rest: The bone's rest orientation in armature space, unit scale (3, 3).
        part: A key of :data:`RANGES`.
        side: "L", "R", or "" on the trunk.
        body: :func:`body_axes`.
        shared: How many joints share a shared range.
        knuckles: A hand's line across its fingers' roots (its flexion axis), if known;
            else the bone's own X.
    """
    limb = RANGES[part]
    along = rest[:, 1]
    if limb.larger:
        toward = body[limb.larger]
        x = _unit(np.cross(along, toward))  # a turn about x takes the bone toward it
        if x is None:
            return None
    else:
        line = rest[:, 0] if knuckles is None else knuckles
        x = _unit(line - float(line @ along) * along)
        if x is None:
            return None
    extents = limb.extents
    if limb.level:  # from the horizontal: the rest pose's elevation counts against them
        elevation = math.degrees(math.asin(max(-1.0, min(1.0, float(-(along @ body["up"]))))))
        extents = (max(5.0, extents[0] - elevation), max(5.0, extents[1] + elevation))
    outward = body["left"] if side != "R" else -body["left"]
    sideways = outward if limb.smaller == "out" else body[limb.smaller]
    # a turn about z takes the bone toward −x: the smaller swing's sign follows from it
    away, toward_side = limb.sideways if float(-x @ sideways) >= 0.0 else limb.sideways[::-1]
    share = 1.0 / shared if limb.shared else 1.0
    polygon = ellipse((extents[0] * share, extents[1] * share), (away * share, toward_side * share))
    return Ball.about(rest, x, polygon, math.radians(limb.twist * share))


def ellipse(first: tuple[float, float], second: tuple[float, float]) -> list[tuple[float, float]]:
    """:data:`SIDES` vertices [rad] on an ellipse with its own half-axes per quadrant.

    ``first`` (negative, positive) along the first angle, ``second`` along the other.
    """
    vertices = []
    for k in range(SIDES):
        turn = 2.0 * math.pi * k / SIDES
        c, s = math.cos(turn), math.sin(turn)
        a = first[1] if c >= 0.0 else first[0]
        b = second[1] if s >= 0.0 else second[0]
        vertices.append((math.radians(a * c), math.radians(b * s)))
    return vertices


def human_body(obj: Any) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The armature's human joints: bone → (part, side), and what could not be found.

    Limb parts (thigh, shin, upper_arm, forearm) come from their names; the trunk's and
    the limbs' ends from the skeleton's shape around them (see the module's docstring).
    A part reached only through a bone no animator keys (Rigify's ORG-, DEF-, MCH-) is
    left out.
    """
    found = dict(human_joints(obj))
    bones = obj.data.bones
    named = {key: name for name, key in found.items()}
    missing: list[str] = []

    def chain(name: str) -> list[str]:
        return [bone.name for bone in ancestors(bones[name])]

    def meeting(a: str | None, b: str | None) -> str | None:
        if a is None or b is None:
            return None
        above = set(chain(b))
        return next((n for n in chain(a) if n in above), None)

    hips = meeting(named.get(("thigh", "L")), named.get(("thigh", "R")))
    chest = meeting(named.get(("upper_arm", "L")), named.get(("upper_arm", "R")))
    spine: list[str] = []
    above = chain(chest) if chest is not None else []
    if hips is not None and hips != chest and hips in above:
        spine = above[: above.index(hips)]
    if hips is None or chest is None or not spine or not all(is_control(n) for n in spine):
        missing.append("the spine, neck and head (no bone both thighs and both arms hang from)")
    else:
        found.update({n: ("spine", "") for n in spine})
        neck = _neck(obj, chest, hips, set(named.values()))
        if neck:
            head = next((n for n in reversed(neck) if _is_head(n)), neck[-1])
            neck = neck[: neck.index(head)]
            found.update({n: ("neck", "") for n in neck})
            found[head] = ("head", "")
        else:
            missing.append("the neck and head (no bone continues the chest upward)")
    for (part, side), name in sorted(named.items()):
        parent = bones[name].parent
        if part == "upper_arm":
            if (
                parent is not None
                and parent.name != chest
                and parent.name not in found
                and is_control(parent.name)
            ):
                found[parent.name] = ("clavicle", side)
        elif part in ("forearm", "shin"):
            end = continuing(bones[name])
            what = "hand" if part == "forearm" else "foot"
            if end is None:
                missing.append(f"the {what} after '{name}' (no bone continues it)")
            elif is_control(end.name):
                found[end.name] = (what, side)
    return found, missing


def _is_head(name: str) -> bool:
    plain = name.rsplit(":", 1)[-1].lower()
    return "head" in plain and "end" not in plain and "top" not in plain


def _neck(obj: Any, chest: str, hips: str, limbs: set[str]) -> list[str]:
    """The bones that continue the chest upward, chest's child first."""
    bones = obj.data.bones
    up = _unit(np.array(bones[chest].head_local) - np.array(bones[hips].head_local))
    if up is None:
        return []

    def rising(bone: Any) -> float:
        direction = _unit(np.array(end(bone, bone.matrix_local)) - np.array(bone.head_local))
        return -1.0 if direction is None else float(direction @ up)

    def holds_limb(bone: Any) -> bool:
        return bone.name in limbs or any(holds_limb(c) for c in bone.children)

    children = [c for c in bones[chest].children if not holds_limb(c) and is_control(c.name)]
    if not children:
        return []
    bone = max(children, key=rising)
    names: list[str] = []
    while bone is not None and rising(bone) >= UPWARD and is_control(bone.name):
        names.append(bone.name)
        bone = continuing(bone, only=False)  # a head's face bone starts at its head
    return names


def continuing(bone: Any, *, only: bool = True) -> Any | None:
    """The child that continues ``bone``, if one does.

    Its only child (when ``only``), else the one child whose head lies at ``bone``'s end
    (:func:`.bone_ends.end`: its tail, or on an imported skeleton whose tails are not its
    joints, the joint it runs into); never a twist bone (a game skeleton's forearm carries
    its twist bones beside its hand) nor one no animator keys.
    """
    children = [c for c in bone.children if is_control(c.name) and "twist" not in c.name.lower()]
    if only and len(children) == 1:
        return children[0]
    tail = np.array(end(bone, bone.matrix_local))
    reach = CONNECTED * max(float(bone.length), 1e-9)
    near = [c for c in children if float(np.linalg.norm(np.array(c.head_local) - tail)) <= reach]
    return near[0] if len(near) == 1 else None


def knuckles(bone: Any) -> Array | None:
    """A hand's line across the tails of its fingers' (or palm's) first bones, if it has two."""
    tails = np.array([np.array(c.tail_local) for c in bone.children])
    if len(tails) < 2:
        return None
    along = _unit(np.array(bone.tail_local) - np.array(bone.head_local))
    if along is None:
        return None
    spread = tails - tails.mean(axis=0)
    spread -= np.outer(spread @ along, along)
    _, values, turns = np.linalg.svd(spread)
    return turns[0] if values[0] > 1e-6 else None
