"""Limit rows by their nonzeros: every product equals the dense matrix's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rows import LimitRows


def _bounds_and_edges(rng: np.random.Generator, n: int, edges: bool = True) -> np.ndarray:
    """Rows as a figure makes them: ±unit bounds on every variable, then a few edges."""
    rows = [sign * np.eye(n)[j] for j in range(n) for sign in (1.0, -1.0)]
    for _ in range(n // 4 if edges else 0):
        row = np.zeros(n)
        pair = rng.choice(n, size=2, replace=False)
        row[pair] = rng.normal(size=2)
        rows.append(row / np.linalg.norm(row))
    return np.array(rows)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1), edges=st.booleans())
def test_products_equal_the_dense_products(n: int, seed: int, edges: bool) -> None:
    # With edges, a weighted count of the nonzeros; bounds alone, a gather of them.
    rng = np.random.default_rng(seed)
    dense = _bounds_and_edges(rng, n, edges)
    dense = dense[rng.permutation(dense.shape[0])]
    rows = LimitRows(dense)
    assert rows.sparse == (dense.size >= 1 << 16)
    vector = rng.normal(size=n)
    np.testing.assert_allclose(rows @ vector, dense @ vector, rtol=1e-15, atol=1e-15)
    index = rng.choice(dense.shape[0], size=min(5, dense.shape[0]), replace=False)
    np.testing.assert_allclose(rows.rows_times(index, vector), dense[index] @ vector, atol=1e-15)
    np.testing.assert_array_equal(rows[index], dense[index])


def test_a_dense_matrix_keeps_the_dense_product() -> None:
    dense = np.random.default_rng(1).normal(size=(300, 300))
    assert not LimitRows(dense).sparse
    big = _bounds_and_edges(np.random.default_rng(2), 300)
    assert not LimitRows(big, sparse=False).sparse
    assert LimitRows(big).sparse


def test_bounds_name_each_rows_variable_and_sign_and_no_other_row() -> None:
    dense = np.array(
        [
            [0.0, -1.0, 0.0],  # a lower bound on variable 1
            [1.0, 0.0, 0.0],  # an upper bound on variable 0
            [0.6, 0.8, 0.0],  # a polygon's edge: no bound
            [0.0, 0.0, 0.5],  # one variable, not unit: no bound
            [0.0, 0.0, 0.0],  # an empty row
        ]
    )
    columns, values = LimitRows(dense, sparse=False).bounds()
    np.testing.assert_array_equal(columns, [1, 0, -1, -1, -1])
    np.testing.assert_array_equal(values, [-1.0, 1.0, 0.0, 0.0, 0.0])
