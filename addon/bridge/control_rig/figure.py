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
from ..arrays import Array
from ..followers import nearest_rotation
from ..joints import bone_dofs, euler_order, joint_settings
from ..pose import axis_angles, set_axis_angles
from ..rig import BoneLayout, Rig, RigKind, to_numpy, world_matrix
from .heads import jaw_range
from .model import ControlModel
from .trunk import add_trunk


def build_model_rig(obj: Any, model: ControlModel, kind: RigKind, hold: Iterable[str] = ()) -> Rig:
    """The rig of a control rig's trunk and limbs (``model``; the rig keeps ``kind``).

    The trunk's joints (:mod:`.trunk`) come first, each at its rest as Blender holds it
    now, then the chains of controls beyond it (:mod:`.heads`); a limb's root hangs from
    the joint above it (or where it is, when none), and the limb's other bones keep
    their rest offsets. A joint's DOFs are its control's, a
    limb bone's its FK control's (IK locks and limits, as an animator sets them on the
    control), locked when ``hold`` holds the bone or its control.

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    world = world_matrix(obj)
    held = set(hold)
    figure = Figure()
    layout = add_trunk(obj, model.trunk, figure, held)
    layout += _add_ends(obj, model, figure, held)
    layout += _add_limbs(obj, model, figure, held)
    warnings = []
    shaped = [j.name for j in obj.reach.joints if len(j.polygon)]
    shaped += [g.name for g in obj.reach.groups if g.enabled and len(g.members)]
    if shaped:  # they name the armature's own bones, which this figure does not have
        warnings.append(
            f"limit polygons and joint groups ({', '.join(shaped)}) do not limit a control "
            "rig's limbs: Reach holds the FK controls' IK locks and limits there"
        )
    return Rig(obj.name, figure, tuple(layout), kind, warnings, world=world)


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
            order = euler_order(joint_settings(obj, name), control)
            dofs = bone_dofs(control, order, translates=False, lock=name in hold)
            opening = None if name in hold else jaw_range(obj, name, order)
            if opening is not None:  # a hinge across the face, opening downward
                dofs = [_hinged(dof, opening) for dof in dofs]
            first = figure.n_dofs
            with labelled(f"bone '{name}'"):
                figure.add_segment(name, parent=parent, rest=end.rests[name], dofs=dofs)
            layout.append(BoneLayout(name, str(control.rotation_mode), order, -1, first))
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
