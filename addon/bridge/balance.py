"""Balance: the centre of mass kept over the support polygon, before every other goal.

With ``Object.reach.balance`` on, the constraints marked Contact are the supports: the
support polygon is the convex hull of their goals' world points, or of a sole's
footprint carried by its goal (:mod:`.soles`), seen from above (world Z up). Each of its
edges becomes a half-space on the figure's centre of mass
(:class:`solver.CentreOfMass`, each bone's mass ``Object.reach.joints[bone].mass`` at
its midpoint), normal inward and horizontal, ``Object.reach.balance_margin`` inside
the edge. They are solved one priority above every constraint (each constraint's
priority moves down one), so a hand reaches only as far as the figure stays balanced;
pins stay above them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...solver import CentreOfMass, Constraint, goals
from ..errors import BlenderDataError
from .arrays import Array
from .bone_ends import end_local, reads_joints
from .rig import Rig

BALANCE = "Balance"
"""The name of the balance constraints: "Balance 1", "Balance 2", …, one per edge."""

_COLLINEAR = 1e-9
"""Least area of the support polygon, as a share of its longest extent squared."""


def is_balance(name: str) -> bool:
    """Whether ``name`` is one of the balance constraints'."""
    return name.startswith(BALANCE + " ")


def support_polygon(points: Array, names: Sequence[str]) -> Array:
    """The convex hull of ``points`` seen from above, counter-clockwise, shape (k, 2).

    Args:
        points: The contacts' world points, shape (n, 3).
        names: The contacts' names, for messages.

    Raises:
        BlenderDataError: For fewer than three points or points all on one line: no area
            to balance over.
    """
    flat = np.unique(np.round(points[:, :2], 12), axis=0)
    if len(flat) < 2:
        raise BlenderDataError(
            f"balance needs a support polygon, but the contacts ({', '.join(names)}) meet at "
            "one point from above; mark at least three contacts not on one line (a foot's "
            "heel and toes)"
        )
    hull = _hull(flat)
    extent = float(np.ptp(flat, axis=0).max())
    if len(hull) < 3 or _area(hull) <= _COLLINEAR * extent**2:
        raise BlenderDataError(
            f"balance needs a support polygon, but the contacts ({', '.join(names)}) lie on "
            "one line from above; mark a contact off that line (each foot's heel and toes)"
        )
    return hull


def _hull(points: Array) -> Array:
    """Andrew's monotone chain: the convex hull, counter-clockwise, no collinear points."""
    ordered = sorted(map(tuple, points))

    def turn(o: tuple[float, ...], a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, ...]] = []
    upper: list[tuple[float, ...]] = []
    for point in ordered:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], point) <= 0.0:
            lower.pop()
        lower.append(point)
    for point in reversed(ordered):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], point) <= 0.0:
            upper.pop()
        upper.append(point)
    return np.array(lower[:-1] + upper[:-1])


def _area(polygon: Array) -> float:
    x, y = polygon[:, 0], polygon[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def half_planes(polygon: Array, margin: float) -> list[tuple[Array, Array]]:
    """Per edge of ``polygon`` (counter-clockwise), a point inside it and its inward normal.

    The point lies ``margin`` inside the edge; both are horizontal, shape (3,) each.

    Raises:
        BlenderDataError: If the margin leaves no room inside the polygon.
    """
    planes = []
    for k, start in enumerate(polygon):
        direction = polygon[(k + 1) % len(polygon)] - start
        normal = np.array((-direction[1], direction[0])) / float(np.linalg.norm(direction))
        planes.append((np.append(start + margin * normal, 0.0), np.append(normal, 0.0)))
    centre = polygon.mean(axis=0)
    room = min(float(normal[:2] @ (centre - point[:2])) for point, normal in planes)
    if room < 0.0:
        raise BlenderDataError(
            f"the balance margin ({margin:g}) leaves no room inside the support polygon; lower it"
        )
    return planes


def centre_of_mass(obj: Any, rig: Rig) -> CentreOfMass:
    """The figure's centre of mass as an effector: each segment's bone's mass at its middle.

    The middle of the bone's part of the body: half way to :func:`.bone_ends.end_local`.

    Raises:
        BlenderDataError: If the bones' masses add up to nothing.
    """
    joints, bones = obj.reach.joints, obj.data.bones
    masses: dict[str, float] = {}
    tails_off = reads_joints(obj.data)  # once, not per bone
    points: dict[str, tuple[float, float, float]] = {}
    for segment in rig.figure.segments:
        joint, bone = joints.get(segment.name), bones.get(segment.name)
        if joint is None or bone is None or not joint.mass > 0.0:
            continue
        masses[segment.name] = float(joint.mass)
        x, y, z = (end_local(bone, tails_off) / 2.0).to_tuple()
        points[segment.name] = (x, y, z)
    if not masses:
        raise BlenderDataError(
            f"balance needs the bones' masses, and those of '{obj.name}' add up to nothing; "
            "set them in the joint panel (Make Figure fills them in where none is set)"
        )
    return CentreOfMass(masses, points)


def balance_constraints(
    obj: Any, rig: Rig, contacts: Sequence[tuple[str, Array]]
) -> list[Constraint]:
    """The balance constraints of ``obj``, given its contacts' names and support points.

    A point contact supports by one world point, a sole by its footprint (:mod:`.soles`).

    Raises:
        BlenderDataError: For balance with no contact, a support polygon with no area, a
            margin that leaves no room, or no mass.
    """
    if not contacts:
        raise BlenderDataError(
            f"balance is on for '{obj.name}' but no constraint is a contact; mark the "
            "constraints that hold the feet as Contact, or turn Balance off"
        )
    names = [name for name, _ in contacts]
    polygon = support_polygon(np.concatenate([points for _, points in contacts]), names)
    body = centre_of_mass(obj, rig)
    return [
        Constraint(body, goals.HalfSpace(point, normal), name=f"{BALANCE} {k + 1}")
        for k, (point, normal) in enumerate(half_planes(polygon, obj.reach.balance_margin))
    ]
