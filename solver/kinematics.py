"""Vectorised forward kinematics and DOF axes of a figure.

Segment k's joint transform is ``R_k · T_k1(θ) ⋯ T_km(θ)``: its constant rest
transform, then one rotation about (or translation along) a unit axis per DOF. All the
DOF transforms of the figure are built at once; the partial products
``Q_ki = R_k · T_k1 ⋯ T_ki`` take one batched product per DOF slot (at most six, usually
three), and the world frames ``W_k = W_parent(k) · Q_km`` are composed by pointer
jumping: ⌈log₂ depth⌉ batched matrix products instead of one product per segment.

DOF ``i`` of segment ``k`` has the frame ``F = W_parent(k) · Q_ki``; its world axis is
``u = F[:3, :3] a`` (normalised for rotations) and, for a rotation, its pivot
``q = F[:3, 3]``. Then (Zhao & Badler 1994, §4)::

    ∂r/∂θ = u × (r − q),   ∂v/∂θ = u × v      (rotation)
    ∂r/∂θ = u,             ∂v/∂θ = 0          (translation)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray, copied_with
from .kernel import KernelTree
from .rotations import gram_entries
from .segment import Segment

__all__ = ["Frames", "Kinematics"]

_ZERO = np.zeros(1)


def _skew(axis: FloatArray) -> FloatArray:
    x, y, z = axis
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


class Frames(NamedTuple):
    """The frames of one pose, from :meth:`Kinematics.frames`.

    Attributes:
        world: World matrices of the segments, then the identity (the roots' parent),
            shape (n_segments + 1, 4, 4).
        partial: The partial products ``Q_ki`` of every segment and DOF slot, flattened
            to shape (n_segments × slots, 4, 4).
    """

    world: FloatArray
    partial: FloatArray


_UNSCALED = 1e-8
"""How far MᵀM of a motion may stray from the identity, per entry, for M to keep lengths
(``np.allclose``'s default tolerances: this much, and 1e-5 more on the diagonal)."""


_MOTIONS = 64
"""Most motions a moved copy leaves to its basis's first use (:meth:`Kinematics.moved`)."""


def keeps_lengths(motion: FloatArray) -> bool:
    """Whether a motion's 3 × 3 part M keeps lengths: MᵀM the identity to :data:`_UNSCALED`.

    On Python's floats (:func:`.rotations.gram_entries`): a moving armature's figure is
    moved on every frame.
    """
    rows: list[list[float]] = motion[:3].tolist()
    xx, yy, zz, xy, xz, yz = gram_entries(rows)
    diagonal = _UNSCALED + 1e-5
    return (
        abs(xx - 1.0) <= diagonal
        and abs(yy - 1.0) <= diagonal
        and abs(zz - 1.0) <= diagonal
        and abs(xy) <= _UNSCALED
        and abs(xz) <= _UNSCALED
        and abs(yz) <= _UNSCALED
    )


@dataclass(frozen=True, eq=False)
class Kinematics:
    """Compiled kinematic tree; build it with :meth:`compile`.

    Attributes:
        n_dofs: Length of θ.
        n_segments: Number of segments.
        dof_rotation: Whether each DOF is a rotation, shape (n_dofs,).
        dof_axis: Each DOF's axis in its joint frame, shape (n_dofs, 3).
        moves: ``moves[k, j]``: DOF j moves segment k (j is in k's or an ancestor's
            joint), shape (n_segments, n_dofs).
        dof_segment: The segment whose joint each DOF is in, shape (n_dofs,).
        segment_parent: Parent segment index, −1 for roots, shape (n_segments,).
        scaled: Whether some rest transform scales (then rotation axes are normalised).
        kernel_tree: The tree as the compiled kernel reads it (:mod:`solver.kernel`).
    """

    n_dofs: int
    n_segments: int
    dof_rotation: BoolArray
    dof_axis: FloatArray
    moves: BoolArray
    dof_segment: IntArray
    segment_parent: IntArray
    scaled: bool
    _slot_theta: IntArray = field(repr=False)
    _basis: FloatArray = field(repr=False)
    _slots: int = field(repr=False)
    _slot_rows: tuple[IntArray | None, ...] = field(repr=False)
    _last_slot: IntArray = field(repr=False)
    _jumps: tuple[IntArray, ...] = field(repr=False)
    _identity: FloatArray = field(repr=False)
    _dof_slot: IntArray = field(repr=False)
    _dof_parent: IntArray = field(repr=False)
    _axis_columns: FloatArray = field(repr=False)
    kernel_tree: KernelTree = field(repr=False)
    _motions: tuple[FloatArray, ...] = field(default=(), repr=False)
    """Motions :meth:`moved` applied to the roots that ``_basis`` does not hold yet, in
    turn: only numpy's forward kinematics reads the basis (:meth:`local_basis`), and a
    moving armature's frames are solved by the compiled kernel's tree."""

    @classmethod
    def compile(cls, segments: Sequence[Segment], n_dofs: int) -> Kinematics:
        """Compile ``segments`` (in ``add_segment`` order) into batched arrays."""
        index = {seg.name: seg.index for seg in segments}
        n_segments = len(segments)
        slots = max([1, *(len(seg.dofs) for seg in segments)])
        # T(θ) = C·(I + sinθ·K + (1 − cosθ)·K² + θ·S): four constant 4×4 matrices per
        # slot, combined by one batched product with the coefficients (1, sinθ, 1 − cosθ, θ);
        # C is the rest transform in slot 0 and the identity after it. Empty slots hold
        # the identity (θ index n_dofs reads a zero).
        basis = np.zeros((n_segments, slots, 4, 4, 4))
        basis[:, :, 0] = np.eye(4)
        slot_theta = np.full((n_segments, slots), n_dofs, np.intp)
        dof_rotation = np.zeros(n_dofs, bool)
        dof_axis = np.zeros((n_dofs, 3))
        dof_slot = np.zeros(n_dofs, np.intp)
        dof_parent = np.zeros(n_dofs, np.intp)
        for seg in segments:
            k = seg.index
            basis[k, 0, 0] = seg.rest
            parent = n_segments if seg.parent is None else index[seg.parent]
            for i, dof in enumerate(seg.dofs):
                j = seg.first_dof + i
                axis = np.array(dof.axis)
                rotation = dof.kind == "rotation"
                slot_theta[k, i] = j
                dof_rotation[j] = rotation
                dof_axis[j] = axis
                dof_slot[j] = k * slots + i
                dof_parent[j] = parent
                if rotation:
                    skew = _skew(axis)
                    basis[k, i, 1, :3, :3] = skew
                    basis[k, i, 2, :3, :3] = skew @ skew
                else:
                    basis[k, i, 3, :3, 3] = axis
            for i in range(1, 4):
                basis[k, 0, i] = seg.rest @ basis[k, 0, i]
        counts = np.array([len(seg.dofs) for seg in segments], np.intp)
        slot_rows = tuple(
            None if np.all(counts > i) else np.flatnonzero(counts > i) for i in range(slots)
        )
        sentinel = n_segments
        ancestor = np.array(
            [sentinel if seg.parent is None else index[seg.parent] for seg in segments]
            + [sentinel],
            np.intp,
        )
        jumps: list[IntArray] = []
        while np.any(ancestor != sentinel):
            jumps.append(ancestor.copy())
            ancestor = ancestor[ancestor]
        axis_columns = np.zeros((n_dofs, 4, 2))
        axis_columns[:, :3, 0] = dof_axis
        axis_columns[:, 3, 1] = 1.0
        scaled = any(
            not np.allclose(s.rest[:3, :3].T @ s.rest[:3, :3], np.eye(3)) for s in segments
        )
        segment_parent = np.array(
            [-1 if s.parent is None else index[s.parent] for s in segments], np.intp
        )
        moves = np.zeros((n_segments, n_dofs), dtype=bool)
        for seg in segments:
            if seg.parent is not None:
                moves[seg.index] = moves[index[seg.parent]]
            moves[seg.index, seg.first_dof : seg.first_dof + len(seg.dofs)] = True
        tree = KernelTree.of(
            segment_parent,
            np.array([seg.first_dof for seg in segments], np.intp),
            counts,
            np.array([seg.rest for seg in segments]).reshape(n_segments, 16),
            dof_rotation,
            dof_axis,
            scaled,
        )
        return cls(
            n_dofs=n_dofs,
            n_segments=n_segments,
            dof_rotation=dof_rotation,
            dof_axis=dof_axis,
            moves=moves,
            dof_segment=dof_slot // slots,
            segment_parent=segment_parent,
            scaled=scaled,
            _slot_theta=slot_theta.ravel(),
            _basis=basis.reshape(n_segments * slots, 4, 16),
            _slots=slots,
            _slot_rows=slot_rows,
            _last_slot=np.arange(n_segments) * slots + np.maximum(counts, 1) - 1,
            _jumps=tuple(jumps),
            _identity=np.eye(4)[None],
            _dof_slot=dof_slot,
            _dof_parent=dof_parent,
            _axis_columns=axis_columns,
            kernel_tree=tree,
        )

    def moved(self, motion: FloatArray) -> Kinematics:
        """These kinematics with every root's rest premultiplied by ``motion`` (a similarity).

        Only the roots' constant transforms change (their first DOF slot's basis and
        the kernel's rests); everything else is shared.
        """
        roots, _ = self._roots
        rests = self.kernel_tree.arrays[3].copy()
        rests[roots] = (motion @ rests[roots].reshape(-1, 4, 4)).reshape(-1, 16)
        # a scale other than 1 (to allclose's tolerances) makes the axes need normalising
        scaled = self.scaled or not keeps_lengths(motion)
        tree = self.kernel_tree.with_rests(rests, scaled)
        moved = copied_with(
            self, scaled=scaled, _motions=(*self._motions, motion), kernel_tree=tree
        )
        if len(moved._motions) >= _MOTIONS:
            moved.local_basis()
        return moved

    def local_basis(self) -> FloatArray:
        """Each DOF slot's local transform as a linear map of (1, sin, 1 − cos, value).

        The roots' slots with every motion :meth:`moved` applied, each in turn, made
        here on first use (and kept).
        """
        if not self._motions:
            return self._basis
        _, slots = self._roots
        basis = self._basis.copy()
        for motion in self._motions:
            basis[slots] = (motion @ basis[slots].reshape(-1, 4, 4, 4)).reshape(-1, 4, 16)
        object.__setattr__(self, "_basis", basis)
        object.__setattr__(self, "_motions", ())
        return basis

    @cached_property
    def _roots(self) -> tuple[IntArray, IntArray]:
        """The root segments, and their first DOF slots in the basis (:meth:`moved`)."""
        roots = np.flatnonzero(self.segment_parent < 0)
        return roots, roots * self._slots

    def frames(self, theta: FloatArray) -> Frames:
        """World frames of the segments and the partial products of their joints."""
        values = np.concatenate((theta, _ZERO))[self._slot_theta]
        coefficients = np.empty((values.shape[0], 1, 4))
        coefficients[:, 0, 0] = 1.0
        np.sin(values, out=coefficients[:, 0, 1])
        np.cos(values, out=coefficients[:, 0, 2])
        np.subtract(1.0, coefficients[:, 0, 2], out=coefficients[:, 0, 2])
        coefficients[:, 0, 3] = values
        local = (coefficients @ self.local_basis()).reshape(-1, self._slots, 4, 4)
        if self._slots > 1:
            partial = local
            for slot in range(1, self._slots):
                rows = self._slot_rows[slot]
                if rows is None:
                    partial[:, slot] = partial[:, slot - 1] @ local[:, slot]
                else:  # the other segments' slot holds the identity
                    product = partial[rows, slot - 1] @ local[rows, slot]
                    partial[:, slot] = partial[:, slot - 1]
                    partial[rows, slot] = product
        flat = local.reshape(-1, 4, 4)
        world: FloatArray = np.concatenate([flat[self._last_slot], self._identity])
        for ancestor in self._jumps:
            world = world[ancestor] @ world
        return Frames(world, flat)

    def pose(
        self, theta: FloatArray, dofs: IntArray | None = None
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """World frames (as :meth:`frames`' ``world``), and the axes and pivots of ``dofs``.

        One call of the compiled kernel where it runs (:mod:`solver.kernel`), else
        :meth:`frames` and :meth:`dof_axes`; the two agree to rounding.
        """
        compiled = kernel.active()
        if compiled is None:
            frames = self.frames(theta)
            return (frames.world, *self.dof_axes(frames, dofs))
        world, axes, pivots = compiled.frames(self.kernel_tree, theta)
        if dofs is not None:
            axes, pivots = axes[dofs], pivots[dofs]
        return world, axes, pivots

    def world(self, theta: FloatArray) -> FloatArray:
        """World matrices of the segments, then the identity: :meth:`frames`' ``world``."""
        compiled = kernel.active()
        if compiled is None:
            return self.frames(theta).world
        return compiled.frames(self.kernel_tree, theta)[0]

    def dof_axes(
        self, frames: Frames, dofs: IntArray | None = None
    ) -> tuple[FloatArray, FloatArray]:
        """World axes ``u`` and pivots ``q`` of DOFs ``dofs`` (default all), each (k, 3).

        Rotation axes are unit vectors; a translation axis carries the frame's scale so
        that ``∂r/∂θ = u`` holds in world units.
        """
        if dofs is None:
            slot, parent, columns = self._dof_slot, self._dof_parent, self._axis_columns
            rotation = self.dof_rotation
        else:
            slot, parent = self._dof_slot[dofs], self._dof_parent[dofs]
            columns, rotation = self._axis_columns[dofs], self.dof_rotation[dofs]
        world = frames.world[parent] @ (frames.partial[slot] @ columns)
        axes = world[:, :3, 0]
        if self.scaled:
            axes[rotation] /= np.linalg.norm(axes[rotation], axis=1)[:, None]
        return axes, world[:, :3, 1]
