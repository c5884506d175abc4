"""The curvature of G_all over the variables: Gauss–Newton's estimate, and its Hessian.

``Σ_e c_e J_eᵀ diag(κ_e) J_e`` is F Fᵀ, F of shape (n_v, k), k ≤ 9m: each effector's
Jacobian (:mod:`.jacobian`) weighed by its goal's curvature weights κ_e
(:meth:`solver.goals.Goal.curvature`) and its weight c_e in G_all. The Hessian itself
is given as its products (:func:`hessian_product`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._checks import FloatArray
from .evaluated import Evaluated
from .goals.stacked import StackedGoals
from .jacobian import Jacobian
from .parts import Parts

__all__ = ["gauss_newton_factor", "hessian_product", "leaf_jacobians"]


def leaf_jacobians(pose: Evaluated, parts: Parts, jacobian: Jacobian) -> FloatArray:
    """Each effector's Jacobian over (δr, δx, δy) at ``pose``, shape (n_v, m, 9).

    Made from its parts' (:mod:`.parts`): a centre of mass's many.
    """
    if parts.single:
        return jacobian.jacobians(pose.points, pose.x, pose.y, pose.axes, pose.pivots)
    # A plain effector's axes turn with it; a centre of mass's are the world's.
    rows, back = parts.distinct
    turning = parts.turning
    return jacobian.gathered(
        pose.at,
        rows,
        back,
        parts.first,
        turning,
        pose.x[turning],
        pose.y[turning],
        pose.axes,
        pose.pivots,
    )


def gauss_newton_factor(
    pose: Evaluated,
    goals: StackedGoals,
    coefficient: FloatArray,
    parts: Parts,
    jacobian: Jacobian,
) -> FloatArray:
    """F with ``F Fᵀ`` the Gauss–Newton curvature at ``pose``, shape (n_v, k), k ≤ 9m.

    Plane, line, half-space and aim goals weigh some directions of the effector's motion
    and not others (:meth:`solver.goals.Goal.stack_curvature`); their F is
    :meth:`Jacobian.factored <solver.jacobian.Jacobian.factored>`.

    Args:
        pose: The effectors and variables at θ.
        goals: The leaves' goals.
        coefficient: Each leaf's weight in G_all at θ, shape (m,).
        parts: The effectors' parts.
        jacobian: How the variables move them.
    """
    points, x, y, axes, pivots = pose.points, pose.x, pose.y, pose.axes, pose.pivots
    if not parts.single:
        factors = goals.factors(points, x, y) * np.sqrt(coefficient)[:, None, None]
        jacobians = leaf_jacobians(pose, parts, jacobian)
        product = np.matmul(jacobians.transpose(1, 0, 2), factors)  # (m, n, 9), batched BLAS
        # the columns a goal weighs (a half-space inside weighs none): F Fᵀ is the same
        used = np.any(factors != 0.0, axis=1)
        result: FloatArray = product.transpose(1, 0, 2)[:, used]
        return result
    if not goals.isotropic:
        factors = goals.factors(points, x, y) * np.sqrt(coefficient)[:, None, None]
        return jacobian.factored(points, x, y, axes, pivots, factors)
    weights = np.sqrt(coefficient[:, None] * goals.curvature)  # (m, 3): point, x, y
    if goals.axes_weighted:
        return jacobian.factor(np.concatenate([points, x, y]), axes, pivots, weights.T)
    return jacobian.factor(points, axes, pivots, weights.T[:1])


def hessian_product(
    pose: Evaluated, goals: StackedGoals, weights: FloatArray, jacobian: Jacobian
) -> Callable[[FloatArray], FloatArray] | None:
    """The map v ↦ ∇²G_all v over the variables at ``pose``, for plain sums of single points.

    :meth:`Jacobian.hessian_product <solver.jacobian.Jacobian.hessian_product>` with the
    goals' gradients and Hessians there, each leaf of weight ``weights`` (shape (m,)).
    """
    points, x, y = pose.points, pose.x, pose.y
    return jacobian.hessian_product(
        points,
        x,
        y,
        goals.gradients(points, x, y),
        goals.hessians(points, x, y),
        weights,
        pose.axes,
        pose.pivots,
    )
