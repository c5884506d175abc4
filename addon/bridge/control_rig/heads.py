"""A control rig's ends beyond its trunk: a head and neck Reach turns through their controls.

A control whose pose a skeleton bone copies outright in world space (Rigify's ``head``,
copied by ``ORG-spine.006``; a breast's control) ends a chain of controls: the controls
above it, through bones that only follow another control's world rotation and scale
(Rigify's ``MCH-ROT-head`` and ``MCH-ROT-neck``, which copy the torso's turn by the
head's and neck's *follow*), up to the trunk joint it hangs from. :func:`find_ends`
reads that from the rig's parents and constraints, by no bone names.

Each control of such a chain is a segment of the figure, its DOFs the control's, its rest
turned as at the armature's rest and placed where Blender evaluates it (:func:`_rests`).
A follow carrier is no rigid child of the control above: its turn is the followed
control's, or a blend. So each control is written by placing it (:func:`place_ends`):
its parent's new pose is predicted (a follow of all or nothing exactly), Blender
evaluates the rig, and a control still off its target is placed again from the
evaluated pose.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from mathutils import Matrix, Vector

from ..arrays import Array
from ..rig import to_numpy
from ..rigify_names import is_control
from .control_pose import ControlWriter
from .limbs import Limb
from .trunk import AGREE, Trunk, copied_outright

PASSES = 3
"""Most writes of the ends before their controls are left as Blender evaluates them."""

PROGRESS = 0.5
"""A further pass is made only while each cuts the worst miss to at most this share."""

TOLERANCE = 5e-6
"""A chain is placed when each control is this close to its target (times the chain's
length, its head, tail and a point across it)."""


@dataclass(frozen=True)
class End:
    """A chain of controls beyond the trunk, the last one copied by a skeleton bone.

    Attributes:
        controls: The chain's controls, the highest first (Rigify's ``neck``, ``head``).
        hang: The segment the chain hangs from: a trunk joint's, or the control of the
            chain whose copy carries it (an eye hangs from the head); "" none.
        copies: Each skeleton bone that copies a control of the chain outright, and the
            control (``ORG-spine.006`` and ``head``).
        rests: Each control's rest in the frame of the segment above it: turned as at the
            armature's rest, placed as Blender evaluated it when the chain was found.
    """

    controls: tuple[str, ...]
    hang: str
    copies: tuple[tuple[str, str], ...]
    rests: dict[str, Array]

    def above(self, control: str) -> list[str]:
        """The chain's controls from its highest down to ``control``."""
        return list(self.controls[: self.controls.index(control) + 1])

    def describe(self) -> str:
        """The chain as Make Figure names it: its controls, highest first."""
        return " → ".join(self.controls)

    def is_current(self, obj: Any) -> bool:
        """Whether the bones Reach leaves as set still place the chain as when found."""
        now = places(obj, self.controls, self.hang)
        built = [self.rests[name][:3, 3] for name in self.controls]
        size = max(1.0, *(float(np.abs(place).max()) for place in built))
        return all(
            float(np.abs(a - b).max()) <= AGREE * size for a, b in zip(now, built, strict=True)
        )


def _active(pose_bone: Any) -> list[Any]:
    return [c for c in pose_bone.constraints if c.enabled and c.influence > 0.0]


def _copied(obj: Any, pose_bone: Any, *, controls: bool = True) -> str:
    """The control a skeleton bone copies outright in world space ("" none).

    ``controls`` False: the skeleton bone it copies so ("" none).
    """
    if is_control(pose_bone.name):
        return ""
    source = copied_outright(obj, pose_bone)
    if source is None or is_control(source.name) != controls or (controls and _active(source)):
        return ""
    return str(source.name)


def follows(obj: Any, constraint: Any) -> bool:
    """Whether ``constraint`` makes its bone follow a control's world rotation or scale."""
    return bool(
        constraint.type in ("COPY_ROTATION", "COPY_SCALE")
        and constraint.target == obj
        and constraint.owner_space == "WORLD"
        and constraint.target_space == "WORLD"
        and is_control(constraint.subtarget)
        and constraint.subtarget in obj.pose.bones
        and (constraint.type == "COPY_SCALE" or constraint.mix_mode == "REPLACE")
    )


def hang_bones(obj: Any, limbs: Iterable[Limb]) -> list[str]:
    """The bones the chains beyond the trunk hang from, before the trunk is known.

    Up from each control a skeleton bone copies outright, past the controls and the
    bones that follow one (:func:`follows`): the first bone of another kind (a share
    of the chest's turn a long neck hangs from), for :func:`.trunk.find_trunk`.
    """
    bones = obj.pose.bones
    taken = _taken(limbs)
    found: dict[str, None] = {}
    for pose_bone in bones:
        control = _copied(obj, pose_bone)
        if not control or control in taken:
            continue
        current = bones[control].parent
        while current is not None:
            constraints = _active(current)
            plain = is_control(current.name) and not constraints
            if not plain and not (constraints and all(follows(obj, c) for c in constraints)):
                found[str(current.name)] = None
                break
            current = current.parent
    return list(found)


def _taken(limbs: Iterable[Limb]) -> set[str]:
    """The limbs' bones and controls."""
    taken: set[str] = set()
    for limb in limbs:
        taken.update(
            limb.bones, limb.controls, (c for c in limb.fk if c), (c for c in limb.ik if c)
        )
    return taken


def find_ends(obj: Any, limbs: Iterable[Limb], trunk: Trunk) -> tuple[End, ...]:
    """The chains of controls beyond the trunk Reach poses (:class:`End`)."""
    bones = obj.pose.bones
    taken = _taken(limbs)
    joints = {name: j.segment for j in trunk.joints for name in (j.segment, j.control, j.bone)}
    ends: list[End] = []
    seen: set[str] = set()
    copies: dict[str, list[tuple[str, str]]] = {}
    for pose_bone in bones:
        control = _copied(obj, pose_bone)
        if control and control not in taken and control not in joints:
            copies.setdefault(control, []).append((str(pose_bone.name), control))
    copiers = {copier: control for control, pairs in copies.items() for copier, _ in pairs}
    for pose_bone in bones:  # a deform bone copying the copy (DEF-spine.006 of ORG-spine.006)
        copied = _copied(obj, pose_bone, controls=False)
        if copied in copiers:
            copies[copiers[copied]].append((str(pose_bone.name), copiers[copied]))
    # a bone that copies a chain's control outright carries what hangs below it with it
    carriers = {copier: control for control, pairs in copies.items() for copier, _ in pairs}
    found: dict[str, tuple[list[str], str]] = {}
    for control in copies:
        if control in seen:
            continue
        walked = _chain(obj, control, {**joints, **carriers}, taken)
        if walked is None or seen.intersection(walked[0]):
            continue
        seen.update(walked[0])
        found[control] = walked
    placed: set[str] = set(joints.values())
    while True:  # parents first; a chain whose hang is lost is dropped
        ready = [c for c, (_, hang) in found.items() if not hang or hang in placed]
        if not ready:
            break
        for control in ready:
            controls, hang = found.pop(control)
            owned = [pair for name in controls for pair in copies.get(name, [])]
            ends.append(End(tuple(controls), hang, tuple(owned), _rests(obj, controls, hang)))
            placed.update(controls)
    return tuple(ends)


def _chain(
    obj: Any, control: str, joints: Mapping[str, str], taken: set[str]
) -> tuple[list[str], str] | None:
    """The controls from the highest down to ``control``, and the joint they hang from.

    Up from ``control``, a control without constraints joins the chain while every bone
    between is a control or follows one (:func:`follows`: Rigify's follow carriers)
    and its own parent is one of those too; so a spine's control, under a share of the
    chest's turn or a trunk joint, stays as set and carries the chain as it is. The
    chain hangs from the first trunk joint's bone above it ("" none). None where the way
    up meets a limb.
    """
    bones = obj.pose.bones

    def follower(pose_bone: Any) -> bool:  # a control, or a bone that follows one
        if pose_bone is None or pose_bone.name in joints:
            return False
        constraints = _active(pose_bone)
        if not constraints:
            return is_control(pose_bone.name)
        return all(follows(obj, c) for c in constraints)

    chain = [control]
    joining = True
    current = bones[control].parent
    while current is not None:
        name = str(current.name)
        if name in joints:
            return chain, joints[name]
        if name in taken:
            return None
        joining = joining and follower(current)
        if joining and is_control(name) and not _active(current):
            if follower(current.parent):
                chain.insert(0, name)
            else:
                joining = False
        current = current.parent
    return chain, ""


def _rests(obj: Any, chain: Sequence[str], hang: str) -> dict[str, Array]:
    """Each control's rest in the frame above it: turned as at rest, placed as now.

    Its turn is the armature's rest's, its place where Blender evaluates it now
    (:func:`places`). A follow carrier turns a control otherwise than the control above
    does, so its turn there is no constant of the rig; the armature's rest gives θ = 0
    one meaning whatever the pose the figure is made in.
    """
    data = obj.data.bones
    rests: dict[str, Array] = {}
    above = to_numpy(data[hang].matrix_local) if hang else np.eye(4)
    for name, place in zip(chain, places(obj, chain, hang), strict=True):
        local = to_numpy(data[name].matrix_local)
        rest = np.linalg.solve(above, local)
        rest[:3, 3] = place
        rests[name] = rest
        above = local
    return rests


def places(obj: Any, chain: Sequence[str], hang: str) -> list[Array]:
    """Each control's head in the frame of the segment above it, as Blender evaluates it.

    Constant while the controls and carriers between them turn: a follow carrier turns
    a control but does not move it. Measured on every event to see whether the bones
    Reach leaves as set still place the chain as when it was found.
    """
    world = to_numpy(obj.matrix_world)
    bones = obj.pose.bones
    found = []
    above = world @ to_numpy(bones[hang].matrix) if hang else np.eye(4)
    for name in chain:
        pose = world @ to_numpy(bones[name].matrix)
        found.append(np.linalg.solve(above, pose)[:3, 3])
        above = pose
    return found


def _carrier(obj: Any, writer: ControlWriter, name: str) -> Matrix | None:
    """The pose the parent of control ``name`` will have once the writes are evaluated.

    Where the parent follows a control's world rotation (and scale) fully, it takes that
    control's new turn at the place it is carried to; otherwise it is carried rigidly
    (:meth:`ControlWriter.parent_pose`): a partial follow is left to the next pass.
    """
    pose_bone = obj.pose.bones[name]
    rigid = writer.parent_pose(pose_bone)
    parent = pose_bone.parent
    if rigid is None or parent is None:
        return rigid
    turned, scaled = None, None
    for constraint in _active(parent):
        if not follows(obj, constraint) or constraint.influence < 1.0:
            continue
        followed = writer.new.get(constraint.subtarget)
        if followed is None:
            followed = obj.pose.bones[constraint.subtarget].matrix
        if constraint.type == "COPY_ROTATION":
            turned = followed.to_quaternion()
        else:
            scaled = followed.to_scale()
    if turned is None and scaled is None:
        return rigid
    location, rotation, scale = rigid.decompose()
    predicted: Matrix = Matrix.LocRotScale(location, turned or rotation, scaled or scale)
    return predicted


def end_error(obj: Any, end: End, targets: Mapping[str, Matrix]) -> float:
    """The largest miss of the chain's controls from their targets, over its length."""
    bones = obj.pose.bones
    worst = 0.0
    for name in end.controls:
        if name not in targets:
            continue
        now, target = bones[name].matrix, targets[name]
        size = bones[name].bone.length
        for point in ((0.0, 0.0, 0.0), (0.0, size, 0.0), (size, 0.0, 0.0), (0.0, 0.0, size)):
            worst = max(worst, (now @ Vector(point) - target @ Vector(point)).length)
    length = sum(float(bones[name].bone.length) for name in end.controls)
    return worst / max(length, 1e-12)


def place_ends(
    obj: Any,
    view_layer: Any | None,
    ends: Sequence[tuple[End, Mapping[str, Matrix]]],
    moved: Mapping[str, Matrix] | None = None,
) -> list[str]:
    """Write the chains' controls so that they take their target poses (pose space).

    Args:
        obj: The control rig, evaluated.
        view_layer: Updated after each pass to evaluate the rig; None (inside a
            depsgraph handler): one pass from the predicted parents.
        ends: Per chain, pose-space targets of some or all of its controls.
        moved: Pose-space matrices of bones above written but not yet evaluated (the
            trunk's joints).

    Returns:
        The controls written.
    """
    written: dict[str, None] = {}
    before = math.inf
    for _ in range(PASSES):
        writer = ControlWriter(obj, moved)
        for end, targets in ends:
            for name in end.controls:
                if name in targets:
                    writer.write_under(name, targets[name], _carrier(obj, writer, name))
                    written[name] = None
        if view_layer is None:
            break
        if writer.changed or writer.given:
            view_layer.update()
        moved = None  # evaluated now
        worst = max(end_error(obj, end, targets) for end, targets in ends)
        if worst <= TOLERANCE or worst > PROGRESS * before:
            break  # placed, or as near as the rig's rounding lets a pass place it
        before = worst
    return list(written)
