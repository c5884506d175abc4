"""H's starts and the BFGS/DFP update (the switch of Fletcher 1970), against dense H."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import kernel
from solver.optimizer import metric
from solver.optimizer.active_set import ActiveSet
from solver.optimizer.metric import (
    Metric,
    fletcher_update,
    gauss_newton_start,
    projector_start,
)


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    factor = rng.normal(size=(n, n))
    return factor @ factor.T + n * np.eye(n)


def test_gauss_newton_start_without_active_rows_is_the_damped_inverse() -> None:
    factor = np.diag([2.0, np.sqrt(2.0)])  # B = F Fᵀ = diag(4, 2)
    h = gauss_newton_start(factor, np.zeros((2, 0)), 0.0).to_array()
    np.testing.assert_allclose(h, np.diag([1 / (4.0 + 4e-7), 1 / (2.0 + 4e-7)]))


def test_gauss_newton_start_lives_in_the_null_space_of_the_active_rows() -> None:
    rng = np.random.default_rng(3)
    active = np.array([[1.0], [0.0], [0.0], [0.0]])
    h = gauss_newton_start(np.linalg.cholesky(_spd(rng, 4)), active, 0.5).to_array()
    np.testing.assert_allclose(h @ active, 0.0, atol=1e-14)
    np.testing.assert_allclose(h, h.T)
    assert np.all(np.linalg.eigvalsh(h[1:, 1:]) > 0.0)


def test_gauss_newton_start_with_every_direction_active_is_zero() -> None:
    h = gauss_newton_start(np.eye(2), np.eye(2), 1.0).to_array()
    np.testing.assert_array_equal(h, np.zeros((2, 2)))


def _dense_start(factor: np.ndarray, active: np.ndarray, value: float) -> np.ndarray:
    """``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` formed densely, with μ = G (G dominates the damping)."""
    n, rows = active.shape
    basis = np.linalg.qr(active, mode="complete")[0][:, rows:] if rows else np.eye(n)
    hessian = factor @ factor.T
    reduced = basis.T @ hessian @ basis + value * np.eye(n - rows)
    dense: np.ndarray = basis @ np.linalg.inv(reduced) @ basis.T
    return dense


@pytest.mark.parametrize("rows", [0, 1, 3])
def test_woodbury_start_of_a_thin_factor_equals_the_dense_inverse(rows: int) -> None:
    # F with few columns (a long chain, few goals) takes Woodbury's identity and keeps H
    # as I/μ plus a low-rank term; it must be the dense Z(Zᵀ(B + μI)Z)⁻¹Zᵀ exactly.
    rng = np.random.default_rng(11 + rows)
    n, k, value = 20, 4, 0.3
    factor = rng.normal(size=(n, k))
    active = np.linalg.qr(rng.normal(size=(n, rows)))[0] if rows else np.zeros((n, 0))
    dense = _dense_start(factor, active, value)
    h = gauss_newton_start(factor, active, value)
    assert h.matrix is None and h.rank == rows + k
    np.testing.assert_allclose(h.to_array(), dense, atol=1e-12)
    vector = rng.normal(size=n)
    np.testing.assert_allclose(h @ vector, dense @ vector, atol=1e-12)
    np.testing.assert_allclose(h.to_array() @ active, 0.0, atol=1e-12)


@pytest.mark.parametrize("rows", [0, 2])
def test_a_curvature_that_will_not_factor_starts_h_from_the_scaled_projector(rows: int) -> None:
    # Where rounding keeps S = FᵀPF + μI from a Cholesky factor (LAPACK refuses it),
    # H starts from the projector over μ, with no error: a descent step along the
    # projected gradient, as with no curvature.
    rng = np.random.default_rng(5 + rows)
    n, k, value = 20, 4, 0.3
    factor = rng.normal(size=(n, k))
    active = np.linalg.qr(rng.normal(size=(n, rows)))[0] if rows else np.zeros((n, 0))

    def refuse(matrix: np.ndarray) -> np.ndarray:
        raise np.linalg.LinAlgError("Matrix is not positive definite")

    with pytest.MonkeyPatch.context() as patch, kernel.enabled(False):
        patch.setattr(np.linalg, "cholesky", refuse)
        h = gauss_newton_start(factor, active, value)
    projector = np.eye(n) - active @ active.T
    largest = float(np.max(np.sum((projector @ factor) ** 2, axis=0)))
    damping = metric.gauss_newton_damping(largest, value)
    np.testing.assert_allclose(h.to_array(), projector / damping, atol=1e-12)


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "kernel"])
@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(2, 30),
    k=st.integers(1, 30),
    rows=st.integers(0, 6),
    value=st.floats(0.01, 10.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_start_equals_the_dense_inverse(
    compiled: bool, n: int, k: int, rows: int, value: float, seed: int
) -> None:
    # Woodbury (2k < n, low rank; factored by the kernel where it runs, or numpy) or the
    # dense inverse (2k ≥ n): the same H.
    with kernel.enabled(compiled):
        _every_start_equals_the_dense_inverse(n, k, rows, value, seed)


def _every_start_equals_the_dense_inverse(
    n: int, k: int, rows: int, value: float, seed: int
) -> None:
    rows = min(rows, n - 1)
    rng = np.random.default_rng(seed)
    factor = rng.normal(size=(n, k))
    active = rng.normal(size=(n, rows))
    dense = _dense_start(factor, active, value)
    h = gauss_newton_start(factor, active, value)
    vector = rng.normal(size=n)
    size = float(np.abs(dense).max())
    np.testing.assert_allclose(h @ vector, dense @ vector, atol=1e-9 * size * n)
    np.testing.assert_allclose(h.to_array(), dense, atol=1e-9 * size)
    # Any orthonormal basis of the active rows' span, given, makes the same H.
    turn = np.linalg.qr(rng.normal(size=(rows, rows)))[0] if rows else np.eye(0)
    basis = np.linalg.qr(active)[0] @ turn
    given = gauss_newton_start(factor, active, value, basis)
    np.testing.assert_allclose(given @ vector, dense @ vector, atol=1e-9 * size * n)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 120),
    k=st.integers(1, 40),
    rows=st.integers(0, 8),
    bounds=st.booleans(),
    value=st.sampled_from([0.0, 1e-12, 1e-4, 3.0]),
    spread=st.sampled_from([0.0, 3.0, 6.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_kernels_woodbury_start_is_numpys_to_rounding(
    n: int, k: int, rows: int, bounds: bool, value: float, spread: float, seed: int
) -> None:
    # Active rows given as an orthonormal basis or as bounds, curvature spread over up to
    # six orders, G from 0 (μ from the curvature) up: the kernel's (PF)ᵀ, μ and L⁻¹ make
    # numpy's H, and gᵀHg keeps its sign where H nearly cancels I/μ.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    k = min(k, (n - 1) // 2)
    rows = min(rows, n - 2 * k - 1)
    if k < 1 or n * k * k > metric._COMPILED_START:
        return
    rng = np.random.default_rng(seed)
    factor = rng.normal(size=(n, k)) * np.logspace(0, -spread, k)
    held = rng.choice(n, rows, replace=False)
    active = np.eye(n)[:, held] if bounds else np.linalg.qr(rng.normal(size=(n, rows)))[0]
    basis = active if rows else None
    kinds = held if bounds and rows else None
    with kernel.enabled(False):
        want = gauss_newton_start(factor, active, value, basis, kinds)
    have = gauss_newton_start(factor, active, value, basis, kinds)
    assert have.rank == want.rank
    assert have.scale == pytest.approx(want.scale, rel=1e-12)
    dense = want.to_array()
    size = float(np.abs(dense).max())
    np.testing.assert_allclose(have.to_array(), dense, rtol=0, atol=1e-9 * size)
    gradient = factor @ rng.normal(size=k)
    gradient -= active @ (active.T @ gradient)
    if gradient @ (want @ gradient) > 0.0:
        assert gradient @ (have @ gradient) > 0.0


def test_projector_start_is_the_projector() -> None:
    rng = np.random.default_rng(4)
    a_in = rng.normal(size=(3, 8))
    a_in /= np.linalg.norm(a_in, axis=1)[:, None]
    active = ActiveSet(np.zeros((0, 8)), np.zeros(0), a_in, np.zeros(3))
    for row in range(3):
        active.add(row)
    h = projector_start(active.matrix, active.gram_inverse)
    np.testing.assert_allclose(h.to_array(), active.projector(), atol=1e-14)
    assert not projector_start(np.eye(2), np.eye(2)).to_array().any()


def _dense_update(h: np.ndarray, sigma: np.ndarray, y: np.ndarray) -> np.ndarray:
    """BFGS or DFP (Fletcher's switch) on a dense H, as the formulas read."""
    sy = sigma @ y
    hy = h @ y
    yhy = y @ hy
    if sy >= yhy:
        rho = 1.0 / sy
        cross = np.outer(sigma, hy)
        return h - rho * (cross + cross.T) + rho * (1.0 + rho * yhy) * np.outer(sigma, sigma)
    updated: np.ndarray = h - np.outer(hy, hy) / yhy + np.outer(sigma, sigma) / sy
    return updated


def test_both_updates_satisfy_the_secant_condition() -> None:
    rng = np.random.default_rng(5)
    h = Metric.dense(np.linalg.inv(_spd(rng, 3)))
    sigma = rng.normal(size=3)
    for scale in (100.0, 1e-3):  # σᵀy ≥ yᵀHy (BFGS) and σᵀy < yᵀHy (DFP)
        y = scale * _spd(rng, 3) @ sigma
        updated = fletcher_update(h, sigma, y)
        np.testing.assert_allclose(updated @ y, sigma, rtol=1e-9)
        np.testing.assert_allclose(updated.to_array(), updated.to_array().T)


@settings(max_examples=50, deadline=None)
@given(n=st.integers(4, 40), steps=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_low_rank_updates_equal_the_dense_updates(n: int, steps: int, seed: int) -> None:
    # A run of BFGS/DFP updates on the low-rank Woodbury start, against the same updates
    # on its dense matrix; every H keeps the secant condition of its last step.
    rng = np.random.default_rng(seed)
    h = gauss_newton_start(rng.normal(size=(n, 1)), np.zeros((n, 0)), 1.0)
    dense = h.to_array()
    for _ in range(steps):
        sigma = rng.normal(size=n)
        y = _spd(rng, n) @ sigma * float(rng.uniform(0.01, 10.0))
        h = fletcher_update(h, sigma, y)
        dense = _dense_update(dense, sigma, y)
        np.testing.assert_allclose(h @ y, sigma, rtol=1e-7, atol=1e-9)
    size = float(np.abs(dense).max())
    vector = rng.normal(size=n)
    np.testing.assert_allclose(h @ vector, dense @ vector, atol=1e-9 * size * n)
    np.testing.assert_allclose(h.to_array(), dense, atol=1e-9 * size)


def test_a_step_without_positive_curvature_leaves_h_alone() -> None:
    h = Metric.dense(np.eye(2))
    assert fletcher_update(h, np.array([1.0, 0.0]), np.array([-1.0, 0.0])) is h


@pytest.mark.parametrize(("n", "k"), [(700, 100), (60, 12)])
@pytest.mark.parametrize("rows", [0, 2])
def test_woodburys_start_through_the_gram_matrix_is_the_dense_start(
    n: int, k: int, rows: int
) -> None:
    # The same H as the dense inverse, to rounding, down to the curvature's weakest
    # directions (a nearly flat one included), and gᵀHg > 0 where H nearly cancels I/μ.
    rng = np.random.default_rng(40 + rows + n)
    value = 1e-3
    factor = rng.normal(size=(n, k)) * np.logspace(0, -6, k)
    active = np.linalg.qr(rng.normal(size=(n, rows)))[0] if rows else np.zeros((n, 0))
    dense = _dense_start(factor, active, value)
    h = gauss_newton_start(factor, active, value)
    assert h.matrix is None and h.rank == rows + k
    size = float(np.abs(dense).max())
    np.testing.assert_allclose(h.to_array(), dense, atol=1e-9 * size)
    gradient = factor @ rng.normal(size=k)  # in F's range: H nearly cancels I/μ there
    gradient -= active @ (active.T @ gradient)
    assert gradient @ (h @ gradient) > 0.0
    step = dense @ gradient
    np.testing.assert_allclose(h @ gradient, step, rtol=0, atol=1e-9 * float(np.abs(step).max()))


def test_the_start_clock_skips_only_large_starts_that_would_end_past_the_deadline() -> None:
    clock = metric.StartClock()
    assert clock.fits(3000, 600, 0, None)  # no deadline: always
    soon = time.perf_counter() + 1e-4
    assert clock.fits(54, 12, 3, soon)  # small: never skipped, never timed
    assert clock.rate is None
    assert not clock.fits(3000, 600, 0, soon)  # timed once on first need, then predicted
    assert clock.rate is not None and clock.rate > 0.0
    assert clock.fits(3000, 600, 0, time.perf_counter() + 100.0)


def test_a_timed_start_sets_the_rate_and_is_the_start() -> None:
    clock = metric.StartClock()
    rng = np.random.default_rng(5)
    factor = rng.normal(size=(2000, 150))
    h = clock.timed(factor, np.zeros((2000, 0)), 0.5)
    assert clock.rate is not None and clock.rate > 0.0
    vector = rng.normal(size=2000)
    expected = gauss_newton_start(factor, np.zeros((2000, 0)), 0.5) @ vector
    np.testing.assert_array_equal(h @ vector, expected)
