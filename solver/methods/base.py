"""What every method is to the restart driver, and the problem as its descents see it.

A method is one frozen object of its options with a ``descend`` step (:class:`Method`);
every descent sees G_all / w over the scaled free DOFs (:class:`Scaled`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Self

import numpy as np

from .._checks import BoolArray, FloatArray, finite_scalar
from ..comfort import Comfort
from ..exceptions import SolverInputError
from ..optimizer.budget import Budget, Reporter
from ..optimizer.compiled_gauss_newton import Resume
from ..optimizer.levels import Level
from ..optimizer.metric import GaussNewtonStep, compiled_step
from ..optimizer.newton import Product
from ..optimizer.relax import ComfortAim, comfort_step
from ..optimizer.space import ReducedSpace
from ..optimizer.tasks import leaves_by_level
from ..problem import Problem
from ..result import Descent

__all__ = [
    "UNMET_SHARE",
    "Leg",
    "Method",
    "Scaled",
    "levels_of",
    "moving_unmet",
    "positive",
    "weight_scale",
]

UNMET_SHARE = 1e-3
"""A goal whose share of a descent's G is at least this counts as left unmet."""

Objective = Callable[[FloatArray], tuple[float, FloatArray]]
"""φ ↦ (G_all / w, its gradient over φ)."""


@dataclass(frozen=True)
class Scaled:
    """A problem as every descent sees it: G_all / w over the scaled free DOFs φ.

    Dividing by w, the smallest weight (:func:`solver.problem.weight_scale`), makes
    the steps and stops the same whatever one factor multiplies every weight.

    Attributes:
        space: The reduced space at the start pose (φ = θ[free] / scale).
        weight: w.
        comfort: The solve's comfort aim below every goal, or None.
    """

    space: ReducedSpace
    weight: float
    comfort: Comfort | None = None

    def comfort_aim(self, problem: Problem) -> ComfortAim | None:
        """The comfort aim over φ (:mod:`solver.comfort`), or None.

        A translation by the longest chain weighs as a radian.
        """
        if self.comfort is None:
            return None
        space, comfort = self.space, self.comfort
        derived = problem.derived
        kept = derived.comfort_masses
        if kept is not None and kept[0] is comfort:
            masses, heaviest = kept[1], kept[2]
        else:
            if comfort.weights is not None:
                masses = comfort.masses(space.variables)
            else:
                length = max(problem.longest_chain, 1e-3)
                rotation = problem.kinematics.dof_rotation[space.variables]
                weights = np.where(rotation, 1.0, 1.0 / length**2)
                masses = comfort.masses(space.variables, weights)
            heaviest = float(masses.max(initial=0.0))
            derived.comfort_masses = comfort, masses, heaviest
        target = comfort.target(space.base, space.variables, space.scale)
        return ComfortAim(target, masses, heaviest)

    def comfort_level(self, problem: Problem) -> Level | None:
        """The comfort aim over φ as the last level (its potential, Hessian and minimiser)."""
        aim = self.comfort_aim(problem)
        if aim is None or self.comfort is None:
            return None
        factor = self.comfort.factor(aim.masses)
        space = self.space

        def toward(phi: FloatArray, rows: FloatArray) -> FloatArray:
            return comfort_step(phi, aim, space, rows)

        return Level(aim.potential, lambda phi: factor, None, True, toward)

    def objective(self, problem: Problem) -> Objective:
        """φ ↦ (G_all / w, s ∘ ∇G_all / w) of ``problem`` (the problem, or it varied).

        Its scale is found at its first call: a drag event's kernel may make none.
        """
        space, weight = self.space, self.weight
        scale: FloatArray | None = None  # s / w, or None where it is 1 throughout
        found = False

        def objective(phi: FloatArray) -> tuple[float, FloatArray]:
            nonlocal scale, found
            if not found:
                scale, found = _unless_one(space.scale / weight), True
            value, gradient = problem.evaluate_variables(space.theta(phi))
            return value / weight, gradient if scale is None else gradient * scale

        return objective

    def curvature(self, problem: Problem) -> Callable[[FloatArray], FloatArray]:
        """φ ↦ F with F Fᵀ the Gauss–Newton estimate of the Hessian of G_all / w over φ.

        Its scale is found at its first call: a drag event's kernel may make none.
        """
        space, weight = self.space, self.weight
        root: FloatArray | None = None  # s / √w, or None where it is 1 throughout
        found = False

        def curvature(phi: FloatArray) -> FloatArray:
            nonlocal root, found
            if not found:
                root, found = _unless_one(space.scale / np.sqrt(weight)), True
            factor = problem.gauss_newton_factor(space.theta(phi))
            return factor if root is None else factor * root[:, None]

        return curvature

    def hessian(self, problem: Problem) -> Callable[[FloatArray], Product | None]:
        """φ ↦ (v ↦ ∇²(G_all / w) v over φ) of ``problem``, or None where it makes none."""
        space, weight = self.space, self.weight
        scale = space.scale
        unscaled = bool((scale == 1.0).all())

        def hessian(phi: FloatArray) -> Product | None:
            product = problem.hessian_product(space.theta(phi))
            if product is None:
                return None
            if unscaled and weight == 1.0:
                return product

            def scaled(direction: FloatArray) -> FloatArray:
                result: FloatArray = scale * product(scale * direction) / weight
                return result

            return scaled

        return hessian

    def gauss_newton_step(
        self, problem: Problem, *, sized: bool = True, kept: bool = False
    ) -> GaussNewtonStep | None:
        """The kernel's Gauss–Newton iterations over φ (:func:`.metric.compiled_step`), or None.

        Where the kernel evaluates ``problem`` (:meth:`Problem.compiled_goals
        <solver.Problem.compiled_goals>`) and, ``sized``, factors
        Woodbury's start at its size. ``kept``: the step is the one the problems sharing
        ``problem``'s derived parts keep (:attr:`Derived.quick_step
        <solver.derived.Derived.quick_step>`), renewed with this descent's arrays where it
        fits, so that a drag's events bind the kernel's plan once; for the quick path,
        whose step no later solve's runs beside.
        """
        compiled = problem.compiled_goals()
        if compiled is None:
            return None
        library, plan, goal, weight, moves, faces = compiled
        derived = problem.derived
        step = compiled_step(
            library,
            plan,
            goal,
            weight,
            moves,
            faces,
            self.space,
            self.weight,
            sized=sized,
            kept=derived.quick_step if kept else None,
            own=kept,
        )
        if kept and step is not None:
            derived.quick_step = step
        return step

    def reporter(self, callback: Callable[[FloatArray, float], None] | None) -> Reporter | None:
        """``callback`` of (θ, G_all) as a descent's reporter of (φ, G_all / w)."""
        if callback is None:
            return None
        space, weight = self.space, self.weight

        def report(phi: FloatArray, value: float) -> None:
            callback(space.theta(phi), value * weight)

        return report


def _unless_one(scale: FloatArray) -> FloatArray | None:
    """``scale``, or None where every entry is 1 (a product by it would change nothing)."""
    return None if bool((scale == 1.0).all()) else scale


@dataclass(frozen=True, eq=False)
class Leg:
    """One descent the restart driver asks a method for.

    Attributes:
        problem: The solve's problem, or it varied (an AnyOf held to a member).
        scaled: The reduced space and the weight scale w the descent works in.
        start: The feasible start φ.
        budget: Its stops: tolerance, iterations, deadline, the goals' value.
        reporter: Told (φ, G_all / w) after each step, or None (not reported).
        first: Whether this is the solve's first descent.
        resume: Where the quick path's kernel descent from ``start`` left off, for the
            descent to go on from (:meth:`Method.quick`), or None.
    """

    problem: Problem
    scaled: Scaled
    start: FloatArray
    budget: Budget
    reporter: Reporter | None
    first: bool
    resume: Resume | None = None


class Method(ABC):
    """A method of :func:`solver.solve`: its options (a frozen dataclass) and its descent.

    Attributes:
        name: The name :func:`solver.solve` also accepts for it (one of
            :data:`solver.METHODS`).
        finds_multipliers: Whether a descent ends at a Kuhn–Tucker test with its active
            rows and multipliers; otherwise the driver finds them at the best pose.
        holds_pins: Whether pins hold exactly (they are met before any other goal), so
            their reach margins prove a goal out of reach too.
        honours_comfort: Whether the problem's comfort (:attr:`Problem.comfort
            <solver.Problem.comfort>`) is the last level of its descents, below every
            goal; a method that does not solve by levels leaves it out.
    """

    name: ClassVar[str]
    finds_multipliers: ClassVar[bool] = False
    holds_pins: ClassVar[bool] = False
    honours_comfort: ClassVar[bool] = False

    def checked(self, problem: Problem) -> Self:
        """These options, checked against ``problem`` (the options the figure sizes).

        Raises:
            SolverInputError: For an option that does not fit the problem.
        """
        return self

    def quick(self, problem: Problem, scaled: Scaled, budget: Budget) -> Descent | Resume | None:
        """The solve's first descent by a path without the general set-up, or None.

        Where this method has such a path (a warm drag event's, say) and its descent
        from the start pose meets the goals or runs out of time, that descent is the
        solve's only one; otherwise the restart driver runs the descents
        (:func:`solver.restarts.descents`), the first going on from where the path left
        off where it says so (:class:`Resume`, :attr:`Leg.resume`). None for a method
        without one.

        Args:
            problem: The solve's problem, its far targets moved in.
            scaled: The reduced space at the start pose and the weight scale w.
            budget: The first descent's stops, in G_all / w.

        Returns:
            The descent, its value and gradient those of G_all / w, where the path left
            off, or None.
        """
        return None

    @abstractmethod
    def descend(self, leg: Leg) -> Descent:
        """Run ``leg``: one descent from its feasible start within its budget.

        The descent's value and gradient are those of G_all / w.
        """


def moving_unmet(
    problem: Problem, scaled: Scaled, phi: FloatArray, met: float | None = None
) -> tuple[BoolArray, BoolArray] | None:
    """Which variables move a goal left unmet at ``phi``, and which a met one (or None).

    None when every goal is met. A goal is left unmet where its weighted potential is
    above ``met`` (G_all's units), or without it, at least :data:`UNMET_SHARE` of G (a
    stalled descent's goals: those that hold it back). A variable moves some goals where
    the goals' Gauss–Newton factor of those goals alone is nonzero on it.
    """
    shares = problem.weights * problem.potentials(scaled.space.theta(phi))
    if met is None:
        met = UNMET_SHARE * float(np.sum(shares))
    unmet = shares > max(met, 0.0)
    if not unmet.any():
        return None

    def moving(goals: BoolArray) -> BoolArray:
        if not goals.any():
            return np.zeros(scaled.space.n, dtype=bool)
        factor = scaled.curvature(problem.only(np.flatnonzero(goals)))(phi)
        moves: BoolArray = np.linalg.norm(factor, axis=1) > 0.0
        return moves

    return moving(unmet), moving(~unmet)


def levels_of(leg: Leg, *, curvature: bool) -> list[Level]:
    """The priority levels of ``leg``'s problem as its descents see them, comfort last.

    Each level's G is divided by its own smallest weight; it counts as met within the
    solve's goal value (scaled alike), the pins' only at their Kuhn–Tucker point.

    Args:
        leg: The descent asked for.
        curvature: Give each level its Gauss–Newton curvature (else none).
    """
    problem, scaled, budget = leg.problem, leg.scaled, leg.budget
    levels: list[Level] = []
    for k, leaves in enumerate(leaves_by_level(problem)):
        part = problem.only(leaves)
        within = Scaled(scaled.space, weight_scale(part))
        goal = None
        if budget.goal_value is not None and not (k == 0 and problem.leaves[leaves[0]].pinned):
            goal = budget.goal_value * scaled.weight / within.weight
        start = within.curvature(part) if curvature else None
        levels.append(Level(within.objective(part), start, goal))
    comfort = scaled.comfort_level(problem)
    if comfort is not None:
        levels.append(comfort if curvature else comfort._replace(curvature=None))
    return levels


def weight_scale(problem: Problem) -> float:
    """The smallest positive weight a leaf has in G_all (an ``AnyOf``'s times its member's).

    The descents minimise G_all divided by it, so that multiplying every weight by one
    factor changes neither their steps nor their stops: 1 for a problem without a
    positive weight.
    """
    return problem.smallest_weight()


def positive(value: object, name: str, *, most: float | None = None) -> float:
    """``value`` as a float > 0 (and ≤ ``most`` if given); ≥ 0 is :func:`.._checks.nonnegative`.

    Raises:
        SolverInputError: Naming the option, for anything else.
    """
    number = finite_scalar(value, name)  # type: ignore[arg-type]
    if number <= 0.0 or (most is not None and number > most):
        bound = "> 0"
        if most is not None:
            bound += f" and ≤ {most:g}"
        raise SolverInputError(f"{name} must be {bound}, got {value!r}", item=name)
    return number
