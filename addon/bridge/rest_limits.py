"""Limits read from any skeleton's rest pose: legs that bend the way they bend at rest.

A skeleton's trunk lies on its middle plane (the armature's X = 0, where Blender mirrors
a rig): the bones there that legs, arms or wings hang from (its spine), and the chains
that go on from those in the middle plane (neck and head, tail). A limb is a chain of three
bones or more that leaves the middle plane and goes on, each bone its parent's only child
or the one starting at its tail, reaching away from the body (ears and faces are no limbs).

:func:`rest_limits` limits a limb's first bone to a cone about its rest direction (an
ellipse: wider along the body than across it) with a bounded twist, and each later bone
to a hinge across the plane it bends in at rest, which bends further the way it bends
and straightens no further than straight. A straight joint takes the plane and the way of
the nearest bent joint of its limb, bending the other way if an odd number of joints lies
between them (a leg's joints bend alternately: knee forward, ankle back); a limb straight
throughout is named for a Hinge. The trunk's joints get moderate bounds; the root, whose
turn is the whole figure's, none.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .anatomy import Ball, ancestors, continuing, ellipse, unit_rest
from .arrays import Array
from .rigify_names import is_control

__all__ = [
    "BEND",
    "CONE",
    "LIMB",
    "MIDDLE",
    "OUT",
    "TRUNK",
    "Hinge",
    "RestLimbs",
    "RestLimits",
    "rest_limbs",
    "rest_limits",
]

MIDDLE = 0.02
"""Largest distance of a trunk bone's ends from the middle plane, as a share of the
skeleton's size (its rest pose's bounding-box diagonal)."""
LIMB = 0.15
"""Least length of a limb, as a share of the skeleton's size (ears and eyelids are none)."""
OUT = 0.5
"""Least distance from a limb's start to its end, as a share of its length along its bones:
a leg reaches away from the body, a chain of face bones curls back round the face."""
STRAIGHT = 5.0
"""A joint bent less than this at rest [deg] is straight: it has no bend plane of its own."""
POINTING = math.cos(math.radians(30.0))
"""Least cosine between a bone's axis and the way to its child's head for the bone to
point at its child (a limb's first bone may not: a Rigify pelvis bone is 29° off)."""
BEND = 160.0
"""Most bend of a hinge from straight [deg]."""
CONE = ((60.0, 60.0), (25.0, 25.0), 30.0)
"""A limb's first joint: its swing along the body, across it (each way) and its twist [deg]."""
TRUNK = ((30.0, 30.0), (20.0, 20.0), 15.0)
"""A trunk joint's swing up and down, sideways, and its twist [deg]."""


@dataclass(frozen=True)
class Hinge:
    """A hinge: its axis in armature space (a positive turn bends further) and its range."""

    axis: Array
    lower: float
    upper: float


@dataclass
class RestLimits:
    """What :func:`rest_limits` found: each bone's joint, and what it could not infer."""

    joints: dict[str, Hinge | Ball] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def _directions(chain: list[Any]) -> list[Array]:
    """Each bone's rest direction along a chain.

    Toward the next bone's head (a glTF skeleton's bones need not point at their
    children). The last bone's is its own where the chain's other bones point at their
    children; where they point elsewhere its own says nothing of where the limb ends, and
    it goes on the way the bone before it goes (a straight joint).
    """
    found = []
    for k, bone in enumerate(chain):
        start = np.array(bone.head_local)
        end = np.array(chain[k + 1].head_local) if k + 1 < len(chain) else None
        if end is None or float(np.linalg.norm(end - start)) < 1e-3 * bone.length:
            end = np.array(bone.tail_local)
        vector = end - start
        found.append(vector / max(float(np.linalg.norm(vector)), 1e-12))
    inner = [
        float(unit_rest(b)[:, 1] @ found[k]) for k, b in enumerate(chain) if 0 < k < len(chain) - 1
    ]
    if inner and min(inner) < POINTING:
        found[-1] = found[-2]
    return found


def _chain(bone: Any) -> list[Any]:
    chain = [bone]
    while (after := continuing(chain[-1])) is not None:
        chain.append(after)
    return chain


@dataclass(frozen=True)
class RestLimbs:
    """A skeleton's limbs at rest and its middle plane.

    Attributes:
        limbs: Each limb's bones, root first (see the module's docstring).
        middle: The middle plane's X in armature space.
        central: Whether a bone lies on the middle plane.
    """

    limbs: list[list[Any]]
    middle: float
    central: Callable[[Any], bool]


def rest_limbs(obj: Any) -> RestLimbs | None:
    """The limbs of ``obj``'s skeleton read from its rest pose; None: it has no bones."""
    bones = [b for b in obj.data.bones if is_control(b.name)]
    if not bones:
        return None
    points = np.array([p for b in bones for p in (b.head_local, b.tail_local)])
    size = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
    middle = float(np.median(points[:, 0]))

    def central(bone: Any) -> bool:
        ends = (bone.head_local[0], bone.tail_local[0])
        return all(abs(x - middle) <= MIDDLE * size for x in ends)

    limbs = []
    for bone in bones:
        parent = bone.parent
        if parent is not None and central(parent) and not central(bone):
            chain = _chain(bone)
            path = sum(b.length for b in chain)
            ends = np.array(chain[-1].tail_local) - np.array(chain[0].head_local)
            if len(chain) >= 3 and path >= LIMB * size and np.linalg.norm(ends) >= OUT * path:
                limbs.append(chain)
    return RestLimbs(limbs, middle, central)


def rest_limits(obj: Any) -> RestLimits:
    """The joints Limits from Rest gives ``obj``'s skeleton (see the module's docstring)."""
    found = RestLimits()
    read = rest_limbs(obj)
    if read is None:
        return found
    bones = [b for b in obj.data.bones if is_control(b.name)]
    limbs, central = read.limbs, read.central
    bearing = {b.name for chain in limbs for b in ancestors(chain[0].parent)}
    trunk = [b for b in bones if b.name in bearing and central(b)]
    for bone in list(trunk):  # the neck and head, the tail
        for child in bone.children:
            if central(child) and child.name not in bearing and is_control(child.name):
                chain = _chain(child)
                if len(chain) >= 2:
                    trunk.extend(b for b in chain if central(b))
    lateral = np.array((1.0, 0.0, 0.0))
    for bone in trunk:
        if bone.parent is None:
            continue  # the root turns the whole figure
        ball = _ball(bone, lateral, TRUNK)
        if ball is None:
            found.skipped.append(f"'{bone.name}' (it points straight up)")
        else:
            found.joints[bone.name] = ball
    for chain in limbs:
        _limb(chain, lateral, found)
    return found


def _ball(bone: Any, lateral: Array, ranges: tuple[Any, Any, float]) -> Ball | None:
    """A ball joint about the bone's rest direction.

    Its first swing is about the body's lateral axis (up and down along the body), the
    second across it; a bone across the body swings about the up axis first (None if it
    also points up, the Z axis: a bone along both has no way to tell).
    """
    rest = unit_rest(bone)
    along = rest[:, 1]
    x = lateral - float(lateral @ along) * along
    if float(np.linalg.norm(x)) < 0.3:  # across the body: its swings are up and along it
        up = np.array((0.0, 0.0, 1.0))
        x = up - float(up @ along) * along
    norm = float(np.linalg.norm(x))
    if norm < 0.3:
        return None
    sagittal, across, twist = ranges
    return Ball.about(rest, x / norm, ellipse(sagittal, across), math.radians(twist))


def _limb(chain: list[Any], lateral: Array, found: RestLimits) -> None:
    first = _ball(chain[0], lateral, CONE)
    if first is None:
        found.skipped.append(f"'{chain[0].name}' (a limb's first bone pointing straight up)")
    else:
        found.joints[chain[0].name] = first
    bends: list[tuple[Array, float] | None] = []
    directions = _directions(chain)
    for before, after in itertools.pairwise(directions):
        angle = math.degrees(math.acos(max(-1.0, min(1.0, float(before @ after)))))
        axis = np.cross(before, after)
        bends.append((axis / np.linalg.norm(axis), angle) if angle >= STRAIGHT else None)
    if not any(bends):
        names = ", ".join(f"'{b.name}'" for b in chain[1:])
        found.skipped.append(f"{names} (a straight limb: give its joints a Hinge)")
        return
    for k, bone in enumerate(chain[1:]):
        bend = bends[k]
        if bend is None:  # the nearest bent joint's plane; the way alternates along a leg
            near = min((abs(j - k), j) for j, other in enumerate(bends) if other is not None)[1]
            other = bends[near]
            assert other is not None
            bend = (other[0] * (-1.0) ** abs(near - k), 0.0)
        axis, angle = bend
        found.joints[bone.name] = Hinge(
            axis, math.radians(-angle), math.radians(max(BEND, angle + 10.0) - angle)
        )
