"""The solve's comfort aim from ``Object.reach``: its share and its reference pose as θ.

The stored pose (:mod:`..comfort`) keeps each bone's rotation as a quaternion and its
location; it is read as θ by :func:`.pose.read_pose` itself, through stand-ins for the
pose bones that give each stored rotation in the channel the bone's rotation mode
reads. A bone the stored pose lacks (added since) stands at rest. Each DOF weighs by how
much of the body it moves, so the trunk stays and the limbs move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...solver import Comfort, rotations
from .arrays import Array, pose_rows
from .bone_ends import middle, reads_joints
from .pose import read_pose
from .rig import Rig

LEAST_SHARE = 1e-6
"""The least weight of a DOF in comfort, as a share of the largest."""


class _StoredBone:
    """A pose bone's stand-in holding a stored rotation and location."""

    def __init__(self, name: str, mode: str, rotation: Any, location: Any) -> None:
        self.name = name
        self.rotation_mode = mode
        self.rotation_quaternion = np.array(rotation, dtype=float)
        self.location = np.array(location, dtype=float)
        matrix = rotations.quaternion_matrix(self.rotation_quaternion)
        quaternion = self.rotation_quaternion / np.linalg.norm(self.rotation_quaternion)
        half = float(np.arccos(np.clip(quaternion[0], -1.0, 1.0)))
        axis = quaternion[1:] / max(float(np.sin(half)), 1e-300)
        self.rotation_axis_angle = np.array([2.0 * half, *axis]) if half else np.array([0, 0, 1, 0])
        order = mode if mode in rotations.EULER_ORDERS else "XYZ"
        self.rotation_euler = rotations.matrix_euler(matrix, order)


class _StoredPose:
    """The stand-in of ``obj.pose`` that :func:`.pose.read_pose` reads the stored pose from."""

    def __init__(self, obj: Any) -> None:
        stored = obj.reach.comfort_pose
        self.bones: dict[str, _StoredBone] = {}
        for pose_bone in obj.pose.bones:
            entry = stored.get(pose_bone.name)
            rotation = (1.0, 0.0, 0.0, 0.0) if entry is None else tuple(entry.rotation)
            location = (0.0, 0.0, 0.0) if entry is None else tuple(entry.location)
            if not np.any(rotation):
                rotation = (1.0, 0.0, 0.0, 0.0)
            self.bones[pose_bone.name] = _StoredBone(
                pose_bone.name, pose_bone.rotation_mode, rotation, location
            )


class _StoredArmature:
    def __init__(self, obj: Any) -> None:
        self.name = obj.name
        self.pose = _StoredPose(obj)


def carried_weights(obj: Any, rig: Rig) -> Array:
    """Per DOF of ``rig``'s figure, what moving it costs: how much of the body it moves.

    A rotation weighs the moment of inertia, about its bone's head, of the bones it
    carries (its own and every one below it, each a point mass at the middle of its part
    of the body, :func:`.bone_ends.middle`; masses ``Object.reach.joints[bone].mass``, at
    rest, in the armature's units) over the body's
    mass, times the share of the body's mass it bears; a translation weighs the share of
    the mass it carries. The inertia alone would make comfort the body's mean squared
    displacement, which least squares still spreads over the spine; the load borne keeps
    the trunk, which bears the body, nearly still, so a hand reaches by its arm. At least
    :data:`LEAST_SHARE` of the largest, so a massless bone is still held to its pose.
    Without any mass, every DOF weighs 1.
    """
    bones, joints = obj.data.bones, obj.reach.joints
    own = {b.name: float(joints[b.name].mass) if b.name in joints else 0.0 for b in bones}
    total = sum(own.values())
    weights = np.ones(rig.figure.n_dofs)
    if total <= 0.0:
        return weights
    # In the armature's own units, as the pose's locations are.
    index = pose_rows(bones)
    masses = np.array([own[b.name] for b in bones])
    tails_off = reads_joints(obj.data)  # once, not per bone
    # a massless bone's middle weighs nothing: it is not found (zeros stand for it)
    middles = np.zeros((len(bones), 3))
    for k, bone in enumerate(bones):
        if masses[k] != 0.0:
            middles[k] = middle(bone, bone.matrix_local, tails_off).to_tuple()
    layout = {entry.name: entry for entry in rig.layout}
    posed = {index[s.name] for s in rig.figure.segments if s.name in index and s.name in layout}
    below = _carried(bones, index, posed)
    for segment in rig.figure.segments:
        bone, entry = bones.get(segment.name), layout.get(segment.name)
        if bone is None or entry is None:
            continue
        carried = below[index[bone.name]]
        head = np.array(bone.head_local)
        mass = float(masses[carried].sum())
        inertia = float(masses[carried] @ np.sum((middles[carried] - head) ** 2, axis=1))
        for dof in segment.dof_indices:
            moving = dof - segment.dof_indices.start
            translation = entry.translation >= 0 and moving < 3
            weights[dof] = mass / total if translation else inertia * mass / total**2
    return np.maximum(weights, LEAST_SHARE * float(weights.max()))


def _carried(bones: Any, index: dict[str, int], posed: set[int]) -> dict[int, list[int]]:
    """Per bone in ``posed`` (by index): its index, then every bone's below it.

    Nearest first, then in the armature's order; found in one pass up each bone's
    parents, by index, instead of one search of the armature per bone.
    """
    parents = [index[bone.parent.name] if bone.parent else -1 for bone in bones]
    found: dict[int, list[tuple[int, int]]] = {k: [] for k in posed}
    for k in range(len(parents)):
        above, distance = parents[k], 1
        while above >= 0:
            if above in found:
                found[above].append((distance, k))
            above, distance = parents[above], distance + 1
    return {k: [k, *(j for _, j in sorted(rows))] for k, rows in found.items()}


def comfort_settings(obj: Any) -> tuple[object, ...]:
    """What :func:`comfort_of` reads besides the rig, as a value to compare.

    The share, the joints' masses and the stored pose: a drag's events make their
    comfort once while these stay.
    """
    settings = obj.reach
    joints, stored = settings.joints, settings.comfort_pose
    # each field of every item at once (a drag's events compare these, dozens of joints)
    masses = np.empty(len(joints), np.float32)
    joints.foreach_get("mass", masses)
    rotations = np.empty(4 * len(stored), np.float32)
    locations = np.empty(3 * len(stored), np.float32)
    stored.foreach_get("rotation", rotations)
    stored.foreach_get("location", locations)
    return (
        float(settings.comfort),
        tuple(joints.keys()),
        masses.tobytes(),
        tuple(stored.keys()),
        rotations.tobytes(),
        locations.tobytes(),
    )


def comfort_of(obj: Any, rig: Rig) -> Comfort | None:
    """The comfort aim of ``obj``'s settings for ``rig``'s figure, or None when it is off.

    Each DOF weighs by how much of the body it moves (:func:`carried_weights`).
    """
    share = float(obj.reach.comfort)
    if share <= 0.0:
        return None
    weights = carried_weights(obj, rig)
    if not len(obj.reach.comfort_pose):
        return Comfort(np.zeros(rig.figure.n_dofs), share, weights)
    return Comfort(read_pose(_StoredArmature(obj), rig, rounding=False), share, weights)
