"""θ of a control rig's figure written onto its controls.

The trunk's joints are written into their controls' channels (:func:`.trunk.trunk_channels`),
each limb's controls of its current mode are placed so that its skeleton takes the
solved pose (:func:`.placing.place_limbs`), and a neck's and head's controls take theirs
(:func:`.heads.place_ends`): only controls are ever written and keyed.
:class:`ModelWriter` keeps what one write leaves the next (the paws' heels).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from mathutils import Matrix, Vector
from numpy.typing import NDArray

from ....solver import rotations
from ...vocabulary import AXES
from ..arrays import Array, bone_rows, channel
from ..keys import rotation_channel
from ..pose import WRITTEN_CHANNELS, axis_angles
from ..rig import BoneLayout, Rig, to_numpy
from .control_pose import UNCHANGED, basis_channels, moves, write_channels
from .heads import End, place_ends
from .limbs import Limb
from .model import ControlModel
from .paws import Heels
from .placing import place_limbs, plan_limbs
from .trunk import Trunk, Turn, control_turn, trunk_channels

SCALE = 1e-4
"""A planned write (:meth:`ModelWriter.planned`) that would change a control's scale by
more than this (a stretch, not the single-precision rounding of a rigid carry's
1e-6) is made and evaluated instead."""


@dataclass(frozen=True)
class Written:
    """What :func:`write_model` did.

    Attributes:
        controls: The controls written.
        left: The largest miss (world units) a limb's placement accepted within the
            write's ``within``; 0 where every limb is placed to its tolerance.
    """

    controls: list[str]
    left: float


def write_model(
    obj: Any,
    rig: Rig,
    model: ControlModel,
    theta: Array,
    bones: Iterable[str],
    view_layer: Any | None,
    heels: Heels | None = None,
    within: float = 0.0,
) -> Written:
    """Write θ of the trunk joints and limbs among ``bones`` onto their controls.

    The joints' controls take their channels (:func:`.trunk.trunk_channels`); then the
    controls of every limb holding one of ``bones`` are placed (:func:`.placing.place_limbs`),
    the new poses of the joints above them predicted by the figure. ``within``: a distance
    (world units) a limb may be left off by (:data:`.placing.DRAG`); 0: placed exactly.

    Raises:
        BlenderDataError: A limb blended between IK and FK, named.
    """
    world = rig.world_now(obj)
    world_inverse = rig.world_inverse(world)
    # pose-space lengths to world units
    scale = (
        rig.world_scale
        if world is rig.world
        else float(np.linalg.norm(world[:3, :3], axis=0).max())
    )
    frames = rig.figure.forward(theta)
    index = rig.segment_index
    chosen = set(bones)
    entries, turned = [], set()
    for joint in model.trunk.joints:  # a control's first joint chosen gives its channels
        if joint.segment in chosen and joint.control not in turned:
            turned.add(joint.control)
            entries.append(rig.layout[index[joint.segment]])
    # written with the first pass of the chains and limbs below, one write a channel
    batch = trunk_channels(obj, model.trunk, _turns(theta, entries))
    written = list(batch)
    moved: dict[str, Matrix] = {}
    if written:
        joints = model.trunk.joints  # a carrier's copy takes its pose too
        poses = _poses(frames, [index[joint.segment] for joint in joints], world_inverse)
        for joint, pose in zip(joints, poses, strict=True):
            moved[joint.segment] = moved[joint.bone] = pose
    placed = _limb_targets(model, frames, index, world_inverse, chosen)
    ends = _end_targets(model, frames, index, world_inverse, chosen)
    # the chains' first pass before the limbs', so that one evaluation serves both
    pending = bool(ends) and view_layer is not None
    if pending:
        place_ends(obj, None, ends, moved, batch=batch)
    left = 0.0
    share = within / max(scale, 1e-12)
    for result in place_limbs(obj, view_layer, placed, moved, heels, share, batch):
        written.extend(result.controls)
        left = max(left, result.left * scale)
    if ends:
        floors = heels.floors if heels is not None else None
        written.extend(
            place_ends(obj, view_layer, ends, moved, pending=pending, floors=floors, batch=batch)
        )
    if batch:  # no pass below wrote it
        write_channels(obj, batch)
    return Written(written, left)


def plan_model(
    obj: Any, rig: Rig, model: ControlModel, theta: Array, bones: Iterable[str]
) -> dict[str, Matrix] | None:
    """The channels (as ``matrix_basis``) :func:`write_model` gives the controls, unwritten.

    A trunk joint among ``bones`` that only moves (its root control's location, every
    joint's turn as it is) carries the limbs below it rigidly, so they are placed from
    its pose as θ gives it (:func:`_plan_trunk`). None where that write takes more than
    one pass to know: a trunk joint that turns (the limbs below it follow the rig's own
    mechanism, which only an evaluation shows), a chain beyond the trunk, or a limb
    whose plane turns or a paw (:func:`.placing.plan_limbs`).
    """
    chosen = set(bones)
    world_inverse = rig.world_inverse(to_numpy(obj.matrix_world))
    frames = rig.figure.forward(theta)
    index = rig.segment_index
    if _end_targets(model, frames, index, world_inverse, chosen):
        return None
    joints = [joint for joint in model.trunk.joints if joint.segment in chosen]
    moved: dict[str, Matrix] = {}
    trunk: dict[str, Matrix] = {}
    if joints:
        motions = {j.segment: _motion(theta, rig.layout[index[j.segment]]) for j in joints}
        planned = _plan_trunk(obj, model.trunk, motions)
        if planned is None:
            return None
        trunk = planned
        every = model.trunk.joints  # as write_model predicts the limbs' parents
        poses = _poses(frames, [index[joint.segment] for joint in every], world_inverse)
        for joint, pose in zip(every, poses, strict=True):
            moved[joint.segment] = moved[joint.bone] = pose
    limbs = plan_limbs(obj, _limb_targets(model, frames, index, world_inverse, chosen), moved)
    return None if limbs is None else {**trunk, **limbs}


def _plan_trunk(obj: Any, trunk: Trunk, motions: dict[str, Array]) -> dict[str, Matrix] | None:
    """The channels :func:`write_model` gives the joints' controls that change.

    None where a joint would turn (beyond :data:`.control_pose.UNCHANGED`): only its
    root control's location may change, the turns kept as they are.
    """
    bases: dict[str, Matrix] = {}
    bones = obj.pose.bones
    for joint in trunk.joints:
        motion = motions.get(joint.segment)
        if motion is None or joint.control in bases:
            continue
        pose_bone = bones[joint.control]
        now = pose_bone.matrix_basis
        turn = control_turn(joint, motion)
        if np.abs(turn - np.array(now.to_3x3().normalized())).max() > UNCHANGED:
            return None
        if joint.translates:
            size = max(pose_bone.bone.length, now.translation.length)
            basis = now.copy()
            basis.translation = motion[:3, 3].tolist()
            if moves(now, basis, size):
                bases[joint.control] = basis
    return bases


def refine_model(
    obj: Any,
    rig: Rig,
    model: ControlModel,
    theta: Array,
    bones: Iterable[str],
    view_layer: Any,
    heels: Heels,
) -> None:
    """Place the limbs' controls again toward θ, from the pose Blender evaluated.

    A write made inside a depsgraph handler (:func:`write_model` without a view layer)
    is one pass from predicted parents; this makes the passes the rig's mechanism
    needs, evaluating each through ``view_layer`` (a limb placed already is not
    written). The heels' lead is not repeated: θ is the same write's.
    """
    world_inverse = rig.world_inverse(to_numpy(obj.matrix_world))
    frames = rig.figure.forward(theta)
    index = rig.segment_index
    placed = _limb_targets(model, frames, index, world_inverse, set(bones))
    place_limbs(obj, view_layer, placed)
    heels.note(obj, (limb for limb, _ in placed))
    ends = _end_targets(model, frames, index, world_inverse, set(bones))
    if ends:
        place_ends(obj, view_layer, ends)


def _targets(
    frames: Array, index: dict[str, int], world_inverse: Array, names: Iterable[str]
) -> dict[str, Matrix]:
    """The pose-space targets θ gives the segments ``names``."""
    listed = list(names)
    poses = _poses(frames, [index[name] for name in listed], world_inverse)
    return dict(zip(listed, poses, strict=True))


def _poses(frames: Array, rows: list[int], world_inverse: Array) -> list[Matrix]:
    """The pose-space matrices of the world ``frames`` at ``rows``, in one product.

    (One product and one conversion for them all: a drag event asks for a trunk's joints
    and each limb's bones.)
    """
    return [Matrix(pose) for pose in (world_inverse @ frames[rows]).tolist()]


def _limb_targets(
    model: ControlModel,
    frames: Array,
    index: dict[str, int],
    world_inverse: Array,
    chosen: set[str],
) -> list[tuple[Limb, dict[str, Matrix]]]:
    """Per limb holding one of the ``chosen`` bones, its bones' pose-space targets."""
    return [
        (limb, _targets(frames, index, world_inverse, limb.bones))
        for limb in model.limbs
        if chosen.intersection(limb.bones)
    ]


def _end_targets(
    model: ControlModel,
    frames: Array,
    index: dict[str, int],
    world_inverse: Array,
    chosen: set[str],
) -> list[tuple[End, dict[str, Matrix]]]:
    """Per chain beyond the trunk with a chosen control, its chosen controls' targets."""
    return [
        (end, _targets(frames, index, world_inverse, (c for c in end.controls if c in chosen)))
        for end in model.ends
        if chosen.intersection(end.controls)
    ]


_IDENTITY = np.eye(4)
_IDENTITY.setflags(write=False)


def _turns(theta: Array, entries: list[BoneLayout]) -> dict[str, Turn]:
    """The turn and move θ gives each of the segments ``entries`` (:data:`.trunk.Turn`).

    The turns about a segment's own axes in one batch of quaternions (a drag event's
    trunk joints), those about axes of a joint's own through their matrices.
    """
    turns: dict[str, Turn] = {}
    own = [entry for entry in entries if entry.frame is None]
    if own:
        steps = [[entry.rotation + 2 - s for s in range(3)] for entry in own]
        axes = [[AXES.index(letter) for letter in entry.order] for entry in own]
        quaternions = rotations.euler_quaternions(theta[steps], axes)
        for entry, quaternion in zip(own, quaternions, strict=True):
            turns[entry.name] = (-quaternion if quaternion[0] < 0.0 else quaternion, None)
    for entry in entries:
        if entry.frame is not None:
            motion = _motion(theta, entry)
            turns[entry.name] = (rotations.matrix_quaternion(motion[:3, :3]), None)
        if entry.translation >= 0:
            turn = turns[entry.name][0]
            turns[entry.name] = (turn, theta[entry.translation : entry.translation + 3])
    return turns


def _motion(theta: Array, entry: BoneLayout) -> Array:
    """The motion (4 × 4) θ gives segment ``entry``: its translation, then its turn."""
    motion = _IDENTITY.copy()
    turn = rotations.euler_matrix(axis_angles(theta, entry), entry.order)
    motion[:3, :3] = turn if entry.frame is None else entry.frame @ turn @ entry.frame.T
    if entry.translation >= 0:
        motion[:3, 3] = theta[entry.translation : entry.translation + 3]
    return motion


class ModelWriter:
    """Writes θ of a control rig's figure onto its controls (:func:`write_model`).

    Each write after the first starts the paws' heels from the turns of the writes
    before (:class:`.paws.Heels`): a drag's, a live session's or a bake's.
    """

    def __init__(self, rig: Rig, model: ControlModel, bones: Iterable[str]) -> None:
        self.rig, self.model, self.bones = rig, model, list(model.carrying(bones))
        self.heels = Heels()

    def write(
        self, obj: Any, theta: Array, view_layer: Any | None = None, within: float = 0.0
    ) -> float:
        """Place the controls of the limbs holding the chosen bones; the miss left.

        ``view_layer`` evaluates the rig between passes (None: inside a depsgraph
        handler, one pass from predicted parents); ``within``: a distance (world units)
        a limb may be left off by (:data:`.placing.DRAG`), the miss accepted returned.
        """
        written = write_model(
            obj, self.rig, self.model, theta, self.bones, view_layer, self.heels, within
        )
        return written.left

    def refine(self, obj: Any, theta: Array, view_layer: Any) -> None:
        """Place them again from Blender's evaluation of the last write (``theta``'s)."""
        refine_model(obj, self.rig, self.model, theta, self.bones, view_layer, self.heels)

    def on(self, rig: Rig) -> ModelWriter:
        """This writer for ``rig``, the same rig moved as a whole, its heels' history kept."""
        other = copy.copy(self)
        other.rig = rig
        return other

    def fresh(self) -> ModelWriter:
        """The writer of the same controls with no heel turned yet (another run's)."""
        other = copy.copy(self)
        other.heels = Heels()
        return other

    def planned(self, bones: Any, theta: Array) -> dict[str, NDArray[np.float32]] | None:
        """The channels :meth:`write` gives ``bones`` (``obj.pose.bones``), unwritten.

        As :meth:`.pose.PoseWriter.planned` gives them: each channel kind the controls
        use, for every bone, the current values with the controls' rows replaced. None
        where the write needs Blender's evaluation to know them (:func:`plan_model`), or
        would scale a control (:data:`SCALE`).
        """
        obj = bones.id_data
        bases = plan_model(obj, self.rig, self.model, theta, self.bones)
        if bases is None:
            return None
        values: dict[str, NDArray[np.float32]] = {}

        def current(name: str) -> NDArray[np.float32]:
            if name not in values:
                values[name] = channel(bones, name, WRITTEN_CHANNELS[name])
            return values[name]

        for (name, basis), row in zip(bases.items(), bone_rows(bones, bases), strict=True):
            pose_bone = bones[name]
            mode = pose_bone.rotation_mode
            held = current(rotation_channel(mode))[row]
            location, rotation, scale = basis_channels(basis, mode, held)
            if (Vector(scale) - pose_bone.scale).length > SCALE:
                return None
            current("location")[row] = location
            held[:] = rotation
        return values
