"""The points each effector is made of: itself, or a centre of mass's mass points.

An :class:`~solver.constraint.Effector` is one point (with two axes) fixed in one
segment. A :class:`~solver.constraint.CentreOfMass` is the weighted mean ``Σ sₖ rₖ`` of
points fixed in many segments, its axes the world's. :class:`Parts` lists every such
point once (a plain effector is one part of share 1), so that the chain rule runs over
points fixed in segments, as :mod:`.jacobian` needs: a goal's force f on a centre of mass
is the force ``sₖ f`` on each of its parts, and its Jacobian ``Σ sₖ Jₖ``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._checks import BoolArray, FloatArray, IntArray
from .constraint import CentreOfMass, Constraint
from .figure import Figure

__all__ = ["Parts"]


@dataclass(frozen=True, eq=False)
class Parts:
    """Every effector's points fixed in segments.

    Attributes:
        leaf: The leaf each part belongs to, shape (K,).
        segment: The segment each part is fixed in, shape (K,).
        share: Each part's share of its effector, shape (K,).
        local: Point, x axis and y axis of each part in its segment (homogeneous point
            column first), shape (K, 4, 3).
        massed: Whether each leaf is a centre of mass, shape (m,).
        single: Whether every effector is one part (the parts are the leaves).
    """

    leaf: IntArray
    segment: IntArray
    share: FloatArray
    local: FloatArray
    massed: BoolArray
    single: bool

    @cached_property
    def sums(self) -> FloatArray:
        """The shares as a matrix, shape (m, K): row i holds sₖ where part k is leaf i's.

        A matrix product with it gathers the parts into their leaves at once.
        """
        result = np.zeros((self.massed.shape[0], self.leaf.shape[0]))
        result[self.leaf, np.arange(self.leaf.shape[0])] = self.share
        return result

    @cached_property
    def first(self) -> IntArray:
        """Each leaf's first part, shape (m,)."""
        found: IntArray = np.searchsorted(self.leaf, np.arange(self.massed.shape[0]))
        return found

    @classmethod
    def of(cls, figure: Figure, leaves: Sequence[Constraint], segments: IntArray) -> Parts:
        """The parts of ``leaves``, a plain effector's in ``segments`` (its own segment)."""
        leaf, segment, share, local = [], [], [], []
        massed = np.zeros(len(leaves), dtype=bool)
        for i, constraint in enumerate(leaves):
            effector = constraint.effector
            if isinstance(effector, CentreOfMass):
                massed[i] = True
                points = [(figure.segment(n).index, s, p) for n, s, p in effector.parts]
            else:
                points = [(int(segments[i]), 1.0, effector.point)]
            for index, part_share, point in points:
                frame = np.zeros((4, 3))
                frame[:3, 0] = point
                frame[3, 0] = 1.0
                frame[:3, 1] = effector.x_axis
                frame[:3, 2] = effector.y_axis
                leaf.append(i)
                segment.append(index)
                share.append(part_share)
                local.append(frame)
        return cls(
            np.array(leaf, np.intp),
            np.array(segment, np.intp),
            np.array(share),
            np.array(local).reshape(-1, 4, 3),
            massed,
            not massed.any(),
        )

    def states(
        self, world: FloatArray, scaled: bool
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Each leaf's world point and unit axes (m, 3 each), and each part's point (K, 3).

        Args:
            world: World matrices of the segments, shape (n_segments, 4, 4).
            scaled: Whether some segment scales (the axes are then normalised).
        """
        columns = world[self.segment] @ self.local
        points, x, y = columns[:, :3, 0], columns[:, :3, 1], columns[:, :3, 2]
        if scaled:
            x = x / np.sqrt((x * x).sum(axis=1))[:, None]
            y = y / np.sqrt((y * y).sum(axis=1))[:, None]
        if self.single:
            return points, x, y, points
        first = self.first
        leaf_points = self.sums @ points
        leaf_x, leaf_y = x[first], y[first]
        leaf_x[self.massed] = (1.0, 0.0, 0.0)
        leaf_y[self.massed] = (0.0, 1.0, 0.0)
        return leaf_points, leaf_x, leaf_y, points

    def spread(
        self, force: FloatArray, torque: FloatArray | None, coefficient: FloatArray
    ) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """The leaves' forces, torques and coefficients as their parts' (K rows)."""
        if self.single:
            return force, torque, coefficient
        part_force = force[self.leaf] * self.share[:, None]
        part_torque = None
        if torque is not None:
            part_torque = torque[self.leaf] * ~self.massed[self.leaf][:, None]
        return part_force, part_torque, coefficient[self.leaf]
