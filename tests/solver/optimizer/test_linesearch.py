"""The line search: cubic interpolation and Powell's conditions."""

from __future__ import annotations

import numpy as np
import pytest

from solver.optimizer.linesearch import cubic_minimiser, line_search


def test_cubic_minimiser_is_exact_for_a_quadratic() -> None:
    # f(x) = (x − 0.3)², f' = 2(x − 0.3), on [0, 1].
    assert cubic_minimiser(0.0, 0.09, -0.6, 1.0, 0.49, 1.4) == pytest.approx(0.3)


def test_cubic_minimiser_stays_a_tenth_of_the_interval_from_either_end() -> None:
    # Minimiser at 0.01: kept at 0.1.
    assert cubic_minimiser(0.0, 1e-4, -0.02, 1.0, 0.9801, 1.98) == pytest.approx(0.1)


def test_cubic_minimiser_falls_back_to_the_midpoint() -> None:
    assert cubic_minimiser(0.0, 0.0, np.nan, 1.0, 0.0, 1.0) == 0.5


def _parabola(minimum: float):
    """α ↦ (G, gradient, G') of G(α) = (α − minimum)²."""

    def trial(alpha: float) -> tuple[float, np.ndarray, float]:
        return (alpha - minimum) ** 2, np.array([alpha]), 2.0 * (alpha - minimum)

    return trial


def test_a_step_at_the_cap_is_taken_when_it_decreases_enough() -> None:
    result = line_search(_parabola(2.0), 4.0, -4.0, 1.0)
    assert result.alpha == 1.0 and result.evaluations == 1
    assert result.value == 1.0


def test_an_overshooting_step_is_cut_back_to_satisfy_powell_conditions() -> None:
    value0, slope0 = 0.01, -0.2  # G(α) = (α − 0.1)²
    result = line_search(_parabola(0.1), value0, slope0, 1.0)
    assert 0.0 < result.alpha < 1.0
    assert result.value <= value0 + 1e-4 * result.alpha * slope0
    assert 2.0 * (result.alpha - 0.1) >= 0.9 * slope0  # the curvature condition
    assert result.gradient is not None


def test_no_decrease_returns_a_zero_step() -> None:
    def rising(alpha: float) -> tuple[float, np.ndarray, float]:
        return 1.0 + alpha, np.array([1.0]), 1.0

    result = line_search(rising, 1.0, -1.0, 1.0, max_evaluations=5)
    assert result.alpha == 0.0 and result.gradient is None
    assert result.value == 1.0
    assert result.evaluations == 5


def test_a_unit_step_that_still_falls_steeply_expands_toward_the_minimum() -> None:
    # G(α) = (α − 50)²: the unit step decreases G but its slope is 98% of G'(0).
    result = line_search(_parabola(50.0), 2500.0, -100.0, np.inf)
    assert result.alpha > 4.0
    assert result.value < 0.5 * 2500.0
    assert 2.0 * (result.alpha - 50.0) >= 0.9 * -100.0  # the curvature condition
    assert result.gradient is not None


def test_an_expanding_step_stops_at_the_first_blocking_row() -> None:
    result = line_search(_parabola(50.0), 2500.0, -100.0, 7.0)
    assert result.alpha == 7.0
    assert result.value == (7.0 - 50.0) ** 2


def test_a_unit_step_that_flattens_is_not_expanded() -> None:
    result = line_search(_parabola(1.05), 1.05**2, -2.1, np.inf)
    assert result.alpha == 1.0 and result.evaluations == 1
