"""A truncated-Newton step for a descent whose G falls slowly: goals out of reach.

Where goals stay unmet, G's Hessian is not the goals' Gauss–Newton estimate: the
residuals' own curvature (``Σ rᵢ ∇²rᵢ``) no longer vanishes, and quasi-Newton updates
learn it one direction a step, which on a long chain stretched between many goals takes
a hundred steps and more. The Newton step instead solves the Newton equation on the
active rows' null space, ``P ∇²G P s = −P g``, by conjugate gradients preconditioned with
the descent's own H (truncated Newton: Dembo & Steihaug 1983; with a preconditioner,
Nash 1985). Each product ``∇²G p`` is the problem's own where it makes one
(:meth:`solver.Problem.hessian_product`), else a difference of two gradients
(:func:`difference_product`), which serves every objective. The iteration stops at a
residual of ``min(0.1, √(‖r₀‖/‖∇G₀‖))·‖r₀‖``
(∇G₀ at the descent's start, so that the scale of the weights does not matter), at
negative curvature, after :data:`PRODUCTS` products or at the deadline; the step is the
last iterate, which is a descent direction whenever one product was taken (and None
before that). Where the compiled kernel makes the products and the active rows are
bounds, the whole iteration runs in it (:func:`compiled_newton_step`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._checks import FloatArray
from .low_rank import Metric

__all__ = [
    "PRODUCTS",
    "CompiledNewton",
    "Product",
    "compiled_newton_step",
    "difference_product",
    "newton_step",
]

Product = Callable[[FloatArray], FloatArray]
"""v ↦ ∇²G v at the iterate."""


CompiledNewton = Callable[
    [FloatArray, "np.ndarray[Any, np.dtype[np.uint8]]", Metric, float, int, float],
    tuple["FloatArray | None", int],
]
"""``(g, held, H, scale, products, forcing) ↦ (s, products)``: :func:`newton_step`'s whole
iteration at one pose, compiled (the kernel's Hessian product's ``newton_step``)."""

PRODUCTS = 10
"""Most Hessian products one step takes."""
_DIFFERENCE = 1e-7
"""Length of the difference step of a Hessian product, relative to max(1, ‖φ‖∞)."""
_FORCING = 0.1
"""Largest relative residual at which the conjugate gradients stop."""


def difference_product(
    gradient_at: Callable[[FloatArray], FloatArray], phi: FloatArray, gradient: FloatArray
) -> Product:
    """The map v ↦ (∇G(φ + εv) − ∇G(φ)) / ε, εv of length ``_DIFFERENCE``·max(1, ‖φ‖∞).

    Args:
        gradient_at: φ ↦ ∇G(φ).
        phi: The iterate.
        gradient: ∇G at ``phi``.
    """
    difference = _DIFFERENCE * max(1.0, float(np.max(np.abs(phi), initial=0.0)))

    def product(direction: FloatArray) -> FloatArray:
        eps = difference / math.sqrt(float(direction @ direction))
        result: FloatArray = (gradient_at(phi + eps * direction) - gradient) / eps
        return result

    return product


def compiled_newton_step(
    solve: CompiledNewton,
    gradient: FloatArray,
    held: np.ndarray[Any, np.dtype[np.uint8]],
    metric: Metric,
    deadline: float | None,
    scale: float,
    seconds: float | None,
) -> tuple[FloatArray | None, int]:
    """:func:`newton_step` with P zeroing the ``held`` variables, in one compiled call.

    The deadline cannot be read between the kernel's products, so the products are
    counted before the call: as many as start before it at ``seconds`` each (the last
    call's rate; :data:`PRODUCTS` before any), none once it has passed.
    """
    products = PRODUCTS
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0.0:
            return None, 0
        if seconds is not None and seconds > 0.0:
            products = min(PRODUCTS, math.ceil(left / seconds))
    return solve(gradient, held, metric, scale, products, _FORCING)


def newton_step(
    product: Product,
    gradient: FloatArray,
    project: Callable[[FloatArray], FloatArray],
    precondition: Callable[[FloatArray], FloatArray],
    deadline: float | None,
    scale: float,
) -> tuple[FloatArray | None, int]:
    """An approximate solution s of ``P ∇²G P s = −P g``, and the products it took.

    Args:
        product: v ↦ ∇²G v at the iterate.
        gradient: ∇G at the iterate.
        project: v ↦ P v, onto the active rows' null space.
        precondition: v ↦ H v, H positive semi-definite with range in that null space.
        deadline: ``time.perf_counter()`` value after which no product starts, or None.
        scale: ‖∇G‖ at the descent's start: the forcing term compares ‖P g‖ with it, so
            that weights scaled by any factor take the same steps.

    Returns:
        ``(s, products)``; s is None when no product of positive curvature was taken.
    """
    residual = -project(gradient)
    first = math.sqrt(float(residual @ residual))
    if first == 0.0:
        return None, 0
    stop = min(_FORCING, math.sqrt(first / scale)) * first
    direction = precondition(residual)
    product_rz = float(residual @ direction)
    step: FloatArray | None = None
    products = 0
    while products < PRODUCTS and product_rz > 0.0:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        curved = project(product(direction))
        products += 1
        curvature = float(direction @ curved)
        if not curvature > 0.0:  # negative curvature (or NaN): keep what was found
            break
        alpha = product_rz / curvature
        step = alpha * direction if step is None else step + alpha * direction
        residual = residual - alpha * curved
        if math.sqrt(float(residual @ residual)) <= stop:
            break
        preconditioned = precondition(residual)
        next_rz = float(residual @ preconditioned)
        direction = preconditioned + (next_rz / product_rz) * direction
        product_rz = next_rz
    return step, products
