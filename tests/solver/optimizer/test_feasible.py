"""Restarts' random perturbations stay inside the limits and are seeded."""

from __future__ import annotations

import numpy as np
import pytest

from solver.optimizer.feasible import Box, Starts, latin_slices, perturb, spread

LOWER = np.array([-1.0, -1.0, -0.5])
UPPER = np.array([1.0, 1.0, 0.5])
# A triangle over the first two variables: φ₁ + φ₂ ≤ 1 and −φ₁ + φ₂ ≤ 1 (unit rows).
A_IN = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0]]) / np.sqrt(2.0)
B_IN = -np.ones(2) / np.sqrt(2.0)
A_EQ = np.array([[0.0, 0.0, 1.0]])  # the third variable is fixed
# The solver's rows hold the bounds too: φ ≥ LOWER and −φ ≥ −UPPER.
A_ROWS = np.vstack([A_IN, np.eye(3), -np.eye(3)])
B_ROWS = np.concatenate([B_IN, LOWER, -UPPER])


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


def test_latin_slices_give_each_start_a_different_slice_of_every_variable() -> None:
    slices = latin_slices(5, 4, np.random.default_rng(0))
    assert slices.shape == (5, 2, 4)
    for variable in range(4):
        lows = sorted(slices[:, 0, variable])
        np.testing.assert_allclose(lows, np.arange(5) / 5)
    np.testing.assert_allclose(slices[:, 1] - slices[:, 0], 0.2)


@pytest.mark.parametrize("seed", range(10))
def test_spread_starts_satisfy_every_limit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    start = np.array([0.2, -0.3, 0.25])
    box = Box.around(start, LOWER, UPPER, np.full(3, np.pi))
    for slices in latin_slices(4, 3, rng):
        point = spread(start, box, A_EQ, A_ROWS, B_ROWS, slices, rng)
        assert np.all(A_ROWS @ point >= B_ROWS - 1e-12)
        assert np.all(point >= LOWER - 1e-12) and np.all(point <= UPPER + 1e-12)
        assert point[2] == pytest.approx(start[2])


def test_spread_starts_cover_the_feasible_set_and_not_only_the_start() -> None:
    # Eight starts of one solve from a corner of the triangle reach its far side.
    start = np.array([0.0, -0.95, 0.0])
    box = Box.around(start, LOWER, UPPER, np.full(3, np.pi))
    rng = np.random.default_rng(3)
    points = np.array(
        [spread(start, box, A_EQ, A_ROWS, B_ROWS, s, rng) for s in latin_slices(8, 3, rng)]
    )
    assert np.ptp(points[:, 0]) > 1.0
    assert points[:, 1].max() > 0.3


def test_an_unbounded_rotation_spreads_over_a_full_turn_and_a_translation_stays() -> None:
    box = Box.around(
        np.array([1.0, 2.0]), np.full(2, -np.inf), np.full(2, np.inf), np.array([np.pi, 0.0])
    )
    np.testing.assert_allclose(box.low, [1.0 - np.pi, 2.0])
    np.testing.assert_allclose(box.high, [1.0 + np.pi, 2.0])


def test_starts_are_deterministic_for_a_seed_and_alternate_spread_and_local() -> None:
    start = np.array([0.0, -0.95, 0.0])
    box = Box.around(start, LOWER, UPPER, np.full(3, np.pi))
    limits = (LOWER, UPPER, A_EQ, A_ROWS, B_ROWS)
    best = np.array([0.5, 0.2, 0.0])
    first = [Starts(start, box, limits, 8, seed=4).start(k, best) for k in range(1, 9)]
    plan = Starts(start, box, limits, 8, seed=4)
    again = [plan.start(k, best) for k in range(1, 9)]
    np.testing.assert_array_equal(first[0], again[0])
    local = [np.linalg.norm(p - best) for p in again[1::2]]
    assert max(local) <= np.sqrt(3) * np.pi
    for point in again:
        assert np.all(A_ROWS @ point >= B_ROWS - 1e-12)
