"""How the variable DOFs move the effectors: the chain rule behind G_all's derivatives.

:class:`solver.Problem` evaluates the goals at the effectors; this turns what the goals
return (each effector's force and torque, its curvature weights or factors) into
derivatives by the DOFs. A rotation about unit axis u through pivot q moves point r by
``u × (r − q)`` and turns axis x by ``u × x``; a translation moves points by u and
turns nothing. ``moves[j, e]`` is 1 when DOF j lies on effector e's chain, else 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray
from .vectors import cross, skews

__all__ = ["Jacobian"]


@dataclass(frozen=True)
class _TreeWalk:
    """Index arrays of the numpy Hessian product (:meth:`Jacobian.hessian_product`).

    Attributes:
        segments: The tree's segment count S (index S is the world).
        jumps: Pointer doubling's ancestor maps, 2ᵏ segments up, each (S + 1,).
        own_segments: The segments holding variables, ascending.
        starts: The first variable of each of them.
        first: Per variable, the first variable of its segment.
        above: Per variable, its segment's parent (S for a root).
        part_segment: Per part, its segment.
    """

    segments: int
    jumps: tuple[IntArray, ...]
    own_segments: IntArray
    starts: IntArray
    first: IntArray
    above: IntArray
    part_segment: IntArray


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
        self._layout = None if tree is None else (tree[0], tree[1], tree[2])
        self._tree_walk: _TreeWalk | None = None

    @property
    def tree(self) -> kernel.GradientTree | None:
        """The variables' and parts' layout over the tree as the kernel reads it, if given."""
        return self._tree

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
        load = self._loads(points, force, torque, coefficient, pivots)[1]
        result: FloatArray = (axes * load).sum(axis=1)
        return result

    def _loads(
        self,
        points: FloatArray,
        force: FloatArray,
        torque: FloatArray | None,
        coefficient: FloatArray,
        pivots: FloatArray,
    ) -> tuple[FloatArray, FloatArray]:
        """Each variable's summed wrench (M, F), (n_v, 6), and its load: M − q × F or F.

        The arguments are :meth:`gradient`'s; the derivative is the axis against the load.
        """
        wrench = np.empty((points.shape[0], 6))
        moment = cross(points, force)
        if torque is not None:
            moment += torque
        wrench[:, :3] = moment
        wrench[:, 3:] = force
        wrench *= coefficient[:, None]
        dof_wrench: FloatArray = self.moves @ wrench
        total = dof_wrench[:, 3:]
        if self._all_rotations:
            load = dof_wrench[:, :3] - cross(pivots, total)
        else:
            load = np.where(self._rotation, dof_wrench[:, :3] - cross(pivots, total), total)
        return dof_wrench, load

    def _twists(self, axes: FloatArray, pivots: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Each variable's twist: spin u and shift q × u for a rotation, 0 and u for a slide."""
        if self._all_rotations:
            return axes, cross(pivots, axes)
        spin: FloatArray = axes * self._rotation
        return spin, np.where(self._rotation, cross(pivots, axes), axes)

    def hessian_product(
        self,
        points: FloatArray,
        x: FloatArray,
        y: FloatArray,
        goal_gradients: tuple[FloatArray, FloatArray, FloatArray],
        hessians: FloatArray,
        coefficient: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> Callable[[FloatArray], FloatArray] | None:
        """The map v ↦ ∇²G v over the variables at one pose, exact; None without the tree.

        The derivative of :meth:`gradient` along θ + t v. Moving with velocity v, each
        variable's twist (ω = u, q × u for a rotation; 0, u for a translation) moves
        every frame below it: a part's point, axes and the variables below turn with
        the summed angular velocity Ω of the variables above them and shift by the
        summed Λ (``ṙ = Ω × r + Λ``). The goals' gradients change by their Hessians
        applied to (ṙ, ẋ, ẏ) (:meth:`solver.goals.Goal.stack_hessian`), the wrenches
        with them, and each variable's derivative ``u · (M − q × F)`` (``u · F`` for a
        translation) by ``u̇ · (M − q × F) + u · (Ṁ − q̇ × F − q × Ḟ)``.

        Args:
            points: Part points, (m, 3); each part is one effector.
            x: Their x axes, (m, 3).
            y: Their y axes, (m, 3).
            goal_gradients: ∂P/∂r, ∂P/∂x, ∂P/∂y of each part's goal, (m, 3) each.
            hessians: Each goal's Hessian over (r, x, y), (m, 9, 9).
            coefficient: Each part's weight in G, (m,).
            axes: Each variable's world axis, (n_v, 3).
            pivots: Each variable's world pivot, (n_v, 3).
        """
        if self._layout is None:
            return None
        d_point, d_x, d_y = goal_gradients
        compiled = kernel.active()
        if compiled is not None and self._tree is not None:
            return compiled.hessian_tree(
                self._tree, points, x, y, d_point, d_x, d_y, coefficient, hessians, axes, pivots
            )
        walk = self._walk()
        rotation = self._rotation
        twist = np.hstack(self._twists(axes, pivots))
        torque = cross(x, d_x) + cross(y, d_y)
        felt, load = self._loads(points, d_point, torque, coefficient, pivots)
        total = felt[:, 3:]
        # u̇ · L − u · (q̇ × F) with u̇ = Ω × u, q̇ = Ω × q + Λ is Ω · a + Λ · b; u · (Ṁ − q × Ḟ)
        # (u · Ḟ for a translation) is the variable's twist against (Ṁ, Ḟ).
        turned = cross(total, axes)
        a = cross(axes, load) - np.where(rotation, cross(pivots, turned), 0.0)
        b = np.where(rotation, -turned, 0.0)
        weights = np.hstack([a, b])

        def product(direction: FloatArray) -> FloatArray:
            moving = direction[:, None] * twist
            after = np.zeros((walk.segments + 1, 6))  # each segment's twist, then the world's
            after[walk.own_segments] = np.add.reduceat(moving, walk.starts, axis=0)
            for jump in walk.jumps:  # summed over the ancestors by pointer doubling
                after = after + after[jump]
            # the twist of the variables above each one: its parent segment's, then its
            # own segment's earlier variables
            running = np.cumsum(moving, axis=0) - moving
            before = after[walk.above] + running - running[walk.first]
            velocity = after[walk.part_segment]
            spin = velocity[:, :3]
            d_r = cross(spin, points) + velocity[:, 3:]
            d_xa, d_ya = cross(spin, x), cross(spin, y)
            change = np.einsum("mij,mj->mi", hessians, np.hstack([d_r, d_xa, d_ya]))
            force = change[:, :3]
            turn = (
                cross(d_xa, d_x)
                + cross(x, change[:, 3:6])
                + cross(d_ya, d_y)
                + cross(y, change[:, 6:])
                + cross(d_r, d_point)
                + cross(points, force)
            )
            felt_change = self.moves @ (np.hstack([turn, force]) * coefficient[:, None])
            result: FloatArray = (before * weights).sum(axis=1) + (twist * felt_change).sum(axis=1)
            return result

        return product

    def _walk(self) -> _TreeWalk:
        """The tree's index arrays the numpy Hessian product walks, made once."""
        if self._tree_walk is None:
            assert self._layout is not None
            parent, variable_segment, part_segment = self._layout
            segments = len(parent)
            # the ancestor maps of pointer doubling: 2ᵏ segments up, the world (S) above all
            jump = np.append(np.where(parent < 0, segments, parent), segments)
            jumps = []
            while np.any(jump[:segments] != segments):
                jumps.append(jump)
                jump = jump[jump]
            own_segments, starts = np.unique(variable_segment, return_index=True)
            self._tree_walk = _TreeWalk(
                segments=segments,
                jumps=tuple(jumps),
                own_segments=own_segments,
                starts=starts,
                # A figure numbers its DOFs segment by segment, so a segment's variables
                # are consecutive: the first of each one's segment.
                first=np.searchsorted(variable_segment, variable_segment),
                above=np.where(parent < 0, segments, parent)[variable_segment],
                part_segment=part_segment,
            )
        return self._tree_walk

    def rows(self, vectors: FloatArray, axes: FloatArray, pivots: FloatArray) -> FloatArray:
        """J's rows before the chains' mask: shape (n_v, 3k), k the stacked vectors.

        Row e of J for DOF j is ``u_j × (r_e − q_j) = u_j × r_e + q_j × u_j`` for a
        rotation and ``u_j`` for a translation (an axis row: ``u_j × x_e``); as row
        vectors ``u × r = u [r]×``, so all of J is one product with the stacked skew
        matrices of ``vectors``: the m effector points first, then any axes.
        """
        m3 = 3 * self.moves.shape[1]
        spin, shift = self._twists(axes, pivots)
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

    def gathered(
        self,
        points: FloatArray,
        sums: FloatArray,
        back: IntArray,
        first: IntArray,
        turning: IntArray,
        x: FloatArray,
        y: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> FloatArray:
        """Each leaf's Jacobian over (δr, δx, δy) from its parts' points, shape (n_v, m, 9).

        A leaf's point is ``Σ sₖ rₖ`` over its parts, so its row for a DOF of twist (u, w)
        is ``Σ sₖ mₖ (u × rₖ + w) = u × (Σ sₖ mₖ rₖ) + (Σ sₖ mₖ) w`` (mₖ whether the DOF
        moves part k): two products with the shares, whatever the number of parts, where
        :meth:`jacobians` of every part and their sum would cost nine columns a part;
        leaves of the same parts (goals on one centre of mass) share one. The axes of the
        ``turning`` leaves turn as their first part's (``u × x``); the others' are the
        world's.

        Args:
            points: Each part's world point, shape (K, 3).
            sums: The distinct rows of the parts' shares by leaf (:attr:`.parts.Parts.sums`),
                shape (d, K).
            back: Each leaf's row of ``sums``, shape (m,).
            first: Each leaf's first part, shape (m,).
            turning: The leaves whose axes turn with them, shape (t,).
            x: Each of those leaves' x axis, shape (t, 3).
            y: Its y axis, shape (t, 3).
            axes: Each variable's world axis, shape (n_v, 3).
            pivots: Each variable's world pivot, shape (n_v, 3).
        """
        spin, shift = self._twists(axes, pivots)
        n, d = self.moves.shape[0], sums.shape[0]
        weighted = (sums[:, :, None] * points[None, :, :]).transpose(1, 0, 2)  # (K, d, 3)
        centres = (self.moves @ weighted.reshape(len(points), 3 * d)).reshape(n * d, 3)
        share = self.moves @ sums.T  # Σ sₖ mₖ, (n, d)
        spun = np.repeat(spin, d, axis=0)
        rows = cross(spun, centres).reshape(n, d, 3) + share[:, :, None] * shift[:, None, :]
        result = np.zeros((n, back.shape[0], 9))
        result[:, :, :3] = rows[:, back]
        if turning.size:
            t = turning.shape[0]
            moved = self.moves[:, first[turning]].reshape(n * t, 1)
            spun = np.repeat(spin, t, axis=0)
            for column, axis in ((3, x), (6, y)):
                turned = cross(spun, np.tile(axis, (n, 1))) * moved
                result[:, turning, column : column + 3] = turned.reshape(n, t, 3)
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
