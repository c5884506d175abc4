"""Bones that follow a control through the rig's own constraints, and the controls they follow.

A rig built by hand (or by a tool other than Rigify) often moves its deform bones by
constraints that copy a control's pose whole: a Copy Transforms, a Child Of on every
channel of a bone with no parent, or a Copy Rotation beside a Copy Location, at full
influence, from a bone of the same armature. Such a bone is carried rigidly by that
control (through any number of such bones in between), so a constraint an animator puts
on it is Reach's constraint on the control, at the same point: :func:`follow_in` moves
it there, and Reach poses (and keys) the control. A bone posed by constraints of other
kinds, or following a bone that is, is not followed: Make Figure names it among the
constrained bones, and the animator may set the control it moves with by hand
(``reach.follower_add``; the offset is then the one Blender evaluates as the figure is
made).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...solver import Effector
from ..errors import BlenderDataError
from .arrays import Array
from .mechanisms import check_chain_writes
from .rig import Rig, to_numpy

RIGID_SPACES = frozenset({("WORLD", "WORLD"), ("POSE", "POSE")})
"""Owner and target spaces in which a copied pose is the target's pose itself."""


@dataclass(frozen=True)
class Follow:
    """How one bone follows its control.

    Attributes:
        control: The bone an animator keys, whose pose carries this one.
        offset: This bone's pose in the control's frame (4 × 4), as Blender evaluates it.
    """

    control: str
    offset: Array

    @property
    def inverse(self) -> Array:
        """The control's frame in this bone's frame."""
        inverse: Array = np.linalg.inv(self.offset)
        return inverse


def nearest_rotation(matrix: Array) -> Array:
    """The rotation nearest the 3 × 3 ``matrix`` (single precision, or a stretch's scale)."""
    u, _, vt = np.linalg.svd(matrix)
    nearest: Array = u @ vt
    return nearest


def effector_in(effector: Effector, segment: str, frame: Array) -> Effector:
    """``effector``'s point and axes, given in a bone's frame, in ``segment``'s instead.

    ``frame`` is the bone's frame in the segment's (4 × 4).
    """
    turn = nearest_rotation(frame[:3, :3])
    point = frame @ np.append(effector.point, 1.0)
    return Effector(
        segment,
        point=tuple(float(v) for v in point[:3]),
        x_axis=tuple(float(v) for v in turn @ np.asarray(effector.x_axis)),
        y_axis=tuple(float(v) for v in turn @ np.asarray(effector.y_axis)),
    )


def find_followers(obj: Any) -> dict[str, Follow]:
    """Per bone that follows a control, its control and offset.

    Found from the constraints (see the module), or set by hand (``Object.reach.followers``).
    """
    bones = obj.pose.bones
    leaders: dict[str, str] = {}
    for pose_bone in bones:
        active = [c for c in pose_bone.constraints if _active(c)]
        leader = _leader(obj, pose_bone, active) if active else ""
        if leader:
            leaders[pose_bone.name] = leader
    for entry in obj.reach.followers:  # set by hand: over what the constraints say
        if entry.name in bones and entry.control in bones and entry.name != entry.control:
            leaders[entry.name] = entry.control
    follows: dict[str, Follow] = {}
    for name in leaders:
        control, seen = name, {name}
        while control in leaders and leaders[control] not in seen:
            control = leaders[control]
            seen.add(control)
        if control in leaders or any(_active(c) for c in bones[control].constraints):
            # a circle, or a leader posed otherwise
            continue
        carrier, carried = to_numpy(bones[control].matrix), to_numpy(bones[name].matrix)
        if _invertible(carrier) and _invertible(carried):  # else no offset to measure
            follows[name] = Follow(control, np.linalg.solve(carrier, carried))
    return follows


def _invertible(matrix: Array) -> bool:
    """Whether a pose matrix is finite with a turn that has an inverse (no zero scale)."""
    return bool(np.all(np.isfinite(matrix))) and abs(float(np.linalg.det(matrix[:3, :3]))) > 1e-12


def _active(constraint: Any) -> bool:
    """Whether Blender applies ``constraint`` at all."""
    enabled = constraint.enabled if hasattr(constraint, "enabled") else not constraint.mute
    return bool(enabled) and constraint.influence > 0.0


def _leader(obj: Any, owner: Any, constraints: list[Any]) -> str:
    """The bone whose pose ``owner``'s ``constraints`` copy whole ("": not one)."""
    if any(c.influence != 1.0 or not _own_bone(obj, c) for c in constraints):
        return ""
    kinds = {c.type: c for c in constraints}
    if len(constraints) == 1 and "COPY_TRANSFORMS" in kinds:
        copy = kinds["COPY_TRANSFORMS"]
        whole = copy.mix_mode == "REPLACE" and not getattr(copy, "use_bbone_shape", False)
        return str(copy.subtarget) if whole and _rigid_spaces(copy) else ""
    if len(constraints) == 1 and "CHILD_OF" in kinds and owner.parent is None:
        # a parent's motion would come on top of the control's
        child = kinds["CHILD_OF"]
        channels = (
            f"use_{kind}_{axis}" for kind in ("location", "rotation", "scale") for axis in "xyz"
        )
        return str(child.subtarget) if all(getattr(child, c) for c in channels) else ""
    if len(constraints) == 2 and set(kinds) == {"COPY_ROTATION", "COPY_LOCATION"}:
        turn, move = kinds["COPY_ROTATION"], kinds["COPY_LOCATION"]
        axes = all(
            getattr(c, f"use_{a}") and not getattr(c, f"invert_{a}")
            for c in (turn, move)
            for a in "xyz"
        )
        same = turn.subtarget == move.subtarget
        whole = turn.mix_mode == "REPLACE" and not move.use_offset
        rigid = _rigid_spaces(turn) and _rigid_spaces(move)
        return str(turn.subtarget) if axes and same and whole and rigid else ""
    return ""


def _own_bone(obj: Any, constraint: Any) -> bool:
    """Whether ``constraint`` takes a bone of ``obj`` itself as its target."""
    target = getattr(constraint, "target", None)
    subtarget = getattr(constraint, "subtarget", "")
    return target == obj and bool(subtarget) and subtarget in obj.pose.bones


def _rigid_spaces(constraint: Any) -> bool:
    return (constraint.owner_space, constraint.target_space) in RIGID_SPACES


def follow_in(rig: Rig, entry: Any, effector: Effector, label: str) -> tuple[Effector, str | None]:
    """Constraint ``entry``'s effector and chain start, moved from following bones to controls.

    The effector's point and axes, given in the named bone's frame, are taken into its
    control's by the follow's offset; a chain start that follows a control starts at it.

    Raises:
        BlenderDataError: A chain start whose control is not above the effector's.
    """
    follow = rig.followers.get(entry.bone)
    moved = effector if follow is None else effector_in(effector, follow.control, follow.offset)
    start = entry.chain_start or None
    leader = rig.followers.get(start) if start else None
    if leader is not None:
        start = leader.control
    if (follow or leader) and start and start not in _above(rig, moved.segment):
        refused = _not_above(entry.bone, entry.chain_start, rig.followers)
        raise BlenderDataError(f"{label}: {refused}")
    return moved, start


def check_chain(obj: Any, bone: str, chain_start: str) -> None:
    """Refuse a chain that cannot be posed once its ends are taken to their controls.

    Its start ("": the root) must be above ``bone``, and it may move no mechanism bone
    (:func:`.mechanisms.check_chain_writes`).

    Raises:
        BlenderDataError: Naming the bones and the controls they move with.
    """
    follows = find_followers(obj)
    data = obj.data.bones
    effector = follows[bone].control if bone in follows else bone
    start = follows[chain_start].control if chain_start in follows else chain_start
    if start:
        current = data[effector]
        while current is not None and current.name != start:
            current = current.parent
        if current is None:
            raise BlenderDataError(_not_above(bone, chain_start, follows))
    check_chain_writes(obj, effector, start or None)


def _not_above(bone: str, chain_start: str, follows: dict[str, Follow]) -> str:
    """Why a chain from ``chain_start`` cannot reach ``bone``, and the way out."""
    start = follows[chain_start].control if chain_start in follows else chain_start
    effector = follows[bone].control if bone in follows else bone
    way_out = f"; start the chain at '{effector}' or a bone above it"
    if effector == bone and start == chain_start:
        return f"chain start '{chain_start}' is not '{bone}' or one of its parents"
    if effector == bone:
        return (
            f"chain start '{chain_start}' moves with control '{start}', not above '{bone}'{way_out}"
        )
    if start == chain_start:
        return f"'{bone}' moves with control '{effector}', not below chain start '{start}'{way_out}"
    return (
        f"'{bone}' moves with control '{effector}' and chain start '{chain_start}' with "
        f"'{start}', which is not above it{way_out}"
    )


def _above(rig: Rig, segment: str) -> list[str]:
    """``segment`` and the segments above it, up to the figure's root."""
    figure = rig.figure
    parents = figure.kinematics.segment_parent
    index = figure.segment(segment).index
    found = []
    while index >= 0:
        found.append(figure.segments[index].name)
        index = int(parents[index])
    return found


def followed(obj: Any, rig: Rig) -> Rig:
    """``rig`` with the bones that follow a control (:func:`find_followers`) noted.

    A following bone's constraints are no news: Make Figure lists it with its control.
    """
    rig.followers = find_followers(obj)
    if rig.followers:
        rig.notes["followed"] = [f"{b} → {f.control}" for b, f in rig.followers.items()]
        rig.notes["constraints"] = [
            b for b in rig.notes.get("constraints", []) if b not in rig.followers
        ]
    return rig
