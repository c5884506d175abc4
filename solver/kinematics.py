"""Vectorised forward kinematics and DOF axes of a figure.

Every DOF is a node of a tree of frames: node ``j`` of segment ``k`` has world frame
``F_j = F_parent(j) · C_j · T_j(θ_j)``, with ``C_j`` the segment's rest transform for
its first DOF and the identity otherwise, and ``T_j`` a rotation about (or translation
along) the DOF's unit axis. A segment without DOFs is one constant node. All node
transforms are built at once, then composed by pointer jumping: ⌈log₂ depth⌉ batched
matrix products instead of one product per node.

The world axis of DOF j is ``u_j = F_j[:3, :3] a_j`` (normalised for rotations) and, for
a rotation, its pivot ``q_j = F_j[:3, 3]``. Then (seed 000 §4)::

    ∂r/∂θ_j = u_j × (r − q_j),   ∂v/∂θ_j = u_j × v      (rotation)
    ∂r/∂θ_j = u_j,               ∂v/∂θ_j = 0            (translation)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._checks import FloatArray

if TYPE_CHECKING:
    from .figure import Segment

__all__ = ["Kinematics"]

_ZERO = np.zeros(1)

IntArray = np.ndarray[tuple[int], np.dtype[np.intp]]
BoolArray = np.ndarray[tuple[int, ...], np.dtype[np.bool_]]


def _skew(axis: FloatArray) -> FloatArray:
    x, y, z = axis
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


@dataclass(frozen=True, eq=False)
class Kinematics:
    """Compiled kinematic tree; build it with :meth:`compile`.

    Attributes:
        n_nodes: Number of frame nodes (one per DOF, one per DOF-less segment).
        n_dofs: Length of θ.
        segment_node: Node holding each segment's world frame, shape (n_segments,).
        dof_node: Node of each DOF, shape (n_dofs,).
        dof_rotation: Whether each DOF is a rotation, shape (n_dofs,).
        dof_axis: Each DOF's axis in its joint frame, shape (n_dofs, 3).
        moves: ``moves[k, j]``: DOF j moves segment k (j is in k's or an ancestor's
            joint), shape (n_segments, n_dofs).
        segment_parent: Parent segment index, −1 for roots, shape (n_segments,).
    """

    n_nodes: int
    n_dofs: int
    segment_node: IntArray
    dof_node: IntArray
    dof_rotation: BoolArray
    dof_axis: FloatArray
    moves: BoolArray
    segment_parent: IntArray
    scaled: bool
    _node_theta: IntArray = field(repr=False)
    _basis: FloatArray = field(repr=False)
    _jumps: tuple[IntArray, ...] = field(repr=False)
    _identity: FloatArray = field(repr=False)
    _axis_columns: FloatArray = field(repr=False)

    @classmethod
    def compile(cls, segments: Sequence[Segment], n_dofs: int) -> Kinematics:
        """Compile ``segments`` (in ``add_segment`` order) into batched arrays."""
        index = {seg.name: seg.index for seg in segments}
        parents: list[int] = []
        pre: list[FloatArray] = []
        k1: list[FloatArray] = []
        k2: list[FloatArray] = []
        slide: list[FloatArray] = []
        node_theta: list[int] = []
        segment_node: list[int] = []
        dof_node: list[int] = []
        dof_rotation: list[bool] = []
        dof_axis: list[FloatArray] = []
        zero3 = np.zeros((3, 3))
        for seg in segments:
            parent_node = -1 if seg.parent is None else segment_node[index[seg.parent]]
            if not seg.dofs:
                parents.append(parent_node)
                pre.append(seg.rest)
                k1.append(zero3)
                k2.append(zero3)
                slide.append(np.zeros(3))
                node_theta.append(n_dofs)
            for k, dof in enumerate(seg.dofs):
                node = len(parents)
                axis = np.array(dof.axis)
                parents.append(parent_node if k == 0 else node - 1)
                pre.append(seg.rest if k == 0 else np.eye(4))
                rotation = dof.kind == "rotation"
                skew = _skew(axis) if rotation else zero3
                k1.append(skew)
                k2.append(skew @ skew)
                slide.append(np.zeros(3) if rotation else axis)
                node_theta.append(seg.first_dof + k)
                dof_node.append(node)
                dof_rotation.append(rotation)
                dof_axis.append(axis)
            segment_node.append(len(parents) - 1)
        n_nodes = len(parents)
        sentinel = n_nodes
        ancestor = np.array([sentinel if p < 0 else p for p in parents] + [sentinel], np.intp)
        jumps: list[IntArray] = []
        while np.any(ancestor != sentinel):
            jumps.append(ancestor.copy())
            ancestor = ancestor[ancestor]
        # local(θ) = C·(I + sinθ·K + (1 − cosθ)·K² + θ·S): four constant 4×4 matrices per
        # node, combined by one batched product with the coefficients (1, sinθ, 1 − cosθ, θ).
        pre_array = np.array(pre, np.float64)
        rotation_part = np.zeros((n_nodes, 2, 4, 4))
        rotation_part[:, 0, :3, :3] = np.array(k1)
        rotation_part[:, 1, :3, :3] = np.array(k2)
        slide_part = np.zeros((n_nodes, 4, 4))
        slide_part[:, :3, 3] = np.array(slide)
        basis = np.stack(
            [
                pre_array,
                pre_array @ rotation_part[:, 0],
                pre_array @ rotation_part[:, 1],
                pre_array @ slide_part,
            ],
            axis=1,
        ).reshape(n_nodes, 4, 16)
        axis_columns = np.zeros((n_dofs, 4, 2))
        axis_columns[:, :3, 0] = np.array(dof_axis).reshape(n_dofs, 3)
        axis_columns[:, 3, 1] = 1.0
        scaled = any(
            not np.allclose(s.rest[:3, :3].T @ s.rest[:3, :3], np.eye(3)) for s in segments
        )
        segment_parent = np.array(
            [-1 if s.parent is None else index[s.parent] for s in segments], np.intp
        )
        moves = np.zeros((len(segments), n_dofs), dtype=bool)
        for seg in segments:
            if seg.parent is not None:
                moves[seg.index] = moves[index[seg.parent]]
            moves[seg.index, seg.first_dof : seg.first_dof + len(seg.dofs)] = True
        return cls(
            n_nodes=n_nodes,
            n_dofs=n_dofs,
            segment_node=np.array(segment_node, np.intp),
            dof_node=np.array(dof_node, np.intp),
            dof_rotation=np.array(dof_rotation, bool),
            dof_axis=np.array(dof_axis, np.float64).reshape(n_dofs, 3),
            moves=moves,
            segment_parent=segment_parent,
            scaled=scaled,
            _node_theta=np.array(node_theta, np.intp),
            _basis=basis,
            _jumps=tuple(jumps),
            _identity=np.eye(4)[None],
            _axis_columns=axis_columns,
        )

    def frames(self, theta: FloatArray) -> FloatArray:
        """World frames of all nodes, shape (n_nodes + 1, 4, 4); the last is the identity."""
        values = np.concatenate((theta, _ZERO))[self._node_theta]
        coefficients = np.empty((values.shape[0], 1, 4))
        coefficients[:, 0, 0] = 1.0
        np.sin(values, out=coefficients[:, 0, 1])
        np.cos(values, out=coefficients[:, 0, 2])
        np.subtract(1.0, coefficients[:, 0, 2], out=coefficients[:, 0, 2])
        coefficients[:, 0, 3] = values
        local = (coefficients @ self._basis).reshape(-1, 4, 4)
        frames: FloatArray = np.concatenate([local, self._identity])
        for ancestor in self._jumps:
            frames = frames[ancestor] @ frames
        return frames

    def segment_frames(self, frames: FloatArray) -> FloatArray:
        """World matrices of the segments, shape (n_segments, 4, 4)."""
        return frames[self.segment_node]

    def dof_axes(self, frames: FloatArray) -> tuple[FloatArray, FloatArray]:
        """World axes ``u`` and pivots ``q`` of all DOFs, each shape (n_dofs, 3).

        Rotation axes are unit vectors; a translation axis carries the frame's scale so
        that ``∂r/∂θ = u`` holds in world units.
        """
        columns = frames[self.dof_node] @ self._axis_columns
        axes = columns[:, :3, 0]
        if self.scaled:
            rotation = self.dof_rotation
            axes[rotation] /= np.linalg.norm(axes[rotation], axis=1)[:, None]
        return axes, columns[:, :3, 1]
