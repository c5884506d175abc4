"""How the variable DOFs move the effectors: the chain rule behind G_all's derivatives.

:class:`solver.Problem` evaluates the goals at the effectors; this turns what the goals
return (each effector's force and torque, its curvature weights or factors) into
derivatives by the DOFs. A rotation about unit axis u through pivot q moves point r by
``u × (r − q)`` and turns axis x by ``u × x``; a translation moves points by u and
turns nothing. ``moves[j, e]`` is 1 when DOF j lies on effector e's chain, else 0.
"""

from __future__ import annotations

import numpy as np

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray
from .vectors import cross, skews

__all__ = ["Jacobian"]


class Jacobian:
    """The effectors' Jacobian over a problem's variables, applied without forming it.

    Args:
        moves: Whether each variable moves each effector, shape (n_v, m).
        rotation: Whether each variable is a rotation, shape (n_v,).
        tree: When ``moves`` says that a variable moves the effectors below its segment
            (as a figure's DOFs do): the segments' parents, each variable's segment and
            each effector's, so that the compiled kernel sums the gradient up the tree
            (without it the gradient is numpy's).
    """

    def __init__(
        self,
        moves: BoolArray,
        rotation: BoolArray,
        tree: tuple[IntArray, IntArray, IntArray] | None = None,
    ) -> None:
        self.moves = np.ascontiguousarray(moves, dtype=np.float64)
        self._rotation = rotation[:, None]
        self._all_rotations = bool(np.all(rotation))
        self._rotation_bytes = np.ascontiguousarray(rotation, dtype=np.uint8)
        self._tree = None if tree is None else kernel.GradientTree.of(*tree, rotation)

    def gradient(
        self,
        points: FloatArray,
        force: FloatArray,
        torque: FloatArray | None,
        coefficient: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> FloatArray:
        """Jᵀ of the effectors' weighted wrenches: each variable's derivative, shape (n_v,).

        Effector e's wrench (moment about the origin ``r_e × f_e + torque_e``, force
        ``f_e``), summed over the effectors a DOF moves, gives that DOF's derivative:
        ``u · (M − q × F)`` for a rotation about axis u through pivot q, ``u · F`` for a
        translation.

        Args:
            points: Effector points, shape (m, 3).
            force: ∂G/∂r of each effector's goal, shape (m, 3).
            torque: The torque of each effector's goal on its axes, shape (m, 3), or None.
            coefficient: Each effector's weight in G_all, shape (m,).
            axes: Each variable's world axis, shape (n_v, 3).
            pivots: Each variable's world pivot, shape (n_v, 3).
        """
        compiled = kernel.active()
        if compiled is not None and self._tree is not None:
            return compiled.gradient_tree(
                self._tree, points, force, torque, coefficient, axes, pivots
            )
        wrench = np.empty((points.shape[0], 6))
        moment = cross(points, force)
        if torque is not None:
            moment += torque
        wrench[:, :3] = moment
        wrench[:, 3:] = force
        wrench *= coefficient[:, None]
        dof_wrench = self.moves @ wrench
        total = dof_wrench[:, 3:]
        if self._all_rotations:
            load = dof_wrench[:, :3] - cross(pivots, total)
        else:
            load = np.where(self._rotation, dof_wrench[:, :3] - cross(pivots, total), total)
        result: FloatArray = (axes * load).sum(axis=1)
        return result

    def rows(self, vectors: FloatArray, axes: FloatArray, pivots: FloatArray) -> FloatArray:
        """J's rows before the chains' mask: shape (n_v, 3k), k the stacked vectors.

        Row e of J for DOF j is ``u_j × (r_e − q_j) = u_j × r_e + q_j × u_j`` for a
        rotation and ``u_j`` for a translation (an axis row: ``u_j × x_e``); as row
        vectors ``u × r = u [r]×``, so all of J is one product with the stacked skew
        matrices of ``vectors``: the m effector points first, then any axes.
        """
        m3 = 3 * self.moves.shape[1]
        if self._all_rotations:
            spin, shift = axes, cross(pivots, axes)
        else:
            spin = axes * self._rotation
            shift = np.where(self._rotation, cross(pivots, axes), axes)
        rows: FloatArray = spin @ skews(vectors)
        rows[:, :m3] += np.tile(shift, m3 // 3)
        return rows

    def factor(
        self, vectors: FloatArray, axes: FloatArray, pivots: FloatArray, weights: FloatArray
    ) -> FloatArray:
        """``J · diag(√weights)`` over each effector's point (and axes), shape (n_v, 3k).

        Args:
            vectors: The m effector points, then any axes, shape (k, 3).
            axes: Each variable's world axis, shape (n_v, 3).
            pivots: Each variable's world pivot, shape (n_v, 3).
            weights: √(weight × curvature) of each effector's point (and axes), shape
                (k // m, m): one row per block of ``vectors``.
        """
        compiled = kernel.active()
        if compiled is not None:
            return compiled.factor(self.moves, self._rotation_bytes, vectors, weights, axes, pivots)
        m = self.moves.shape[1]
        rows = self.rows(vectors, axes, pivots)
        columns = weights.reshape(-1)
        scale = np.repeat(np.tile(self.moves, columns.size // m) * columns, 3, axis=1)
        result: FloatArray = rows * scale
        return result

    def factored(
        self,
        points: FloatArray,
        x: FloatArray,
        y: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
        factors: FloatArray,
    ) -> FloatArray:
        """``J_e F_e`` of every effector side by side, shape (n_v, 9m).

        J_e is effector e's Jacobian over (δr, δx, δy), shape (n_v, 9), and F_e its
        goal's curvature factor (already scaled by the weight's root), shape (9, 9).
        """
        jacobian = self.jacobians(points, x, y, axes, pivots)
        n, m = jacobian.shape[:2]
        result: FloatArray = np.einsum("nmi,mij->nmj", jacobian, factors).reshape(n, 9 * m)
        return result

    def jacobians(
        self, points: FloatArray, x: FloatArray, y: FloatArray, axes: FloatArray, pivots: FloatArray
    ) -> FloatArray:
        """Each effector's Jacobian over (δr, δx, δy), shape (n_v, m, 9)."""
        m = points.shape[0]
        rows = self.rows(np.concatenate([points, x, y]), axes, pivots)  # [block][effector][xyz]
        n = rows.shape[0]
        jacobian = rows.reshape(n, 3, m, 3).transpose(0, 2, 1, 3).reshape(n, m, 9)
        jacobian *= self.moves[:, :, None]
        result: FloatArray = jacobian
        return result
