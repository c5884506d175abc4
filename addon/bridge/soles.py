"""Soles: a contact on a foot holds the bone whole, and supports by its footprint.

A foot planted by one point turns and rolls about it, and by two (ankle and toe) still
rolls; a planted foot holds its sole. So a contact on a bone with children (a foot with
its toes and heel, a hand with its fingers, a paw), on a human foot that is a leaf (a
game skeleton's ankle-to-toe bone), or on a leaf its limb ends in (a toe, a hoof: held by
its tip alone it would turn about it and sink its joint into the ground), holds the bone's
position and orientation, and its support, for Balance and the overlay, is the footprint:
the heads and ends of the bone and of every bone below it, as they lie at rest, carried by
the goal. A contact on any other leaf bone (a heel bone beside the toe) stays one point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .arrays import Array
from .bone_ends import end, next_joint, reads_joints

__all__ = ["ends_limb", "holds_sole", "sole_points", "support_points"]


def holds_sole(bone: Any) -> bool:
    """Whether a contact on ``bone`` (a Blender bone) holds a sole rather than a point."""
    return bool(len(bone.children))


def ends_limb(bone: Any) -> bool:
    """Whether ``bone`` (a Blender bone) is a leaf its parent's limb continues into.

    A toe or a hoof (:func:`.bone_ends.next_joint` of its parent), not a heel bone beside
    the toe.
    """
    return bool(not bone.children and bone.parent and next_joint(bone.parent) == bone)


def sole_points(obj: Any, bone: Any, effector: Sequence[float]) -> Array:
    """The footprint of ``bone`` in its goal's frame, shape (k, 3), in world lengths.

    The heads and ends (:func:`.bone_ends.end`) of the bone and of every bone below it
    at rest, in the bone's frame less the effector point (the goal's origin), scaled by
    the armature object's scale (the goal's frame has none).
    """
    inverse = bone.matrix_local.inverted()
    points = []
    tails_off = reads_joints(obj.data)  # once, not per bone
    for each in (bone, *bone.children_recursive):
        points += [each.head_local, end(each, each.matrix_local, tails_off)]
    local = np.array([tuple(inverse @ point) for point in points]) - np.asarray(effector)
    scale = float(np.mean(tuple(obj.matrix_world.to_scale())))
    result: Array = local * scale
    return result


def support_points(
    obj: Any, bone: Any, effector: Sequence[float], goal_matrix: Any, turns: bool
) -> Array:
    """A contact's support in world space, shape (k, 3).

    A sole's footprint carried by the goal's matrix, else the goal's point. ``turns``: the
    contact holds the bone's orientation (a leaf foot's contact holds its sole so).
    """
    matrix = np.array(goal_matrix, dtype=float)
    if not (turns or holds_sole(bone)):
        result: Array = matrix[None, :3, 3]
        return result
    frame = matrix[:3, :3] / np.linalg.norm(matrix[:3, :3], axis=0)  # the goal's axes, unscaled
    points: Array = sole_points(obj, bone, effector) @ frame.T + matrix[:3, 3]
    return points
