"""Goldfarb's method by priority level: pins exact, each level at no cost to those above.

The levels (:func:`.tasks.leaves_by_level`) are the pins, then priority 0, 1, …. Each
is minimised in turn by Goldfarb descents (:mod:`.goldfarb`) of its own G, divided by
its smallest weight, while the levels above it are held. One round:

1. Linearise the held levels. Their task rows at φ (:class:`.tasks.TaskModel`) join
   the equalities, so the descent moves only where no held effector moves, to first
   order (the null space of task priority; Siciliano & Slotine 1991).
2. Descend along the tangent from φ. While G falls fast (a level that can be met), three
   iterations a round of G itself from the Gauss–Newton start, each step within the unit
   step: Gauss–Newton steps with their quadratic end. Where G falls slowly (a level in
   conflict with one above), four times as many each round, up to :data:`INNER`, of the
   level's Lagrangian from the projector (:meth:`_Levels.tangent`; from the curvature
   where it is the level's whole Hessian, as comfort's is): BFGS learns the bend of the
   held levels' surface that the tangent lacks, so the rounds converge superlinearly.
3. Restore the held levels. A move along the tangent leaves them off by its second
   order; undamped Gauss–Newton steps, each level in the null space of those above
   and the limits clamped (:func:`.prioritised.polish`), bring them back. Steps 1–3 are
   the gradient projection for nonlinear constraints (Rosen 1961).
4. Accept the restored point when no held level ends worse than when the level began
   (beyond :data:`HOLD` of the longest chain, and 1e-9 of its own G) and the level's G
   is lower; otherwise
   halve the move and restore again. A descent that finds no decrease, a move that no
   halving makes acceptable, or two rounds in a row that lower G by less than 1e-6 of
   it end the level.

Comfort, the last level where the solve has it, is a quadratic: on the held levels'
tangent its minimiser is one linear solve (:attr:`Level.toward`, as
:mod:`.relax`'s rounds take it below one level of goals), so each of its rounds takes that
minimiser as the move of step 2 and restores it as in steps 3–4, with fewer halvings.
Where a held half-space goal would need the tangent's limits (``_Levels.sides``), comfort
descends as any level does.

A pinned point therefore stays where it is to rounding, and a level never costs a
higher one anything: a reachable level-0 goal is met whatever the level below asks.
The first level, with nothing held, is one plain descent. The budget spans all levels,
highest first, so a budget cut short leaves the lower levels unfinished, never the
higher ones (the anytime order of Phillips, Zhao & Badler 1990).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .._checks import FloatArray, IntArray
from ..goals import HalfSpace, Position
from ..linalg import lstsq, svd
from ..problem import Problem
from ..result import Descent, Status
from ..rows import LimitRows
from .budget import Budget, Reporter
from .goldfarb import descend
from .prioritised import level_errors, polish
from .projection import active_rows, multipliers, violation
from .space import ReducedSpace
from .tasks import Task, TaskModel, leaves_by_level, stack

__all__ = ["HOLD", "INNER", "descend_levels", "has_levels"]

INNER = 16
"""Most iterations of one descent along the held levels' tangent before they are
linearised again (see ``_Levels.next_inner``)."""
HOLD = 1e-10
"""How far a held level may end worse than when the level below it began, as a length
against the longest chain (its square against the level's error): rounding, no more."""
_HOLD_SHARE = 1e-9
"""How much worse, as a share of itself, a held level that is not met may end: rounding
of a large G (a pin a kilometre off), whose restoring is never exact to the bit."""
_FEASIBLE = 1e-12
"""The largest violation of a limit, over the unit rows of φ, a restored point may have
(the restoring's projection may stop at 1e-10, which a limit's scale can make 1e-9)."""
_HALVINGS = 10
_TOWARD_HALVINGS = 4
"""Most tries of a comfort round's move in ``_Levels.toward``, halved after each: a round
is one linear solve, so a move no halving restores is given up sooner than a descent's."""
_FIRST = 3
"""Most iterations of a round along the tangent while G falls fast: a step, with room for
a limit met or left (each counts as an iteration)."""
_FAST = 0.25
"""A round that leaves the level's G below this share of it falls fast (see ``next_inner``)."""
_STILL = 1e-6
"""A gain of G below this share of it is none: promised by a move no restoring accepts,
it ends the level; made by :data:`_STILL_ROUNDS` rounds in a row, too."""
_STILL_ROUNDS = 2
_RESTORE = 8
"""Most Gauss–Newton steps that bring the held levels back after one move."""

Objective = Callable[[FloatArray], tuple[float, FloatArray]]
Curvature = Callable[[FloatArray], FloatArray]


Inner = Callable[..., Descent]
"""A round's descent: :func:`.goldfarb.descend`'s arguments (objective, φ, the equality
and inequality rows and their bounds; tolerance, iterations, deadline, curvature, goal
value, expansion) and its result."""


class Level(NamedTuple):
    """One priority level as the descents see it.

    Attributes:
        objective: φ ↦ its G over its own weight scale, and the gradient.
        curvature: φ ↦ F with F Fᵀ its Gauss–Newton curvature, or None (the projector).
        goal: The value of G that counts as met (None: only its Kuhn–Tucker point).
        exact: Whether F Fᵀ is G's whole Hessian (a quadratic, as comfort is): the
            curvature then starts every descent, the Lagrangian's too.
        toward: (φ, R) ↦ G's minimiser from φ on the null space of R's columns and the
            limits it touches, or None: comfort's, whose rounds below the held levels take
            it rather than a descent (``_Levels.toward``).
    """

    objective: Objective
    curvature: Curvature | None
    goal: float | None
    exact: bool = False
    toward: Callable[[FloatArray, FloatArray], FloatArray] | None = None


def has_levels(problem: Problem) -> bool:
    """Whether ``problem`` has pins or more than one priority level."""
    return any(leaf.pinned or leaf.priority for leaf in problem.leaves)


def descend_levels(
    problem: Problem,
    space: ReducedSpace,
    levels: Sequence[Level],
    whole: Objective,
    start: FloatArray,
    budget: Budget,
    reporter: Reporter | None = None,
    inner: Inner = descend,
    origin: FloatArray | None = None,
    first: int = 0,
) -> Descent:
    """Minimise the priority levels of ``problem`` in turn from the feasible ``start``.

    Args:
        problem: The problem; its levels are :func:`.tasks.leaves_by_level`'s.
        space: The reduced space the descents work in.
        levels: Per level, highest first: its objective and curvature over φ and the
            value that counts as met.
        whole: φ ↦ (G_all / w, its gradient): the value the descent reports.
        start: Feasible start φ.
        budget: The stops, over all levels (its ``goal_value`` is the levels' own).
        reporter: Told (φ, G_all / w) at the start and after every accepted move.
        inner: The descent each round runs, :func:`.goldfarb.descend` or one with its
            arguments (L-BFGS-B's, which ignores the curvature and the expansion).
        origin: Where the solve began, reported as the start in place of ``start`` where
            ``start`` is a weighted lead's end: its held levels are off by the lead's last
            error until the first level restores them, and a reporter sees no pin moved.
        first: The first level descended; those above it are held from ``start``, where a
            descent of them ended.

    Returns:
        The last iterate, with ``levels`` each level's G over its weight scale there.
    """
    levels_descent = _Levels(problem, space, whole, budget, reporter, inner)
    return levels_descent.solve(start, levels, start if origin is None else origin, first)


class _Levels:
    """The state of one descent by levels: the pose, the model of the tasks, the counts."""

    def __init__(
        self,
        problem: Problem,
        space: ReducedSpace,
        whole: Objective,
        budget: Budget,
        reporter: Reporter | None,
        inner: Inner,
    ) -> None:
        self.leaves = leaves_by_level(problem)
        self.space = space
        self.whole = whole
        self.budget = budget
        self.reporter = reporter
        self.problem = problem
        self.model = TaskModel(problem, space)
        weights = self.model.coefficients(np.ones(len(problem.leaves)))
        self.weights = [max(float(weights[rows].max(initial=0.0)), 1e-300) for rows in self.leaves]
        self.slack = (HOLD * max(problem.longest_chain, 1.0)) ** 2
        self.iterations = 0
        self.evaluations = 0
        self.stalled = False
        self.projected = 0.0
        self.last_step = 1.0
        self.exact = False
        self.inner = inner
        self.known: tuple[FloatArray, list[Task]] | None = None
        """The held levels' tasks at the last point they were evaluated at."""

    def solve(
        self, start: FloatArray, levels: Sequence[Level], origin: FloatArray, first: int
    ) -> Descent:
        phi = start.copy()
        self.report(origin)
        status = Status.CONVERGED
        for k, level in enumerate(levels[first:], first):
            phi, spent = self.level(phi, k, level)
            if spent is not None:
                status = spent
                break
        if status is Status.CONVERGED and self.stalled:
            status = Status.STALLED
        return self.finish(phi, levels, status)

    def level(self, phi: FloatArray, k: int, level: Level) -> tuple[FloatArray, Status | None]:
        """Minimise level ``k`` from φ with the levels above held; the budget's stop if spent."""
        objective, curvature, goal = level.objective, level.curvature, level.goal
        self.exact = level.exact
        if k == 0:
            descent = self.descend(objective, curvature, phi, goal, None)
            self.report(descent.phi)
            return descent.phi, self.spent(descent)
        held = self.leaves[:k]
        weights = self.weights[:k]
        # The tasks of the held levels alone: the others' cost nothing to skip.
        self.model = TaskModel(self.problem.only(np.concatenate(held)), self.space)
        values, tasks = self.model.evaluate(phi)
        self.known = (phi, tasks)
        self.evaluations += 1
        errors = level_errors(self.model, values, held, weights)
        ceiling = errors * (1.0 + _HOLD_SHARE) + self.slack
        value = objective(phi)[0]
        self.evaluations += 1
        if level.toward is not None and self.sides(phi, held) is None:
            return self.toward(phi, level, held, weights, ceiling, value)
        inner = _FIRST
        retry = 0
        still = 0
        while goal is None or value > goal:
            descent = self.descend(objective, curvature, phi, goal, held, inner)
            spent = self.spent(descent)
            move = descent.phi - phi
            if descent.value >= value or not np.any(move):
                return phi, spent
            accepted, _ = self.restored(phi, move, held, weights, ceiling, objective, value)
            if accepted is None and spent is None and inner != retry:
                # Gauss–Newton steps the held levels' bend undoes are retried on the
                # Lagrangian, which models it; a Lagrangian's too-long steps, a few at once.
                inner = retry = 4 * _FIRST if inner == _FIRST else _FIRST
                continue
            if accepted is None:
                # No acceptable move while the tangent promises next to nothing more is
                # convergence to the first order the tangent models.
                gain = value - descent.value
                self.stalled = self.stalled or gain > _STILL * value + self.budget.tolerance
                return phi, spent
            inner = self.next_inner(inner, value, accepted[1])
            phi, value, still = self.kept(accepted, value, still)
            if spent is not None or still >= _STILL_ROUNDS:
                return phi, spent
        return phi, None

    def toward(
        self,
        phi: FloatArray,
        level: Level,
        held: Sequence[IntArray],
        weights: Sequence[float],
        ceiling: FloatArray,
        value: float,
    ) -> tuple[FloatArray, Status | None]:
        """Rounds of a quadratic level (comfort) below held levels: its minimiser on their tangent.

        Each round takes the level's exact minimiser on the held levels' null space at φ
        (:attr:`Level.toward`, one linear solve) and restores the held levels
        (``restored``, at most :data:`_TOWARD_HALVINGS` halvings of the move). Where a held
        level was not restored, that round and the rest restore it with its position goals
        out of reach held at their points (``held_points``), the whole move or none. The
        rounds end where no move is kept, two rounds in a row lower G by less than
        :data:`_STILL` of it, or the budget is spent. Against a descent along the tangent,
        this spends no iterations learning a curvature the level gives exactly.
        """
        assert level.toward is not None
        restoring: TaskModel | None = None
        still = 0
        while value > 0.0:
            rows = stack(self.tasks_at(phi), self.space.n)[1]
            move = level.toward(phi, rows.T)
            self.iterations += 1
            spent = self.budget.spent(self.iterations)
            if not np.any(move):
                return phi, spent
            args = (phi, move, held, weights, ceiling, level.objective, value)
            if restoring is None:
                accepted, unrestored = self.restored(*args, _TOWARD_HALVINGS)
            else:  # the points held, the move is restored whole or not at all
                accepted, unrestored = self.restored(*args, 1, restoring)
            if accepted is None and restoring is None and unrestored:
                # a held level was not restored: where a position goal is out of reach,
                # this and the rest of the rounds restore it held at its point
                restoring = self.held_points(phi, held)
                if restoring is not None:
                    accepted, _ = self.restored(*args, 1, restoring)
            if accepted is None:
                return phi, spent
            phi, value, still = self.kept(accepted, value, still)
            if spent is not None or still >= _STILL_ROUNDS:
                return phi, spent
        return phi, None

    def kept(
        self, accepted: tuple[FloatArray, float], value: float, still: int
    ) -> tuple[FloatArray, float, int]:
        """An accepted round's point and G, reported, and the count of still rounds after it.

        A round is still where it lowers G by no more than :data:`_STILL` of G before it.
        """
        phi, after = accepted
        self.report(phi)
        return phi, after, still + 1 if value - after <= _STILL * value else 0

    def held_points(self, phi: FloatArray, held: Sequence[IntArray]) -> TaskModel | None:
        """The held levels' model with each position goal out of reach held where its point is.

        A level held at its least but not met keeps its goals' residuals; its Gauss–Newton
        restoring then converges only linearly (at the rate of the residual against the
        chain's curvature: a straight arm pulled beyond reach), and a move of comfort is
        not brought back to the level's least within the restoring's steps. Held at that
        least's point instead, the goal is met and the restoring converges quadratically,
        back to where the point was: the level's least again (the nearest point of what the
        chain reaches to the target; the others keep their own goals). A position goal's
        task rows are its point's Jacobian wherever its target is, so the model's tasks
        serve the held levels' tangent too; an ``AnyOf``'s members keep their targets, as
        which member counts depends on them. None where no held position goal is out of
        reach.
        """
        leaves = np.concatenate(held)
        problem = self.problem
        chosen = {int(k) for term in problem.terms if term.disjunctive for k in term.members}
        theta = self.space.theta(phi)
        points, values = problem.effector_states(theta)[0], problem.potentials(theta)
        self.evaluations += 1
        moved = {
            int(i): Position(points[int(i)])
            for i in leaves
            if type(problem.leaves[int(i)].goal) is Position
            and values[int(i)] > self.slack
            and int(i) not in chosen
        }
        if not moved:
            return None
        return TaskModel(self.problem.only(leaves).with_goals(moved), self.space)

    def next_inner(self, inner: int, before: float, after: float) -> int:
        """The next round's most iterations along the tangent.

        A few iterations while G falls fast (Gauss–Newton's quadratic end on a level that can be
        met); where it falls slowly (a level that cannot be met, whose Lagrangian's
        curvature the Gauss–Newton model lacks) each round takes four times as many, so
        BFGS learns that curvature; a move that had to be halved goes back to a few.
        """
        if self.last_step < 1.0:
            return _FIRST
        if after > _FAST * before:
            return min(INNER, 4 * inner)
        return inner

    def descend(
        self,
        objective: Objective,
        curvature: Curvature | None,
        phi: FloatArray,
        goal: float | None,
        held: Sequence[IntArray] | None,
        iterations: int = INNER,
    ) -> Descent:
        """A Goldfarb descent from φ; along the held levels' tangent, ``iterations`` at most."""
        space = self.space
        a_eq, b_eq = space.a_eq, space.b_eq
        cap = self.budget.max_iterations - self.iterations
        lagrangian = held is not None and iterations > _FIRST
        a_in: FloatArray | LimitRows = space.rows_in
        b_in = space.b_in
        if held is not None:
            sides = self.sides(phi, held)
            if sides is not None:  # the held half-spaces as limits of the tangent
                a_in = np.concatenate([space.a_in, sides[0]])
                b_in = np.concatenate([space.b_in, sides[1]])
            a_eq, b_eq, objective = self.tangent(phi, held, objective, lagrangian)
            cap = min(cap, iterations)
            goal = None  # the descent's G may be the Lagrangian; the level's goal is tested after
        descent = self.inner(
            objective,
            phi,
            a_eq,
            b_eq,
            a_in,
            b_in,
            tolerance=self.budget.tolerance,
            max_iterations=max(cap, 0),
            deadline=self.budget.deadline,
            curvature=None if lagrangian and not self.exact else curvature,
            goal_value=goal,
            expand=held is None or lagrangian,
        )
        self.iterations += descent.iterations
        self.evaluations += descent.evaluations
        self.projected = descent.projected_gradient
        return descent

    def sides(
        self, phi: FloatArray, held: Sequence[IntArray]
    ) -> tuple[FloatArray, FloatArray] | None:
        """The held half-space goals linearised at φ, as unit inequality rows ``A φ ≥ b``.

        A half-space met holds no task (its potential is flat inside), so the tangent alone
        would let a step carry its point out and the restoring pull it back, a crawl along
        the boundary; as limits of the descent (Rosen 1960's active set) the point stays
        on its side to first order. A point outside by rounding starts on the boundary.
        """
        leaves = self.problem.leaves
        sided = [
            int(i) for level in held for i in level if isinstance(leaves[int(i)].goal, HalfSpace)
        ]
        if not sided:
            return None
        states, jacobians = self.model.states(phi, np.array(sided, np.intp))
        self.evaluations += 1
        rows, bounds = [], []
        for k, leaf in enumerate(sided):
            goal = leaves[leaf].goal
            assert isinstance(goal, HalfSpace)
            row = goal.normal @ jacobians[k, :3]
            size = float(np.linalg.norm(row))
            if size <= 1e-12:
                continue
            height = float(goal.normal @ (states[k, :3] - goal.point))
            rows.append(row / size)
            bounds.append((float(row @ phi) - max(height, 0.0)) / size)
        if not rows:
            return None
        return np.array(rows), np.array(bounds)

    def tangent(
        self, phi: FloatArray, held: Sequence[IntArray], objective: Objective, lagrangian: bool
    ) -> tuple[FloatArray, FloatArray, Objective]:
        """The held levels linearised at φ: the equalities with their rows, and what to descend.

        The rows join the equalities (orthonormal, with φ's values). With ``lagrangian``
        the descent along them minimises the level's Lagrangian ``G − Σ vᵢ·(eᵢ − eᵢ(φ))``
        over the held effectors' states e (:meth:`.tasks.TaskModel.states`), the forces
        v the multipliers of the rows in G's gradient at φ: its curvature along the
        tangent is that of G on the held levels' surface, so the steps fit the surface
        the restoring keeps to (sequential quadratic programming's model; Wilson 1963).
        Those multipliers are right only near the level's own minimum; while G falls
        fast, far from it, the descent is of G itself (Gauss–Newton steps).
        """
        space = self.space
        tasks = self.tasks_at(phi)  # the model holds the held levels' tasks alone
        held_rows = stack(tasks, space.n)[1]
        if not held_rows.shape[0]:
            return space.a_eq, space.b_eq, objective
        rows = held_rows
        if space.a_eq.shape[0]:
            rows = rows - (rows @ space.a_eq.T) @ space.a_eq
        _, sigma, vt = svd(rows, full_matrices=False)
        basis = vt[sigma > 1e-10 * max(float(sigma.max(initial=0.0)), 1e-300)]
        a_eq = np.concatenate([space.a_eq, basis])
        b_eq = np.concatenate([space.b_eq, basis @ phi])
        if not lagrangian:
            return a_eq, b_eq, objective
        gradient = objective(phi)[1]
        self.evaluations += 1
        limits = space.a_in[active_rows(phi, space)]
        fitted = np.concatenate([held_rows, space.a_eq, limits])
        weights = lstsq(fitted.T, gradient)
        leaves = np.array([task.leaf for task in tasks], np.intp)
        cuts = np.cumsum([task.rows.shape[0] for task in tasks])[:-1]
        forces = np.array(
            [
                task.basis.T @ part
                for task, part in zip(
                    tasks, np.split(weights[: held_rows.shape[0]], cuts), strict=True
                )
            ]
        )
        start = self.model.states(phi, leaves)[0]

        def descended(point: FloatArray) -> tuple[float, FloatArray]:
            value, slope = objective(point)
            states, jacobians = self.model.states(point, leaves)
            pull = np.einsum("ij,ijk->k", forces, jacobians)
            return value - float(np.sum(forces * (states - start))), slope - pull

        return a_eq, b_eq, descended

    def tasks_at(self, phi: FloatArray) -> list[Task]:
        """The held levels' tasks at φ, evaluated once per point."""
        if self.known is None or not np.array_equal(self.known[0], phi):
            self.known = (phi, self.model.evaluate(phi)[1])
            self.evaluations += 1
        return self.known[1]

    def restored(
        self,
        phi: FloatArray,
        move: FloatArray,
        held: Sequence[IntArray],
        weights: Sequence[float],
        ceiling: FloatArray,
        objective: Objective,
        value: float,
        halvings: int = _HALVINGS,
        restoring: TaskModel | None = None,
    ) -> tuple[tuple[FloatArray, float] | None, bool]:
        """The first of φ + move, φ + move/2, … that restores the held levels and lowers G.

        Every such point is feasible: the limits are linear and φ and φ + move are inside.
        ``restoring``: the held levels' model the restoring steps take, if not their own
        (``held_points``); the point is then judged on their own potentials. Returns that
        point and its G (None where no halving is kept), and whether a halving was refused
        for leaving a held level above its ceiling.
        """
        step = 1.0
        unrestored = False
        model = self.model if restoring is None else restoring
        for _ in range(halvings):
            trial = phi + step * move
            values, tasks = model.evaluate(trial)
            trial, values, tasks, extra = polish(
                model,
                held,
                weights,
                (trial, values, tasks),
                self.space,
                _RESTORE,
                ceiling if restoring is None else None,
            )
            self.evaluations += 1 + extra
            if restoring is not None:
                values = self.model.problem.potentials(self.space.theta(trial))
                self.evaluations += 1
            if violation(trial, self.space) > _FEASIBLE:
                step *= 0.5  # restored past a limit by more than the solver's rounding
                continue
            if np.any(level_errors(self.model, values, held, weights) > ceiling):
                unrestored = True
            else:
                trial_value = objective(trial)[0]
                self.evaluations += 1
                if trial_value < value:
                    self.last_step = step
                    self.known = (trial, tasks)
                    return (trial, trial_value), unrestored
            step *= 0.5
        return None, unrestored

    def spent(self, descent: Descent) -> Status | None:
        """The budget's stop after ``descent``, if it ran out of time or iterations."""
        if descent.status is Status.TIME_LIMIT:
            return descent.status
        return self.budget.spent(self.iterations)

    def report(self, phi: FloatArray) -> None:
        if self.reporter is not None:
            self.reporter(phi, self.whole(phi)[0])

    def finish(self, phi: FloatArray, levels: Sequence[Level], status: Status) -> Descent:
        value, gradient = self.whole(phi)
        self.evaluations += 1
        active = active_rows(phi, self.space)
        return Descent(
            phi=phi,
            value=value,
            gradient=gradient,
            status=status,
            message=status.message("" if status is not Status.STALLED else _STALLED),
            iterations=self.iterations,
            evaluations=self.evaluations,
            active=tuple(int(j) for j in active),
            projected_gradient=self.projected,
            multipliers=multipliers(gradient, active, self.space),
            levels=tuple(float(level.objective(phi)[0]) for level in levels),
        )


_STALLED = "no move along a level's tangent keeps the levels above it"
