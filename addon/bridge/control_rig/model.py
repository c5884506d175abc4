"""What each bone of a control rig stands for: its limbs, its trunk and their names.

On a control rig (:func:`.limbs.find_limbs` finds switchable limbs) Reach's figure is
the trunk's joints (:mod:`.trunk`: the root control, a control spread over spine bones,
the shoulders), the limbs' skeleton bones (Rigify's ORG bones, a clean chain per
limb), each limb hung from the joint above it, and the chains of controls beyond the
trunk (:mod:`.heads`: a neck and head). Every name an animator may give a
constraint stands for a segment (:class:`Stand`): a trunk control, or a limb's skeleton
bone, its FK or IK control, its IK end control or its deform bone. :func:`control_model`
reads that from the armature; :func:`chain_of` maps a constraint's bone and chain start
onto the segments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ....solver import Effector
from ...errors import BlenderDataError
from ..arrays import Array
from ..followers import effector_in
from ..rig import to_numpy
from ..rigify_names import deformed_skeleton
from .flat import flat_ends
from .heads import End, find_ends, hang_bones, sources
from .limbs import Limb, find_limbs
from .trunk import Trunk, find_trunk


@dataclass(frozen=True)
class Stand:
    """The skeleton bone a named bone stands for.

    Attributes:
        bone: The skeleton bone.
        rest: The named bone's rest in the skeleton bone's frame (4 × 4): points and
            axes given in the named bone's frame are these in the skeleton bone's.
    """

    bone: str
    rest: Array


@dataclass
class ControlModel:
    """The limbs of a control rig Reach poses, the trunk they hang from, and names.

    Attributes:
        limbs: The limbs, each in its current mode.
        trunk: The controls above the limbs Reach turns and moves (:mod:`.trunk`).
        names: Per bone name an animator may use, the segment it stands for.
        starts: Per control that is spread over several segments (a share's), its
            highest segment: it may start a chain but carries no effector.
        switches: Per limb, its switch property's value when the figure was built.
        ends: The chains of controls beyond the trunk (a head and neck: :mod:`.heads`).
        flat: The chains are a hand-made rig's flat controls (:mod:`.flat`), which
            Blender does not carry with the controls above them in the chains.
    """

    limbs: tuple[Limb, ...]
    trunk: Trunk
    names: dict[str, Stand]
    starts: dict[str, str] = field(default_factory=dict)
    switches: dict[str, float] = field(default_factory=dict)
    ends: tuple[End, ...] = ()
    flat: bool = False

    def stand(self, name: str) -> Stand | None:
        """What bone ``name`` stands for (None: nothing Reach poses)."""
        return self.names.get(name)

    def limb_of(self, bone: str) -> Limb | None:
        """The limb whose skeleton holds ``bone``."""
        return next((limb for limb in self.limbs if bone in limb.bones), None)

    def end_of(self, segment: str) -> End | None:
        """The chain beyond the trunk that holds control ``segment``."""
        return next((end for end in self.ends if segment in end.controls), None)

    def above(self, segment: str) -> list[str]:
        """The segments from the figure's root down to ``segment``."""
        end = self.end_of(segment)
        if end is not None:
            return (self.above(end.hang) if end.hang else []) + end.above(segment)
        limb = self.limb_of(segment)
        if limb is None:
            return self.trunk.above(segment)
        bones = list(limb.bones[: limb.bones.index(segment) + 1])
        return self.trunk.above(limb.bones[0]) + bones

    def control_of(self, segment: str) -> str:
        """The control an animator names segment ``segment`` by."""
        joint = self.trunk.joint(segment)
        if joint is not None:
            return joint.control
        limb = self.limb_of(segment)
        return limb.fk[limb.bones.index(segment)] if limb is not None else segment

    def carrying(self, bones: Iterable[str]) -> set[str]:
        """``bones``, and on a flat rig every control below one of them in the chains.

        A flat control hangs from no control in Blender: where the one above it in
        the chains moves, it is written to move with it.
        """
        chosen = set(bones)
        if not self.flat:
            return chosen
        for end in self.ends:  # parents first: a chain hangs from one found before it
            for k, control in enumerate(end.controls):
                above = end.controls[k - 1] if k else end.hang
                if above in chosen:
                    chosen.add(control)
        return chosen

    def written(self, bones: Iterable[str]) -> list[str]:
        """The controls a write of the segments ``bones`` moves (its joints' and limbs')."""
        chosen = self.carrying(bones)
        controls: dict[str, None] = {}
        for joint in self.trunk.joints:
            if joint.segment in chosen:
                controls[joint.control] = None
        for limb in self.limbs:
            if chosen.intersection(limb.bones):
                controls.update(dict.fromkeys(limb.controls))
        for end in self.ends:
            controls.update(dict.fromkeys(c for c in end.controls if c in chosen))
        return list(controls)

    def switches_current(self, obj: Any) -> bool:
        """Whether every limb's IK/FK switch is still as the figure has it."""
        bones = obj.pose.bones
        return all(
            float(bones[limb.settings].get(limb.switch, 0.0)) == self.switches[limb.settings]
            for limb in self.limbs
        )


def control_model(obj: Any) -> ControlModel | None:
    """The control model of ``obj``, or None when it is no control rig.

    A control rig has switchable limbs (:func:`.limbs.find_limbs`), or flat controls its
    deform bones copy (:func:`.flat.flat_ends`: then its chains are those controls).
    """
    limbs = tuple(find_limbs(obj))
    flat: tuple[End, ...] = () if limbs else flat_ends(obj)
    if not limbs and not flat:
        return None
    copied = sources(obj) if limbs else {}
    trunk = find_trunk(obj, limbs, hang_bones(obj, limbs, copied)) if limbs else Trunk((), {}, {})
    data = obj.data.bones
    names: dict[str, Stand] = {}

    def add(name: str, bone: str) -> None:
        if name and name in data and name not in names:
            rest = np.linalg.solve(
                to_numpy(data[bone].matrix_local), to_numpy(data[name].matrix_local)
            )
            names[name] = Stand(bone, rest)

    starts: dict[str, str] = {}
    for joint in trunk.joints:
        if joint.share == 1.0:  # the control's own frame
            add(joint.control, joint.segment)
            add(joint.bone, joint.segment)
        else:
            starts.setdefault(joint.control, joint.segment)
    for limb in limbs:
        for k, bone in enumerate(limb.bones):
            add(bone, bone)
            add(limb.fk[k], bone)
            if k > limb.chain_end or k == 0:  # the base control, and the tail's own
                add(limb.ik[k], bone)
            if k > limb.chain_end:
                add(limb.tails[k - limb.chain_end - 1], bone)
        for control in limb.ik_controls:  # the end control, and a paw's heel
            add(control, limb.bones[limb.chain_end])
        add(limb.ik_base, limb.bones[0])
    ends = find_ends(obj, limbs, trunk, copied) if limbs else flat
    for end in ends:
        for control in end.controls:
            add(control, control)
        for copy, control in end.copies:
            add(copy, control)
    for deform in (b for b in data if b.use_deform):  # Rigify's DEF-x(.00n) of ORG-x
        own = "ORG-" + deform.name.removeprefix("DEF-")  # a tail's DEF-spine.002 of ORG-spine.002
        skeleton = names.get(own if own in data else deformed_skeleton(deform.name))
        if skeleton is not None:
            add(deform.name, skeleton.bone)
    bones = obj.pose.bones
    switches = {limb.settings: float(bones[limb.settings].get(limb.switch, 0.0)) for limb in limbs}
    return ControlModel(limbs, trunk, names, starts, switches, ends, bool(flat))


def chain_of(model: ControlModel, bone: str, chain_start: str, label: str) -> tuple[Stand, str]:
    """The segment a constraint on ``bone`` moves, and its chain's first segment.

    Args:
        model: The control rig's trunk and limbs.
        bone: The constrained bone as the user named it (a control, skeleton or deform
            bone).
        chain_start: The chain's first bone as the user named it ("": the limb's root,
            a head's highest control (the neck), or the trunk's for a joint of the
            trunk).
        label: How messages name the constraint.

    Raises:
        BlenderDataError: A bone of no limb or joint, or a chain start that is not
            above the bone; the message names the bones to choose from.
    """
    stand = model.stand(bone)
    if stand is None and bone in model.starts:
        raise BlenderDataError(
            f"{label}: '{bone}' turns the spine by parts at several bones, so it has no "
            "one frame to constrain; start a limb's chain at it, or constrain the limb or "
            f"{model.trunk.joints[0].control}"
        )
    if stand is None:
        choices = ", ".join(limb.describe() for limb in model.limbs)
        joints = model.trunk.controls()
        spread = f"; the trunk's {', '.join(joints)} may start its chain" if joints else ""
        ends = ", ".join(c for end in model.ends for c in end.controls)
        beyond = f"; or constrain a control beyond the trunk ({ends})" if ends else ""
        raise BlenderDataError(
            f"{label}: '{bone}' moves with no limb Reach poses on this control rig; "
            f"constrain a limb's control ({choices}){spread}{beyond}"
        )
    above = model.above(stand.bone)
    limb, end = model.limb_of(stand.bone), model.end_of(stand.bone)
    if not chain_start:
        first = limb.bones[0] if limb is not None else end.controls[0] if end else above[0]
        return stand, first
    start = model.stand(chain_start)
    first = start.bone if start is not None else model.starts.get(chain_start, "")
    if first not in above:
        choices = ", ".join(dict.fromkeys(model.control_of(segment) for segment in above))
        raise BlenderDataError(
            f"{label}: chain start '{chain_start}' is not above '{bone}' in the bones Reach "
            f"poses on this control rig; start the chain at one of {choices} (or their "
            "skeleton or deform bones), or leave it empty for the whole limb"
        )
    return stand, first


def stand_in(
    model: ControlModel, entry: Any, effector: Effector, label: str
) -> tuple[Effector, str]:
    """The effector and chain start of constraint ``entry`` on the control rig's skeleton.

    The effector's point and axes, given in the named bone's frame, are taken into its
    skeleton bone's (:class:`Stand`); the chain starts at the skeleton bone its start
    stands for (:func:`chain_of`).
    """
    stand, start = chain_of(model, entry.bone, entry.chain_start, label)
    return effector_in(effector, stand.bone, stand.rest), start
