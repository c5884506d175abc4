"""A figure with constraints: the objective G_all(θ), its gradient and its curvature.

G_all is the weighted sum of the constraints' potentials (Zhao & Badler 1994). The
problem evaluates the goals at the effectors (:mod:`.goals.stacked`) and hands their
forces to the chain rule (:mod:`.jacobian`); chains and terms are :mod:`.chains`', the
reach proofs :mod:`.reach`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import kernel
from ._checks import BoolArray, FloatArray, IntArray, finite_scalar, same
from .chains import Term, chain_length, chains, combine, flatten, leaf_weights, regroup
from .comfort import Comfort, checked_comfort, same_comfort
from .constraint import AnyOf, Constraint
from .exceptions import SolverInputError
from .figure import Figure
from .goals.base import Goal
from .goals.stacked import StackedGoals
from .jacobian import Jacobian
from .limits import LinearLimits
from .optimizer.variable_rows import VariableRows
from .parts import Parts
from .reach import Reach
from .rotations import linear_scale

__all__ = ["Derived", "Problem"]

_Pose = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]
"""Effector points, x and y axes (m, 3 each); the variables' axes and pivots (n_v, 3 each);
the effectors' parts' points (K, 3; :mod:`.parts`)."""
_Value = tuple[_Pose, StackedGoals, FloatArray, tuple[Term, ...], float, FloatArray]
"""G_all and its gradient at a pose, kept with the goals, weights and terms they are of."""


class _Comforted(NamedTuple):
    """The problem :meth:`Problem.with_comfort` made last, and its comfort."""

    comfort: Comfort | None
    problem: Problem


@dataclass(slots=True)
class Derived:
    """What solvers derive from a problem's figure and chains alone, made when first asked.

    Goals do not enter it, so the problems :meth:`Problem.with_goals` and
    :meth:`Problem.with_member` make share one (the events of a drag build it once).

    Attributes:
        moving_limits: :attr:`Problem.moving_limits`.
        chain_lengths: :attr:`Problem.chain_lengths`.
        reach: :attr:`Problem.reach`.
        variable_rows: The limit rows over the variables, scaled (:mod:`.optimizer.space`).
        free_rotations: :attr:`Problem.free_rotations`.
    """

    moving_limits: LinearLimits | None = None
    chain_lengths: FloatArray | None = None
    reach: Reach | None = None
    variable_rows: VariableRows | None = None
    free_rotations: BoolArray | None = None


class Problem:
    """Minimise ``G_all(θ) = Σ w_i G_i(θ)`` over a figure's DOFs within its limits.

    The variables are the union of all constraints' chains (chain reconciliation,
    Zhao & Badler 1994, §10), less DOFs locked by rigidity 1; every variable DOF that
    moves an effector enters that constraint's gradient. Other DOFs stay fixed.

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
        if isinstance(constraints, (Constraint, AnyOf)) or not isinstance(constraints, Sequence):
            raise SolverInputError(
                "Problem needs a list of constraints (solver.Constraint or solver.AnyOf), got "
                f"{type(constraints).__name__}; wrap a single constraint in a list"
            )
        items = list(constraints)
        if not items:
            raise SolverInputError("Problem needs at least one constraint; the list is empty")
        self.comfort = checked_comfort(comfort, figure.n_dofs)
        """The aim below every goal, or None (:meth:`with_comfort` gives another)."""
        self.figure = figure
        self.kinematics = figure.kinematics
        self.limits = figure.limits
        self.derived = Derived()
        """What solvers derive from the figure and chains alone, shared by :meth:`with_goals`."""
        self._version = figure.version
        leaves, terms = flatten(items)
        self.constraints = tuple(items)
        self.leaves = leaves
        self.terms = terms
        paths, chain_mask = chains(figure, leaves)
        self._paths = tuple(paths)
        locked = np.array([dof.locked for dof in figure.dofs], dtype=bool)
        self.variable_mask = chain_mask.any(axis=0) & ~locked
        self.variables = np.flatnonzero(self.variable_mask)
        # the pose's DOF axes are taken as they come when every DOF is a variable
        self._posed = None if self.variable_mask.all() else self.variables
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
        self.parts = Parts.of(figure, leaves, self.effector_segments)
        """The points each effector is made of (:mod:`.parts`): a centre of mass's many."""
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
        self._last_pose: tuple[FloatArray, _Pose] | None = None
        # G_all and its gradient at the last pose (a solve asks again at its end)
        self._last_value: _Value | None = None
        # what the kernel's objective reads of this figure, effectors and variables
        self._plan: kernel.ObjectivePlan | None = None
        # the last goal_tolerance: its fraction, what it was made of, its value
        self._tolerance: tuple[float, FloatArray, FloatArray, tuple[Term, ...], float] | None
        self._tolerance = None
        # the last smallest_weight: what it was made of, its value
        self._smallest: tuple[FloatArray, tuple[Term, ...], float] | None = None
        self._comforted: _Comforted | None = None

    @property
    def moving_limits(self) -> LinearLimits:
        """The limits a solve holds: the figure's rows on some variable DOF.

        Rows on fixed DOFs alone are constants to every solve of this problem, which
        neither checks them at the start pose nor reports them: a bone outside every
        chain, posed outside its limits, does not stop the others from being solved.
        """
        if self.derived.moving_limits is None:
            self.derived.moving_limits = self.limits.touching(self.variable_mask)
        return self.derived.moving_limits

    @property
    def chain_lengths(self) -> FloatArray:
        """Length of each leaf constraint's chain at the zero pose, shape (m,).

        The sum of the distances from the chain's first joint through the joints of
        its segments to the effector point: the limb length that goal errors are
        measured against.
        """
        if self.derived.chain_lengths is None:
            world = self.kinematics.world(np.zeros(self.figure.n_dofs))
            points = self.states_at(world)[0]
            pairs = zip(self._paths, points, strict=True)
            self.derived.chain_lengths = np.array([chain_length(world, p, r) for p, r in pairs])
        return self.derived.chain_lengths

    @property
    def reach(self) -> Reach:
        """Where each effector can be (:class:`.reach.Reach`): the proofs behind the verdict."""
        if self.derived.reach is None:
            self.derived.reach = Reach(
                self.figure, self.variable_mask, self.effector_segments, self._local
            )
        return self.derived.reach

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
        lengths, kept = self.chain_lengths, self._tolerance
        if (
            kept is not None
            and kept[0] == fraction
            and kept[1] is self._weights
            and kept[2] is lengths
            and kept[3] is self.terms
        ):
            return kept[4]  # (a drag's problems share all of it)
        weights = leaf_weights(self.terms, self._weights)
        positive = weights > 0.0
        sizes = weights[positive] * (fraction * lengths[positive]) ** 2
        value = float(sizes.min()) if sizes.size else 0.0
        self._tolerance = (fraction, self._weights, lengths, self.terms, value)
        return value

    def smallest_weight(self) -> float:
        """The smallest positive weight a leaf has in G_all (an ``AnyOf``'s times its member's).

        1 for a problem without a positive weight (:func:`.methods.base.weight_scale`).
        """
        kept = self._smallest
        if kept is not None and kept[0] is self._weights and kept[1] is self.terms:
            return kept[2]  # (a drag's problems share it)
        smallest = np.inf
        weights = self.weights
        for term in self.terms:
            factor = term.weight if term.disjunctive else 1.0
            for member in term.members:
                if factor * weights[member] > 0.0:
                    smallest = min(smallest, factor * weights[member])
        value = float(smallest) if np.isfinite(smallest) else 1.0
        self._smallest = (self._weights, self.terms, value)
        return value

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
        derived = self.derived
        motion = self.figure.motion_to(figure)
        scale = linear_scale(motion[:3, :3])
        lengths = derived.chain_lengths
        if lengths is not None:  # a similarity scales every distance alike
            lengths = lengths * scale
        other.derived = Derived(
            moving_limits=derived.moving_limits,
            chain_lengths=lengths,
            reach=None if derived.reach is None else derived.reach.on(figure, motion, scale),
            variable_rows=derived.variable_rows,
            free_rotations=derived.free_rotations,
        )
        other._last_pose = None
        kinematics = figure.kinematics
        other._plan = (
            None
            if self._plan is None
            else self._plan.moved(kinematics.kernel_tree, kinematics.scaled)
        )
        return other

    @property
    def free_rotations(self) -> BoolArray:
        """Whether each DOF is a variable rotation with no bound and in no limit row.

        Such a rotation turns the figure the same by any whole number of turns
        (:func:`solver.unwound`).
        """
        if self.derived.free_rotations is None:
            limits, rotation = self.figure.limits, self.kinematics.dof_rotation
            self.derived.free_rotations = self.variable_mask & rotation & ~limits.held
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
        other = self._copied()
        other._weights = weights
        other._last_pose = None
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
        points, x, y, axes, pivots, at = self._pose(theta)
        return self._leaf_jacobians(points, x, y, axes, pivots, at).transpose(1, 2, 0)

    def _leaf_jacobians(
        self,
        points: FloatArray,
        x: FloatArray,
        y: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
        at: FloatArray,
    ) -> FloatArray:
        """Each effector's Jacobian over (δr, δx, δy), shape (n_v, m, 9), from its parts'."""
        parts = self.parts
        if parts.single:
            return self.jacobian.jacobians(points, x, y, axes, pivots)
        # A plain effector's part has its axes; a centre of mass's axes do not move.
        part_x, part_y = x[parts.leaf], y[parts.leaf]
        return parts.gather(self.jacobian.jacobians(at, part_x, part_y, axes, pivots))

    def potentials(self, theta: FloatArray) -> FloatArray:
        """Unweighted potentials G_i of the leaf constraints, shape (m,)."""
        points, x, y = self._pose(np.asarray(theta, dtype=np.float64))[:3]
        return self._goals(points, x, y)[0]

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
        goals = [leaf.goal for leaf in self.leaves]
        pinned = [leaf.pinned for leaf in self.leaves]
        margins = self.reach.margins(theta, goals, pinned, pins=pins)
        if not self.parts.single:
            margins = np.where(self.parts.massed, np.inf, margins)
        return margins

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
        compiled = self._compiled_objective()
        if compiled is not None:
            cached = self._last_pose
            if cached is None or not same(cached[0], theta):
                return self._compiled_value(compiled, theta)
            kept = self._kept_value(cached[1])
            # A pose kept without its value (a problem with other goals made it) is
            # evaluated again by the kernel, which is faster than the rest from the pose.
            return kept if kept is not None else self._compiled_value(compiled, theta)
        pose = self._pose(theta)
        kept = self._kept_value(pose)
        if kept is not None:
            return kept
        points, x, y, axes, pivots, at = pose
        values, d_point, torque = self._goals(points, x, y)
        weighted = self._weights * values
        if self._plain:
            total = float(weighted.sum())
            coefficient = self._weights
        else:
            total, coefficient = combine(self.terms, self._weights, weighted)
        force, turn, share = self.parts.spread(d_point, torque, coefficient)
        gradient = self.jacobian.gradient(at, force, turn, share, axes, pivots)
        # Kept with what G_all is made of besides the pose (held, so that no other object
        # takes their place): the problems with_goals, only and with_member make replace
        # one of them, so none reads another's value.
        self._last_value = (pose, self._goals, self._weights, self.terms, total, gradient.copy())
        return total, gradient

    def _kept_value(self, pose: _Pose) -> tuple[float, FloatArray] | None:
        """G_all and its gradient kept for ``pose`` of this problem's goals, or None."""
        last = self._last_value
        if (
            last is not None
            and last[0] is pose
            and last[1] is self._goals
            and last[2] is self._weights
            and last[3] is self.terms
        ):
            return last[4], last[5].copy()
        return None

    def _compiled_objective(self) -> tuple[kernel.Kernel, kernel.ObjectivePlan] | None:
        """The kernel and this problem's plan when the kernel evaluates G_all itself.

        It does where every goal is a :class:`~solver.goals.Position` of one point, in
        terms that are plain sums (no ``AnyOf``), and the kernel runs.
        """
        compiled = kernel.active()
        tree = self.jacobian.tree
        if (
            compiled is None
            or tree is None
            or self._goals.targets is None
            or not (self._plain and self.parts.single)
        ):
            return None
        if self._plan is None:
            self._plan = kernel.ObjectivePlan.of(
                self.kinematics.kernel_tree,
                tree,
                self.parts.local,
                self.kinematics.scaled,
                self.variables,
            )
        return compiled, self._plan

    def compiled_positions(
        self,
    ) -> tuple[kernel.Kernel, kernel.ObjectivePlan, FloatArray, FloatArray, FloatArray] | None:
        """What the kernel reads of a problem of position goals, where it evaluates G_all.

        The kernel, the objective's plan, the goals' points (m, 3), their weights (m) and
        whether each variable moves each effector (n_v, m); None where the kernel does
        not evaluate this problem (:meth:`_compiled_objective`).
        """
        compiled = self._compiled_objective()
        targets = self._goals.targets
        if compiled is None or targets is None:  # (the targets are there where it is not)
            return None
        return (*compiled, targets, self._weights, self.jacobian.moves)

    def _compiled_value(
        self, compiled: tuple[kernel.Kernel, kernel.ObjectivePlan], theta: FloatArray
    ) -> tuple[float, FloatArray]:
        """:meth:`evaluate_variables` by the kernel's objective, in one call; kept as it keeps."""
        library, plan = compiled
        targets = self._goals.targets
        assert targets is not None  # by _compiled_objective
        total, parts, gradient = library.objective(plan, theta, targets, self._weights)
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
        points, x, y, axes, pivots = parts
        pose = (points, x, y, axes, pivots, points)
        self._last_pose = (theta, pose)
        self._last_value = (pose, self._goals, self._weights, self.terms, total, gradient)

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
        points, x, y, axes, pivots, _ = self._pose(theta)
        return self.jacobian.hessian_product(
            points,
            x,
            y,
            self._goals.gradients(points, x, y),
            self._goals.hessians(points, x, y),
            self._weights,
            axes,
            pivots,
        )

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
        has fewer columns than rows, at O(n·k²) instead of O(n³). Plane, line,
        half-space and aim goals weigh some directions of the effector's motion and not
        others (:meth:`solver.goals.Goal.stack_curvature`); their F is
        :meth:`Jacobian.factored <solver.jacobian.Jacobian.factored>`.
        """
        points, x, y, axes, pivots, at = self._pose(theta)
        if self._plain:
            coefficient = self._weights
        else:
            values = self._goals(points, x, y)[0]
            coefficient = combine(self.terms, self._weights, self._weights * values)[1]
        if not self.parts.single:
            factors = self._goals.factors(points, x, y) * np.sqrt(coefficient)[:, None, None]
            jacobians = self._leaf_jacobians(points, x, y, axes, pivots, at)
            n = jacobians.shape[0]
            product: FloatArray = np.einsum("nmi,mij->nmj", jacobians, factors)
            return product.reshape(n, 9 * len(points))
        if not self._goals.isotropic:
            factors = self._goals.factors(points, x, y) * np.sqrt(coefficient)[:, None, None]
            return self.jacobian.factored(points, x, y, axes, pivots, factors)
        weights = np.sqrt(coefficient[:, None] * self._goals.curvature)  # (m, 3): point, x, y
        if self._goals.axes_weighted:
            return self.jacobian.factor(np.concatenate([points, x, y]), axes, pivots, weights.T)
        return self.jacobian.factor(points, axes, pivots, weights.T[:1])

    def _pose(self, theta: FloatArray) -> _Pose:
        """Effector points and axes (m, 3 each), variable DOF axes and pivots (n_v, 3 each).

        The last pose is kept: the solver asks for the gradient and the curvature at the
        same point.
        """
        cached = self._last_pose
        if cached is not None and same(cached[0], theta):
            return cached[1]
        world, axes, pivots = self.kinematics.pose(theta, self._posed)
        points, x, y, at = self.parts.states(world, self.kinematics.scaled)
        pose = (points, x, y, axes, pivots, at)
        self._last_pose = (theta.copy(), pose)
        return pose
