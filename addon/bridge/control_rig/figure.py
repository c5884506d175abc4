"""A control rig's figure: its trunk and limbs as segments, and θ read from Blender.

:func:`build_model_rig` makes the figure of the trunk's joints and the limbs' skeleton
bones (:mod:`.model`); :func:`read_model` reads θ from Blender's evaluated bones, so
that the pose the rig's own mechanism gives is the pose Reach starts from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from ....solver import Dof, Figure, rotations
from ...errors import labelled
from ..arrays import Array, channel, pose_rows
from ..joints import control_dofs
from ..pose import axis_angles, set_axis_angles
from ..rig import BoneLayout, Rig, RigKind, add_polygon, to_numpy, world_matrix
from .heads import jaw_range
from .model import ControlModel
from .trunk import add_trunk, free_layers


def build_model_rig(obj: Any, model: ControlModel, kind: RigKind, hold: Iterable[str] = ()) -> Rig:
    """The rig of a control rig's trunk and limbs (``model``; the rig keeps ``kind``).

    The trunk's joints (:mod:`.trunk`) come first, each at its rest as Blender holds it
    now, then the chains of controls beyond it (:mod:`.heads`); a limb's root hangs from
    the joint above it (or where it is, when none), and the limb's other bones keep
    their rest offsets. A segment's DOFs are those of the control an animator turns it
    by (:func:`.joints.control_dofs`: its IK locks and limits, or its own axes and
    limits), with its limit polygon; locked when ``hold`` holds the bone or its control.
    A layer of the trunk (a spine's FK control) turns only where an enabled
    constraint's chain starts at it or a layer above (:func:`.trunk.free_layers`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    world = world_matrix(obj)
    held = set(hold)
    figure = Figure()
    starts = (model.stand(c.chain_start) for c in obj.reach.constraints if c.enabled)
    free = free_layers(model.trunk, (s.bone for s in starts if s is not None))
    layout = add_trunk(obj, model.trunk, figure, held, free)
    layout += _add_ends(obj, model, figure, held)
    layout += _add_limbs(obj, model, figure, held)
    warnings = _add_polygons(obj, model, figure, layout)
    grouped = [g.name for g in obj.reach.groups if g.enabled and len(g.members)]
    if grouped:  # they name the armature's own bones, which this figure does not have
        warnings.append(
            f"joint groups ({', '.join(grouped)}) do not tie a control rig's controls: "
            "Reach holds each control's own limits there"
        )
    return Rig(obj.name, figure, tuple(layout), kind, warnings, world=world)


def turned_by(model: ControlModel, layout: Iterable[BoneLayout]) -> dict[str, BoneLayout]:
    """Per control that turns one segment of the figure alone, that segment's layout."""
    entries = {entry.name: entry for entry in layout}
    controls: dict[str, BoneLayout] = {}
    for joint in model.trunk.joints:
        if joint.share == 1.0:
            controls[joint.control] = entries[joint.segment]
    for end in model.ends:
        controls.update((name, entries[name]) for name in end.controls)
    for limb in model.limbs:
        for k, bone in enumerate(limb.bones):
            controls[limb.fk[k] or bone] = entries[bone]
    return controls


def _add_polygons(
    obj: Any, model: ControlModel, figure: Figure, layout: Iterable[BoneLayout]
) -> list[str]:
    """Add each limit polygon set on a control to its segment; warnings for the others."""
    controls = turned_by(model, layout)
    ignored = []
    for joint in obj.reach.joints:
        if len(joint.polygon) < 3:
            continue
        entry = controls.get(joint.name)
        if entry is None:
            ignored.append(joint.name)
            continue
        add_polygon(figure, joint, entry, name=f"polygon of {joint.name}")
    if not ignored:
        return []
    return [
        f"limit polygons of {', '.join(ignored)} limit nothing on this control rig: set them "
        "on the controls Reach turns (a limb's FK controls, the trunk's, a neck's and head's)"
    ]


def _add_ends(obj: Any, model: ControlModel, figure: Figure, hold: set[str]) -> list[BoneLayout]:
    """Add every chain of controls beyond the trunk (a neck and head) to ``figure``.

    Each control is a segment hung from the one above (the highest from the trunk joint
    the chain hangs from), at its rest as Blender evaluated it, its DOFs the control's.
    """
    bones = obj.pose.bones
    layout = []
    for end in model.ends:
        parent = end.hang or None
        for name in end.controls:
            control = bones[name]
            dofs, order, frame = control_dofs(obj, control, np.eye(3), locked=name in hold)
            opening = None if name in hold or frame is not None else jaw_range(obj, name, order)
            if opening is not None:  # a hinge across the face, opening downward
                dofs = [_hinged(dof, opening) for dof in dofs]
            first = figure.n_dofs
            with labelled(f"bone '{name}'"):
                figure.add_segment(name, parent=parent, rest=end.rests[name], dofs=dofs)
            layout.append(
                BoneLayout(name, str(control.rotation_mode), order, -1, first, frame=frame)
            )
            parent = name
    return layout


def _hinged(dof: Dof, opening: tuple[float, float]) -> Dof:
    """A jaw's DOF: its turn about X bounded by ``opening``, the others locked."""
    if dof.axis == (1.0, 0.0, 0.0):
        return replace(dof, lower=opening[0], upper=opening[1])
    return replace(dof, rigidity=1.0)


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
            locked = name in hold or control.name in hold
            turn = np.linalg.solve(
                to_numpy(bone.matrix_local)[:3, :3],
                to_numpy(data[control.name].matrix_local)[:3, :3],
            )
            dofs, order, frame = control_dofs(obj, control, turn, locked=locked)
            first = figure.n_dofs
            with labelled(f"bone '{control.name}'"):
                figure.add_segment(name, parent=parent_segment, rest=rest, dofs=dofs)
            layout.append(
                BoneLayout(name, str(control.rotation_mode), order, -1, first, frame=frame)
            )
    return layout


def read_model(obj: Any, rig: Rig, previous: Array | None = None) -> Array:
    """θ of the control rig's trunk and limbs as Blender evaluates them now.

    Each segment's motion is its bone's evaluated pose in the frame of the segment
    above, less its rest: ``D = R⁻¹ · W_parent⁻¹ · W``. Every bone's pose is read in
    one ``foreach_get`` and the motions are found together, the rotations' Euler angles
    a batch per order (:func:`solver.rotations.matrices_euler`), near ``previous``.
    """
    layout = rig.layout
    theta = np.zeros(rig.figure.n_dofs)
    if not layout:
        return theta
    bones = obj.pose.bones
    rows = pose_rows(bones)
    names = [entry.name for entry in layout]
    place = {name: k for k, name in enumerate(names)}
    segments = [rig.figure.segment(name) for name in names]
    # Blender keeps a matrix by columns: each bone's 16 floats are the transpose
    stored = channel(bones, "matrix", 16).astype(float).reshape(-1, 4, 4).transpose(0, 2, 1)
    poses = to_numpy(obj.matrix_world) @ stored[[rows[name] for name in names]]
    above = np.array(
        [poses[place[s.parent]] if s.parent is not None else np.eye(4) for s in segments]
    )
    local = np.linalg.solve(above @ np.array([s.rest for s in segments]), poses)
    u, _, vt = np.linalg.svd(local[:, :3, :3])
    turns = u @ vt  # the rotations nearest (single precision, a stretch's scale)
    orders: dict[str, list[int]] = {}
    for k, entry in enumerate(layout):
        if entry.translation >= 0:
            theta[entry.translation : entry.translation + 3] = local[k, :3, 3]
        if entry.frame is not None:  # about the joint's own axes
            turns[k] = entry.frame.T @ turns[k] @ entry.frame
        orders.setdefault(entry.order, []).append(k)
    for order, chosen in orders.items():
        compat = (
            None
            if previous is None
            else np.array([axis_angles(previous, layout[k]) for k in chosen])
        )
        angles = rotations.matrices_euler(turns[chosen], order, compat)
        for k, row in zip(chosen, angles, strict=True):
            set_axis_angles(theta, layout[k], row)
    return theta
