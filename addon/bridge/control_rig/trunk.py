"""The trunk of a control rig: the controls above its limbs that Reach turns and moves.

A limb of a control rig hangs from a chain of bones (Rigify's spine) that the rig poses
through a few controls. :func:`find_trunk` reads from the rig's own parents and
constraints which of them Reach can pose exactly, by no bone names:

- the **root** control: the highest control above a limb (Rigify's ``torso``), which
  turns everything below it, and moves it with the figure's *Move root*;
- **shares** of a control that is no parent of the limb (Rigify's ``chest`` and
  ``hips``): mechanism bones above the limb that copy that control's local transform
  in local space at an influence ``w`` each take the turn ``q^w`` of its rotation ``q``
  (Blender blends the rotation by spherical interpolation), so the control is one
  joint spread over several places, their angles tied equal;
- **carriers**: a control whose pose a bone of the chain copies outright (Rigify's
  ``shoulder.L``, copied by ``ORG-shoulder.L``);
- **layers**: a control below the root that nothing constrains and whose rotation no
  lock holds (Rigify's spine FK controls ``spine_fk.*``), set by hand on top of the
  controls above. It stays as set unless a constraint's chain starts at it or at a
  layer above it: then it turns too (:func:`free_layers`).

Every other bone of the chain (a tweak control locked to its twist, mechanism bones)
stays as the animator set it and is carried rigidly. A control whose turn reaches a
limb through a mechanism that blends poses in world space (a quadruped's pivot between
its hips and its chest) is left out, so that what Reach writes is what Blender poses.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ....solver import Dof, Figure, rotations
from ...errors import labelled
from ..arrays import Array, bone_rows, channel
from ..joints import bone_dofs, control_dofs, euler_order, joint_settings
from ..keys import rotation_channel
from ..pose import bone_matrix, quaternion_values
from ..rig import STILL, BoneLayout, to_numpy
from ..rigify_names import is_control
from .control_pose import Batch
from .limbs import Limb, ancestors

AGREE = 1e-5
"""Largest difference (armature units, or cosines) between a rest the trunk measured
when it was built and now, for the trunk to still model the rig."""


@dataclass(frozen=True)
class Joint:
    """One joint of the trunk.

    Attributes:
        segment: The bone whose pose is the joint's frame (the control itself, or the
            mechanism bone of a share).
        control: The control whose channels hold the joint's turn.
        share: The part of the control's turn the segment takes (1: all of it).
        parent: The joint above ("" for the root).
        translates: The joint moves as well as turns (the root control, when the
            figure's *Move root* is on and any of its locations is free).
        bone: The bone of the limb's chain at the joint (a carrier's copy; else the
            segment).
        layer: A control set by hand on top of the joints above (a spine's FK
            control): it stays as set unless a chain starts at it or a layer above.
    """

    segment: str
    control: str
    share: float
    parent: str
    translates: bool
    bone: str
    layer: bool = False


@dataclass(frozen=True)
class Trunk:
    """The joints above a control rig's limbs, parents first.

    Attributes:
        joints: The joints, parents first.
        hangs: Per limb root bone, the joint it hangs from ("" none: the limb hangs
            where it is).
        rests: Per joint segment and per hanging limb root, its rest in the frame of
            the joint above, measured when the trunk was found (the figure's).
    """

    joints: tuple[Joint, ...]
    hangs: dict[str, str]
    rests: dict[str, Array]

    def joint(self, segment: str) -> Joint | None:
        """The joint of ``segment``, or None."""
        return next((j for j in self.joints if j.segment == segment), None)

    def first(self, control: str) -> str:
        """The highest segment of ``control`` ("" when it is no joint)."""
        return next((j.segment for j in self.joints if j.control == control), "")

    def controls(self) -> list[str]:
        """The joints' controls, each once, parents first."""
        return list(dict.fromkeys(j.control for j in self.joints))

    def above(self, segment: str) -> list[str]:
        """The joints' segments from the root down to ``segment`` (a joint or a limb root)."""
        chain: list[str] = []
        current = self.hangs.get(segment, segment)
        while current:
            chain.append(current)
            joint = self.joint(current)
            current = joint.parent if joint is not None else ""
        return chain[::-1]


def _active(pose_bone: Any) -> list[Any]:
    return [c for c in pose_bone.constraints if c.enabled and c.influence > 0.0]


def _share(obj: Any, pose_bone: Any, path: set[str]) -> tuple[str, float] | None:
    """The control and influence of a mechanism bone taking a share of a control's turn."""
    constraints = _active(pose_bone)
    if len(constraints) != 1 or is_control(pose_bone.name):
        return None
    copy = constraints[0]
    if not (
        copy.type == "COPY_TRANSFORMS"
        and copy.target == obj
        and copy.owner_space == "LOCAL"
        and copy.target_space == "LOCAL"
        and copy.mix_mode == "REPLACE"
        and is_control(copy.subtarget)
        and copy.subtarget in obj.pose.bones
        and copy.subtarget not in path
    ):
        return None
    if not np.allclose(to_numpy(pose_bone.matrix_basis), np.eye(4)):
        return None  # a blend from a basis of its own is no share
    return copy.subtarget, float(copy.influence)


def copied_outright(obj: Any, pose_bone: Any) -> Any | None:
    """The bone ``pose_bone`` copies outright (None: none).

    Its one constraint copies that bone's whole transform in world space at full influence.
    """
    constraints = _active(pose_bone)
    if len(constraints) != 1 or not copies_whole(obj, constraints[0]):
        return None
    return obj.pose.bones.get(constraints[0].subtarget)


def copies_whole(obj: Any, constraint: Any) -> bool:
    """Whether ``constraint`` copies a bone's whole transform in world space, fully."""
    return bool(
        constraint.type == "COPY_TRANSFORMS"
        and constraint.target == obj
        and constraint.influence >= 1.0
        and constraint.owner_space == "WORLD"
        and constraint.target_space == "WORLD"
        and constraint.mix_mode == "REPLACE"
    )


def _carried(obj: Any, pose_bone: Any) -> str:
    """The control a bone copies outright from beside it ("" when it copies none)."""
    control = copied_outright(obj, pose_bone)
    if (
        control is None
        or not is_control(control.name)
        or control.constraints
        or (control.parent is None) != (pose_bone.parent is None)
        or (control.parent is not None and control.parent.name != pose_bone.parent.name)
    ):
        return ""
    return str(control.name)


def _rotation_locked(pose_bone: Any) -> bool:
    """Whether the animator cannot turn ``pose_bone`` freely by hand (a tweak control)."""
    locks = list(pose_bone.lock_rotation)
    if pose_bone.rotation_mode in ("QUATERNION", "AXIS_ANGLE") and pose_bone.lock_rotations_4d:
        locks.append(pose_bone.lock_rotation_w)
    return any(locks)


def _targets(obj: Any, pose_bone: Any) -> list[str]:
    return [
        str(c.subtarget)
        for c in _active(pose_bone)
        if getattr(c, "target", None) == obj and getattr(c, "subtarget", "")
    ]


def find_trunk(obj: Any, limbs: Iterable[Limb], ends: Iterable[str] = ()) -> Trunk:
    """The joints above ``limbs`` that Reach poses, and where each limb hangs.

    ``ends``: bones that chains beyond the trunk hang from (:func:`.heads.hang_bones`);
    one that takes a share of a control's turn is a joint too, with the joints above it
    (a long neck hangs from a chest share no limb hangs from).
    """
    bones = obj.pose.bones
    candidates: dict[str, Joint] = {}
    paths: dict[str, list[str]] = {}  # per limb root, its joints' segments, root first
    influences: dict[str, set[float]] = {}
    blends: list[tuple[set[str], set[str]]] = []  # per blend: what moves it all, what moves it
    beyond: list[list[str]] = []  # per end that hangs from a share, its joints' segments
    roots = [(bones[limb.bones[0]].parent, limb.bones[0]) for limb in limbs]
    for end in ends:
        if _share(obj, bones[end], set(ancestors(obj, end))) is not None:
            roots.append((bones[end], ""))
    for top, key in roots:  # the highest bone of the path up (a limb root's parent), its key
        path = ancestors(obj, top.name)[::-1] if top is not None else []
        on_path = set(path)
        joints: list[str] = []
        for name in path:
            pose_bone = bones[name]
            constraints = _active(pose_bone)
            share = _share(obj, pose_bone, on_path)
            carrier = _carried(obj, pose_bone)
            parent = joints[-1] if joints else ""
            joint = None
            if not joints:
                if is_control(name) and not constraints:  # the root control
                    moves = obj.reach.translate_root and not all(pose_bone.lock_location)
                    joint = Joint(name, name, 1.0, "", moves, name)
            elif share is not None:
                joint = Joint(name, share[0], share[1], parent, False, name)
                influences.setdefault(share[0], set()).add(share[1])
            elif carrier:
                joint = Joint(carrier, carrier, 1.0, parent, False, name)
            elif is_control(name) and not constraints and not _rotation_locked(pose_bone):
                joint = Joint(name, name, 1.0, parent, False, name, layer=True)
            elif constraints:  # a blend or a stretch: only what moves all it reads passes
                own = set(ancestors(obj, name))
                reads = [set(ancestors(obj, t)) for t in _targets(obj, pose_bone)]
                blends.append((own.intersection(*reads), own.union(*reads)))
            if joint is not None:
                candidates.setdefault(joint.segment, joint)
                joints.append(joint.segment)
        if key:
            paths[key] = joints
        else:  # an end's joints: no limb hangs there
            beyond.append(joints)
    dropped = {c for c, shares in influences.items() if len(shares) > 1}
    for whole, moved in blends:
        dropped.update(
            j.control for j in candidates.values() if {j.segment, j.control} & (moved - whole)
        )
    return _prune(obj, candidates, paths, dropped, beyond)


def _prune(
    obj: Any,
    candidates: Mapping[str, Joint],
    paths: Mapping[str, list[str]],
    dropped: set[str],
    beyond: Iterable[list[str]] = (),
) -> Trunk:
    """The trunk without the dropped controls' joints, each joint under the one kept above.

    ``paths``: per limb root, the joints above it, root first; ``beyond``: the same for
    the ends chains hang from, where no limb hangs.
    """
    kept: dict[str, Joint] = {}
    hangs: dict[str, str] = {}
    for root, segments in [*paths.items(), *(("", segments) for segments in beyond)]:
        parent = ""
        for segment in segments:
            joint = candidates[segment]
            if joint.control in dropped:
                continue
            if segment not in kept:
                kept[segment] = replace(joint, parent=parent)
            parent = segment
        if root:
            hangs[root] = parent
    joints = tuple(kept.values())
    trunk = Trunk(joints, hangs, {})
    trunk.rests.update(measure_rests(obj, trunk))
    return trunk


def turns(obj: Any, joints: Sequence[Joint]) -> Array:
    """Each joint's motion now (n × 4 × 4), read from its control's channels.

    The control's turn, or the share of it, and the root's location; in double
    precision, so that a share of a small turn is not lost to rounding. Every bone's
    quaternion and location are read in one ``foreach_get`` each; a control in another
    rotation mode is read through its pose bone.
    """
    bones = obj.pose.bones
    rows = bone_rows(bones, [joint.control for joint in joints])
    quaternions = channel(bones, "rotation_quaternion", 4)[rows].astype(float)
    locations = channel(bones, "location", 3)[rows].astype(float)
    for k, row in enumerate(rows):
        pose_bone = bones[row]
        mode = pose_bone.rotation_mode
        if mode != "QUATERNION":
            rotation = bone_matrix(pose_bone, mode)
            if rotation is None:  # an Euler bone
                angles = np.array(pose_bone.rotation_euler, dtype=float)
                rotation = rotations.euler_matrix(angles, mode)
            quaternions[k] = rotations.matrix_quaternion(rotation)
    if not np.all(np.isfinite(quaternions)) or not np.all(np.any(quaternions, axis=1)):
        for joint in joints:  # named by the reading of each
            bone_matrix(bones[joint.control], bones[joint.control].rotation_mode)
    shares = np.array([joint.share for joint in joints])
    motions = np.tile(np.eye(4), (len(joints), 1, 1))
    motions[:, :3, :3] = rotations.quaternion_matrices(powers(quaternions, shares))
    moving = [k for k, joint in enumerate(joints) if joint.translates]
    motions[moving, :3, 3] = locations[moving]
    return motions


def powers(quaternions: Array, exponents: Array) -> Array:
    """Each quaternion (n × 4), made unit, to its exponent (n,).

    The same axis, the angle times the exponent; the nearer of a turn's two
    quaternions (w ≥ 0) is the one raised.
    """
    q = quaternions / np.linalg.norm(quaternions, axis=1, keepdims=True)
    q = np.where(q[:, :1] < 0.0, -q, q)
    sines = np.linalg.norm(q[:, 1:], axis=1)
    halves = exponents * np.arctan2(sines, q[:, 0])
    safe = np.where(sines == 0.0, 1.0, sines)
    result = np.empty_like(q)
    result[:, 0] = np.cos(halves)
    result[:, 1:] = q[:, 1:] * (np.sin(halves) / safe)[:, None]
    result[sines == 0.0] = (1.0, 0.0, 0.0, 0.0)
    return result


def measure_rests(obj: Any, trunk: Trunk) -> dict[str, Array]:
    """Each joint's and hanging limb root's rest in its parent joint's frame, measured now.

    A joint's rest is its evaluated pose less its own motion (:func:`turns`); a limb's
    root's is its parent bone's pose, carried by the joint above, times the root's
    offset from that parent at rest. (Stacked: this runs on every drag event.)
    """
    world = to_numpy(obj.matrix_world)
    bones, data = obj.pose.bones, obj.data.bones
    roots = list(trunk.hangs)
    parents = [data[root].parent.name for root in roots]
    joints = trunk.joints
    poses = world @ np.array([bones[n].matrix for n in [j.segment for j in joints] + parents])
    count = len(joints)
    inverse = np.linalg.inv(poses[:count]) if count else np.zeros((0, 4, 4))
    index = {j.segment: k for k, j in enumerate(joints)}
    rests: dict[str, Array] = {}
    if count:
        above = np.array([inverse[index[j.parent]] if j.parent else np.eye(4) for j in joints])
        measured = above @ poses[:count] @ np.linalg.inv(turns(obj, joints))
        rests.update(zip(index, measured, strict=True))
    if roots:
        rest = np.array([data[n].matrix_local for n in parents + roots])
        offsets = np.linalg.solve(rest[: len(roots)], rest[len(roots) :])
        hung = poses[count:] @ offsets
        for root, pose in zip(roots, hung, strict=True):
            hang = trunk.hangs[root]
            rests[root] = inverse[index[hang]] @ pose if hang else pose
    return rests


def carried_by(obj: Any, trunk: Trunk, figure: Figure) -> Array | None:
    """How ``figure`` stands to the trunk as measured now (:meth:`.rig.RigKind.carry`).

    :data:`.rig.STILL` while every rest is as built; where the figure hangs from one root,
    the trunk's first joint, and only that joint's rest changed (a torso whose location is
    keyed along a walk, no DOF of the figure; the armature object moved), the motion
    (4 × 4) that takes the figure there as a whole: every other rest is in the frame of
    the joint above it, as built, so the whole figure moves with its root. None where
    another rest changed.
    """
    now = measure_rests(obj, trunk)
    roots = [segment.name for segment in figure.segments if segment.parent is None]
    root = roots[0] if len(roots) == 1 and roots[0] in now else None
    for name, built in trunk.rests.items():
        if name != root and float(np.abs(now[name] - built).max()) > AGREE:
            return None
    if root is None:
        return STILL
    rest = figure.segment(root).rest
    if float(np.abs(now[root] - rest).max()) <= AGREE:
        return STILL
    motion: Array = now[root] @ np.linalg.inv(rest)
    return motion


def _share_dofs(joint: Joint, dofs: list[Dof]) -> list[Dof]:
    """A share's DOFs: its control's, with the control's bounds times the share."""
    if joint.share == 1.0:
        return dofs
    w = joint.share
    return [
        replace(
            dof,
            lower=None if dof.lower is None else w * dof.lower,
            upper=None if dof.upper is None else w * dof.upper,
        )
        for dof in dofs
    ]


def free_layers(trunk: Trunk, starts: Iterable[str]) -> set[str]:
    """The layers (:attr:`Joint.layer`) that turn when chains start at segments ``starts``.

    A layer at or below a layer a chain starts at: the animator chose to pose by them.
    """
    chosen = {s for s in starts if (j := trunk.joint(s)) is not None and j.layer}
    return {
        j.segment for j in trunk.joints if j.layer and chosen.intersection(trunk.above(j.segment))
    }


def add_trunk(
    obj: Any, trunk: Trunk, figure: Figure, hold: set[str], free: Collection[str] = ()
) -> list[BoneLayout]:
    """Add the trunk's joints to ``figure``, a share's angles tied to its control's first.

    A layer is locked unless ``free`` holds it (:func:`free_layers`).
    """
    bones = obj.pose.bones
    layout = []
    for joint in trunk.joints:
        control = bones[joint.control]
        locked = bool({joint.segment, joint.control} & hold)
        locked = locked or (joint.layer and joint.segment not in free)
        frame = None
        if joint.share == 1.0:  # the control's own frame: its own axes, if it has them
            own, order, frame = control_dofs(
                obj, control, np.eye(3), translates=joint.translates, locked=locked
            )
        else:  # a share of the control's turn about the control's axes
            order = euler_order(joint_settings(obj, control.name), control)
            own = bone_dofs(control, order, translates=joint.translates, lock=locked)
        dofs = _share_dofs(joint, own)
        first = figure.n_dofs
        with labelled(f"bone '{control.name}'"):
            figure.add_segment(
                joint.segment,
                parent=joint.parent or None,
                rest=trunk.rests[joint.segment],
                dofs=dofs,
            )
        shift = 3 if joint.translates else 0
        layout.append(
            BoneLayout(
                joint.segment,
                str(control.rotation_mode),
                order,
                translation=first if joint.translates else -1,
                rotation=first + shift,
                frame=frame,
            )
        )
        highest = trunk.first(joint.control)
        if highest != joint.segment:  # one turn, spread: the same angles at every share
            for k, dof in enumerate(dofs):
                if not dof.locked:
                    figure.add_linear_equality({(joint.segment, k): 1.0, (highest, k): -1.0})
    return layout


def control_turn(joint: Joint, motion: Array) -> Array:
    """The turn (3 × 3) ``joint``'s control takes for its segment's ``motion`` (4 × 4)."""
    return rotations.quaternion_matrix(control_quaternion(joint, motion))


def control_quaternion(joint: Joint, motion: Array) -> Array:
    """The turn (w, x, y, z), w ≥ 0, ``joint``'s control takes for its segment's ``motion``.

    A share's control takes the turn whose share is the segment's (``q = h^(1/w)``).
    """
    return share_quaternion(joint, rotations.matrix_quaternion(motion[:3, :3]))


def share_quaternion(joint: Joint, turn: Array) -> Array:
    """The turn (w, x, y, z), w ≥ 0, ``joint``'s control takes for its segment's ``turn``.

    ``turn``: the segment's, a unit quaternion with w ≥ 0 (:func:`control_quaternion`).
    """
    if joint.share == 1.0:
        return turn
    # :func:`powers` of one unit quaternion with w ≥ 0, on Python's floats (numpy's calls
    # on four numbers cost ten times the arithmetic; this runs on every drag event)
    w, x, y, z = turn.tolist()
    sine = math.sqrt(x * x + y * y + z * z)
    if sine == 0.0:
        return np.array([1.0, 0.0, 0.0, 0.0])
    half = (1.0 / joint.share) * math.atan2(sine, w)
    factor = math.sin(half) / sine
    return np.array([math.cos(half), x * factor, y * factor, z * factor])


Turn = tuple[Array, Array | None]
"""A trunk segment's motion: its turn (w, x, y, z), a unit quaternion with w ≥ 0, and its
move (3,), or None where it only turns."""


def trunk_channels(obj: Any, trunk: Trunk, turns: Mapping[str, Turn]) -> Batch:
    """The channel values that give each joint segment in ``turns`` its turn and move.

    Each control takes its turn (:func:`share_quaternion`), the root control its location
    too; written with the limbs' first pass (:class:`.control_pose.ControlWriter`'s batch),
    so that one write a channel serves both.
    """
    written: Batch = {}
    for joint in trunk.joints:
        motion = turns.get(joint.segment)
        if motion is None or joint.control in written:
            continue
        pose_bone = obj.pose.bones[joint.control]
        mode = pose_bone.rotation_mode
        kind = rotation_channel(mode)
        held = np.array(getattr(pose_bone, kind), dtype=float)
        turn = quaternion_values(share_quaternion(joint, motion[0]), mode, held)
        values: dict[str, Sequence[float]] = {kind: turn.tolist()}
        if joint.translates and motion[1] is not None:
            values["location"] = motion[1].tolist()
        written[joint.control] = values
    return written


def describe_trunk(trunk: Trunk) -> str:
    """What Make Figure says of a control rig's trunk: the controls a chain may start at."""
    parts, layers = [], []
    for control in trunk.controls():
        joints = [j for j in trunk.joints if j.control == control]
        if joints[0].layer:
            layers.append(control)
        elif joints[0].translates:
            parts.append(f"{control} (moves and turns)")
        elif not joints[0].parent:
            parts.append(f"{control} (turns; Move root moves it too)")
        elif len(joints) > 1:
            parts.append(f"{control} (turns {len(joints)} spine bones)")
        else:
            parts.append(control)
    spine = (
        f"; the spine's FK controls {', '.join(layers)} stay as set unless a chain starts "
        "at one (then it and those below it turn too)"
        if layers
        else ""
    )
    return (
        f"trunk: {', '.join(parts)}; a limb's constraint with its chain started at one of "
        f"them moves it too{spine}; the other spine controls stay as set"
    )
