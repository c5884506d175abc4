"""The base class of goals: a potential P(e) ≥ 0 of an effector state and its gradient."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, finite_array, finite_scalar, unit_vector
from ..exceptions import SolverInputError

__all__ = [
    "C5",
    "Batch",
    "CurvatureBatch",
    "Goal",
    "GoalValue",
    "HessianBatch",
    "column",
    "commensurate",
    "orthonormal_pair",
    "rows",
]


def commensurate(degrees: float, length: float) -> float:
    """The weight c such that an angle of ``degrees`` weighs as ``length``.

    For unit vectors at angle d, ``‖v − w‖ = 2 sin(d/2)``; so ``c = length / (2 sin(d/2))``
    makes ``c²‖v − w‖²`` equal ``length²`` (Zhao & Badler 1994, §5.1).

    Args:
        degrees: The angle [deg], in (0, 360).
        length: The length it weighs as, > 0, in the figure's length unit.

    Returns:
        The weight c ≥ 0 used by orientation and aiming goals.

    Raises:
        SolverInputError: If the angle or length is out of range or not finite.
    """
    angle = finite_scalar(degrees, "commensurate: degrees")
    size = finite_scalar(length, "commensurate: length")
    if not 0.0 < angle < 360.0:
        raise SolverInputError(f"commensurate: degrees must be in (0, 360), got {angle}")
    if size <= 0.0:
        raise SolverInputError(f"commensurate: length must be > 0, got {size}")
    return size / (2.0 * math.sin(math.radians(angle) / 2.0))


C5 = commensurate(5.0, 0.01)
"""Default c_d: 5 degrees weigh as 1 cm in metres (as in Phillips, Zhao & Badler 1990)."""


class GoalValue(NamedTuple):
    """A potential's value and its gradient with respect to the effector state.

    Attributes:
        value: P ≥ 0.
        d_point: ∂P/∂r, shape (3,).
        d_x: ∂P/∂x_e, shape (3,).
        d_y: ∂P/∂y_e, shape (3,).
    """

    value: float
    d_point: FloatArray
    d_x: FloatArray
    d_y: FloatArray


Batch = Callable[
    [FloatArray, FloatArray, FloatArray],
    tuple[FloatArray, FloatArray, FloatArray | None, FloatArray | None],
]
"""Stacked goals of one type: (points, x axes, y axes), each (k, 3) ↦ (P (k,),
∂P/∂r (k, 3), ∂P/∂x_e (k, 3) or None, ∂P/∂y_e (k, 3) or None); None means zero."""


CurvatureBatch = Callable[[FloatArray, FloatArray, FloatArray], FloatArray]
"""Stacked goals of one type: (points, x axes, y axes), each (k, 3) ↦ factors F, shape
(k, 9, 9), with ``F Fᵀ`` each goal's Gauss–Newton curvature of P over the effector's
(δr, δx, δy)."""

HessianBatch = Callable[[FloatArray, FloatArray, FloatArray], FloatArray]
"""Stacked goals of one type: (points, x axes, y axes), each (k, 3) ↦ each goal's Hessian
of P over (r, x, y), shape (k, 9, 9), symmetric."""

_HESSIAN_STEP = 6e-6
"""Step of the central differences of :meth:`Goal.stack_hessian`, relative to
max(1, |coordinate|): about ε^⅓, where truncation and rounding balance."""


class Goal(ABC):
    """A potential P(e) ≥ 0 over an effector's point r and unit axes x_e, y_e.

    The potentials of Zhao & Badler 1994, §5.

    Each goal type writes its potential once, vectorised over many goals of that type
    (:meth:`stack`); :meth:`evaluate` is the one-goal case. Subclasses are immutable
    and validate their parameters in the constructor.
    """

    __slots__ = ()

    @classmethod
    @abstractmethod
    def stack(cls, goals: Sequence[Goal]) -> Batch:
        """Vectorised potential of ``goals`` (all of this type), for the solver's hot path.

        Args:
            goals: Goals of type ``cls``.

        Returns:
            A function of the stacked effector states; see :data:`Batch`.
        """

    def curvature(self) -> tuple[float, float, float]:
        """Gauss–Newton weights of the effector's point, x axis and y axis.

        P is (close to) ``κ_r‖δr‖² + κ_x‖δx‖² + κ_y‖δy‖²`` near its minimum, up to the
        directions it ignores; the solver builds its starting inverse-Hessian estimate
        from ``Σ J_eᵀ diag(κ) J_e``. Returns ``(κ_r, κ_x, κ_y)``, each ≥ 0.
        """
        return (2.0, 0.0, 0.0)

    @classmethod
    def stack_curvature(cls, goals: Sequence[Goal]) -> CurvatureBatch:
        """Vectorised Gauss–Newton curvature factors of ``goals`` (all of this type).

        For ``P = ‖R‖²`` the Gauss–Newton curvature over the effector's (δr, δx, δy) is
        ``2 J_Rᵀ J_R = F Fᵀ``. This default is the diagonal of :meth:`curvature`:
        ``F = diag(√κ_r I, √κ_x I, √κ_y I)``. Goal types whose potential ignores some
        directions (a plane ignores motion along it) or changes with the state (a
        half-space is flat inside) override it, so that the solver's curvature model is
        right for every goal type.

        Args:
            goals: Goals of type ``cls``.

        Returns:
            A function of the stacked effector states; see :data:`CurvatureBatch`.
        """
        roots = np.sqrt(np.repeat(np.array([g.curvature() for g in goals]), 3, axis=1))
        factors = np.zeros((len(goals), 9, 9))
        factors[:, np.arange(9), np.arange(9)] = roots

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            return factors

        return batch

    @classmethod
    def stack_hessian(cls, goals: Sequence[Goal]) -> HessianBatch:
        """Vectorised Hessians of ``goals``' potentials over the effector's (r, x, y).

        P's full second derivative, not the Gauss–Newton estimate: where a goal stays
        unmet, its residual's own curvature shapes G's Hessian. This default takes
        central differences of :meth:`stack`'s gradients, all 18 perturbed states in one
        call of a batch over the goals repeated; goal types with a simple Hessian
        override it with the exact one.

        Args:
            goals: Goals of type ``cls``.

        Returns:
            A function of the stacked effector states; see :data:`HessianBatch`.
        """
        k = len(goals)
        repeated = cls.stack(list(goals) * 18)
        signs = np.repeat(np.array([1.0, -1.0]), 9 * k)
        coordinate = np.tile(np.repeat(np.arange(9), k), 2)

        def batch(points: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
            state = np.hstack([points, x, y])  # (k, 9)
            step = _HESSIAN_STEP * np.maximum(1.0, np.abs(state).max(axis=1))  # (k,)
            moved = np.tile(state, (18, 1))
            moved[np.arange(18 * k), coordinate] += signs * np.tile(step, 18)
            _, d_point, d_x, d_y = repeated(moved[:, :3], moved[:, 3:6], moved[:, 6:])
            gradient = np.zeros((18 * k, 9))
            gradient[:, :3] = d_point
            if d_x is not None:
                gradient[:, 3:6] = d_x
            if d_y is not None:
                gradient[:, 6:] = d_y
            plus, minus = gradient.reshape(2, 9, k, 9)
            # column j of goal i: (∇P(s + h e_j) − ∇P(s − h e_j)) / 2h
            hessian = ((plus - minus) / (2.0 * step)[None, :, None]).transpose(1, 2, 0)
            result: FloatArray = 0.5 * (hessian + hessian.transpose(0, 2, 1))
            return result

        return batch

    def reach_margin(self, centre: FloatArray, radius: float) -> float:
        """How far inside (+) or outside (−) the ball an effector point can reach this goal lies.

        The effector point can only reach points within ``radius`` of ``centre`` (see
        :func:`solver.reach.reach_balls`); the margin is the distance by which the goal's
        target set enters (+) or misses (−) that ball. A negative margin proves the goal
        cannot be met. This default (+inf) is for goals with no positional target.

        Args:
            centre: The ball's centre in world, shape (3,).
            radius: The ball's radius, ≥ 0 (+inf: no bound).
        """
        return math.inf

    def within(self, centre: FloatArray, radius: float) -> Goal:
        """This goal with its target set moved to within ``radius`` of ``centre``.

        A target set farther than ``radius`` from ``centre`` moves straight toward it
        until it touches that sphere; one already within is kept (``self``). A goal far
        beyond its chain's reach then pulls as one just beyond it does: the same
        direction, at a size that leaves the other goals' terms above rounding. This
        default is for goals with no positional target, which are kept.

        Args:
            centre: The sphere's centre in world, shape (3,).
            radius: The sphere's radius, ≥ 0.
        """
        return self

    def evaluate(self, point: FloatArray, x_axis: FloatArray, y_axis: FloatArray) -> GoalValue:
        """P and its gradient at one effector state.

        Args:
            point: Effector point r in world, shape (3,).
            x_axis: Effector unit x axis in world, shape (3,).
            y_axis: Effector unit y axis in world, shape (3,).

        Returns:
            The potential and its partial derivatives.
        """
        batch = type(self).stack([self])
        value, d_point, d_x, d_y = batch(point[None], x_axis[None], y_axis[None])
        zero = np.zeros(3)
        return GoalValue(
            float(value[0]),
            d_point[0],
            zero if d_x is None else d_x[0],
            zero if d_y is None else d_y[0],
        )

    def potential(self, point: ArrayLike, x_axis: ArrayLike, y_axis: ArrayLike) -> float:
        """P alone, for inspection (checked input)."""
        return self.evaluate(
            finite_array(point, "point", (3,)),
            finite_array(x_axis, "x_axis", (3,)),
            finite_array(y_axis, "y_axis", (3,)),
        ).value


def toward(point: FloatArray, centre: FloatArray, radius: float) -> FloatArray:
    """``point`` moved straight toward ``centre`` to within ``radius`` of it (kept if within)."""
    offset = point - centre
    distance = float(np.linalg.norm(offset))
    if distance <= radius:
        return point
    moved: FloatArray = centre + offset * (radius / distance)
    return moved


def rows(vectors: Sequence[FloatArray]) -> FloatArray:
    """Stack 3-vectors into shape (k, 3)."""
    return np.array(vectors, dtype=np.float64).reshape(-1, 3)


def column(values: Sequence[float]) -> FloatArray:
    """Stack numbers into shape (k, 1) for broadcasting over rows."""
    return np.array(values, dtype=np.float64).reshape(-1, 1)


def orthonormal_pair(x: ArrayLike, y: ArrayLike, what: str) -> tuple[FloatArray, FloatArray]:
    """Check that ``x`` and ``y`` are orthonormal 3-vectors (to 1e-6) and return them.

    Raises:
        SolverInputError: If either is NaN, zero, not unit or they are not orthogonal.
    """
    a = finite_array(x, f"{what} x axis", (3,))
    b = finite_array(y, f"{what} y axis", (3,))
    for name, vector in (("x", a), ("y", b)):
        if abs(float(np.linalg.norm(vector)) - 1.0) > 1e-6:
            raise SolverInputError(
                f"{what}: {name} axis must be a unit vector, got length "
                f"{float(np.linalg.norm(vector)):.6g}",
                item=what,
            )
    if abs(float(a @ b)) > 1e-6:
        raise SolverInputError(
            f"{what}: x and y axes must be orthogonal, got x·y = {float(a @ b):.6g}", item=what
        )
    a = unit_vector(a, f"{what} x axis")
    b = unit_vector(b - (b @ a) * a, f"{what} y axis")
    return a, b
