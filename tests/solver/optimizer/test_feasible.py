"""Restarts' random perturbations stay inside the limits and are seeded."""

from __future__ import annotations

import numpy as np
import pytest

from solver.optimizer.feasible import perturb

LOWER = np.array([-1.0, -1.0, -0.5])
UPPER = np.array([1.0, 1.0, 0.5])
# A triangle over the first two variables: φ₁ + φ₂ ≤ 1 and −φ₁ + φ₂ ≤ 1 (unit rows).
A_IN = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0]]) / np.sqrt(2.0)
B_IN = -np.ones(2) / np.sqrt(2.0)
A_EQ = np.array([[0.0, 0.0, 1.0]])  # the third variable is fixed


@pytest.mark.parametrize("seed", range(10))
def test_perturbed_points_satisfy_every_limit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    start = np.array([0.2, -0.3, 0.25])
    for radius in (0.1, 1.0, np.pi):
        point = perturb(start, LOWER, UPPER, A_EQ, A_IN, B_IN, radius, rng)
        assert np.all(A_IN @ point >= B_IN - 1e-12)
        assert point[2] == pytest.approx(start[2])


def test_perturbation_is_deterministic_for_a_seed() -> None:
    start = np.zeros(3)
    first = perturb(start, LOWER, UPPER, A_EQ, A_IN, B_IN, 0.5, np.random.default_rng(1))
    again = perturb(start, LOWER, UPPER, A_EQ, A_IN, B_IN, 0.5, np.random.default_rng(1))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, start)
