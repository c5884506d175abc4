"""Controls written so that, once Blender evaluates the rig, they take given poses.

A control's channels are found from its parent's new pose with Blender's own
``Bone.convert_local_to_pose``; the parent's new pose is predicted from the writes made
before it in the same evaluation. A control carrying a bone rigidly is moved by the pose
delta between them: ``C_new = T · S⁻¹ · C`` (S the bone's pose now, C the control's, T
the bone's target).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathutils import Matrix

UNCHANGED = 1e-6
"""A control whose channels would turn by less than this (in radians) and move by less
than this times its length or its distance from the armature's origin, whichever is
larger, is left as it is: single-precision rounding, not a move worth one more
evaluation of the rig."""


class ControlWriter:
    """Writes controls whose parents may just have been written, in one evaluation.

    A written control's new pose is remembered; the parent of the next one is predicted
    from it when the control lies below it (bones in between following rigidly).
    """

    def __init__(
        self, obj: Any, moved: Mapping[str, Matrix] | None = None, dry: bool = False
    ) -> None:
        self.obj = obj
        self.new: dict[str, Matrix] = dict(moved or {})
        self.given = set(self.new)
        self.changed = False
        """Whether a write changed a control's channels, so the rig must be evaluated."""
        self.dry = dry
        """Whether the channels are only noted (:attr:`bases`), the controls left as they are."""
        self.bases: dict[str, Matrix] = {}
        """The channels (as ``matrix_basis``) given each control that changes."""

    def parent_pose(self, pose_bone: Any) -> Matrix | None:
        """The pose the parent of ``pose_bone`` will have once the writes are evaluated."""
        parent = pose_bone.parent
        if parent is None:
            return None
        current = parent
        while current is not None:
            if current.name in self.new:
                predicted: Matrix = (
                    self.new[current.name] @ current.matrix.inverted_safe() @ parent.matrix
                )
                return predicted
            current = current.parent
        copied: Matrix = parent.matrix.copy()
        return copied

    def write(self, name: str, pose: Matrix) -> None:
        """Give control ``name`` the pose-space matrix ``pose`` (once evaluated)."""
        self.write_under(name, pose, self.parent_pose(self.obj.pose.bones[name]))

    def write_under(self, name: str, pose: Matrix, parent: Matrix | None) -> None:
        """:meth:`write`, its parent's pose then given (None: it has none)."""
        self.give_pose(name, pose, self.basis_under(name, pose, parent))

    def basis_under(self, name: str, pose: Matrix, parent: Matrix | None) -> Matrix:
        """The channels giving control ``name`` pose ``pose`` (:func:`channels`)."""
        return channels(self.obj.pose.bones[name], pose, parent)

    def give_pose(self, name: str, pose: Matrix, basis: Matrix) -> None:
        """Set control ``name``'s channels to ``basis``, its pose once evaluated ``pose``."""
        pose_bone = self.obj.pose.bones[name]
        self.new[name] = pose.copy()
        self.give(pose_bone, basis, max(pose_bone.bone.length, pose.translation.length))

    def give(self, pose_bone: Any, basis: Matrix, size: float) -> None:
        """Set ``pose_bone``'s channels to ``basis``, unless that moves it by rounding only.

        ``size``: what a move is measured against (:func:`moves`).
        """
        if moves(pose_bone.matrix_basis, basis, size):
            self.bases[pose_bone.name] = basis
            if not self.dry:
                pose_bone.matrix_basis = basis
            self.changed = True


def channels(pose_bone: Any, pose: Matrix, parent: Matrix | None) -> Matrix:
    """The channels giving ``pose_bone`` pose ``pose``, no constraint acting on it.

    ``parent``: its parent's pose then (None: it has none).
    """
    bone = pose_bone.bone
    if parent is None:
        basis: Matrix = bone.convert_local_to_pose(pose, bone.matrix_local, invert=True)
        return basis
    basis = bone.convert_local_to_pose(
        pose,
        bone.matrix_local,
        parent_matrix=parent,
        parent_matrix_local=pose_bone.parent.bone.matrix_local,
        invert=True,
    )
    return basis


def moves(now: Matrix, new: Matrix, size: float) -> bool:
    """Whether channel matrix ``new`` differs from ``now`` beyond :data:`UNCHANGED`."""
    delta = new - now
    turn = max(abs(delta[i][j]) for i in range(3) for j in range(3))
    move = max(abs(delta[i][3]) for i in range(3))
    return turn > UNCHANGED or move > UNCHANGED * max(size, 1e-9)


def carried(target: Matrix, bone_now: Matrix, control_now: Matrix) -> Matrix:
    """The control's pose that brings a bone it carries rigidly to ``target``."""
    result: Matrix = target @ bone_now.inverted_safe() @ control_now
    return result


def rigid(matrix: Matrix) -> Matrix:
    """``matrix``'s turn and move alone, without scale or shear.

    A rig's stretch or a partial constraint leaves some in a bone's pose; carried from
    write to write it would grow.
    """
    turn_and_move: Matrix = Matrix.LocRotScale(matrix.translation, matrix.to_quaternion(), None)
    return turn_and_move
