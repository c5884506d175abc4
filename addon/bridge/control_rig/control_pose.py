"""Controls written so that, once Blender evaluates the rig, they take given poses.

A control's channels are found from its parent's new pose with Blender's own
``Bone.convert_local_to_pose``; the parent's new pose is predicted from the writes made
before it in the same evaluation. A control carrying a bone rigidly is moved by the pose
delta between them: ``C_new = T · S⁻¹ · C`` (S the bone's pose now, C the control's, T
the bone's target).

The channels are written as raw property arrays (:func:`write_channels`), not through each
pose bone's properties: a property's update tags the armature's geometry, and Blender then
evaluates a control rig in about 1.5× the time a transform tag costs (the same pose, to the
bit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathutils import Euler, Matrix, Quaternion

from ..arrays import pose_written
from ..keys import rotation_channel

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
        self,
        obj: Any,
        moved: Mapping[str, Matrix] | None = None,
        dry: bool = False,
        batch: Batch | None = None,
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
        self.pending: dict[str, Matrix] = {}
        """The channels given and not yet written to Blender (:meth:`flush`)."""
        self.batch: Batch = {} if batch is None else batch
        """Channel values written with this writer's at its next :meth:`flush`, shared with
        the writes before it that Blender evaluates together (a trunk's, a chain's pass)."""

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
        now = self.pending.get(pose_bone.name)
        if moves(pose_bone.matrix_basis if now is None else now, basis, size):
            self.bases[pose_bone.name] = basis
            if not self.dry:
                self.pending[pose_bone.name] = basis
            self.changed = True

    def flush(self, write: bool = True) -> bool:
        """Write the channels given since the last flush and the batch's; whether any were.

        Before Blender evaluates the rig. ``write``: False leaves them in the batch, for a
        later writer sharing it to write.
        """
        if self.pending:
            self.batch.update(bases_channels(self.obj, self.pending))
            self.pending = {}
        if not write or not self.batch:
            return False
        write_channels(self.obj, self.batch)
        self.batch.clear()
        return True


Channel = tuple[float, ...]
"""One pose-bone channel's values (a location, a rotation in its mode, a scale)."""

Batch = dict[str, dict[str, Sequence[float]]]
"""Channel values to write, per bone name its values by channel (:func:`write_channels`)."""


def write_channels(obj: Any, changes: Mapping[str, Mapping[str, Sequence[float]]]) -> None:
    """Set some bones' channels, per bone name its values by channel, with no property update.

    Each channel is written as a raw property array (``path_resolve(name, False)``, whose
    ``foreach_set`` runs no update, as the collection's does not), only the named bones':
    a channel read and written back for every bone of a rig cost 50 µs on a 222-bone rig
    and three times that on a 700-bone one, per channel and write. The pose is tagged as
    :func:`.arrays.pose_written` says.
    """
    bones = obj.pose.bones
    for name, values in changes.items():
        pose_bone = bones[name]
        for kind, value in values.items():
            pose_bone.path_resolve(kind, False).foreach_set(value)
    pose_written(obj)


def bases_channels(obj: Any, bases: Mapping[str, Matrix]) -> Batch:
    """The channel values that give controls the channel matrices ``bases``.

    A location or scale that a basis leaves as it is, to :data:`UNCHANGED` of the
    control's size (a turning FK control's location, a scale of 1), is left out: not
    written, it keeps its value to the bit.
    """
    bones = obj.pose.bones
    changes: Batch = {}
    for name, basis in bases.items():
        pose_bone = bones[name]
        mode = pose_bone.rotation_mode
        kind = rotation_channel(mode)
        location, rotation, scale = basis_channels(basis, mode, getattr(pose_bone, kind))
        values: dict[str, Sequence[float]] = {kind: rotation}
        now = pose_bone.location
        size = max(pose_bone.bone.length, now.length, 1e-9)
        if max(abs(a - b) for a, b in zip(location, now, strict=True)) > UNCHANGED * size:
            values["location"] = location
        if max(abs(a - b) for a, b in zip(scale, pose_bone.scale, strict=True)) > UNCHANGED:
            values["scale"] = scale
        changes[name] = values
    return changes


def basis_channels(
    basis: Matrix, mode: str, held: Sequence[float]
) -> tuple[Channel, Channel, Channel]:
    """The location, rotation and scale channels that make channel matrix ``basis``.

    The rotation in rotation mode ``mode``, next to ``held``, its channel's values now:
    a quaternion in its hemisphere, the Euler angles nearest them, so that keys do not
    flip. In single precision, as Blender's own ``matrix_basis`` setter converts it.
    """
    location, turn, scale = basis.decompose()
    rotation: Channel
    if mode == "QUATERNION":
        if turn.dot(Quaternion(held)) < 0.0:
            turn.negate()
        rotation = (turn.w, turn.x, turn.y, turn.z)
    elif mode == "AXIS_ANGLE":
        axis, angle = turn.to_axis_angle()
        rotation = (angle, axis.x, axis.y, axis.z)
    else:
        angles = turn.to_euler(mode, Euler(held, mode))
        rotation = (angles.x, angles.y, angles.z)
    return (location.x, location.y, location.z), rotation, (scale.x, scale.y, scale.z)


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
    # the rows unpacked: a drag event asks a few times, and indexing makes a vector a row
    rows: Any = (new - now)[:3]
    (a, b, c, d), (e, f, g, h), (i, j, k, m) = rows
    turn: float = max(abs(a), abs(b), abs(c), abs(e), abs(f), abs(g), abs(i), abs(j), abs(k))
    move: float = max(abs(d), abs(h), abs(m))
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
