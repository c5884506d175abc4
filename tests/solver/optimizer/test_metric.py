"""H's Gauss–Newton start and the BFGS/DFP update (the switch of Fletcher 1970)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.optimizer.metric import fletcher_update, gauss_newton_start


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    factor = rng.normal(size=(n, n))
    return factor @ factor.T + n * np.eye(n)


def test_gauss_newton_start_without_active_rows_is_the_damped_inverse() -> None:
    factor = np.diag([2.0, np.sqrt(2.0)])  # B = F Fᵀ = diag(4, 2)
    h = gauss_newton_start(factor, np.zeros((2, 0)), 0.0)
    np.testing.assert_allclose(h, np.diag([1 / (4.0 + 4e-7), 1 / (2.0 + 4e-7)]))


def test_gauss_newton_start_lives_in_the_null_space_of_the_active_rows() -> None:
    rng = np.random.default_rng(3)
    active = np.array([[1.0], [0.0], [0.0], [0.0]])
    h = gauss_newton_start(np.linalg.cholesky(_spd(rng, 4)), active, 0.5)
    np.testing.assert_allclose(h @ active, 0.0, atol=1e-14)
    np.testing.assert_allclose(h, h.T)
    assert np.all(np.linalg.eigvalsh(h[1:, 1:]) > 0.0)


def test_gauss_newton_start_with_every_direction_active_is_zero() -> None:
    h = gauss_newton_start(np.eye(2), np.eye(2), 1.0)
    np.testing.assert_array_equal(h, np.zeros((2, 2)))


@pytest.mark.parametrize("rows", [0, 1, 3])
def test_woodbury_start_of_a_thin_factor_equals_the_dense_inverse(rows: int) -> None:
    # F with few columns (a long chain, few goals) takes Woodbury's identity; with μ = G
    # (G dominates the damping) it must be the dense Z(Zᵀ(B + μI)Z)⁻¹Zᵀ exactly.
    rng = np.random.default_rng(11 + rows)
    n, k, value = 20, 4, 0.3
    factor = rng.normal(size=(n, k))
    active = np.linalg.qr(rng.normal(size=(n, rows)))[0] if rows else np.zeros((n, 0))
    basis = np.linalg.qr(active, mode="complete")[0][:, rows:] if rows else np.eye(n)
    hessian = factor @ factor.T
    dense = basis @ np.linalg.inv(basis.T @ hessian @ basis + value * np.eye(n - rows)) @ basis.T
    h = gauss_newton_start(factor, active, value)
    np.testing.assert_allclose(h, dense, atol=1e-12)
    np.testing.assert_allclose(h @ active, 0.0, atol=1e-12)


def test_both_updates_satisfy_the_secant_condition() -> None:
    rng = np.random.default_rng(5)
    h = np.linalg.inv(_spd(rng, 3))
    sigma = rng.normal(size=3)
    for scale in (100.0, 1e-3):  # σᵀy ≥ yᵀHy (BFGS) and σᵀy < yᵀHy (DFP)
        y = scale * _spd(rng, 3) @ sigma
        updated = fletcher_update(h, sigma, y)
        np.testing.assert_allclose(updated @ y, sigma, rtol=1e-9)
        np.testing.assert_allclose(updated, updated.T)


def test_a_step_without_positive_curvature_leaves_h_alone() -> None:
    h = np.eye(2)
    assert fletcher_update(h, np.array([1.0, 0.0]), np.array([-1.0, 0.0])) is h
