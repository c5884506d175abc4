"""The solver's SVD and least squares: numpy's, and the same where LAPACK does not converge."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from solver import linalg

SHAPES = [(7, 4), (4, 7), (5, 5), (12, 1), (1, 9)]


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Make numpy's SVD (or least squares) fail to converge on some matrices, as LAPACK
    does on some CPUs' kernels for matrices it decomposes elsewhere."""

    def fail(name: str, matrices: list[np.ndarray]) -> None:
        original = getattr(np.linalg, name)

        def patched(matrix: Any, *args: Any, **kwargs: Any) -> Any:
            if any(np.array_equal(matrix, bad) for bad in matrices):
                raise np.linalg.LinAlgError(f"{name} did not converge")
            return original(matrix, *args, **kwargs)

        monkeypatch.setattr(np.linalg, name, patched)

    yield fail


def _check(
    matrix: np.ndarray, found: tuple[np.ndarray, ...], expected: np.ndarray, full: bool
) -> None:
    u, sigma, vt = found
    np.testing.assert_allclose(sigma, expected, rtol=1e-12, atol=1e-14)
    assert np.all(np.diff(sigma) <= 0.0)
    k = len(sigma)
    m, n = matrix.shape
    assert u.shape == ((m, m) if full else (m, k)) and vt.shape == ((n, n) if full else (k, n))
    np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=1e-13)
    np.testing.assert_allclose(vt @ vt.T, np.eye(vt.shape[0]), atol=1e-13)
    np.testing.assert_allclose((u[:, :k] * sigma) @ vt[:k], matrix, atol=1e-13)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_svd_is_numpys_where_it_converges(shape: tuple[int, int], full: bool) -> None:
    matrix = np.random.default_rng(1).normal(size=shape)
    found = linalg.svd(matrix, full_matrices=full)
    for mine, numpys in zip(found, np.linalg.svd(matrix, full_matrices=full), strict=True):
        np.testing.assert_array_equal(mine, numpys)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_svd_goes_round_a_matrix_lapack_does_not_converge_on(
    failing: Callable[..., None], shape: tuple[int, int], full: bool
) -> None:
    rng = np.random.default_rng(2)
    matrix = rng.normal(size=shape)
    matrix[:, -1] = matrix[:, 0]  # rank-deficient, as held rows often are
    expected = np.linalg.svd(matrix, compute_uv=False)
    failing("svd", [matrix])  # the transpose converges
    _check(matrix, linalg.svd(matrix, full_matrices=full), expected, full)
    failing("svd", [matrix, matrix.T])  # neither does: through QR's triangular factor
    _check(matrix, linalg.svd(matrix, full_matrices=full), expected, full)


def test_svd_of_a_matrix_with_nan_fails_as_numpys() -> None:
    matrix = np.ones((4, 3))
    matrix[1, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError):
        linalg.svd(matrix)


@pytest.mark.parametrize("shape", SHAPES)
def test_lstsq_is_the_least_norm_solution_also_where_lapack_does_not_converge(
    failing: Callable[..., None], shape: tuple[int, int]
) -> None:
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=shape)
    if min(shape) > 1:
        matrix[:, -1] = 2.0 * matrix[:, 0]  # rank-deficient: the least norm decides
    rhs = rng.normal(size=shape[0])
    expected = np.linalg.lstsq(matrix, rhs, rcond=None)[0]
    np.testing.assert_array_equal(linalg.lstsq(matrix, rhs), expected)
    failing("lstsq", [matrix])
    np.testing.assert_allclose(linalg.lstsq(matrix, rhs), expected, rtol=1e-10, atol=1e-12)
    failing("svd", [matrix, matrix.T])  # and through QR
    np.testing.assert_allclose(linalg.lstsq(matrix, rhs), expected, rtol=1e-10, atol=1e-12)
