"""A control rig's ends beyond its trunk: a head and neck Reach turns through their controls.

A control whose pose a skeleton bone copies outright in world space (Rigify's ``head``,
copied by ``ORG-spine.006``; a breast's control) ends a chain of controls: the controls
above it, through bones that only follow another control's world rotation and scale
(Rigify's ``MCH-ROT-head`` and ``MCH-ROT-neck``, which copy the torso's turn by the
head's and neck's *follow*), up to the trunk joint it hangs from. :func:`find_ends`
reads that from the rig's parents and constraints, by no bone names.

Each control of such a chain is a segment of the figure, its DOFs the control's, its rest
turned as at the armature's rest and placed where Blender evaluates it (:func:`rests_of`).
A follow carrier is no rigid child of the control above: its turn is the followed
control's, or a blend. So each control is written by placing it (:func:`place_ends`):
its parent's new pose is predicted (a follow of all or nothing exactly), Blender
evaluates the rig, and a control still off its target is placed again from the
evaluated pose.

A skeleton bone a chain's control carries through plain controls (the face's ``jaw``
and ``chin`` under ``jaw_master``) rides it: a goal on it poses that control
(:func:`_with_riders`). Rigify's jaw control is a hinge across the face, opening within
a jaw's range (:func:`jaw_range`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from mathutils import Euler, Matrix, Vector

from ..arrays import Array
from ..rig import to_numpy
from ..rigify_names import BODY_PREFIX, is_control
from .control_pose import Batch, ControlWriter, channels
from .limbs import Limb
from .trunk import AGREE, Trunk, copied_outright, copies_whole

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")

PASSES = 3
"""Most writes of the ends before their controls are left as Blender evaluates them."""

PROGRESS = 0.5
"""A further pass is made only while each cuts the worst miss to at most this share."""

TOLERANCE = 5e-6
"""A chain is placed when each control is this close to its target (times the chain's
length, its head, tail and a point across it)."""

ROUNDING = 1e-6
"""Or when each is this close, times its target's distance from the armature's origin:
Blender holds the pose in single precision, so a short control far from the origin (a
cat's jaw) lands no closer however often it is written."""

FLOOR = 1.5
"""Or when each is within this many times the miss a further pass could not lessen in
the writes before (a horse's neck, which follows half the torso's turn, lands 6e-6 of
its length off pass after pass): the pass that would only find that again is not made."""


JAWS = frozenset({"jaw_master", "jaw"})
"""Rigify's jaw controls (a face's jaw master, a horse's jaw): each turns the jaw about
the line across the face, a hinge."""

JAW_OPEN = math.radians(30.0)
"""How far a jaw opens from its rest (closed): about as far as a human jaw turns open."""

ACROSS = math.cos(math.radians(10.0))
"""Least cosine between a jaw control's X and the body's left–right for it to hinge there."""


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
        curls: Per control that copies another's turn into its own, the copies
            (:class:`Curl`).
        carried: Per pair of ``copies``, the bone's rest in its control's frame (what
            :meth:`is_current` checks the bone against).
    """

    controls: tuple[str, ...]
    hang: str
    copies: tuple[tuple[str, str], ...]
    rests: dict[str, Array]
    curls: dict[str, tuple[Curl, ...]] = field(default_factory=dict)
    carried: tuple[Matrix, ...] = ()

    def above(self, control: str) -> list[str]:
        """The chain's controls from its highest down to ``control``."""
        return list(self.controls[: self.controls.index(control) + 1])

    def describe(self) -> str:
        """The chain as Make Figure names it: its controls, highest first."""
        return " → ".join(self.controls)

    def is_current(self, obj: Any) -> bool:
        """Whether the bones Reach leaves as set still place the chain as when found.

        The controls' places, and each skeleton bone's head and tail where its control
        carries them (a tweak moved by hand moves a tail's bone off its control).
        """
        now = places(obj, self.controls, self.hang)
        built = [self.rests[name][:3, 3] for name in self.controls]
        size = max(1.0, *(float(np.abs(place).max()) for place in built))
        if any(float(np.abs(a - b).max()) > AGREE * size for a, b in zip(now, built, strict=True)):
            return False
        pairs = zip(self.copies, self.carried, strict=True)
        return all(_on_control(obj, copy, control, rest) for (copy, control), rest in pairs)


def _on_control(obj: Any, bone: str, control: str, rest: Matrix) -> bool:
    """Whether ``bone``'s head and tail lie where ``control`` carries them, as evaluated now.

    ``rest``: the bone's pose in the control's frame.
    """
    pose_bone, length = obj.pose.bones[bone], obj.data.bones[bone].length
    carried = obj.pose.bones[control].matrix @ rest
    scale = AGREE * max(length, carried.translation.length)
    tail = carried @ Vector((0.0, length, 0.0))
    off = max((carried.translation - pose_bone.head).length, (tail - pose_bone.tail).length)
    return bool(off <= scale)


@dataclass(frozen=True)
class Curl:
    """A control's copy of another control's local turn, added to its own (a tail's curl).

    Rigify's tails and tentacles turn each control by the one above it (the first by a
    master) about some axes: a Copy Rotation in local space, mixed before or after the
    control's own turn. Reach writes the control's own turn so that, with the copy,
    the control takes the solved pose (:func:`uncurled`).

    Attributes:
        source: The control whose local turn is copied.
        axes: Per Euler axis, 1 copied, -1 copied inverted, 0 not copied.
        order: The Euler order the copy reads the turn in ("" the owner's own).
        before: Mixed before the control's own turn (as by a parent), else after it.
    """

    source: str
    axes: tuple[int, int, int]
    order: str
    before: bool


def jaw_range(obj: Any, name: str, order: str) -> tuple[float, float] | None:
    """The turn about its own X [rad] a jaw control may take (None: no jaw's hinge).

    Rigify's jaw master turns the jaw about its X, across the face. The range opens the
    jaw from its rest (closed) by :data:`JAW_OPEN`, the way that takes its tail down,
    widened to the turn the control has now (``order``: the Euler order its X is read
    in). None for other controls, for a jaw whose X does not lie across the body, and
    for one whose IK locks or limits the animator has set (those hold instead).
    """
    pose_bone = obj.pose.bones[name]
    if name not in JAWS or any((pose_bone.lock_ik_x, pose_bone.lock_ik_y, pose_bone.lock_ik_z)):
        return None
    if any(getattr(pose_bone, f"use_ik_limit_{axis}") for axis in "xyz"):
        return None
    rest = obj.data.bones[name].matrix_local.to_3x3()
    x = rest.col[0].normalized()
    if abs(x.x) < ACROSS:
        return None
    down = x.cross(obj.data.bones[name].tail_local - obj.data.bones[name].head_local).z
    lower, upper = (0.0, JAW_OPEN) if down < 0.0 else (-JAW_OPEN, 0.0)
    now = float(pose_bone.matrix_basis.to_euler(order).x)
    return min(lower, now), max(upper, now)


def _active(pose_bone: Any) -> list[Any]:
    return [c for c in pose_bone.constraints if c.enabled and c.influence > 0.0]


def sources(obj: Any) -> dict[str, Any | None]:
    """Per bone, the bone it copies outright (:func:`.trunk.copied_outright`), or None.

    Read once for the searches of one control model.
    """
    return {str(pose_bone.name): copied_outright(obj, pose_bone) for pose_bone in obj.pose.bones}


def _copied(pose_bone: Any, copied: Mapping[str, Any | None], *, controls: bool = True) -> str:
    """The control a skeleton bone copies outright in world space ("" none).

    ``copied``: :func:`sources`. ``controls`` False: the skeleton bone it copies so ("" none).
    """
    if is_control(pose_bone.name):
        return ""
    source = copied[pose_bone.name]
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


def curls(obj: Any, pose_bone: Any) -> tuple[Curl, ...] | None:
    """The curls of control ``pose_bone`` (:class:`Curl`); None where another constraint acts."""
    found = []
    for constraint in _active(pose_bone):
        if not (
            constraint.type == "COPY_ROTATION"
            and constraint.target == obj
            and constraint.owner_space == "LOCAL"
            and constraint.target_space == "LOCAL"
            and constraint.influence == 1.0
            and constraint.mix_mode in ("BEFORE", "AFTER")
            and is_control(constraint.subtarget)
            and constraint.subtarget in obj.pose.bones
        ):
            return None
        signs = [
            (-1 if getattr(constraint, f"invert_{axis}") else 1)
            if getattr(constraint, f"use_{axis}")
            else 0
            for axis in "xyz"
        ]
        axes = (signs[0], signs[1], signs[2])
        order = "" if constraint.euler_order == "AUTO" else str(constraint.euler_order)
        found.append(Curl(str(constraint.subtarget), axes, order, constraint.mix_mode == "BEFORE"))
    return tuple(found)


def _spanned(obj: Any, pose_bone: Any) -> str:
    """The control whose head and tail a skeleton bone spans through tweaks ("" none).

    Rigify's tails and tentacles hang each skeleton bone from a tweak control (or copy
    the tweak) and stretch it to the next, the tweaks riding on the chain's controls:
    the bone then lies from one end of a control to the other, so its points are that
    control's. The control is found among those carrying the two tweaks and their
    parents, by where Blender evaluates them. A bone only hung from a tweak (a face's,
    a spine's) is not taken: its control would join the figure for no goal, and a
    spine's FK control carries the chest's joints.
    """
    constraints = _active(pose_bone)
    tweak = pose_bone.parent
    if constraints and copies_whole(obj, constraints[0]):  # placed on the tweak, not under it
        tweak = obj.pose.bones.get(constraints[0].subtarget)
        constraints = constraints[1:]
    if not BODY_PREFIX.match(pose_bone.name) or tweak is None or not is_control(tweak.name):
        return ""
    if _active(tweak) or not constraints:  # no tweak chain
        return ""

    def turned(bone: Any) -> bool:  # a control Reach may turn, set by hand or curled
        return bone is not None and is_control(bone.name) and curls(obj, bone) is not None

    carriers = [tweak.parent]
    for constraint in constraints:
        stretch = constraint.type == "STRETCH_TO"
        target = obj.pose.bones.get(constraint.subtarget) if stretch else None
        if target is None or constraint.target != obj or _active(target):
            return ""
        carriers.append(target.parent)
    candidates = [c for c in carriers if turned(c)]
    candidates += [c.parent for c in candidates if turned(c.parent)]  # a point at a child's head
    ends = (pose_bone.head, pose_bone.tail)
    size = max(float(pose_bone.length), pose_bone.head.length, pose_bone.tail.length)  # rounding
    for control in candidates:
        for a, b in ((control.head, control.tail), (control.tail, control.head)):
            if (a - ends[0]).length <= AGREE * size and (b - ends[1]).length <= AGREE * size:
                return str(control.name)
    return ""


def hang_bones(obj: Any, limbs: Iterable[Limb], copied: Mapping[str, Any | None]) -> list[str]:
    """The bones the chains beyond the trunk hang from, before the trunk is known.

    Up from each control a skeleton bone copies outright, past the controls and the
    bones that follow one (:func:`follows`): the first bone of another kind (a share
    of the chest's turn a long neck hangs from), for :func:`.trunk.find_trunk`.
    """
    bones = obj.pose.bones
    taken = _taken(limbs)
    found: dict[str, None] = {}
    for pose_bone in bones:
        control = _copied(pose_bone, copied)
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


def find_ends(
    obj: Any, limbs: Iterable[Limb], trunk: Trunk, copied: Mapping[str, Any | None]
) -> tuple[End, ...]:
    """The chains of controls beyond the trunk Reach poses (:class:`End`).

    ``copied``: :func:`sources`.
    """
    bones = obj.pose.bones
    taken = _taken(limbs)
    joints = {name: j.segment for j in trunk.joints for name in (j.segment, j.control, j.bone)}
    ends: list[End] = []
    copies: dict[str, list[tuple[str, str]]] = {}
    for pose_bone in bones:
        if pose_bone.name in taken or pose_bone.name in joints:
            continue
        control = _copied(pose_bone, copied) or _spanned(obj, pose_bone)
        if control and control not in taken and control not in joints:
            copies.setdefault(control, []).append((str(pose_bone.name), control))
    copiers = {copier: control for control, pairs in copies.items() for copier, _ in pairs}
    for pose_bone in bones:  # a deform bone copying the copy (DEF-spine.006 of ORG-spine.006)
        source = _copied(pose_bone, copied, controls=False)
        if source in copiers:
            copies[copiers[source]].append((str(pose_bone.name), copiers[source]))
    order = sorted(copies, key=lambda name: -_depth(bones[name]))  # tips first
    alive = set(copies)
    fixed = set(joints).union(taken)
    while True:  # until no chain found would move a part posed otherwise
        # a bone that copies a chain's control outright carries what hangs below it with
        # it; a chain's control carries a chain that hangs from it
        carriers = {copier: c for c in alive for copier, _ in copies[c]}
        found: dict[str, tuple[list[str], str]] = {}
        seen: set[str] = set()
        for control in order:
            if control not in alive or control in seen:
                continue
            walked = _chain(obj, control, {**joints, **carriers}, taken, alive - {control})
            if walked is None or seen.intersection(walked[0]):
                alive.discard(control)
                continue
            seen.update(walked[0])
            found[control] = walked
        alive &= seen
        dropped = _carrying_others(obj, found, fixed)
        if not dropped:
            break
        for control in dropped:
            alive -= set(found[control][0])
    placed: set[str] = set(joints.values())
    while True:  # parents first; a chain whose hang is lost is dropped
        ready = [c for c, (_, hang) in found.items() if not hang or hang in placed]
        if not ready:
            break
        for control in ready:
            controls, hang = found.pop(control)
            owned = [pair for name in controls for pair in copies.get(name, [])]
            curled = {name: c for name in controls if (c := curls(obj, bones[name]))}
            rests = rests_of(obj, controls, hang)
            data = obj.data.bones
            carried = tuple(
                data[control].matrix_local.inverted_safe() @ data[copy].matrix_local
                for copy, control in owned
            )
            ends.append(End(tuple(controls), hang, tuple(owned), rests, curled, carried))
            placed.update(controls)
    known = fixed.union(copier for pairs in copies.values() for copier, _ in pairs)
    return tuple(_with_riders(obj, ends, known))


AIMS = frozenset({"STRETCH_TO", "DAMPED_TRACK", "LOCKED_TRACK", "TRACK_TO"})
"""Constraints that turn a bone toward a point: rigid while that point rides with it."""


def _with_riders(obj: Any, ends: Sequence[End], known: set[str]) -> list[End]:
    """The chains with the skeleton bones their controls carry rigidly among their copies.

    A skeleton bone rides a chain's control when each bone from the control down to it
    is a plain child (no constraint, or only a stretch or track toward a bone riding the
    same control) and it lies where the armature's rest puts it in the control's frame:
    Rigify's ``DEF-jaw`` hangs from the ``jaw`` control under ``jaw_master`` and
    stretches to the ``chin``, so a goal on it turns the jaw master. Bones of the limbs,
    the trunk or another chain (``known``) ride nothing.
    """
    bones, data = obj.pose.bones, obj.data.bones
    owner = {control: k for k, end in enumerate(ends) for control in end.controls}
    memo: dict[str, str] = {}

    def carrier(pose_bone: Any) -> str:  # the chain control carrying it rigidly, or ""
        name = str(pose_bone.name)
        if name not in memo:
            memo[name] = ""  # a stretch toward a bone that stretches back rides nothing
            if name in owner:
                memo[name] = name
            elif name not in known and pose_bone.parent is not None:
                found = carrier(pose_bone.parent)
                for constraint in _active(pose_bone):
                    target = bones.get(getattr(constraint, "subtarget", "") or "")
                    aims = constraint.type in AIMS and constraint.target == obj
                    if not aims or target is None or carrier(target) != found:
                        found = ""
                        break
                memo[name] = found
        return memo[name]

    riders: list[list[tuple[str, str]]] = [[] for _ in ends]
    carried: list[list[Matrix]] = [[] for _ in ends]
    for pose_bone in bones:
        name = str(pose_bone.name)
        if name in known or not BODY_PREFIX.match(name):
            continue
        control = carrier(pose_bone)
        if not control:
            continue
        rest = data[control].matrix_local.inverted_safe() @ data[name].matrix_local
        if not _on_control(obj, name, control, rest):
            continue  # a control between is posed: its offset is no rest's
        riders[owner[control]].append((name, control))
        carried[owner[control]].append(rest)
    return [
        replace(end, copies=end.copies + tuple(more), carried=end.carried + tuple(rests))
        for end, more, rests in zip(ends, riders, carried, strict=True)
    ]


def _carrying_others(
    obj: Any, found: Mapping[str, tuple[list[str], str]], fixed: set[str]
) -> list[str]:
    """The chains (by their seed) whose turn would move a part posed otherwise.

    That is a trunk joint or a limb below them (``fixed``), or another chain that hangs
    from elsewhere (a spine's FK control carrying the chest's upper joint, the shoulders
    and the neck): such a chain is no end of the figure, and stays as set. Found by
    walking up from each such part once.
    """
    bones = obj.pose.bones
    owner = {name: seed for seed, (controls, _) in found.items() for name in controls}
    carrying: dict[str, None] = {}
    starts: list[tuple[str, str | None]] = [(name, None) for name in fixed if name in bones]
    starts += [(controls[0], seed) for seed, (controls, _) in found.items()]
    for name, seed in starts:
        hang = found[seed][1] if seed is not None else ""
        current = bones[name].parent
        while current is not None:
            holder = owner.get(current.name)
            if holder is not None and holder != seed:
                if seed is not None and hang in found[holder][0]:
                    break  # the chain hangs from this one: carried as the figure has it
                carrying[holder] = None
            current = current.parent
    return list(carrying)


def _depth(pose_bone: Any) -> int:
    """How many bones ``pose_bone`` hangs below."""
    depth = 0
    while pose_bone.parent is not None:
        pose_bone, depth = pose_bone.parent, depth + 1
    return depth


def _chain(
    obj: Any, control: str, joints: Mapping[str, str], taken: set[str], others: set[str]
) -> tuple[list[str], str] | None:
    """The controls from the highest down to ``control``, and the joint they hang from.

    Up from ``control``, a control set by hand or curled (:func:`curls`) joins the chain
    while every bone between is such a control or follows one (:func:`follows`:
    Rigify's follow carriers), its own parent is one of those too, and it ends where
    the chain starts (:func:`_links`); so a spine's control, under a share of the
    chest's turn or a trunk joint, stays as set and carries the chain as it is. The
    chain hangs from the first trunk joint's bone above it, or the first control of
    ``others`` (another chain's: a jaw carrying the teeth); "" none. None where the way
    up meets a limb or a mechanism that would not carry the chain rigidly (:func:`_held`).
    """
    bones = obj.pose.bones

    def plain(pose_bone: Any) -> bool:  # a control set by hand alone, or curled
        return is_control(pose_bone.name) and curls(obj, pose_bone) is not None

    def follower(pose_bone: Any) -> bool:  # such a control, or a bone that follows one
        if pose_bone is None or pose_bone.name in joints:
            return False
        if plain(pose_bone):
            return True
        constraints = _active(pose_bone)
        return bool(constraints) and all(follows(obj, c) for c in constraints)

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
        if not joining and not plain(current) and not _held(obj, current, joints, taken):
            return None  # a mechanism between: the chain would not hang rigidly
        if joining and plain(current):
            if follower(current.parent) and _links(obj, name, chain[0]):
                chain.insert(0, name)
                current = current.parent
                continue
            joining = False
        if name in others:  # another chain's control carries this one
            return chain, name
        current = current.parent
    return chain, ""


def _held(obj: Any, pose_bone: Any, joints: Mapping[str, str], taken: set[str]) -> bool:
    """Whether ``pose_bone`` moves rigidly with its parent while Reach poses the figure.

    So it does with no constraint, or with copies of local channels of controls Reach
    leaves as set (a spine's share of the hips' control where the hips are no joint).
    """
    for constraint in _active(pose_bone):
        source = getattr(constraint, "subtarget", "")
        if not (
            constraint.type in ("COPY_TRANSFORMS", "COPY_ROTATION", "COPY_LOCATION", "COPY_SCALE")
            and constraint.target == obj
            and constraint.owner_space == "LOCAL"
            and constraint.target_space == "LOCAL"
            and is_control(source)
            and source not in joints
            and source not in taken
        ):
            return False
    return True


def _links(obj: Any, upper: str, lower: str) -> bool:
    """Whether control ``upper`` ends where ``lower`` starts, at the armature's rest.

    A chain of controls is linked so; a control that only carries one (a hip's tweak
    carrying a tail) is no link of it.
    """
    upper_bone, lower_bone = obj.data.bones[upper], obj.data.bones[lower]
    gap = (upper_bone.tail_local - lower_bone.head_local).length
    size = max(upper_bone.length, lower_bone.length, lower_bone.head_local.length)
    return bool(gap <= AGREE * size)


def rests_of(obj: Any, chain: Sequence[str], hang: str) -> dict[str, Array]:
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


def local_turn(obj: Any, name: str, turns: Mapping[str, Matrix]) -> Matrix:
    """Control ``name``'s turn in its own local space, as a local Copy Rotation reads it.

    Its written turn where this pass writes it; else its channels where no constraint
    acts on it, else as Blender evaluated it.
    """
    if name in turns:
        return turns[name]
    pose_bone = obj.pose.bones[name]
    if not _active(pose_bone):
        basis: Matrix = pose_bone.matrix_basis
        return basis
    parent = pose_bone.parent
    return channels(pose_bone, pose_bone.matrix, parent.matrix if parent is not None else None)


def uncurled(
    obj: Any, name: str, local: Matrix, curled: Sequence[Curl], turns: Mapping[str, Matrix]
) -> Matrix:
    """The channels that, with the curls added as Blender adds them, give turn ``local``.

    Blender's Copy Rotation reads the source's local turn as Euler angles (in the
    owner's order, nearest the owner's own angles), keeps the axes copied, and mixes that
    turn before or after the owner's own; so the owner's own is that turn undone.
    """
    if not curled:
        return local
    location, rotation, scale = local.decompose()
    wanted = rotation.to_matrix()
    mode = str(obj.pose.bones[name].rotation_mode)
    owner = mode if mode in EULER_ORDERS else "XYZ"
    sources = [local_turn(obj, curl.source, turns).to_3x3().normalized() for curl in curled]
    own = wanted
    for _ in range(2):  # the copy's angles are taken nearest the owner's own channels
        turn = wanted
        for curl, source in zip(reversed(curled), reversed(sources), strict=True):
            order = curl.order or owner
            angles = source.to_euler(order, own.to_euler(order))
            copied = Euler([angles[i] * curl.axes[i] for i in range(3)], order)
            undo = copied.to_matrix().inverted()
            turn = undo @ turn if curl.before else turn @ undo
        own = turn
    result: Matrix = Matrix.LocRotScale(location, own.to_quaternion(), scale)
    return result


def end_error(obj: Any, end: End, targets: Mapping[str, Matrix]) -> float:
    """The largest miss of the chain's controls from their targets, over its length.

    Over the length the rounding of its places allows where that is more
    (:data:`ROUNDING`): a miss of :data:`TOLERANCE` is then what a pass can place.
    """
    bones = obj.pose.bones
    worst, far = 0.0, 0.0
    for name in end.controls:
        if name not in targets:
            continue
        now, target = bones[name].matrix, targets[name]
        size = bones[name].bone.length
        far = max(far, target.translation.length + size)
        for point in ((0.0, 0.0, 0.0), (0.0, size, 0.0), (size, 0.0, 0.0), (0.0, 0.0, size)):
            worst = max(worst, (now @ Vector(point) - target @ Vector(point)).length)
    length = sum(float(bones[name].bone.length) for name in end.controls)
    return worst / max(length, far * ROUNDING / TOLERANCE, 1e-12)


def place_ends(
    obj: Any,
    view_layer: Any | None,
    ends: Sequence[tuple[End, Mapping[str, Matrix]]],
    moved: Mapping[str, Matrix] | None = None,
    *,
    pending: bool = False,
    floors: dict[tuple[str, ...], float] | None = None,
    batch: Batch | None = None,
) -> list[str]:
    """Write the chains' controls so that they take their target poses (pose space).

    Args:
        obj: The control rig, evaluated.
        view_layer: Updated after each pass to evaluate the rig; None (inside a
            depsgraph handler, or ahead of the limbs' writes): one pass from the
            predicted parents.
        ends: Per chain, pose-space targets of some or all of its controls.
        moved: Pose-space matrices of bones above written but not yet evaluated (the
            trunk's joints).
        pending: The first pass was written already (without ``view_layer``) and may
            not be evaluated yet: the rig is evaluated before it is measured (an update
            with nothing left to evaluate costs nothing).
        floors: Per set of chains, the miss that a further pass left as it was in the
            writes before (a drag's): a pass this close, or within :data:`FLOOR` of
            it, places them, and one that makes no progress records its miss here.
        batch: Channel values of the writes above not yet written (a trunk's), written
            with the first pass; without ``view_layer``, the first pass is added to it
            instead, for the caller's next write to make (the limbs' first pass).

    Returns:
        The controls written.
    """
    written: dict[str, None] = {}
    before = math.inf
    key = tuple(name for end, _ in ends for name in end.controls)
    placed = max(TOLERANCE, FLOOR * (floors or {}).get(key, 0.0))
    for _ in range(PASSES):
        writer = ControlWriter(obj, moved, batch=batch)
        turns: dict[str, Matrix] = {}  # each written control's local turn, its curl's too
        for end, targets in ends:
            for name in end.controls:
                if name in targets:
                    carrier = _carrier(obj, writer, name)
                    local = writer.basis_under(name, targets[name], carrier)
                    turns[name] = local
                    curled = uncurled(obj, name, local, end.curls.get(name, ()), turns)
                    writer.give_pose(name, targets[name], curled)
                    written[name] = None
        flushed = writer.flush(write=view_layer is not None or batch is None)
        if view_layer is None:
            break
        if flushed or writer.given or pending:
            view_layer.update()
        moved, pending, batch = None, False, None  # evaluated now
        worst = max(end_error(obj, end, targets) for end, targets in ends)
        if floors is not None and worst > PROGRESS * before:  # a pass that gained nothing
            floors[key] = worst
        if worst <= placed or worst > PROGRESS * before:
            break  # placed, or as near as the rig's rounding lets a pass place it
        before = worst
    return list(written)
