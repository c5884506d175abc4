"""Inexact line search with Powell's conditions and cubic Hermite interpolation.

Trial steps lie in ``(0, cap]`` with ``cap = λ_max`` (the first row the step meets; ∞
when none). The first trial is ``min(1, cap)``. A step α is accepted when it gives
sufficient decrease, ``G(α) ≤ G(0) + c₁ α G'(0)``, and either the curvature condition
``G'(α) ≥ c₂ G'(0)`` holds or α is the cap. Between a point that satisfies sufficient
decrease and one that does not, the next trial minimises the cubic Hermite interpolant
of G and G' at both ends (the gradient costs about as much as G, so every trial
computes both). G never increases: every accepted α has ``G(α) ≤ G(0)``.

Beyond Zhao & Badler 1994, whose steps stop at ``min(1, λ_max)``: when the unit step
decreases G but G still falls steeply there (the curvature condition fails), the
search expands, trying 4α, 16α, … up to the cap, until G rises, the slope flattens or
the cap is reached, then interpolates as above. Without it, a metric far too small in
the free directions could only grow by BFGS updates, and those need ``σᵀy > 0``: on an
unreachable goal weighted 5·10⁴ with one free direction left along which G is
concave, every unit step lowers G by next to nothing, H never grows, and the descent
crawls to the iteration limit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from .._checks import FloatArray
from .active_set import ActiveSet

__all__ = ["LineSearchResult", "ProjectedTrial", "cubic_minimiser", "line_search"]

_EXPANSION = 4.0
"""Factor by which an expanding search lengthens its trial step."""

Trial = Callable[[float], tuple[float, FloatArray, float]]
"""α ↦ (G, gradient, directional derivative G'(α)) at the trial point."""


class LineSearchResult(NamedTuple):
    """An accepted step, or ``alpha == 0`` when none was found.

    Attributes:
        alpha: Accepted step length; 0 when the search failed.
        value: G at the accepted point.
        gradient: Gradient at the accepted point (None when failed).
        evaluations: Objective evaluations used.
    """

    alpha: float
    value: float
    gradient: FloatArray | None
    evaluations: int


def cubic_minimiser(a: float, fa: float, da: float, b: float, fb: float, db: float) -> float:
    """Minimiser of the cubic Hermite interpolant of (f, f') at a and b, or the midpoint.

    Args:
        a: Left end.
        fa: f(a).
        da: f'(a).
        b: Right end.
        fb: f(b).
        db: f'(b).

    Returns:
        A point in (a, b), kept at least 10% of the interval from either end.
    """
    width = b - a
    lo = a + 0.1 * width
    hi = b - 0.1 * width
    d1 = da + db - 3.0 * (fa - fb) / (a - b)
    radicand = d1 * d1 - da * db
    if radicand >= 0.0 and math.isfinite(radicand):
        d2 = math.copysign(math.sqrt(radicand), b - a)
        denominator = db - da + 2.0 * d2
        if denominator != 0.0:
            x = b - (b - a) * (db + d2 - d1) / denominator
            if math.isfinite(x):
                return min(max(x, lo), hi)
    return 0.5 * (a + b)


def line_search(
    trial: Trial,
    value0: float,
    slope0: float,
    cap: float,
    *,
    c1: float = 1e-4,
    c2: float = 0.9,
    max_evaluations: int = 30,
) -> LineSearchResult:
    """Find a step in ``(0, cap]`` along a descent direction.

    Args:
        trial: Evaluates the objective at step α.
        value0: G at α = 0.
        slope0: G'(0) < 0.
        cap: Largest step, λ_max > 0 (∞ when no row blocks the step); the first
            trial is ``min(1, cap)``.
        c1: Sufficient-decrease constant.
        c2: Curvature constant, c1 < c2 < 1.
        max_evaluations: Most trials.

    Returns:
        The accepted step (α > 0), or α = 0 when no step decreased G.
    """
    noise = 1e-13 * abs(value0)

    def decreases(alpha: float, value: float) -> bool:
        return value <= value0 + c1 * alpha * slope0 or (
            value <= value0 and c1 * alpha * -slope0 <= noise
        )

    alpha = min(1.0, cap)
    value, gradient, slope = trial(alpha)
    evaluations = 1
    lo_alpha, lo_value, lo_slope = 0.0, value0, slope0
    lo_gradient: FloatArray | None = None
    # Expansion: while G decreases and still falls steeply, try steps 4× longer.
    while decreases(alpha, value) and value <= lo_value:
        # At the cap the curvature condition is not needed.
        if alpha >= cap or slope >= c2 * slope0 or evaluations >= max_evaluations:
            return LineSearchResult(alpha, value, gradient, evaluations)
        lo_alpha, lo_value, lo_slope, lo_gradient = alpha, value, slope, gradient
        alpha = min(cap, _EXPANSION * alpha)
        value, gradient, slope = trial(alpha)
        evaluations += 1
    hi = (alpha, value, slope)
    while evaluations < max_evaluations and hi[0] - lo_alpha > 1e-15 * max(hi[0], 1e-300):
        alpha = cubic_minimiser(lo_alpha, lo_value, lo_slope, hi[0], hi[1], hi[2])
        value, gradient, slope = trial(alpha)
        evaluations += 1
        if decreases(alpha, value) and value <= lo_value:
            if slope >= c2 * slope0:
                return LineSearchResult(alpha, value, gradient, evaluations)
            lo_alpha, lo_value, lo_slope, lo_gradient = alpha, value, slope, gradient
        else:
            hi = (alpha, value, slope)
    if lo_alpha > 0.0 and lo_gradient is not None:
        return LineSearchResult(lo_alpha, lo_value, lo_gradient, evaluations)
    return LineSearchResult(0.0, value0, None, evaluations)


class ProjectedTrial:
    """A :data:`Trial` along ``φ + α s`` that keeps each point on the active rows.

    A trial at the cap, where the step meets row ``hit``, is projected onto the active
    rows plus that row; their set is built on first use (most searches stop short).
    """

    def __init__(
        self,
        objective: Callable[[FloatArray], tuple[float, FloatArray]],
        phi: FloatArray,
        step: FloatArray,
        active: ActiveSet,
        cap: float,
        hit: int | None,
    ) -> None:
        self.objective, self.phi, self.step = objective, phi, step
        self.active, self.cap, self.hit = active, cap, hit
        self.with_hit: ActiveSet | None = None
        self.points: dict[float, FloatArray] = {}

    def rows_at_cap(self) -> ActiveSet:
        """The active rows plus the row hit at the cap."""
        assert self.hit is not None
        if self.with_hit is None:
            self.with_hit = self.active.with_row(self.hit)
        return self.with_hit

    def __call__(self, alpha: float) -> tuple[float, FloatArray, float]:
        """G, its gradient and G'(α) at the corrected point for ``alpha`` (kept in points)."""
        point = self.phi + alpha * self.step
        at_cap = self.hit is not None and alpha >= self.cap
        point = (self.rows_at_cap() if at_cap else self.active).correct(point)
        self.points[alpha] = point
        value, gradient = self.objective(point)
        return value, gradient, float(gradient @ self.step)
