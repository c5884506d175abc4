"""A control rig's limbs as Reach's figure: solved on the skeleton, written onto controls.

On a control rig (:func:`.controls.find_limbs` finds switchable limbs) Reach's figure is
the limbs' skeleton bones (Rigify's ORG bones, a clean chain per limb), each limb hung
from its parent bone's pose as Blender evaluates it. Every name an animator may give a
constraint stands for a skeleton bone (:class:`Stand`): the bone itself, its FK or IK
control, its IK end control, or its deform bone. The pose is read from Blender's
evaluated skeleton and written by placing the controls of each limb's current mode
(:func:`.placing.place_limb`), so that only controls are ever written and keyed.
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
from .joints import bone_dofs, euler_order
from .placing import place_limbs
from .pose import PoseWriter, axis_angles, read_pose, set_axis_angles
from .rig import BoneLayout, Rig, build_rig, to_numpy, world_matrix

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
    """The limbs of a control rig Reach poses, and what each name stands for.

    Attributes:
        limbs: The limbs, each in its current mode.
        names: Per bone name an animator may use, the skeleton bone it stands for.
        parents: Per limb root's parent bone, its evaluated pose when the figure was
            built (the figure hangs the limb there).
        switches: Per limb, its switch property's value then.
    """

    limbs: tuple[Limb, ...]
    names: dict[str, Stand]
    parents: dict[str, Array] = field(default_factory=dict)
    switches: dict[str, float] = field(default_factory=dict)

    def stand(self, name: str) -> Stand | None:
        """What bone ``name`` stands for (None: nothing Reach poses)."""
        return self.names.get(name)

    def limb_of(self, bone: str) -> Limb | None:
        """The limb whose skeleton holds ``bone``."""
        return next((limb for limb in self.limbs if bone in limb.bones), None)

    def written(self, bones: Iterable[str]) -> list[str]:
        """The controls a write of the skeleton bones ``bones`` moves (its limbs')."""
        chosen = set(bones)
        controls: dict[str, None] = {}
        for limb in self.limbs:
            if chosen.intersection(limb.bones):
                controls.update(dict.fromkeys(limb.controls))
        return list(controls)

    def is_current(self, obj: Any) -> bool:
        """Whether the limbs still hang where, and switch as, the figure has them."""
        bones = obj.pose.bones
        for name, pose in self.parents.items():
            if not np.array_equal(np.array(bones[name].matrix, dtype=float), pose):
                return False
        return all(
            float(bones[limb.settings].get(limb.switch, 0.0)) == self.switches[limb.settings]
            for limb in self.limbs
        )


def control_model(obj: Any) -> ControlModel | None:
    """The control model of ``obj``, or None when it has no switchable limbs."""
    limbs = tuple(find_limbs(obj))
    if not limbs:
        return None
    data = obj.data.bones
    names: dict[str, Stand] = {}

    def add(name: str, bone: str) -> None:
        if name and name in data and name not in names:
            rest = np.linalg.solve(
                to_numpy(data[bone].matrix_local), to_numpy(data[name].matrix_local)
            )
            names[name] = Stand(bone, rest)

    for limb in limbs:
        for k, bone in enumerate(limb.bones):
            add(bone, bone)
            add(limb.fk[k], bone)
            if k > limb.chain_end or k == 0:  # the base control, and the tail's own
                add(limb.ik[k], bone)
        add(limb.ik_controls[0], limb.bones[limb.chain_end])
        add(limb.ik_base, limb.bones[0])
    for deform in (b for b in data if b.use_deform):  # Rigify's DEF-x(.00n) of ORG-x
        base = SEGMENT_SUFFIX.sub("", deform.name.removeprefix("DEF-"))
        skeleton = names.get(f"ORG-{base}")
        if deform.name.startswith("DEF-") and skeleton is not None:
            add(deform.name, skeleton.bone)
    bones = obj.pose.bones
    parents = {}
    for limb in limbs:
        parent = bones[limb.bones[0]].parent
        if parent is not None:
            parents[parent.name] = np.array(parent.matrix, dtype=float)
    switches = {limb.settings: float(bones[limb.settings].get(limb.switch, 0.0)) for limb in limbs}
    return ControlModel(limbs, names, parents, switches)


def figure_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """The rig Reach solves on.

    A control rig's limbs (:func:`build_model_rig`), else the armature's bones
    (:func:`.rig.build_rig`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    modelled = build_model_rig(obj, hold)
    return modelled if modelled is not None else build_rig(obj, hold)


def build_model_rig(obj: Any, hold: Iterable[str] = ()) -> Rig | None:
    """The figure of a control rig's limbs (None: ``obj`` has no switchable limbs).

    A limb's root hangs from its parent's evaluated pose; the other bones keep their
    rest offsets. Each bone's DOFs are its FK control's (its IK locks and limits, as an
    animator sets them on the control), locked when ``hold`` holds the bone or control.

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    model = control_model(obj)
    if model is None:
        return None
    world = world_matrix(obj)
    held = set(hold)
    figure = Figure()
    layout = [
        BoneLayout(name, mode, order, translation=-1, rotation=first)
        for name, mode, order, first in _add_segments(obj, model, figure, world, held)
    ]
    warnings = []
    shaped = [j.name for j in obj.reach.joints if len(j.polygon)]
    shaped += [g.name for g in obj.reach.groups if g.enabled and len(g.members)]
    if shaped:  # they name the armature's own bones, which this figure does not have
        warnings.append(
            f"limit polygons and joint groups ({', '.join(shaped)}) do not limit a control "
            "rig's limbs: Reach holds the FK controls' IK locks and limits there"
        )
    return Rig(obj.name, figure, tuple(layout), warnings, world=world, model=model)


def _add_segments(
    obj: Any, model: ControlModel, figure: Figure, world: Array, hold: set[str]
) -> list[tuple[str, str, str, int]]:
    """Add every limb's bones to ``figure``; per bone (name, mode, order, first DOF)."""
    data, bones = obj.data.bones, obj.pose.bones
    rows = []
    for limb in model.limbs:
        for k, name in enumerate(limb.bones):
            bone = data[name]
            if k == 0:
                parent = bone.parent
                hung = np.eye(4)
                if parent is not None:
                    hung = model.parents[parent.name] @ np.linalg.inv(to_numpy(parent.matrix_local))
                rest = world @ hung @ to_numpy(bone.matrix_local)
                parent_segment = None
            else:
                rest = np.linalg.solve(
                    to_numpy(data[limb.bones[k - 1]].matrix_local), to_numpy(bone.matrix_local)
                )
                parent_segment = limb.bones[k - 1]
            control = bones[limb.fk[k]] if limb.fk[k] in bones else bones[name]
            order = euler_order(obj, control)
            locked = name in hold or control.name in hold
            dofs = bone_dofs(control, order, translates=False, lock=locked)
            first = figure.n_dofs
            with labelled(f"bone '{control.name}'"):
                figure.add_segment(name, parent=parent_segment, rest=rest, dofs=dofs)
            rows.append((name, str(control.rotation_mode), order, first))
    return rows


def read_model(obj: Any, rig: Rig, previous: Array | None = None) -> Array:
    """θ of the control rig's skeleton as Blender evaluates it now."""
    theta = np.zeros(rig.figure.n_dofs)
    data, bones = obj.data.bones, obj.pose.bones
    for entry in rig.layout:
        bone = data[entry.name]
        pose = np.array(bones[entry.name].matrix, dtype=float)
        parent = bone.parent
        if parent is None:
            local = np.linalg.solve(to_numpy(bone.matrix_local), pose)
        else:
            frame = np.array(bones[parent.name].matrix, dtype=float)
            offset = np.linalg.solve(to_numpy(parent.matrix_local), to_numpy(bone.matrix_local))
            local = np.linalg.solve(frame @ offset, pose)
        compat = None if previous is None else axis_angles(previous, entry)
        angles = rotations.matrix_euler(_orthonormal(local[:3, :3]), entry.order, compat)
        set_axis_angles(theta, entry, angles)
    return theta


def _orthonormal(matrix: Array) -> Array:
    """The rotation nearest ``matrix`` (a limb shortened by its rig's IK stretch)."""
    u, _, vt = np.linalg.svd(matrix)
    nearest: Array = u @ vt
    return nearest


def write_model(
    obj: Any, rig: Rig, theta: Array, bones: Iterable[str], view_layer: Any | None
) -> list[str]:
    """Place the controls of every limb holding one of ``bones`` so that it takes θ.

    Returns:
        The controls written.

    Raises:
        BlenderDataError: A limb blended between IK and FK, or a paw in IK mode.
    """
    model = rig.model
    assert isinstance(model, ControlModel)  # a control rig's
    world_inverse = np.linalg.inv(np.array(obj.matrix_world, dtype=float))
    frames = rig.figure.forward(theta)
    index = {entry.name: k for k, entry in enumerate(rig.layout)}
    chosen = set(bones)
    placed = [
        (
            limb,
            {name: Matrix((world_inverse @ frames[index[name]]).tolist()) for name in limb.bones},
        )
        for limb in model.limbs
        if chosen.intersection(limb.bones)
    ]
    written: list[str] = []
    for result in place_limbs(obj, view_layer, placed):
        written.extend(result.controls)
    return written


def chain_of(model: ControlModel, bone: str, chain_start: str, label: str) -> tuple[Stand, str]:
    """The skeleton bone a constraint on ``bone`` moves, and its chain's first bone.

    Args:
        model: The control rig's limbs.
        bone: The constrained bone as the user named it (a control, skeleton or deform
            bone).
        chain_start: The chain's first bone as the user named it ("": the limb's root).
        label: How messages name the constraint.

    Raises:
        BlenderDataError: A bone of no limb, or a chain start outside the bone's limb
            or below it; the message names the bones to choose from.
    """
    stand = model.stand(bone)
    if stand is None:
        choices = ", ".join(limb.describe() for limb in model.limbs)
        raise BlenderDataError(
            f"{label}: '{bone}' moves with no limb Reach poses on this control rig; "
            f"constrain a limb's control ({choices})"
        )
    limb = model.limb_of(stand.bone)
    assert limb is not None  # every stand is a limb's
    if not chain_start:
        return stand, limb.bones[0]
    start = model.stand(chain_start)
    above = limb.bones[: limb.bones.index(stand.bone) + 1]
    if start is None or start.bone not in above:
        choices = ", ".join(c for c in limb.fk[: len(above)])
        raise BlenderDataError(
            f"{label}: chain start '{chain_start}' is not in limb {limb.name} at or above "
            f"'{bone}'; Reach poses a control rig's limbs: start the chain at one of "
            f"{choices} (or their IK or deform bones), or leave it empty for the whole limb"
        )
    return stand, start.bone


def stand_in(rig: Rig, entry: Any, effector: Effector, label: str) -> tuple[Effector, str]:
    """The effector and chain start of constraint ``entry`` on the control rig's skeleton.

    The effector's point and axes, given in the named bone's frame, are taken into its
    skeleton bone's (:class:`Stand`); the chain starts at the skeleton bone its start
    stands for (:func:`chain_of`).
    """
    model = rig.model
    assert isinstance(model, ControlModel)  # a control rig's
    stand, start = chain_of(model, entry.bone, entry.chain_start, label)
    turn = _orthonormal(stand.rest[:3, :3])  # rest matrices are stored in single precision
    point = stand.rest @ np.append(effector.point, 1.0)
    moved = Effector(
        stand.bone,
        point=tuple(float(v) for v in point[:3]),
        x_axis=tuple(float(v) for v in turn @ np.asarray(effector.x_axis)),
        y_axis=tuple(float(v) for v in turn @ np.asarray(effector.y_axis)),
    )
    return moved, start


def read_figure(obj: Any, rig: Rig, previous: Array | None = None) -> Array:
    """θ of the figure as Blender holds it.

    The bones' channels, unrounded (:func:`.pose.read_pose`), or a control rig's
    skeleton as Blender evaluates it (:func:`read_model`).
    """
    if rig.model is not None:
        return read_model(obj, rig, previous)
    return read_pose(obj, rig, previous, rounding=False)


class ModelWriter:
    """Writes θ of a control rig's figure onto its controls (:func:`write_model`)."""

    def __init__(self, rig: Rig, bones: Iterable[str], view_layer: Any | None) -> None:
        self.rig, self.bones, self.view_layer = rig, list(bones), view_layer

    def write(self, obj: Any, theta: Array) -> None:
        """Place the controls of the limbs holding the chosen bones."""
        write_model(obj, self.rig, theta, self.bones, self.view_layer)


def figure_writer(
    obj: Any, rig: Rig, bones: Iterable[str], view_layer: Any | None
) -> PoseWriter | ModelWriter:
    """The writer of θ into the chosen bones: their channels, or a control rig's controls."""
    if rig.model is not None:
        return ModelWriter(rig, bones, view_layer)
    return PoseWriter(obj, rig, list(bones))
