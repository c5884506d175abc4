"""A figure with constraints: the objective G_all(θ), its gradient and its curvature.

G_all is the weighted sum of the constraints' potentials (Zhao & Badler 1994). The
objective, the gradient and the Gauss–Newton curvature stay in one class, a little over
350 lines: all three read the same cached pose, stacked goals and chain masks, and
splitting them would pass those private arrays between modules. Chains live in
:mod:`.chains`, the goals' batched evaluation in :mod:`.goals.stacked`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_scalar
from .chains import Term, chain_length, chains, flatten
from .constraint import AnyOf, Constraint
from .exceptions import SolverInputError
from .figure import Figure
from .goals.base import Goal
from .goals.orientation import PositionOrientation
from .goals.position import Position
from .goals.stacked import StackedGoals
from .limits import LinearLimits
from .reach import ReachChains, pin_balls, reach_balls
from .vectors import cross, skews

__all__ = ["Problem"]


class Problem:
    """Minimise ``G_all(θ) = Σ w_i G_i(θ)`` over a figure's DOFs within its limits.

    The variables are the union of all constraints' chains (chain reconciliation,
    Zhao & Badler 1994, §10), less DOFs locked by rigidity 1; every variable DOF that
    moves an effector enters that constraint's gradient. Other DOFs stay fixed.

    Args:
        figure: The figure.
        constraints: Constraints and :class:`AnyOf` sets, at least one.

    Raises:
        SolverInputError: For an empty list, an item of the wrong type, an effector on an
            unknown segment, or a chain start that is not the effector's segment or one
            of its ancestors.
    """

    def __init__(self, figure: Figure, constraints: Sequence[Constraint | AnyOf]) -> None:
        if not isinstance(figure, Figure):
            raise SolverInputError(f"Problem needs a solver.Figure, got {type(figure).__name__}")
        if isinstance(constraints, (Constraint, AnyOf)) or not isinstance(constraints, Sequence):
            raise SolverInputError(
                "Problem needs a list of constraints (solver.Constraint or solver.AnyOf), got "
                f"{type(constraints).__name__}; wrap a single constraint in a list"
            )
        items = list(constraints)
        if not items:
            raise SolverInputError("Problem needs at least one constraint; the list is empty")
        self.figure = figure
        self.kinematics = figure.kinematics
        self.limits = figure.limits
        self.memo: dict[str, object] = {}
        """What solvers derive from the figure and chains alone, kept by :meth:`with_goals`."""
        self._version = figure.version
        leaves, terms = flatten(items)
        self.constraints = tuple(items)
        self.leaves = leaves
        self.terms = terms
        paths, chain_mask = chains(figure, leaves)
        self._paths = tuple(paths)
        self._chain_lengths: FloatArray | None = None
        locked = np.array([dof.locked for dof in figure.dofs], dtype=bool)
        self.variable_mask = chain_mask.any(axis=0) & ~locked
        self.variables = np.flatnonzero(self.variable_mask)
        self.chains = chain_mask
        self.effector_segments = np.array([path[0] for path in paths], np.intp)
        local = np.zeros((len(leaves), 4, 3))
        for i, leaf in enumerate(leaves):
            local[i, :3, 0] = leaf.effector.point
            local[i, 3, 0] = 1.0
            local[i, :3, 1] = leaf.effector.x_axis
            local[i, :3, 2] = leaf.effector.y_axis
        self._local = local
        self._weights = np.array([c.weight for c in leaves])
        moves = self.kinematics.moves[np.ix_(self.effector_segments, self.variables)]
        self._moves_variables = np.ascontiguousarray(moves.T, dtype=np.float64)
        self._plain = all(not t.disjunctive for t in terms)
        self._set_goals()
        self._last_pose: (
            tuple[FloatArray, tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]]
            | None
        ) = None
        self._variable_rotation = self.kinematics.dof_rotation[self.variables][:, None]
        self._all_rotations = bool(np.all(self._variable_rotation))

    @property
    def moving_limits(self) -> LinearLimits:
        """The limits a solve holds: the figure's rows on some variable DOF.

        Rows on fixed DOFs alone are constants to every solve of this problem, which
        neither checks them at the start pose nor reports them: a bone outside every
        chain, posed outside its limits, does not stop the others from being solved.
        """
        limits = self.memo.get("moving_limits")
        if not isinstance(limits, LinearLimits):
            limits = self.limits.touching(self.variable_mask)
            self.memo["moving_limits"] = limits
        return limits

    @property
    def chain_lengths(self) -> FloatArray:
        """Length of each leaf constraint's chain at the zero pose, shape (m,).

        The sum of the distances from the chain's first joint through the joints of
        its segments to the effector point: the limb length that goal errors are
        measured against.
        """
        if self._chain_lengths is None:
            world = self.kinematics.frames(np.zeros(self.figure.n_dofs)).world
            points = self._states(world)[0]
            pairs = zip(self._paths, points, strict=True)
            self._chain_lengths = np.array([chain_length(world, p, r) for p, r in pairs])
        return self._chain_lengths

    def goal_tolerance(self, relative: float) -> float:
        """The G_all below which every goal is met to ``relative`` × its chain length.

        ``G_all ≤ τ`` with ``τ = min_i c_i (relative · L_i)²`` (c_i the leaf's weight
        in G_all, L_i its :attr:`chain_lengths`) bounds every weighted potential by τ,
        so a position goal's distance is at most ``relative · L_i``; orientation
        potentials are bounded alike in their commensurate length units.

        Args:
            relative: The fraction of the chain length, ≥ 0.

        Returns:
            τ ≥ 0, for ``solve(goal_tolerance=...)``.
        """
        fraction = finite_scalar(relative, "goal_tolerance: relative")
        if fraction < 0.0:
            raise SolverInputError(f"goal_tolerance: relative must be ≥ 0, got {fraction}")
        weights = np.empty(len(self.leaves))
        for term in self.terms:
            for member in term.members:
                scale = term.weight if term.disjunctive else 1.0
                weights[member] = scale * self._weights[member]
        positive = weights > 0.0
        if not np.any(positive):
            return 0.0
        sizes = weights[positive] * (fraction * self.chain_lengths[positive]) ** 2
        return float(sizes.min())

    def with_goals(self, replacements: Mapping[int, Goal]) -> Problem:
        """The same problem with some leaves' goals replaced (say, goals being dragged).

        Everything that depends only on the figure, effectors and chains (variables,
        chains, chain lengths) is shared; only the goals are restacked, so this costs a
        fraction of building a new :class:`Problem`.

        Args:
            replacements: New goal by leaf index (position in :attr:`leaves`).

        Raises:
            SolverInputError: For an unknown leaf index or a value that is not a goal.
        """
        leaves = list(self.leaves)
        for index, goal in replacements.items():
            if not isinstance(index, (int, np.integer)) or not 0 <= index < len(leaves):
                raise SolverInputError(
                    f"with_goals: leaf index {index!r} is not in 0..{len(leaves) - 1}"
                )
            old = leaves[index]
            leaves[index] = Constraint(
                old.effector,
                goal,
                old.weight,
                old.chain_start,
                old.priority,
                pinned=old.pinned,
                name=old.name,
            )
        constraints: list[Constraint | AnyOf] = []
        for term, item in zip(self.terms, self.constraints, strict=True):
            if isinstance(item, AnyOf):
                members = [leaves[k] for k in term.members]
                constraints.append(AnyOf(members, item.weight, name=item.name))
            else:
                constraints.append(leaves[term.members[0]])
        other = copy.copy(self)
        other.constraints = tuple(constraints)
        other.leaves = tuple(leaves)
        other._set_goals()
        return other

    def with_member(self, term: int, member: int) -> Problem:
        """The same problem with disjunctive term ``term`` held to one of its members.

        That term becomes ``weight · w_member G_member`` (no longer the smallest of its
        members): a descent on it heads for that member's goal however far the others
        pull. Its G_all is never below this problem's at the same pose. Variables,
        chains and limits are shared.

        Args:
            term: Index into :attr:`terms` of an AnyOf.
            member: Index into :attr:`leaves` of one of that term's members.

        Raises:
            SolverInputError: For a term that is not an AnyOf or a leaf not among its
                members.
        """
        if not 0 <= term < len(self.terms) or not self.terms[term].disjunctive:
            raise SolverInputError(f"with_member: term {term!r} is not an AnyOf set")
        held = self.terms[term]
        if member not in held.members:
            raise SolverInputError(
                f"with_member: leaf {member!r} is not a member of term {term} {held.members}"
            )
        terms = list(self.terms)
        terms[term] = Term(held.weight, (member,), True)
        other = copy.copy(self)
        other.terms = tuple(terms)
        return other

    def chosen_members(self, theta: FloatArray) -> dict[int, int]:
        """Each AnyOf term's member that counts at ``theta`` (its least weighted G_j)."""
        weighted = self._weights * self.potentials(theta)
        return {
            t: term.members[int(np.argmin(weighted[list(term.members)]))]
            for t, term in enumerate(self.terms)
            if term.disjunctive
        }

    def _set_goals(self) -> None:
        self._goals = StackedGoals([c.goal for c in self.leaves])

    @property
    def n_dofs(self) -> int:
        """Length of θ."""
        return self.figure.n_dofs

    def check_current(self) -> None:
        """Raise if the figure changed after this problem was built.

        Raises:
            SolverInputError: If segments or limits were added since.
        """
        if self.figure.version != self._version:
            raise SolverInputError(
                "the figure changed after this Problem was built; build a new Problem"
            )

    def objective(self, theta: ArrayLike) -> tuple[float, FloatArray]:
        """G_all and its gradient.

        Args:
            theta: Joint values, shape (n_dofs,).

        Returns:
            ``(value, gradient)``; the gradient has shape (n_dofs,), with the true
            partial derivative for every variable DOF and 0 for fixed DOFs.

        Raises:
            SolverInputError: If ``theta`` has the wrong length or holds NaN.
        """
        self.check_current()
        return self.evaluate(self.figure.check_theta(theta))

    def effector_states(self, theta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """World points and unit axes of all leaf effectors, each shape (m, 3)."""
        return self._states(self.kinematics.frames(theta).world)

    def _states(self, world: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        columns = world[self.effector_segments] @ self._local
        points = columns[:, :3, 0]
        x = columns[:, :3, 1]
        y = columns[:, :3, 2]
        if self.kinematics.scaled:
            x = x / np.sqrt((x * x).sum(axis=1))[:, None]
            y = y / np.sqrt((y * y).sum(axis=1))[:, None]
        return points, x, y

    def potentials(self, theta: FloatArray) -> FloatArray:
        """Unweighted potentials G_i of the leaf constraints, shape (m,)."""
        points, x, y = self._pose(np.asarray(theta, dtype=np.float64))[:3]
        return self._goals(points, x, y)[0]

    def reach_margins(self, theta: ArrayLike, *, pins: bool = True) -> tuple[float, ...]:
        """Per constraint, how far its target lies inside (+) or outside (−) its reach.

        Each effector point stays within a ball about its chain's fixed pivot, and,
        given the pins (:func:`solver.pin`), within a ball about each pin's target on
        its chain (see :mod:`.reach`); the margin is how deep the goal's target set
        enters the smallest of those balls, in length units. A negative margin proves
        the constraint cannot be met from any pose (that holds the pins); a positive one
        does not promise that it can (joint limits are not counted). Goals with no
        positional target (orientation, aim) get +inf; an :class:`AnyOf` gets the
        largest margin of its members.

        Args:
            theta: Joint values, shape (n_dofs,): fixed DOFs place the pivots.
            pins: Count the pins (False: the chains alone).

        Raises:
            SolverInputError: If ``theta`` has the wrong length or holds NaN.
        """
        margins = self.leaf_reach_margins(self.figure.check_theta(theta), pins=pins)
        return tuple(float(margins[list(term.members)].max()) for term in self.terms)

    def leaf_reach_margins(self, theta: FloatArray, *, pins: bool = True) -> FloatArray:
        """:meth:`reach_margins` per leaf constraint, unchecked, shape (m,)."""
        chains, world, points = self._reach_pose(theta)
        centres, radii = reach_balls(self.figure, chains, world, points)
        pairs = zip(self.leaves, centres, radii, strict=True)
        margins = np.array([leaf.goal.reach_margin(c, r) for leaf, c, r in pairs])
        targets: dict[int, FloatArray] = {}
        for j, leaf in enumerate(self.leaves if pins else ()):
            goal = leaf.goal
            positional = isinstance(goal, Position) or (
                isinstance(goal, PositionOrientation) and goal.w_position > 0
            )
            if leaf.pinned and positional:
                targets[j] = goal.point  # type: ignore[attr-defined]
        balls = pin_balls(self.figure, chains, world, points, self.effector_segments, targets)
        for i, centre, radius in balls:
            margins[i] = min(margins[i], self.leaves[i].goal.reach_margin(centre, radius))
        return margins

    def reach_balls(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The ball each leaf's effector point stays in (:func:`.reach.reach_balls`).

        Only the fixed DOFs of ``theta`` count: the balls are measured with every
        variable translation at 0. The last balls are kept, shared with the problems
        :meth:`with_goals` makes (a drag's events, whose fixed DOFs stay put).
        """
        key = np.asarray(theta, dtype=np.float64)[~self.variable_mask].tobytes()
        kept = self.memo.get("reach_balls")
        if isinstance(kept, tuple) and kept[0] == key:
            return kept[1], kept[2]
        centres, radii = reach_balls(self.figure, *self._reach_pose(theta))
        centres.setflags(write=False)
        radii.setflags(write=False)
        self.memo["reach_balls"] = (key, centres, radii)
        return centres, radii

    def _reach_pose(self, theta: FloatArray) -> tuple[ReachChains, FloatArray, FloatArray]:
        """The balls' chains, world frames and effector points.

        They are measured at ``theta`` with every variable translation at 0.
        """
        chains = self.memo.get("reach")
        if not isinstance(chains, ReachChains):
            chains = ReachChains.build(self.figure, self.variable_mask, self.effector_segments)
            self.memo["reach"] = chains
        posed = np.array(theta, dtype=np.float64)
        posed[self.variables[~self.kinematics.dof_rotation[self.variables]]] = 0.0
        world = self.kinematics.frames(posed).world
        return chains, world, self._states(world)[0]

    def evaluate(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its gradient without input checks; the gradient has length n_dofs."""
        total, partial = self.evaluate_variables(theta)
        gradient = np.zeros(self.figure.n_dofs)
        gradient[self.variables] = partial
        return total, gradient

    def evaluate_variables(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its partial derivatives by the variables only (the solver's hot path).

        Effector e's wrench (moment about the origin ``r_e × ∂P/∂r + torque``, force
        ``∂P/∂r``), summed over the effectors a DOF moves, gives that DOF's derivative:
        ``u · (M − q × F)`` for a rotation about axis u through pivot q, ``u · F`` for a
        translation.

        Returns:
            ``(value, gradient)``, the gradient of shape (len(variables),).
        """
        points, x, y, axes, pivots = self._pose(theta)
        values, d_point, torque = self._goals(points, x, y)
        weighted = self._weights * values
        if self._plain:
            total = float(weighted.sum())
            coefficient = self._weights
        else:
            total, coefficient = self._combine(weighted)
        wrench = np.empty((len(values), 6))
        moment = cross(points, d_point)
        if torque is not None:
            moment += torque
        wrench[:, :3] = moment
        wrench[:, 3:] = d_point
        wrench *= coefficient[:, None]
        dof_wrench = self._moves_variables @ wrench
        force = dof_wrench[:, 3:]
        if self._all_rotations:
            load = dof_wrench[:, :3] - cross(pivots, force)
        else:
            load = np.where(
                self._variable_rotation, dof_wrench[:, :3] - cross(pivots, force), force
            )
        return total, (axes * load).sum(axis=1)

    def gauss_newton(self, theta: FloatArray) -> FloatArray:
        """Gauss–Newton curvature ``Σ_e c_e J_eᵀ diag(κ_e) J_e`` of G_all at ``theta``.

        ``J_e`` stacks the Jacobians of effector e's point and axes over all DOFs, ``κ_e``
        its goal's :meth:`~solver.goals.Goal.curvature` weights and ``c_e`` its weight
        in G_all (for an :class:`AnyOf`, the member that is smallest at ``theta``).

        Returns:
            Shape (n_dofs, n_dofs), positive semi-definite, zero outside the variables.
        """
        n = self.figure.n_dofs
        result = np.zeros((n, n))
        result[np.ix_(self.variables, self.variables)] = self.gauss_newton_variables(theta)
        return result

    def gauss_newton_variables(self, theta: FloatArray) -> FloatArray:
        """:meth:`gauss_newton` restricted to the variables, shape (n_v, n_v)."""
        factor = self.gauss_newton_factor(theta)
        result: FloatArray = factor @ factor.T
        return result

    def gauss_newton_factor(self, theta: FloatArray) -> FloatArray:
        """F with ``F Fᵀ`` = :meth:`gauss_newton_variables`, shape (n_v, k), k ≤ 9m.

        The solver inverts the damped curvature through F (Woodbury's identity) when F
        has fewer columns than rows, at O(n·k²) instead of O(n³).

        Row e of J for DOF j is ``u_j × (r_e − q_j) = u_j × r_e + q_j × u_j`` for a
        rotation and ``u_j`` for a translation (an axis row: ``u_j × x_e``); as row
        vectors ``u × r = u [r]×``, so all of J is one product with the stacked skew
        matrices of the effectors' points (and axes).
        """
        points, x, y, axes, pivots = self._pose(theta)
        if self._plain:
            coefficient = self._weights
        else:
            values = self._goals(points, x, y)[0]
            coefficient = self._combine(self._weights * values)[1]
        m = points.shape[0]
        if self._all_rotations:
            spin, shift = axes, cross(pivots, axes)
        else:
            spin = axes * self._variable_rotation
            shift = np.where(self._variable_rotation, cross(pivots, axes), axes)
        if not self._goals.isotropic:
            return self._gauss_newton_factored(points, x, y, spin, shift, coefficient)
        weights = np.sqrt(coefficient[:, None] * self._goals.curvature)  # (m, 3): point, x, y
        vectors = np.concatenate([points, x, y]) if self._goals.axes_weighted else points
        rows = spin @ skews(vectors)  # (n, 3·m) or (n, 9·m)
        rows[:, : 3 * m] += np.tile(shift, m)
        columns = weights.T[: rows.shape[1] // (3 * m)].reshape(-1)  # per effector block
        scale = np.repeat(np.tile(self._moves_variables, columns.size // m) * columns, 3, axis=1)
        jacobian: FloatArray = rows * scale
        return jacobian

    def _gauss_newton_factored(
        self,
        points: FloatArray,
        x: FloatArray,
        y: FloatArray,
        spin: FloatArray,
        shift: FloatArray,
        coefficient: FloatArray,
    ) -> FloatArray:
        """:meth:`gauss_newton_factor` with each goal's own curvature factor.

        Plane, line, half-space and aim goals weigh some directions of the effector's
        motion and not others (:meth:`solver.goals.Goal.stack_curvature`): J_e of every
        effector over (δr, δx, δy), shape (n_v, 9), times its factor F_e, and
        ``B = Σ_e w_e (J_e F_e)(J_e F_e)ᵀ``: the factor is the columns ``√w_e J_e F_e``.
        """
        m = points.shape[0]
        n = spin.shape[0]
        rows = spin @ skews(np.concatenate([points, x, y]))  # (n, 9m): [block][effector][xyz]
        rows[:, : 3 * m] += np.tile(shift, m)
        jacobian = rows.reshape(n, 3, m, 3).transpose(0, 2, 1, 3).reshape(n, m, 9)
        jacobian *= self._moves_variables[:, :, None]
        factors = self._goals.factors(points, x, y) * np.sqrt(coefficient)[:, None, None]
        weighted: FloatArray = np.einsum("nmi,mij->nmj", jacobian, factors).reshape(n, 9 * m)
        return weighted

    def _pose(
        self, theta: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """Effector points and axes (m, 3 each), variable DOF axes and pivots (n_v, 3 each).

        The last pose is kept: the solver asks for the gradient and the curvature at the
        same point.
        """
        cached = self._last_pose
        if cached is not None and np.array_equal(cached[0], theta):
            return cached[1]
        frames = self.kinematics.frames(theta)
        points, x, y = self._states(frames.world)
        axes, pivots = self.kinematics.dof_axes(frames, self.variables)
        pose = (points, x, y, axes, pivots)
        self._last_pose = (theta.copy(), pose)
        return pose

    def _combine(self, weighted: FloatArray) -> tuple[float, FloatArray]:
        total = 0.0
        coefficient = np.zeros(len(weighted))
        for term in self.terms:
            members = term.members
            if term.disjunctive:
                best = members[int(np.argmin(weighted[list(members)]))]
                total += term.weight * float(weighted[best])
                coefficient[best] = term.weight * self._weights[best]
            else:
                total += float(weighted[members[0]])
                coefficient[members[0]] = self._weights[members[0]]
        return total, coefficient
