"""The 1994 paper's Figure 3 task: an upper body looking down a tube it holds (seed 000).

The figure: a fixed lower torso (``sacrum``, the root, no DOFs) carrying a 17-vertebra
spine (``L5``..``L1``, ``T12``..``T1`` from the bottom; the joint of each vertebra to
the one below has the vertebra's name, as in the paper's Figure 4), each joint with
3 DOFs (forward extension about local X, lateral bending about Z, axial rotation about
Y); ``neck`` (3 DOFs, torso to neck), ``head`` (2: flexion, lateral bending) and two
arms whose clavicles are fixed: the shoulder complex is 3 DOFs on ``upper_arm``, the
elbow 1, the wrist 3 (pronation, flexion, radial deviation). That is 17·3 + 3 + 2 +
2·7 = 70 DOFs.

Grouped, the spine is a joint group driven by 3 parameters: per DOF type, every
vertebra's angle is a fixed ratio times the angle of a reference vertebra (48 linear
equalities), so the task has 22 effective DOFs, as in the paper. Forward extension
concentrates in the lumbar region, axial rotation in the thoracic.

The tube stands in front of the figure, tilted toward it. Six constraints (the paper's):
both palms hold the tube (position + palm normal toward the axis; the other direction
is free, c_dy = 0), both elbows lie on side planes, the view point (between the eyes)
lies on the tube's axis and the view vector aims at the tube's bottom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray
from ..constraint import AnyOf, Constraint
from ..figure import Dof, Figure
from ..goals import Aim, Line, Plane, PositionOrientation
from ._skeleton import Bone, build_figure, effector_at, mirror, rot
from .human import (
    CHEST_TOP,
    ELBOW,
    EYES,
    FORWARD,
    HEAD_TOP,
    HIP_CENTRE,
    NECK_TOP,
    SACRUM_TOP,
    add_shoulder_polygons,
    arm_bones,
    palm_effector,
)

__all__ = [
    "GROUP_WEIGHTS",
    "TUBE",
    "VERTEBRAE",
    "JointGroup",
    "Tube",
    "spine_groups",
    "tube_constraints",
    "tube_figure",
    "tube_task",
]

VERTEBRAE = ("L5", "L4", "L3", "L2", "L1", *(f"T{k}" for k in range(12, 0, -1)))
"""The spinal segments from the bottom (on the sacrum) to the top (under the neck)."""

_LUMBAR_HEIGHT = 0.036
_THORACIC_HEIGHT = 0.0225

# Per-vertebra bounds [rad]: (flexion lower, flexion upper, lateral ±, axial ±).
_LUMBAR_BOUNDS = (-0.08, 0.16, 0.06, 0.02)
_THORACIC_BOUNDS = (-0.03, 0.07, 0.04, 0.05)

GROUP_WEIGHTS: dict[str, tuple[float, ...]] = {
    "forward_extension": (
        *(1.0, 0.92, 0.84, 0.76, 0.68),
        *(0.55, 0.52, 0.49, 0.46, 0.43, 0.40, 0.37, 0.34, 0.31, 0.28, 0.25, 0.22),
    ),
    "lateral_bending": (
        *(0.6, 0.7, 0.8, 0.9, 1.0),
        *(0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4),
    ),
    "axial_rotation": (
        *(0.10, 0.14, 0.18, 0.22, 0.26),
        *(0.45, 0.55, 0.65, 0.75, 0.85, 0.95, 1.0, 0.97, 0.9, 0.82, 0.73, 0.62),
    ),
}
"""Relative angle of each vertebra (order of :data:`VERTEBRAE`) per DOF type; the
grouped spine keeps ``θ_v = (w_v / w_ref) θ_ref`` with ref the vertebra of largest w."""

_GROUP_DOF = {"forward_extension": 0, "lateral_bending": 1, "axial_rotation": 2}


@dataclass(frozen=True)
class JointGroup:
    """One DOF type of the grouped spine: member angles are ratios of a reference angle.

    Attributes:
        name: ``"forward_extension"``, ``"lateral_bending"`` or ``"axial_rotation"``.
        reference: θ index of the reference vertebra's DOF.
        members: θ indices of the members' DOFs, order of :data:`VERTEBRAE`.
        ratios: ``θ[members[i]] = ratios[i] · θ[reference]``; 1 for the reference.
    """

    name: str
    reference: int
    members: tuple[int, ...]
    ratios: tuple[float, ...]


@dataclass(frozen=True)
class Tube:
    """Where the tube stands and how it is held [m].

    Attributes:
        bottom: Centre of the tube's bottom, shape (3,).
        axis: Unit axis from the bottom upward, orthogonal to world X, shape (3,).
        radius: Outer radius.
        grips: Distance along the axis from the bottom of the (left, right) palm.
        elbow_planes: |x| of the two side planes of the elbows.
    """

    bottom: tuple[float, float, float] = (0.0, -0.60, 0.90)
    axis: tuple[float, float, float] = (0.0, 0.5, 0.8660254037844386)
    radius: float = 0.05
    grips: tuple[float, float] = (0.30, 0.42)
    elbow_planes: float = 0.22

    def axis_point(self, distance: float) -> FloatArray:
        """The axis point at ``distance`` from the bottom, shape (3,)."""
        point: FloatArray = np.array(self.bottom) + distance * np.array(self.axis)
        return point


TUBE = Tube()
"""The default tube placement used by :func:`tube_task`: both variants converge from
the upright start to G ≈ 1e-20, and still do with the tube tilted ±3° or moved ±3 cm."""


def spine_groups(figure: Figure) -> tuple[JointGroup, ...]:
    """The three spinal joint groups of a :func:`tube_figure`, with θ indices.

    Args:
        figure: A figure made by :func:`tube_figure` (grouped or not).

    Returns:
        Forward extension, lateral bending and axial rotation groups.

    Raises:
        SolverInputError: If the figure lacks the vertebrae.
    """
    groups = []
    for name, weights in GROUP_WEIGHTS.items():
        dof = _GROUP_DOF[name]
        members = tuple(figure.dof_index(vertebra, dof) for vertebra in VERTEBRAE)
        top = int(np.argmax(weights))
        ratios = tuple(w / weights[top] for w in weights)
        groups.append(JointGroup(name, members[top], members, ratios))
    return tuple(groups)


def tube_figure(*, grouped: bool) -> Figure:
    """The 70-DOF upper body of the tube task.

    Args:
        grouped: Tie the 17 spinal joints into three joint groups (22 effective DOFs).

    Returns:
        The figure; θ = 0 (upright, arms hanging) is strictly inside every limit.
    """
    bones = [Bone("sacrum", None, HIP_CENTRE, SACRUM_TOP, FORWARD)]
    steps = [_LUMBAR_HEIGHT] * 5 + [_THORACIC_HEIGHT] * 12
    heights = SACRUM_TOP[2] + np.concatenate([[0.0], np.cumsum(steps)])
    heights[-1] = CHEST_TOP[2]
    parent = "sacrum"
    for k, name in enumerate(VERTEBRAE):
        low, high, lateral, axial = _LUMBAR_BOUNDS if k < 5 else _THORACIC_BOUNDS
        dofs = (
            rot("x", low, high, "forward extension"),
            rot("z", -lateral, lateral, "lateral bending"),
            rot("y", -axial, axial, "axial rotation"),
        )
        bottom, top = (0.0, 0.0, float(heights[k])), (0.0, 0.0, float(heights[k + 1]))
        bones.append(Bone(name, parent, bottom, top, FORWARD, dofs))
        parent = name
    neck: tuple[Dof, ...] = (
        rot("x", -0.6, 0.7, "flexion"),
        rot("z", -0.5, 0.5, "lateral bending"),
        rot("y", -0.8, 0.8, "axial rotation"),
    )
    head = (rot("x", -0.4, 0.4, "flexion"), rot("z", -0.3, 0.3, "lateral bending"))
    bones.append(Bone("neck", parent, CHEST_TOP, NECK_TOP, FORWARD, neck))
    bones.append(Bone("head", "neck", NECK_TOP, HEAD_TOP, FORWARD, head))
    bones += arm_bones(parent, clavicle_dofs=False, twist_at_wrist=True)
    figure = build_figure(bones)
    add_shoulder_polygons(figure)
    if grouped:
        for group in spine_groups(figure):
            dof = _GROUP_DOF[group.name]
            reference = VERTEBRAE[group.members.index(group.reference)]
            for vertebra, ratio in zip(VERTEBRAE, group.ratios, strict=True):
                if vertebra != reference:
                    figure.add_linear_equality({(vertebra, dof): 1.0, (reference, dof): -ratio})
    return figure


def tube_constraints(figure: Figure, tube: Tube = TUBE) -> list[Constraint | AnyOf]:
    """The six constraints of the task on a :func:`tube_figure`.

    Args:
        figure: The figure.
        tube: The tube's placement.

    Returns:
        Palms (left, right), elbows (left, right), view point on the axis, view aim.
    """
    axis = np.array(tube.axis)
    side = np.array((1.0, 0.0, 0.0))
    constraints: list[Constraint | AnyOf] = []
    for sign, grip, suffix in ((1.0, tube.grips[0], ".L"), (-1.0, tube.grips[1], ".R")):
        palm = tube.axis_point(grip) + sign * tube.radius * side
        goal = PositionOrientation(palm, -sign * side, axis, c_dy=0.0)
        constraints.append(Constraint(palm_effector(figure, suffix), goal, name="palm" + suffix))
    for sign, suffix, joint in ((1.0, ".L", ELBOW), (-1.0, ".R", mirror(ELBOW))):
        elbow = effector_at(figure, "forearm" + suffix, joint, (1.0, 0.0, 0.0), FORWARD)
        plane = Plane(sign * tube.elbow_planes * side, side)
        constraints.append(Constraint(elbow, plane, name="elbow" + suffix))
    view = effector_at(figure, "head", EYES, (1.0, 0.0, 0.0), FORWARD)
    constraints.append(Constraint(view, Line(tube.bottom, axis), name="view point"))
    constraints.append(Constraint(view, Aim(tube.bottom), name="view aim"))
    return constraints


def tube_task(*, grouped: bool) -> tuple[Figure, list[Constraint | AnyOf], FloatArray]:
    """The Figure 3 task: the figure, its six constraints and the start pose.

    Args:
        grouped: Group the spinal joints (22 effective DOFs) or not (70).

    Returns:
        ``(figure, constraints, theta0)`` with θ0 the upright neutral pose (all zeros,
        strictly inside the limits).
    """
    figure = tube_figure(grouped=grouped)
    return figure, tube_constraints(figure), np.zeros(figure.n_dofs)
