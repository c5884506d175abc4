"""Where a bone ends on the body: its tail, or nearer where an importer made it too long.

A glTF skeleton in centimetres under a 0.01 scale comes back with each bone 100 times its
joints' spacing; the body's parts end where the joints say, so a tail effector, a bone's
mass and its share of the comfort weights are placed by :func:`tail_length`.
"""

from __future__ import annotations

from typing import Any

from mathutils import Vector

__all__ = ["LONG_BONE", "end", "joint_spacing", "middle", "tail_length"]

LONG_BONE = 30.0
"""A bone longer than this many times the spacing of its joints has a length an importer
gave it (a glTF skeleton in centimetres comes with bones 100× too long), not its body's;
a body's own bones stay under it (Rigify's metarigs reach 13×, the horse's skull)."""


def joint_spacing(bone: Any) -> float:
    """The spacing of the bone's joints (armature units), 0 for a lone bone.

    The distance from its head to its farthest child's head; for a bone with no child
    away from its head, from its head to its parent's. A foot ends where its toes start,
    however far its parent's joint lies.
    """
    head = bone.head_local
    spacing = max((float((child.head_local - head).length) for child in bone.children), default=0.0)
    if spacing <= 0.0 and bone.parent is not None:
        spacing = float((head - bone.parent.head_local).length)
    return spacing


def tail_length(bone: Any) -> float:
    """How far along the bone it ends on the body (armature units).

    Its length; for a bone longer than :data:`LONG_BONE` times its joints' spacing,
    that spacing, so that a tail effector, a mass and a size stay on the body.
    """
    length, spacing = float(bone.length), joint_spacing(bone)
    return spacing if spacing > 0.0 and length > LONG_BONE * spacing else length


def end(bone: Any, head: Vector, tail: Vector) -> Vector:
    """The bone's end on the body, from its ``head`` and ``tail`` in any frame it is at."""
    length = float(bone.length)
    if length <= 0.0:
        return tail.copy()
    return head + (tail - head) * (tail_length(bone) / length)


def middle(bone: Any, head: Vector, tail: Vector) -> Vector:
    """The midpoint of the bone's part of the body (:func:`end`)."""
    return (head + end(bone, head, tail)) / 2.0
