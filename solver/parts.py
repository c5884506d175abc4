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
from .constraint import CentreOfMass, Constraint, Effector
from .figure import Figure

__all__ = ["Parts"]


@dataclass(frozen=True, eq=False)
class Parts:
    """Every effector's points fixed in segments, each point once.

    Leaves on one centre of mass (Balance's half-spaces, one per edge of the support
    polygon) share its parts: the chain rule runs over its points once, whatever the
    number of goals on it.

    Attributes:
        segment: The segment each part is fixed in, shape (K,).
        local: Point, x axis and y axis of each part in its segment (homogeneous point
            column first), shape (K, 4, 3).
        sums: Each leaf's parts' shares as a matrix, shape (m, K): row i holds sₖ where
            part k is one of leaf i's, so that a matrix product gathers the parts into
            their leaves at once.
        first: Each leaf's first part, shape (m,): a plain effector's one.
        massed: Whether each leaf is a centre of mass, shape (m,).
        single: Whether every effector is one part (the parts are the leaves).
    """

    segment: IntArray
    local: FloatArray
    sums: FloatArray
    first: IntArray
    massed: BoolArray
    single: bool

    @classmethod
    def of(cls, figure: Figure, leaves: Sequence[Constraint], segments: IntArray) -> Parts:
        """The parts of ``leaves``, a plain effector's in ``segments`` (its own segment)."""
        segment: list[int] = []
        local: list[FloatArray] = []
        owned: list[list[tuple[int, float]]] = []  # per leaf: (part, share)
        centres: dict[int, list[tuple[int, float]]] = {}  # a centre of mass's parts, by id
        massed = np.zeros(len(leaves), dtype=bool)
        for i, constraint in enumerate(leaves):
            effector = constraint.effector
            if isinstance(effector, CentreOfMass):
                massed[i] = True
                known = centres.get(id(effector))
                if known is None:
                    points = [(figure.segment(n).index, s, p) for n, s, p in effector.parts]
                    known = centres[id(effector)] = _added(points, effector, segment, local)
                owned.append(known)
            else:
                points = [(int(segments[i]), 1.0, effector.point)]
                owned.append(_added(points, effector, segment, local))
        sums = np.zeros((len(leaves), len(segment)))
        for i, parts in enumerate(owned):
            for part, share in parts:
                sums[i, part] = share
        return cls(
            np.array(segment, np.intp),
            np.array(local).reshape(-1, 4, 3),
            sums,
            np.array([parts[0][0] for parts in owned], np.intp),
            massed,
            not massed.any(),
        )

    @cached_property
    def distinct(self) -> tuple[FloatArray, IntArray]:
        """The distinct rows of :attr:`sums` (d, K) and each leaf's among them (m,)."""
        rows, back = np.unique(self.sums, axis=0, return_inverse=True)
        return rows, np.asarray(back, np.intp).reshape(-1)

    @cached_property
    def turning(self) -> IntArray:
        """The leaves whose axes turn with them: the plain effectors."""
        found: IntArray = np.flatnonzero(~self.massed)
        return found

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
        leaf_points = self.sums @ points
        leaf_x, leaf_y = x[self.first], y[self.first]
        leaf_x[self.massed] = (1.0, 0.0, 0.0)
        leaf_y[self.massed] = (0.0, 1.0, 0.0)
        return leaf_points, leaf_x, leaf_y, points

    def spread(
        self, force: FloatArray, torque: FloatArray | None, coefficient: FloatArray
    ) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """The leaves' forces, torques and coefficients as their parts' (K rows).

        A part's force is the sum of its leaves' weighted forces (each times the part's
        share of the leaf), its coefficient 1; a plain effector's torque goes to its part.
        """
        if self.single:
            return force, torque, coefficient
        part_force = self.sums.T @ (force * coefficient[:, None])
        part_torque = None
        if torque is not None:
            plain = ~self.massed
            part_torque = np.zeros_like(part_force)
            part_torque[self.first[plain]] = torque[plain] * coefficient[plain, None]
        return part_force, part_torque, np.ones(len(self.segment))


def _added(
    points: list[tuple[int, float, FloatArray]],
    effector: Effector | CentreOfMass,
    segment: list[int],
    local: list[FloatArray],
) -> list[tuple[int, float]]:
    """``points`` (segment, share, point) appended as parts; their indices and shares."""
    added = []
    for index, share, point in points:
        frame = np.zeros((4, 3))
        frame[:3, 0] = point
        frame[3, 0] = 1.0
        frame[:3, 1] = effector.x_axis
        frame[:3, 2] = effector.y_axis
        added.append((len(segment), share))
        segment.append(index)
        local.append(frame)
    return added
