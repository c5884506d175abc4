"""Imported motion's feet planted: the feet found, their paths read, each stance keyed.

A foot is planted by two of Reach's constraints on its bone, each with its chain from
the thigh: its head (the ankle) while the heel is down, its end (the ball of the foot,
where the toes begin) while the toe is down. Each stance's goals stand where the foot
stood at one frame of it (the middle of the frames both are down), so the two goals
keep the foot's own length and the foot stands as the motion put it there, on level
ground or not. Over :data:`BLEND` seconds before and after, a goal moves from the
motion's own path to its planted place and back, so that nothing pops where a contact
begins or ends; its constraint is keyed on for those frames and off elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import BlenderDataError
from .anatomy import ancestors, human_body
from .body import limb_part
from .bone_ends import end_local
from .control_rig.limbs import Limb, find_limbs
from .control_rig.model import control_model
from .rest_limits import rest_limbs
from .rigify_names import is_control
from .stances import Foot, Stance

__all__ = [
    "BLEND",
    "FootBones",
    "FootTrack",
    "Hips",
    "Plan",
    "find_feet",
    "hips_of",
    "leg_bones",
    "out_of_reach",
    "plan",
    "travel",
]

BLEND = 0.1
"""Seconds over which a planted goal moves from the motion's path to its place, and back."""

DOWN = 0.866
"""Least cosine between a leg bone at rest and straight down for it to point down (30°)."""

STRAIGHT = 0.002
"""The share of a leg's length by which a planted heel must lie within its reach for the
hips to stay as the motion has them (:func:`out_of_reach`)."""

POINTS = ("heel", "toe")
"""A foot's planted points: its bone's head (the ankle) and its end (the ball)."""


@dataclass(frozen=True)
class FootBones:
    """A foot of the skeleton and the bones that plant it.

    Attributes:
        bone: The bone the planted constraints hold: the foot, or on a control rig the
            control that poses it now (its FK control, or its IK control).
        side: "L" or "R".
        thigh: Where the constraints' chains start: the thigh (its FK control), or ""
            for an IK control, which moves alone.
        skeleton: The foot's bone in the skeleton, whose path the motion gives ("":
            ``bone``).
        hip: The leg's top bone in the skeleton, for the leg's length ("": ``thigh``).
        toe: The toe effector, the skeleton foot's end, in ``bone``'s frame; None: the
            bone's own end (:func:`.bone_ends.end_local`).
    """

    bone: str
    side: str
    thigh: str
    skeleton: str = ""
    hip: str = ""
    toe: tuple[float, float, float] | None = None

    @property
    def foot(self) -> str:
        """The foot's bone in the skeleton."""
        return self.skeleton or self.bone

    @property
    def top(self) -> str:
        """The leg's top bone in the skeleton."""
        return self.hip or self.thigh


@dataclass(frozen=True)
class Plan:
    """One planted point's constraint over the clip's frames.

    Attributes:
        on: Per frame, whether the constraint holds the point.
        goal: Per frame, where its goal stands (world space, (frames, 3)); the motion's
            own path where it is off.
    """

    on: NDArray[np.bool_]
    goal: NDArray[np.float64]


def find_feet(obj: Any) -> list[FootBones]:
    """The skeleton's feet, left first, each with its thigh (:func:`.anatomy.human_body`).

    On a control rig (:func:`.control_rig.limbs.find_limbs`), the legs are its limbs
    named as thighs, planted at the controls their mode poses them by.

    Raises:
        BlenderDataError: When no foot is found, naming the bones a leg is read from; for
            a control rig's leg blended between IK and FK.
    """
    limbs = find_limbs(obj)
    feet = _control_feet(obj, limbs) if limbs else _skeleton_feet(obj)
    if not feet:
        raise BlenderDataError(
            f"armature '{obj.name}' has no legs Reach recognises: name a leg's thigh and "
            "shin as Rigify (thigh.L, shin.L), Mixamo or BVH (LeftUpLeg, LeftLeg) or the UE "
            "mannequin (thigh_l, calf_l) do, with the foot continuing the shin (nor does "
            "its rest pose show two limbs of three bones or more reaching down, one each "
            "side of its middle)"
        )
    return sorted(feet, key=lambda foot: foot.side)


def _skeleton_feet(obj: Any) -> list[FootBones]:
    """A plain skeleton's feet: the bones Human Limits reads as feet, with their thighs.

    Else those of the legs its rest pose shows (:func:`_rest_feet`).
    """
    found, _ = human_body(obj)
    thighs = {side: bone for bone, (part, side) in found.items() if part == "thigh"}
    named = [
        FootBones(bone, side, thighs[side])
        for bone, (part, side) in found.items()
        if part == "foot" and side in thighs
    ]
    return named or _rest_feet(obj)


def _rest_feet(obj: Any) -> list[FootBones]:
    """The feet of a skeleton whose bones have no names Reach knows, from its rest pose.

    A leg is a limb (:func:`.rest_limits.rest_limbs`) that reaches down in the world,
    one on each side of the middle plane; its foot is its first bone, after one within
    30° of straight down, that is not (the ankle turns the limb forward), else its last,
    and the chain starts two bones above the foot (the thigh).
    """
    read = rest_limbs(obj)
    if read is None:
        return []
    turn = np.array(obj.matrix_world.to_3x3(), dtype=float)
    up = turn.T @ np.array((0.0, 0.0, 1.0))  # the world's up in armature space
    up /= max(float(np.linalg.norm(up)), 1e-12)
    feet: dict[str, FootBones] = {}
    for chain in read.limbs:
        reach = np.array(chain[-1].tail_local) - np.array(chain[0].head_local)
        if float(reach @ up) > -0.5 * float(np.linalg.norm(reach)):
            continue  # no leg: it does not reach down
        downward = [
            float(_unit(np.array(b.tail_local) - np.array(b.head_local)) @ up) < -DOWN
            for b in chain
        ]
        first = downward.index(True) if True in downward else 0
        foot = next((k for k in range(first, len(chain)) if not downward[k]), len(chain) - 1)
        foot = max(foot, 2)
        side = "L" if chain[0].head_local[0] > read.middle else "R"
        if side not in feet:  # the first leg each side
            feet[side] = FootBones(chain[foot].name, side, chain[foot - 2].name)
    return list(feet.values()) if len(feet) == 2 else []


def _unit(vector: NDArray[np.float64]) -> NDArray[np.float64]:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def _control_feet(obj: Any, limbs: Sequence[Limb]) -> list[FootBones]:
    """A control rig's feet: per leg, the control its mode poses the foot by.

    In FK the foot's FK control with its chain from the thigh's; in IK the end control,
    which moves alone (the knee keeps the motion's swivel). The toe is the skeleton
    foot's end, carried by that control.
    """
    data = obj.data.bones
    feet = []
    for limb in limbs:
        part = limb_part(limb.name)
        if part is None or part[0] != "thigh" or limb.chain_end < 1:
            continue
        if limb.mode == "MIXED":
            raise BlenderDataError(
                f"leg '{limb.name}' is blended between IK and FK, so no control alone poses "
                f"its foot: set '{limb.switch}' on '{limb.settings}' to 0 or 1"
            )
        foot = limb.bones[limb.chain_end]
        if limb.mode == "FK":
            bone, thigh = limb.fk[limb.chain_end], limb.fk[0]
        else:
            bone, thigh = limb.ik_controls[0], ""
        end = data[foot].matrix_local @ end_local(data[foot])
        toe = data[bone].matrix_local.inverted() @ end
        tail = (toe - end_local(data[bone])).length <= 1e-6 * data[bone].length
        point = None if tail else (toe.x, toe.y, toe.z)
        feet.append(FootBones(bone, part[1], thigh, foot, limb.bones[0], point))
    return feet


def leg_bones(obj: Any, foot: FootBones) -> list[str]:
    """The bones a foot's planted constraints move, those an animator keys.

    The foot's and its parents' to the thigh, but no bone Rigify's prefixes mark as a
    mechanism's or the skeleton's.
    """
    bone = obj.data.bones[foot.bone]
    names = [bone.name]
    while foot.thigh and bone.name != foot.thigh and bone.parent is not None:
        bone = bone.parent
        names.append(bone.name)
    return [name for name in names if is_control(name)]


@dataclass(frozen=True)
class Hips:
    """Where the legs hang from, which may move a little where a leg cannot reach.

    Attributes:
        bone: The legs' topmost shared bone an animator keys (the hips, or the root
            above them; a control rig's torso): the planted chains start there, and a
            constraint keeps it where the motion has it.
        held: The bones above both legs whose turns the plant holds as the motion has
            them (from ``bone`` down to the hips; on a control rig, the trunk's controls
            down to where the legs hang), where ``bone`` can move (a root bone not
            connected, which Move root lets translate): the body then gives by moving,
            not by tilting its trunk; none where it cannot move.
    """

    bone: str
    held: tuple[str, ...] = ()


def hips_of(obj: Any, feet: Sequence[FootBones]) -> Hips | None:
    """The bones both legs hang from, where the chains may start to move them.

    On a control rig, its trunk's root control (the torso), with every trunk control
    from it down to the legs held (:func:`_trunk_hips`). None when the legs share no
    bone an animator keys.
    """
    if len(feet) < 2:
        return None
    if any(foot.skeleton for foot in feet):
        return _trunk_hips(obj, feet)
    bones = obj.data.bones
    shared = {bone.name for bone in ancestors(bones[feet[1].thigh].parent)}
    above = [
        bone
        for bone in ancestors(bones[feet[0].thigh].parent)
        if bone.name in shared and is_control(bone.name)
    ]
    if not above:
        return None
    top = above[-1]
    moves = top.parent is None and not top.use_connect
    return Hips(top.name, tuple(bone.name for bone in reversed(above)) if moves else ())


def _trunk_hips(obj: Any, feet: Sequence[FootBones]) -> Hips | None:
    """A control rig's torso and the trunk controls down to where its legs hang.

    None where a leg is in IK mode (its foot control moves alone, and Rigify's IK
    stretches to reach it), the legs hang from no joint, or from different roots.
    """
    model = control_model(obj)
    if model is None or any(not foot.thigh for foot in feet):
        return None
    trunk = model.trunk
    held: dict[str, None] = {}
    roots = set()
    for foot in feet:
        joint = trunk.joint(trunk.hangs.get(foot.top, ""))
        if joint is None:
            return None
        while joint is not None:  # up to the trunk's root
            held[joint.control] = None
            top = joint.control
            joint = trunk.joint(joint.parent)
        roots.add(top)
    if len(roots) != 1:
        return None
    top = roots.pop()
    return Hips(top, (top, *(c for c in held if c != top)))


class FootTrack:
    """The feet's heels and toes in world space, read frame by frame from the evaluated pose.

    Args:
        obj: The armature object.
        feet: The feet read.
        count: The frames to read.
        carried: A bone whose world matrix is read too (the hips), or None.
    """

    def __init__(
        self, obj: Any, feet: Sequence[FootBones], count: int, carried: str | None = None
    ) -> None:
        bones = obj.data.bones
        self.obj = obj
        self.feet = feet
        self.ends = {foot.bone: end_local(bones[foot.foot]) for foot in feet}
        self.heels = {foot.bone: np.empty((count, 3)) for foot in feet}
        self.toes = {foot.bone: np.empty((count, 3)) for foot in feet}
        self.hips = {foot.bone: np.empty((count, 3)) for foot in feet}
        """Per foot, its leg's top joint (the hip) in world space."""
        self.carried = carried
        self.matrices = np.empty((count if carried else 0, 4, 4))
        """The ``carried`` bone's world matrix per frame read."""

    def read(self, k: int) -> None:
        """Read the pose Blender evaluates now as the ``k``-th frame."""
        world = self.obj.matrix_world
        pose = self.obj.pose.bones
        for foot in self.feet:
            matrix = world @ pose[foot.foot].matrix
            self.heels[foot.bone][k] = tuple(matrix.translation)
            self.toes[foot.bone][k] = tuple(matrix @ self.ends[foot.bone])
            self.hips[foot.bone][k] = tuple(world @ pose[foot.top].head)
        if self.carried:
            self.matrices[k] = np.array(world @ pose[self.carried].matrix)

    def read_frames(self, scene: Any, frames: Sequence[int]) -> None:
        """Set the scene to each of ``frames`` in turn and read it."""
        for k, frame in enumerate(frames):
            scene.frame_set(frame)
            self.read(k)

    def paths(self) -> dict[str, Foot]:
        """Per foot, its heel's and toe's paths."""
        return {name: Foot(self.heels[name], self.toes[name]) for name in self.heels}


def out_of_reach(
    obj: Any, feet: Sequence[FootBones], plans: dict[str, dict[str, Plan]], track: FootTrack
) -> bool:
    """Whether a planted heel lies beyond its leg's reach from the hip the motion has.

    A leg reaches as far as its joints' spacing from the hip to the ankle at rest (the
    world's scale), less :data:`STRAIGHT` of it: a leg held all but straight cannot
    turn its foot.
    """
    scale = float(np.mean(tuple(obj.matrix_world.to_scale())))
    bones = obj.data.bones
    for foot in feet:
        plan = plans[foot.bone].get("heel")
        if plan is None or not plan.on.any():
            continue
        bone, length = bones[foot.foot], 0.0
        while bone.name != foot.top and bone.parent is not None:
            length += float((bone.head_local - bone.parent.head_local).length)
            bone = bone.parent
        apart = np.linalg.norm(plan.goal[plan.on] - track.hips[foot.bone][plan.on], axis=1)
        if float(apart.max()) > (1.0 - STRAIGHT) * scale * length:
            return True
    return False


def plan(path: Foot, stances: Sequence[Stance], fps: float) -> dict[str, Plan]:
    """The heel's and the toe's constraints over the clip, planting each stance.

    Each stance's goals are where the heel and the toe are at its reference frame (the
    middle of the frames both are down, else of the frames one is); a goal blends in
    over :data:`BLEND` seconds before its point is down and out after, sharing a swing
    too short for both with the next stance's.
    """
    blend = max(1, round(BLEND * fps))
    count = len(path.heel)
    plans = {}
    for point in POINTS:
        own = path.heel if point == "heel" else path.toe
        on = np.zeros(count, dtype=bool)
        goal = own.copy()
        ranges = [
            (frames, _reference(stance))
            for stance in stances
            if (frames := getattr(stance, point)) is not None
        ]
        for k, ((first, last), reference) in enumerate(ranges):
            planted = own[reference]
            on[first : last + 1] = True
            goal[first : last + 1] = planted
            # a gap to the next stance is shared; none (the clip's ends) leaves room
            earlier = ranges[k - 1][0][1] if k else -2 * blend - 2
            later = ranges[k + 1][0][0] if k + 1 < len(ranges) else count + 2 * blend + 2
            gap = first - earlier - 1  # the earlier stance blends out over its first half
            before = min(blend, gap - gap // 2)
            after = min(blend, (later - last - 1) // 2)
            for step in range(1, before + 1):
                _blend(on, goal, own, planted, first - step, step, blend)
            for step in range(1, after + 1):
                _blend(on, goal, own, planted, last + step, step, blend)
        plans[point] = Plan(on, goal)
    return plans


def _reference(stance: Stance) -> int:
    """The stance's frame whose heel and toe are planted: the middle of both down."""
    heel, toe = stance.heel, stance.toe
    if heel is not None and toe is not None and max(heel[0], toe[0]) <= min(heel[1], toe[1]):
        return (max(heel[0], toe[0]) + min(heel[1], toe[1])) // 2
    first, last = heel if heel is not None else toe  # type: ignore[misc]
    return (first + last) // 2


def _blend(
    on: NDArray[np.bool_],
    goal: NDArray[np.float64],
    own: NDArray[np.float64],
    planted: NDArray[np.float64],
    frame: int,
    step: int,
    blend: int,
) -> None:
    """Frame ``frame``, ``step`` frames from its stance, takes the goal part way there."""
    if not 0 <= frame < len(on):
        return
    share = 1.0 - step / (blend + 1)
    eased = share * share * (3.0 - 2.0 * share)
    on[frame] = True
    goal[frame] = own[frame] + (planted - own[frame]) * eased


def travel(points: NDArray[np.float64], frames: tuple[int, int] | None) -> float:
    """How far apart a point's positions lie over ``frames`` (both ends in): 0 for none."""
    if frames is None:
        return 0.0
    held = points[frames[0] : frames[1] + 1]
    if len(held) < 2:
        return 0.0
    apart = np.linalg.norm(held[:, None, :] - held[None, :, :], axis=2)
    return float(apart.max())
