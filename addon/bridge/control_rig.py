"""A control rig as Reach's figure: solved on its skeleton, written onto its controls.

On a control rig (:func:`.controls.find_limbs` finds switchable limbs) Reach's figure is
the trunk's joints (:mod:`.trunk`: the root control, a control spread over spine bones,
the shoulders) and the limbs' skeleton bones (Rigify's ORG bones, a clean chain per
limb), each limb hung from the joint above it. Every name an animator may give a
constraint stands for a segment (:class:`Stand`): a trunk control, or a limb's skeleton
bone, its FK or IK control, its IK end control or its deform bone. The pose is read
from Blender's evaluated bones and written into the trunk controls' channels and by
placing the controls of each limb's current mode (:func:`.placing.place_limbs`), so
that only controls are ever written and keyed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mathutils import Matrix

from ...solver import Effector, Figure, rotations
from ..errors import BlenderDataError, labelled
from .arrays import Array
from .controls import Limb, find_limbs
from .followers import effector_in, followed, nearest_rotation
from .joints import bone_dofs, euler_order, joint_settings
from .paws import Heels
from .placing import place_limbs
from .pose import axis_angles, set_axis_angles
from .rig import BoneLayout, Rig, build_rig, to_numpy, world_matrix
from .trunk import Trunk, add_trunk, find_trunk, is_current, write_trunk

SEGMENT_SUFFIX = re.compile(r"\.\d{3}$")
"""A deform bone's segment number (Rigify splits a limb bone's deform bone in parts)."""


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
    """

    limbs: tuple[Limb, ...]
    trunk: Trunk
    names: dict[str, Stand]
    starts: dict[str, str] = field(default_factory=dict)
    switches: dict[str, float] = field(default_factory=dict)

    def stand(self, name: str) -> Stand | None:
        """What bone ``name`` stands for (None: nothing Reach poses)."""
        return self.names.get(name)

    def limb_of(self, bone: str) -> Limb | None:
        """The limb whose skeleton holds ``bone``."""
        return next((limb for limb in self.limbs if bone in limb.bones), None)

    def above(self, segment: str) -> list[str]:
        """The segments from the figure's root down to ``segment``."""
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

    def written(self, bones: Iterable[str]) -> list[str]:
        """The controls a write of the segments ``bones`` moves (its joints' and limbs')."""
        chosen = set(bones)
        controls: dict[str, None] = {}
        for joint in self.trunk.joints:
            if joint.segment in chosen:
                controls[joint.control] = None
        for limb in self.limbs:
            if chosen.intersection(limb.bones):
                controls.update(dict.fromkeys(limb.controls))
        return list(controls)

    def is_current(self, obj: Any) -> bool:
        """Whether the limbs still hang, and switch, as the figure has them."""
        bones = obj.pose.bones
        return is_current(obj, self.trunk) and all(
            float(bones[limb.settings].get(limb.switch, 0.0)) == self.switches[limb.settings]
            for limb in self.limbs
        )


def control_model(obj: Any) -> ControlModel | None:
    """The control model of ``obj``, or None when it has no switchable limbs."""
    limbs = tuple(find_limbs(obj))
    if not limbs:
        return None
    trunk = find_trunk(obj, limbs)
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
    for deform in (b for b in data if b.use_deform):  # Rigify's DEF-x(.00n) of ORG-x
        base = SEGMENT_SUFFIX.sub("", deform.name.removeprefix("DEF-"))
        skeleton = names.get(f"ORG-{base}")
        if deform.name.startswith("DEF-") and skeleton is not None:
            add(deform.name, skeleton.bone)
    bones = obj.pose.bones
    switches = {limb.settings: float(bones[limb.settings].get(limb.switch, 0.0)) for limb in limbs}
    return ControlModel(limbs, trunk, names, starts, switches)


def figure_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """The rig Reach solves on.

    A control rig's limbs (:func:`build_model_rig`), else the armature's bones
    (:func:`.rig.build_rig`), bones that follow a control noted (:mod:`.followers`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    modelled = build_model_rig(obj, hold)
    return modelled if modelled is not None else followed(obj, build_rig(obj, hold))


def build_model_rig(obj: Any, hold: Iterable[str] = ()) -> Rig | None:
    """The figure of a control rig's trunk and limbs (None: ``obj`` has no switchable limbs).

    The trunk's joints (:mod:`.trunk`) come first, each at its rest as Blender holds it
    now; a limb's root hangs from the joint above it (or where it is, when none), and
    the limb's other bones keep their rest offsets. A joint's DOFs are its control's, a
    limb bone's its FK control's (IK locks and limits, as an animator sets them on the
    control), locked when ``hold`` holds the bone or its control.

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    model = control_model(obj)
    if model is None:
        return None
    world = world_matrix(obj)
    held = set(hold)
    figure = Figure()
    layout = add_trunk(obj, model.trunk, figure, held)
    layout += _add_limbs(obj, model, figure, held)
    warnings = []
    shaped = [j.name for j in obj.reach.joints if len(j.polygon)]
    shaped += [g.name for g in obj.reach.groups if g.enabled and len(g.members)]
    if shaped:  # they name the armature's own bones, which this figure does not have
        warnings.append(
            f"limit polygons and joint groups ({', '.join(shaped)}) do not limit a control "
            "rig's limbs: Reach holds the FK controls' IK locks and limits there"
        )
    return Rig(obj.name, figure, tuple(layout), warnings, world=world, model=model)


def _add_limbs(obj: Any, model: ControlModel, figure: Figure, hold: set[str]) -> list[BoneLayout]:
    """Add every limb's bones to ``figure``."""
    data, bones = obj.data.bones, obj.pose.bones
    layout = []
    for limb in model.limbs:
        for k, name in enumerate(limb.bones):
            bone = data[name]
            if k == 0:
                parent_segment = model.trunk.hangs.get(name) or None
                rest = model.trunk.rests[name]
            else:
                rest = np.linalg.solve(
                    to_numpy(data[limb.bones[k - 1]].matrix_local), to_numpy(bone.matrix_local)
                )
                parent_segment = limb.bones[k - 1]
            control = bones[limb.fk[k]] if limb.fk[k] in bones else bones[name]
            order = euler_order(joint_settings(obj, control.name), control)
            locked = name in hold or control.name in hold
            dofs = bone_dofs(control, order, translates=False, lock=locked)
            first = figure.n_dofs
            with labelled(f"bone '{control.name}'"):
                figure.add_segment(name, parent=parent_segment, rest=rest, dofs=dofs)
            layout.append(BoneLayout(name, str(control.rotation_mode), order, -1, first))
    return layout


def read_model(obj: Any, rig: Rig, previous: Array | None = None) -> Array:
    """θ of the control rig's trunk and limbs as Blender evaluates them now.

    Each segment's motion is its bone's evaluated pose in the frame of the segment
    above, less its rest: ``D = R⁻¹ · W_parent⁻¹ · W``.
    """
    theta = np.zeros(rig.figure.n_dofs)
    bones = obj.pose.bones
    world = to_numpy(obj.matrix_world)
    poses: dict[str, Array] = {}
    for entry in rig.layout:
        segment = rig.figure.segment(entry.name)
        pose = poses[entry.name] = world @ to_numpy(bones[entry.name].matrix)
        above = poses[segment.parent] if segment.parent is not None else np.eye(4)
        local = np.linalg.solve(above @ segment.rest, pose)
        if entry.translation >= 0:
            theta[entry.translation : entry.translation + 3] = local[:3, 3]
        compat = None if previous is None else axis_angles(previous, entry)
        angles = rotations.matrix_euler(nearest_rotation(local[:3, :3]), entry.order, compat)
        set_axis_angles(theta, entry, angles)
    return theta


def write_model(
    obj: Any,
    rig: Rig,
    theta: Array,
    bones: Iterable[str],
    view_layer: Any | None,
    heels: Heels | None = None,
) -> list[str]:
    """Write θ of the trunk joints and limbs among ``bones`` onto their controls.

    The joints' controls take their channels (:func:`.trunk.write_trunk`); then the
    controls of every limb holding one of ``bones`` are placed (:func:`.placing.place_limbs`),
    the new poses of the joints above them predicted by the figure.

    Returns:
        The controls written.

    Raises:
        BlenderDataError: A limb blended between IK and FK, named.
    """
    model = rig.model
    assert isinstance(model, ControlModel)  # a control rig's
    world_inverse = np.linalg.inv(to_numpy(obj.matrix_world))
    frames = rig.figure.forward(theta)
    index = {entry.name: k for k, entry in enumerate(rig.layout)}
    chosen = set(bones)
    motions = {}
    for joint in model.trunk.joints:
        if joint.segment in chosen:
            motions[joint.segment] = _motion(rig, theta, rig.layout[index[joint.segment]])
    written = write_trunk(obj, model.trunk, motions)
    moved: dict[str, Matrix] = {}
    if written:
        obj.update_tag()
        for joint in model.trunk.joints:  # a carrier's copy takes its pose too
            pose = Matrix((world_inverse @ frames[index[joint.segment]]).tolist())
            moved[joint.segment] = moved[joint.bone] = pose
    placed = _limb_targets(model, frames, index, world_inverse, chosen)
    for result in place_limbs(obj, view_layer, placed, moved, heels):
        written.extend(result.controls)
    return written


def refine_model(
    obj: Any, rig: Rig, theta: Array, bones: Iterable[str], view_layer: Any, heels: Heels
) -> None:
    """Place the limbs' controls again toward θ, from the pose Blender evaluated.

    A write made inside a depsgraph handler (:func:`write_model` without a view layer)
    is one pass from predicted parents; this makes the passes the rig's mechanism
    needs, evaluating each through ``view_layer`` (a limb placed already is not
    written). The heels' lead is not repeated: θ is the same write's.
    """
    model = rig.model
    assert isinstance(model, ControlModel)  # a control rig's
    world_inverse = np.linalg.inv(to_numpy(obj.matrix_world))
    frames = rig.figure.forward(theta)
    index = {entry.name: k for k, entry in enumerate(rig.layout)}
    placed = _limb_targets(model, frames, index, world_inverse, set(bones))
    place_limbs(obj, view_layer, placed)
    heels.note(obj, (limb for limb, _ in placed))


def _limb_targets(
    model: ControlModel,
    frames: Array,
    index: dict[str, int],
    world_inverse: Array,
    chosen: set[str],
) -> list[tuple[Limb, dict[str, Matrix]]]:
    """Per limb holding one of the ``chosen`` bones, its bones' pose-space targets."""
    return [
        (
            limb,
            {name: Matrix((world_inverse @ frames[index[name]]).tolist()) for name in limb.bones},
        )
        for limb in model.limbs
        if chosen.intersection(limb.bones)
    ]


def _motion(rig: Rig, theta: Array, entry: BoneLayout) -> Array:
    """The motion (4 × 4) θ gives segment ``entry``: its translation, then its turn."""
    motion = np.eye(4)
    motion[:3, :3] = rotations.euler_matrix(axis_angles(theta, entry), entry.order)
    if entry.translation >= 0:
        motion[:3, 3] = theta[entry.translation : entry.translation + 3]
    return motion


def chain_of(model: ControlModel, bone: str, chain_start: str, label: str) -> tuple[Stand, str]:
    """The segment a constraint on ``bone`` moves, and its chain's first segment.

    Args:
        model: The control rig's trunk and limbs.
        bone: The constrained bone as the user named it (a control, skeleton or deform
            bone).
        chain_start: The chain's first bone as the user named it ("": the limb's root,
            or the trunk's for a joint of the trunk).
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
        raise BlenderDataError(
            f"{label}: '{bone}' moves with no limb Reach poses on this control rig; "
            f"constrain a limb's control ({choices}){spread}"
        )
    above = model.above(stand.bone)
    limb = model.limb_of(stand.bone)
    if not chain_start:
        return stand, limb.bones[0] if limb is not None else above[0]
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


def stand_in(rig: Rig, entry: Any, effector: Effector, label: str) -> tuple[Effector, str]:
    """The effector and chain start of constraint ``entry`` on the control rig's skeleton.

    The effector's point and axes, given in the named bone's frame, are taken into its
    skeleton bone's (:class:`Stand`); the chain starts at the skeleton bone its start
    stands for (:func:`chain_of`).
    """
    model = rig.model
    assert isinstance(model, ControlModel)  # a control rig's
    stand, start = chain_of(model, entry.bone, entry.chain_start, label)
    return effector_in(effector, stand.bone, stand.rest), start
