"""The inverse-Hessian estimate H of a projected quasi-Newton descent: start and update.

H starts either as the projector onto the null space of the active rows (the plain
projected BFGS of Goldfarb 1969) or, given the goals' Gauss–Newton curvature ``B = F Fᵀ``,
as the damped inverse ``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` (Z a basis of that null space; through
Woodbury's identity when F has few columns). After a step it is
updated by BFGS or DFP, chosen by the switch of Fletcher 1970.
"""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray

__all__ = ["fletcher_update", "gauss_newton_start"]

_DAMPING = 1e-7
"""Damping μ of the Gauss–Newton metric, relative to the largest diagonal entry of the
reduced curvature (μ is at least G, so that far from the goals steps stay short)."""
_DAMPING_G = 1.0
"""Damping μ relative to G."""


def gauss_newton_start(factor: FloatArray, active: FloatArray, value: float) -> FloatArray:
    """The damped Gauss–Newton inverse ``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` on the active rows' null space.

    With ``B = F Fᵀ`` and P = ZZᵀ the projector onto the null space, Woodbury's identity
    gives ``H = (P − PF(μI + FᵀPF)⁻¹FᵀP)/μ``: a k×k solve instead of an n×n inverse, used
    when F has at most half as many columns as rows (a long chain with a few goals).

    Args:
        factor: F with the Gauss–Newton curvature ``B = F Fᵀ``, shape (n, k).
        active: The active rows as columns N, shape (n, q).
        value: G at the current iterate (μ is at least G).

    Returns:
        H, shape (n, n), symmetric, ``H N = 0``.
    """
    n, k = factor.shape
    if 2 * k < n:
        return _woodbury_start(factor, active, value)
    hessian = factor @ factor.T
    columns = active.shape[1]
    basis: FloatArray | None = None
    reduced: FloatArray = hessian
    if columns:
        basis = np.linalg.qr(active, mode="complete")[0][:, columns:]
        if not basis.shape[1]:
            return np.zeros((n, n))
        reduced = basis.T @ hessian @ basis
    damping = _damping(float(np.max(np.diag(reduced))), value)
    reduced = reduced + damping * np.eye(reduced.shape[0])
    inverse: FloatArray = np.asarray(np.linalg.inv(reduced), dtype=np.float64)
    if basis is not None:
        inverse = basis @ inverse @ basis.T
    return 0.5 * (inverse + inverse.T)


def _damping(largest: float, value: float) -> float:
    """μ from the largest diagonal entry of the reduced curvature and G."""
    return max(_DAMPING * largest, _DAMPING_G * abs(value), 1e-12)


def _woodbury_start(factor: FloatArray, active: FloatArray, value: float) -> FloatArray:
    """:func:`gauss_newton_start` through Woodbury's identity (F has few columns)."""
    n, k = factor.shape
    projector = np.eye(n)
    projected = factor
    if active.shape[1]:
        rows = np.linalg.qr(active)[0]  # orthonormal basis of the active rows' span
        if rows.shape[1] >= n:
            return np.zeros((n, n))
        projected = factor - rows @ (rows.T @ factor)
        projector -= rows @ rows.T
    # the largest diagonal entry of P B P stands for that of Zᵀ B Z
    damping = _damping(float(np.max(np.einsum("ij,ij->i", projected, projected))), value)
    small = factor.T @ projected + damping * np.eye(k)
    correction = projected @ np.linalg.solve(small, projected.T)
    start: FloatArray = (projector - 0.5 * (correction + correction.T)) / damping
    return start


def fletcher_update(h: FloatArray, sigma: FloatArray, y: FloatArray) -> FloatArray:
    """H after a step σ with gradient change y: BFGS when σᵀy ≥ yᵀHy, else DFP.

    The switch of Fletcher 1970; H is returned unchanged unless σᵀy > 0.
    """
    sy = float(sigma @ y)
    if sy <= 1e-300:
        return h
    hy = h @ y
    yhy = float(y @ hy)
    if sy >= yhy:
        rho = 1.0 / sy
        cross = np.outer(sigma, hy)
        h = h - rho * (cross + cross.T) + (rho * (1.0 + rho * yhy)) * np.outer(sigma, sigma)
    else:
        h = h - np.outer(hy, hy) / yhy + np.outer(sigma, sigma) / sy
    return 0.5 * (h + h.T)
