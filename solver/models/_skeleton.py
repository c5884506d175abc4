"""Build figures from bones laid out in world rest coordinates, with Blender's conventions.

World: metres, Z up, the figure facing −Y (its left side at +X). A bone runs from its
head (the joint) to its tail along its local +Y axis. Its local Z axis points as close
as possible to a ``forward`` hint and ``x = y × forward``, ``z = x × y``. The joint frame
of a segment is the bone's rest frame, so a DOF axis "x" is the bone's local X.

With this construction the frames of a bone and of its mirror image (X → −X, the hint
in the mirror plane) satisfy ``x_R = −M x_L``, ``y_R = M y_L``, ``z_R = M z_L`` (M the
mirror); the mirror image of a rotation about a left bone's local X is the same angle
about the right bone's local X, and about local Y or Z the same angle about the
negated axis. :func:`mirror_dof` applies that rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray
from ..constraint import Effector
from ..figure import Dof, Figure

__all__ = [
    "Bone",
    "Vec3",
    "bone_frame",
    "build_figure",
    "effector_at",
    "mirror",
    "mirror_dof",
    "rot",
]

Vec3 = tuple[float, float, float]

MIRROR = np.diag([-1.0, 1.0, 1.0])


@dataclass(frozen=True)
class Bone:
    """A bone in world rest coordinates.

    Attributes:
        name: Segment name.
        parent: Parent segment name, or ``None`` for the root.
        head: Joint position [m], world, shape (3,).
        tail: End of the bone [m], world, shape (3,).
        forward: World direction the local Z axis leans to (not parallel to the bone).
        dofs: The joint's DOFs about/along the bone's local axes.
    """

    name: str
    parent: str | None
    head: Vec3
    tail: Vec3
    forward: Vec3
    dofs: tuple[Dof, ...] = ()

    def mirrored(self, name: str, parent: str | None) -> Bone:
        """The mirror image (X → −X) of this bone, renamed, with mirrored DOF axes."""
        return Bone(
            name,
            parent,
            mirror(self.head),
            mirror(self.tail),
            mirror(self.forward),
            tuple(mirror_dof(dof) for dof in self.dofs),
        )


def mirror(point: Vec3) -> Vec3:
    """The mirror image (X → −X) of a world point or vector."""
    return (-point[0], point[1], point[2])


def rot(axis: str, lower: float, upper: float, name: str) -> Dof:
    """A rotational DOF about a local axis with bounds [rad]."""
    return Dof.rotation(axis, lower=lower, upper=upper, name=name)


def mirror_dof(dof: Dof) -> Dof:
    """The DOF of the mirrored bone that moves it as the mirror image of ``dof``.

    Rotations keep their local X component and negate Y and Z (see the module
    docstring); translations negate X. Bounds, rigidity and name are kept.
    """
    x, y, z = dof.axis
    axis = (x, -y, -z) if dof.kind == "rotation" else (-x, y, z)
    return Dof(dof.kind, axis, dof.lower, dof.upper, dof.rigidity, dof.name)


def bone_frame(head: Vec3, tail: Vec3, forward: Vec3) -> FloatArray:
    """World rest frame of a bone, shape (4, 4): columns x, y (along the bone), z, head."""
    origin = np.array(head, dtype=np.float64)
    y = np.array(tail, dtype=np.float64) - origin
    y /= np.linalg.norm(y)
    x = np.cross(y, np.array(forward, dtype=np.float64))
    x /= np.linalg.norm(x)
    z = np.cross(x, y)
    frame = np.eye(4)
    frame[:3, 0] = x
    frame[:3, 1] = y
    frame[:3, 2] = z
    frame[:3, 3] = origin
    return frame


def build_figure(bones: Sequence[Bone]) -> Figure:
    """A figure whose rest pose (θ = 0) puts every bone at its world rest frame.

    Args:
        bones: Parents before children.

    Returns:
        The figure; segment k's rest matrix is ``B_parent⁻¹ · B_k`` (B the world frames).
    """
    figure = Figure()
    world: dict[str, FloatArray] = {}
    for bone in bones:
        frame = bone_frame(bone.head, bone.tail, bone.forward)
        if bone.parent is None:
            rest = frame
        else:
            parent = world[bone.parent]
            inverse = np.eye(4)
            inverse[:3, :3] = parent[:3, :3].T
            inverse[:3, 3] = -parent[:3, :3].T @ parent[:3, 3]
            rest = inverse @ frame
        figure.add_segment(bone.name, bone.parent, rest, bone.dofs)
        world[bone.name] = frame
    return figure


def effector_at(figure: Figure, segment: str, point: Vec3, x_axis: Vec3, y_axis: Vec3) -> Effector:
    """An effector given in world rest coordinates (θ = 0), fixed in ``segment``.

    Args:
        figure: The figure.
        segment: The segment the effector is fixed in.
        point: World rest position [m].
        x_axis: World rest unit x axis.
        y_axis: World rest unit y axis, orthogonal to ``x_axis``.

    Returns:
        The effector in the segment's frame.

    Raises:
        SolverInputError: If the figure has no such segment.
    """
    index = figure.segment(segment).index
    frame = figure.forward(np.zeros(figure.n_dofs))[index]
    rotation = frame[:3, :3]
    local = rotation.T @ (np.array(point, dtype=np.float64) - frame[:3, 3])
    return Effector(
        segment,
        point=local,
        x_axis=rotation.T @ np.array(x_axis, dtype=np.float64),
        y_axis=rotation.T @ np.array(y_axis, dtype=np.float64),
    )
