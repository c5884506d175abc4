"""A figure with constraints: the objective G_all(θ), its gradient and its curvature.

G_all is the weighted sum of the constraints' potentials (Zhao & Badler 1994). The
problem evaluates the goals at the effectors (:mod:`.goals.stacked`) and hands their
forces to the chain rule (:mod:`.jacobian`); chains and terms are :mod:`.chains`', the
reach proofs :mod:`.reach`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray, finite_scalar
from .chains import Term, chains, combine, constraint_items, effector_frames, flatten, regroup
from .comfort import Comfort, checked_comfort, same_comfort
from .constraint import AnyOf, Constraint
from .curvature import gauss_newton_factor, hessian_product, leaf_jacobians
from .derived import Derived
from .evaluated import Evaluated
from .exceptions import SolverInputError
from .figure import Figure
from .goals.base import Goal
from .goals.stacked import StackedGoals
from .jacobian import Jacobian
from .limits import LinearLimits
from .parts import Parts
from .reach import Reach
from .rotations import linear_scale
from .weighting import Weighting

__all__ = ["Problem"]


class _Comforted(NamedTuple):
    """The problem :meth:`Problem.with_comfort` made last, and its comfort."""

    comfort: Comfort | None
    problem: Problem


def tied_to_fixed(variable: BoolArray, a_eq: FloatArray) -> BoolArray:
    """``variable`` less the DOFs that equalities tie to fixed DOFs alone.

    An equality row with one variable term and some fixed term leaves that DOF no
    freedom: it is fixed with them, exactly where it is, as a row on fixed DOFs alone
    is a constant of the problem (repeated until no such row is left).
    """
    mask = variable.copy()
    terms = a_eq != 0.0
    if not terms.any():
        return mask
    while True:
        moving = terms & mask
        tied = (moving.sum(axis=1) == 1) & (terms & ~mask).any(axis=1)
        if not tied.any():
            return mask
        mask &= ~moving[tied].any(axis=0)


class Problem:
    """Minimise ``G_all(θ) = Σ w_i G_i(θ)`` over a figure's DOFs within its limits.

    The variables are the union of all constraints' chains (chain reconciliation,
    Zhao & Badler 1994, §10), less DOFs locked by rigidity 1 and DOFs an equality ties
    to fixed DOFs alone (:func:`tied_to_fixed`); every variable DOF that moves an
    effector enters that constraint's gradient. Other DOFs stay fixed.

    Args:
        figure: The figure.
        constraints: Constraints and :class:`AnyOf` sets, at least one.
        comfort: A pull of every free DOF toward a reference pose, below every goal
            (:class:`solver.Comfort`): it never costs a goal anything, and G_all leaves
            it out. The methods that solve by levels honour it
            (:attr:`Method.honours_comfort <solver.methods.base.Method.honours_comfort>`);
            the others leave it out. None: no comfort.

    Raises:
        SolverInputError: For an empty list, an item of the wrong type, an effector on an
            unknown segment, a chain start that is not the effector's segment or one
            of its ancestors, or a comfort that is not a :class:`solver.Comfort` or
            whose reference pose has the wrong length.
    """

    def __init__(
        self,
        figure: Figure,
        constraints: Sequence[Constraint | AnyOf],
        *,
        comfort: Comfort | None = None,
    ) -> None:
        if not isinstance(figure, Figure):
            raise SolverInputError(f"Problem needs a solver.Figure, got {type(figure).__name__}")
        items = constraint_items(constraints)
        self.comfort = checked_comfort(comfort, figure.n_dofs)
        """The aim below every goal, or None (:meth:`with_comfort` gives another)."""
        self.figure = figure
        self.kinematics = figure.kinematics
        self.limits = figure.limits
        self._version = figure.version
        leaves, terms = flatten(items)
        self.constraints = tuple(items)
        self.leaves = leaves
        self.terms = terms
        paths, chain_mask = chains(figure, leaves)
        self._paths = tuple(paths)
        locked = np.array([dof.locked for dof in figure.dofs], dtype=bool)
        self.variable_mask = tied_to_fixed(chain_mask.any(axis=0) & ~locked, self.limits.a_eq)
        self.variables = np.flatnonzero(self.variable_mask)
        # the pose's DOF axes are taken as they come when every DOF is a variable
        self._posed = None if self.variable_mask.all() else self.variables
        self.chains = chain_mask
        self.effector_segments = np.array([path[0] for path in paths], np.intp)
        self._local = effector_frames(leaves)
        self._weights = np.array([c.weight for c in leaves])
        self.parts = Parts.of(figure, leaves, self.effector_segments)
        """The points each effector is made of (:mod:`.parts`): a centre of mass's many."""
        self.derived: Derived = figure.shared(self._layout(), Derived)
        """What solvers derive from the figure and chains alone: shared by every problem on
        the figure with the same chains, effectors and variables (:meth:`_layout`), and by
        :meth:`with_goals`'s."""
        moves = self.kinematics.moves[np.ix_(self.parts.segment, self.variables)]
        tree = (
            self.kinematics.segment_parent,
            self.kinematics.dof_segment[self.variables],
            self.parts.segment,
        )
        self.jacobian = Jacobian(moves.T, self.kinematics.dof_rotation[self.variables], tree)
        """How the variables move the effectors' parts (:mod:`.jacobian`)."""
        self._plain = all(not t.disjunctive for t in terms)
        self._goals = StackedGoals([c.goal for c in leaves])
        # the pose, G_all and its gradient at the last θ asked about (a solve asks again)
        self._evaluated: Evaluated | None = None
        self._weighting: Weighting | None = None  # made when first asked
        # the last goal_tolerance: its fraction, the weighting and lengths it read, τ
        self._tolerance: tuple[float, Weighting, FloatArray, float] | None = None
        self._comforted: _Comforted | None = None

    def _layout(self) -> tuple[object, ...]:
        """What :attr:`derived` is made from besides the figure (the goals are not in it).

        The chains, the effectors' parts and points in their segments, and the variables.
        """
        parts = self.parts
        paths = [np.asarray(path, dtype=np.intp) for path in self._paths]
        arrays = (
            np.array([len(path) for path in paths], dtype=np.intp),
            np.concatenate(paths),
            self.variable_mask,
            self._local,
            parts.segment,
            parts.local,
            parts.sums,
            parts.first,
            parts.massed,
        )
        return tuple((a.shape, a.dtype.str, a.tobytes()) for a in arrays)

    @property
    def moving_limits(self) -> LinearLimits:
        """The limits a solve holds: the figure's rows on some variable DOF.

        Rows on fixed DOFs alone are constants to every solve of this problem, which
        neither checks them at the start pose nor reports them: a bone outside every
        chain, posed outside its limits, does not stop the others from being solved.
        """
        return self.derived.limits_held(self.limits, self.variable_mask)

    @property
    def chain_lengths(self) -> FloatArray:
        """Length of each leaf constraint's chain at the zero pose, shape (m,).

        The sum of the distances from the chain's first joint through the joints of
        its segments to the effector point: the limb length that goal errors are
        measured against. A chain of no length (a goal on its first segment's joint,
        moved by that joint's translation) is measured against the figure's size: the
        largest extent of its joints and effector points along an axis.
        """
        return self.derived.lengths(self.kinematics, self.parts, self._paths)

    @property
    def longest_chain(self) -> float:
        """The longest of :attr:`chain_lengths` (0 without constraints), found with them."""
        derived = self.derived
        if derived.longest_chain is None:
            derived.lengths(self.kinematics, self.parts, self._paths)
        longest = derived.longest_chain
        assert longest is not None  # found with the lengths
        return longest

    @property
    def reach(self) -> Reach:
        """Where each effector can be (:class:`.reach.Reach`): the proofs behind the verdict."""
        segments = self.effector_segments
        return self.derived.reach_of(self.figure, self.variable_mask, segments, self._local)

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
        weighting, lengths, kept = self.weighting, self.chain_lengths, self._tolerance
        if kept is not None and kept[0] == fraction and kept[1] is weighting and kept[2] is lengths:
            return kept[3]  # (a drag's events ask each time: their variants share both)
        tolerance = weighting.tolerance(fraction, lengths)
        self._tolerance = fraction, weighting, lengths, tolerance
        return tolerance

    def smallest_weight(self) -> float:
        """The smallest positive weight a leaf has in G_all (an ``AnyOf``'s times its member's).

        1 for a problem without a positive weight (:func:`.methods.base.weight_scale`).
        """
        return self.weighting.smallest

    @property
    def weighting(self) -> Weighting:
        """The leaves' weights in G_all (:class:`.weighting.Weighting`), made when first asked."""
        if self._weighting is None:
            self._weighting = Weighting.of(self.terms, self._weights)
        return self._weighting

    def _copied(self) -> Problem:
        """A shallow copy, as ``copy.copy`` makes it but faster (a drag makes one an event).

        The copy keeps no problem :meth:`with_comfort` made of this one: the caller
        changes what that problem shares.
        """
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._comforted = None
        return other

    def with_comfort(self, comfort: Comfort | None) -> Problem:
        """The same problem with ``comfort`` as its aim below every goal (None: none).

        Everything else is shared, as :meth:`with_goals` shares it. The last problem
        made is kept: a drag's events, each with a comfort equal in value to the last
        (:func:`solver.comfort.same_comfort`), get that same problem back.

        Raises:
            SolverInputError: For something that is not a :class:`solver.Comfort`, or a
                reference pose of the wrong length.
        """
        checked = checked_comfort(comfort, self.n_dofs)
        if same_comfort(self.comfort, checked):
            return self
        kept = self._comforted
        if kept is not None and same_comfort(kept.comfort, checked):
            return kept.problem
        other = self._copied()
        other.comfort = checked
        self._comforted = _Comforted(checked, other)
        return other

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
        alike = True  # each goal replaced by one of its type
        for index, goal in replacements.items():
            if not isinstance(index, (int, np.integer)) or not 0 <= index < len(leaves):
                raise SolverInputError(
                    f"with_goals: leaf index {index!r} is not in 0..{len(leaves) - 1}"
                )
            alike = alike and type(goal) is type(leaves[index].goal)
            leaves[index] = leaves[index].with_goal(goal)
        other = self._copied()
        other.constraints = regroup(self.terms, self.constraints, leaves)
        other.leaves = tuple(leaves)
        goals = [c.goal for c in leaves]
        other._goals = (
            self._goals.replaced(goals, replacements.keys()) if alike else StackedGoals(goals)
        )
        other._evaluated = None if self._evaluated is None else self._evaluated.pose_only()
        return other

    def on(self, figure: Figure) -> Problem:
        """The same problem on ``figure``, this one's figure moved as a whole.

        ``figure`` is :meth:`Figure.moved <solver.Figure.moved>`'s copy of this
        problem's: the same segments, DOFs and limits. Chains, variables, goals and what
        depends on joint space alone (the limits a solve holds, their rows over the
        variables) are shared; the chains' lengths are scaled by the motion's scale, and
        the reach proofs keep their chains (:meth:`.reach.Reach.on`) and measure their
        balls again.

        Raises:
            SolverInputError: For a figure of other segments or DOFs.
        """
        old = self.figure.segments
        new = figure.segments if isinstance(figure, Figure) else ()
        if len(new) != len(old) or any(
            a is not b and (a.name != b.name or a.dofs != b.dofs)
            for a, b in zip(old, new, strict=True)
        ):
            raise SolverInputError("Problem.on: the figure is not this problem's figure, moved")
        other = self._copied()
        other.figure = figure
        other.kinematics = figure.kinematics
        other._version = figure.version
        motion = self.figure.motion_to(figure)
        other.derived = self.derived.moved(figure, motion, linear_scale(motion[:3, :3]))
        other._evaluated = None
        return other

    @property
    def free_rotations(self) -> BoolArray:
        """Whether each DOF is a variable rotation with no bound and in no limit row.

        Such a rotation turns the figure the same by any whole number of turns
        (:func:`solver.unwound`).
        """
        return self._free_rotations()[0]

    @property
    def free_rotation_indices(self) -> IntArray:
        """The indices of :attr:`free_rotations`' DOFs (made with it, once)."""
        return self._free_rotations()[1]

    def _free_rotations(self) -> tuple[BoolArray, IntArray]:
        if self.derived.free_rotations is None:
            limits, rotation = self.figure.limits, self.kinematics.dof_rotation
            free = self.variable_mask & rotation & ~limits.held
            self.derived.free_rotations = free, np.flatnonzero(free)
        return self.derived.free_rotations

    @property
    def goal_points(self) -> FloatArray | None:
        """Every leaf's goal point (m, 3) when each goal is a :class:`~solver.goals.Position`."""
        return self._goals.targets

    @property
    def weights(self) -> FloatArray:
        """Each leaf's own weight in G_all (an ``AnyOf``'s comes on top), shape (m,)."""
        return self._weights

    def only(self, leaves: IntArray) -> Problem:
        """The same problem with every leaf outside ``leaves`` weighing 0: one priority level.

        Variables, chains and limits are shared, so the level's G_all and its gradient
        are over the same variables as this problem's. Keep an ``AnyOf``'s members
        together (:func:`solver.optimizer.tasks.leaves_by_level` does).

        Args:
            leaves: Indices into :attr:`leaves` of the leaves kept.
        """
        weights = np.zeros_like(self._weights)
        weights[leaves] = self._weights[leaves]
        return self._reweighted(weights)

    def weighed(self, factors: Mapping[int, float]) -> Problem:
        """The same problem with some leaves' weights multiplied, by leaf index.

        Args:
            factors: Factor > 0 by leaf index (position in :attr:`leaves`).
        """
        weights = self._weights.copy()
        for index, factor in factors.items():
            weights[index] *= factor
        return self._reweighted(weights)

    def _reweighted(self, weights: FloatArray) -> Problem:
        """The same problem with each leaf's weight ``weights`` (its pose and G unknown)."""
        other = self._copied()
        other._weights = weights
        other._evaluated = None
        other._weighting = None
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
        other = self._copied()
        other.terms = tuple(terms)
        other._evaluated = None if self._evaluated is None else self._evaluated.pose_only()
        other._weighting = None
        return other

    def chosen_members(self, theta: FloatArray) -> dict[int, int]:
        """Each AnyOf term's member that counts at ``theta`` (its least weighted G_j)."""
        weighted = self._weights * self.potentials(theta)
        return {
            t: term.members[int(np.argmin(weighted[list(term.members)]))]
            for t, term in enumerate(self.terms)
            if term.disjunctive
        }

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
        return self.states_at(self.kinematics.world(theta))

    def states_at(self, world: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:meth:`effector_states` from world frames (:meth:`Kinematics.frames`)."""
        return self.parts.states(world, self.kinematics.scaled)[:3]

    def effector_jacobians(self, theta: FloatArray) -> FloatArray:
        """∂(r, x_e, y_e)/∂θ of every effector over the variables, shape (m, 9, n_v)."""
        return self.effector_motion(theta)[3]

    def effector_motion(
        self, theta: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """:meth:`effector_states` and :meth:`effector_jacobians` from one pose at ``theta``.

        The points and axes are the pose's own (kept for the next call at ``theta``): read,
        not written.
        """
        pose = self._pose(theta)
        jacobians = leaf_jacobians(pose, self.parts, self.jacobian).transpose(1, 2, 0)
        return pose.points, pose.x, pose.y, jacobians

    def potentials(self, theta: FloatArray) -> FloatArray:
        """Unweighted potentials G_i of the leaf constraints, shape (m,)."""
        pose = self._pose(np.asarray(theta, dtype=np.float64))
        return self._goals(pose.points, pose.x, pose.y)[0]

    def potentials_at(self, points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
        """:meth:`potentials` of the effectors placed elsewhere (measured on another model).

        Args:
            points: Each leaf's effector point, shape (m, 3).
            x: Its unit x axis, shape (m, 3).
            y: Its unit y axis, shape (m, 3).
        """
        return self._goals(points, x, y)[0]

    def reach_margins(self, theta: ArrayLike, *, pins: bool = True) -> tuple[float, ...]:
        """Per constraint, how far its target lies inside (+) or outside (−) its reach.

        The margin is how deep the goal's target set enters the smallest ball its
        effector point cannot leave: about its chain's fixed pivot, and, given the pins
        (:func:`solver.pin`), about each pin's target on its chain (:mod:`.reach`). A
        negative margin proves the constraint cannot be met from any pose that holds the
        pins; a positive one promises nothing (joint limits are not counted). Goals with
        no positional target get +inf; an :class:`AnyOf` the largest of its members'.

        Args:
            theta: Joint values, shape (n_dofs,): fixed DOFs place the pivots.
            pins: Count the pins (False: the chains alone).

        Raises:
            SolverInputError: If ``theta`` has the wrong length or holds NaN.
        """
        leaves = self.leaf_reach_margins(self.figure.check_theta(theta), pins=pins)
        return tuple(float(leaves[list(term.members)].max()) for term in self.terms)

    def leaf_reach_margins(self, theta: FloatArray, *, pins: bool = True) -> FloatArray:
        """:meth:`reach_margins` per leaf constraint, unchecked, shape (m,).

        A centre of mass's is +inf: its reach is no ball about a pivot, so nothing is
        proved out of it.
        """
        massed = None if self.parts.single else self.parts.massed
        return self.reach.leaf_margins(theta, self.leaves, massed, pins=pins)

    def evaluate(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its gradient without input checks; the gradient has length n_dofs."""
        total, partial = self.evaluate_variables(theta)
        gradient = np.zeros(self.figure.n_dofs)
        gradient[self.variables] = partial
        return total, gradient

    def evaluate_variables(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """G_all and its partial derivatives by the variables only (the solver's hot path).

        Returns:
            ``(value, gradient)``, the gradient of shape (len(variables),)
            (:meth:`Jacobian.gradient <solver.jacobian.Jacobian.gradient>`).
        """
        last = self._evaluated
        kept = None if last is None or not last.holds(theta) else last.kept()
        if kept is not None:
            return kept
        compiled = self._compiled_objective()
        if compiled is not None:
            # A pose kept without its value (a problem with other goals made it) is
            # evaluated again by the kernel, which is faster than the rest from the pose.
            return self._compiled_value(compiled, theta)
        pose = self._pose(theta)
        values, d_point, torque = self._goals(pose.points, pose.x, pose.y)
        weighted = self._weights * values
        if self._plain:
            total = float(weighted.sum())
            coefficient = self._weights
        else:
            total, coefficient = combine(self.terms, self._weights, weighted)
        force, turn, share = self.parts.spread(d_point, torque, coefficient)
        gradient = self.jacobian.gradient(pose.at, force, turn, share, pose.axes, pose.pivots)
        self._evaluated = pose._replace(value=total, gradient=gradient.copy())
        return total, gradient

    def _compiled_objective(self) -> tuple[kernel.Kernel, kernel.ObjectivePlan] | None:
        """The kernel and this problem's plan when the kernel evaluates G_all itself.

        It does where every goal is a sum of squared distances of the effector's point and
        axes or a plane's or half-space's on its point (:attr:`StackedGoals.compiled
        <solver.goals.stacked.StackedGoals.compiled>`: position, orientation,
        position+orientation, plane and half-space goals), on effectors or centres of
        mass, in terms that are plain sums (no ``AnyOf``), and the kernel runs.
        """
        tree, compiled = self.jacobian.tree, self._goals.compiled
        library = kernel.active() if self._plain and compiled is not None else None
        if library is None or tree is None:
            return None
        parts = self.parts
        leaves = None if parts.single else (parts.sums, parts.first, parts.massed)
        plan = self.derived.plan(self.kinematics, tree, parts.local, self.variables, leaves)
        return library, plan

    def compiled_goals(
        self,
    ) -> (
        tuple[
            kernel.Kernel,
            kernel.ObjectivePlan,
            FloatArray,
            FloatArray,
            FloatArray,
            FloatArray | None,
        ]
        | None
    ):
        """What the kernel reads of a problem's goals, where it evaluates G_all.

        The kernel, the objective's plan, the goals' vectors (v, 3), their weights (v),
        whether each variable moves each part (n_v, parts) and the goals' faces (m, 4) or
        None (:attr:`StackedGoals.compiled
        <solver.goals.stacked.StackedGoals.compiled>`); None where the kernel does not
        evaluate this problem (:meth:`_compiled_objective`).
        """
        compiled = self._compiled_objective()
        goals = self._goals.compiled
        if compiled is None or goals is None:  # (the vectors are there where it is not)
            return None
        weights = self._goals.vector_weights(self._weights)
        return (*compiled, goals[0], weights, self.jacobian.moves, goals[2])

    def _compiled_value(
        self, compiled: tuple[kernel.Kernel, kernel.ObjectivePlan], theta: FloatArray
    ) -> tuple[float, FloatArray]:
        """:meth:`evaluate_variables` by the kernel's objective, in one call; kept as it keeps."""
        library, plan = compiled
        goals = self._goals.compiled
        assert goals is not None  # by _compiled_objective
        weights = self._goals.vector_weights(self._weights)
        total, parts, gradient = library.objective(plan, theta, goals[0], weights, goals[2])
        self.keep_compiled(theta.copy(), total, parts, gradient.copy())
        return total, gradient

    def keep_compiled(
        self, theta: FloatArray, total: float, parts: tuple[FloatArray, ...], gradient: FloatArray
    ) -> None:
        """Keep the kernel's evaluation of this problem at ``theta`` as its own.

        ``total``, ``parts`` and ``gradient``: G_all, the pose and the gradient over the
        variables there, as :meth:`kernel.Kernel.objective` gives them for this problem's
        goals and weights (a descent's last evaluation, say); the arrays are kept as
        they are.
        """
        points, x, y, axes, pivots, at = parts
        self._evaluated = Evaluated(theta, points, x, y, axes, pivots, at, total, gradient)

    def hessian_product(self, theta: FloatArray) -> Callable[[FloatArray], FloatArray] | None:
        """The map v ↦ ∇²G_all v over the variables at ``theta``, or None where none is made.

        Exact to rounding for the kinematics (:meth:`Jacobian.hessian_product
        <solver.jacobian.Jacobian.hessian_product>`) and for the goals whose Hessian is
        written out, to about 1e-10 for the others (central differences). None for an
        :class:`AnyOf`, whose G_all switches between members, and for a centre of mass,
        whose many parts the product does not sum.
        """
        if not (self._plain and self.parts.single):
            return None
        return hessian_product(self._pose(theta), self._goals, self._weights, self.jacobian)

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
        has fewer columns than rows, at O(n·k²) instead of O(n³)
        (:func:`.curvature.gauss_newton_factor`).
        """
        pose = self._pose(theta)
        if self._plain:
            coefficient = self._weights
        else:
            values = self._goals(pose.points, pose.x, pose.y)[0]
            coefficient = combine(self.terms, self._weights, self._weights * values)[1]
        return gauss_newton_factor(pose, self._goals, coefficient, self.parts, self.jacobian)

    def _pose(self, theta: FloatArray) -> Evaluated:
        """The effectors and the variables' axes and pivots at ``theta`` (:class:`.Evaluated`).

        The last pose is kept: the solver asks for the gradient and the curvature at the
        same point.
        """
        last = self._evaluated
        if last is not None and last.holds(theta):
            return last
        world, axes, pivots = self.kinematics.pose(theta, self._posed)
        points, x, y, at = self.parts.states(world, self.kinematics.scaled)
        self._evaluated = Evaluated(theta.copy(), points, x, y, axes, pivots, at)
        return self._evaluated
