"""What solvers derive from a problem's figure and chains alone, made when first asked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray
from .chains import chain_length
from .comfort import Comfort
from .figure import Figure
from .kinematics import Kinematics
from .limits import LinearLimits
from .optimizer.variable_rows import VariableRows
from .parts import Parts
from .reach import Reach

if TYPE_CHECKING:
    from .optimizer.metric import GaussNewtonStep

__all__ = ["Derived"]


@dataclass(slots=True)
class Derived:
    """What solvers derive from a problem's figure and chains alone, made when first asked.

    Goals do not enter it, so the problems :meth:`Problem.with_goals
    <solver.Problem.with_goals>` and :meth:`Problem.with_member
    <solver.Problem.with_member>` make share one (the events of a drag build it once),
    as do problems built apart on one figure with the same chains and effectors
    (:meth:`Figure.shared <solver.Figure.shared>`).

    Attributes:
        moving_limits: :attr:`Problem.moving_limits <solver.Problem.moving_limits>`.
        chain_lengths: :attr:`Problem.chain_lengths <solver.Problem.chain_lengths>`.
        longest_chain: :attr:`Problem.longest_chain <solver.Problem.longest_chain>`.
        reach: :attr:`Problem.reach <solver.Problem.reach>`.
        variable_rows: The limit rows over the variables, scaled (:mod:`.optimizer.space`).
        free_rotations: :attr:`Problem.free_rotations <solver.Problem.free_rotations>`, and
            their indices.
        variable_bounds: The variables' lower and upper bounds (:meth:`bounds_of`).
        objective_plan: What the kernel's objective reads of the figure, effectors and
            variables (:meth:`plan`).
        quick_step: The kernel's Gauss–Newton iterations the last quick path ran
            (:meth:`Scaled.gauss_newton_step <solver.methods.base.Scaled.gauss_newton_step>`),
            its arrays rewritten in place by the next one, or None.
        comfort_masses: The last comfort aim's masses over the variables (its m_j, which
            depend on the comfort, the variables and the longest chain alone), with that
            comfort and the largest of them, or None.
    """

    moving_limits: LinearLimits | None = None
    chain_lengths: FloatArray | None = None
    longest_chain: float | None = None
    reach: Reach | None = None
    variable_rows: VariableRows | None = None
    free_rotations: tuple[BoolArray, IntArray] | None = None
    variable_bounds: tuple[FloatArray, FloatArray] | None = None
    objective_plan: kernel.ObjectivePlan | None = None
    quick_step: GaussNewtonStep | None = None
    comfort_masses: tuple[Comfort, FloatArray, float] | None = None

    def limits_held(self, limits: LinearLimits, variable_mask: BoolArray) -> LinearLimits:
        """:attr:`moving_limits`: ``limits``' rows on some variable DOF, made when first asked."""
        if self.moving_limits is None:
            self.moving_limits = limits.touching(variable_mask)
        return self.moving_limits

    def lengths(
        self, kinematics: Kinematics, parts: Parts, paths: Sequence[Sequence[int]]
    ) -> FloatArray:
        """:attr:`chain_lengths` at the zero pose (:func:`.chains.chain_length`), made once.

        Args:
            kinematics: The figure's kinematics.
            parts: The effectors' parts.
            paths: Each leaf's chain, its segments from the effector's up.
        """
        if self.chain_lengths is None:
            world = kinematics.world(np.zeros(kinematics.n_dofs))
            points = parts.states(world, kinematics.scaled)[0]
            pairs = zip(paths, points, strict=True)
            lengths = np.array([chain_length(world, p, r) for p, r in pairs], dtype=float)
            if lengths.size and not (lengths > 0.0).all():  # a goal on its chain's first joint
                places = np.concatenate((world[:, :3, 3], np.reshape(points, (-1, 3))))
                lengths[~(lengths > 0.0)] = float(np.ptp(places, axis=0).max())
            self.chain_lengths = lengths
            self.longest_chain = float(lengths.max(initial=0.0))
        return self.chain_lengths

    def bounds_of(self, figure: Figure, variables: IntArray) -> tuple[FloatArray, FloatArray]:
        """:attr:`variable_bounds`: ``figure``'s bounds on ``variables``, made when first asked."""
        if self.variable_bounds is None:
            self.variable_bounds = figure.lower[variables], figure.upper[variables]
        return self.variable_bounds

    def reach_of(
        self, figure: Figure, variable_mask: BoolArray, segments: IntArray, local: FloatArray
    ) -> Reach:
        """:attr:`reach` of the effectors on ``segments`` at ``local``, made when first asked."""
        if self.reach is None:
            self.reach = Reach(figure, variable_mask, segments, local)
        return self.reach

    def plan(
        self,
        kinematics: Kinematics,
        tree: kernel.GradientTree,
        local: FloatArray,
        variables: IntArray,
        leaves: tuple[FloatArray, IntArray, BoolArray] | None = None,
    ) -> kernel.ObjectivePlan:
        """:attr:`objective_plan`, made from the figure's kinematics when first asked.

        Args:
            kinematics: The figure's kinematics.
            tree: The Jacobian's tree (:attr:`Jacobian.tree <solver.jacobian.Jacobian.tree>`).
            local: The effectors' parts in their segments' frames (:attr:`.parts.Parts.local`).
            variables: The variables' indices in θ.
            leaves: The leaves' parts where some leaf is a centre of mass
                (:meth:`kernel.ObjectivePlan.of`), else None.
        """
        if self.objective_plan is None:
            self.objective_plan = kernel.ObjectivePlan.of(
                kinematics.kernel_tree, tree, local, kinematics.scaled, variables, leaves
            )
        return self.objective_plan

    def moved(self, figure: Figure, motion: FloatArray, scale: float) -> Derived:
        """What is derived for ``figure``, this one's figure moved by ``motion`` as a whole.

        What depends on joint space alone (the limits a solve holds, their rows over
        the variables, the free rotations) is shared; the chains' lengths are scaled by
        the motion's ``scale``, the reach proofs keep their chains
        (:meth:`.reach.Reach.on`) and the kernel's plan its descents (and the quick
        path's step, which a solve renews onto the moved plan).
        """
        lengths, longest = self.chain_lengths, None
        if lengths is not None:  # a similarity scales every distance alike
            lengths = lengths * scale
            longest = float(lengths.max(initial=0.0))
        kinematics = figure.kinematics
        plan = self.objective_plan
        return Derived(
            moving_limits=self.moving_limits,
            chain_lengths=lengths,
            longest_chain=longest,
            reach=None if self.reach is None else self.reach.on(figure, motion, scale),
            variable_rows=self.variable_rows,
            free_rotations=self.free_rotations,
            variable_bounds=self.variable_bounds,
            objective_plan=None
            if plan is None
            else plan.moved(kinematics.kernel_tree, kinematics.scaled),
            # the quick path's step renews itself onto the moved plan where it fits; the
            # masses depend on the chains' lengths, the same where nothing scales
            quick_step=self.quick_step,
            comfort_masses=self.comfort_masses if scale == 1.0 else None,
        )
