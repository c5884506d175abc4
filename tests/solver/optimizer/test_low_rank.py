"""H as ``c I + U M Uᵀ``: products and updates equal the dense matrix's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.optimizer.low_rank import Metric


def _low_rank(rng: np.random.Generator, n: int, r: int) -> Metric:
    basis = rng.normal(size=(n, r))
    core = rng.normal(size=(r, r))
    return Metric(n, float(rng.uniform(0.1, 2.0)), basis, core + core.T)


def _turned(rng: np.random.Generator, n: int, r: int) -> tuple[Metric, np.ndarray]:
    """A metric whose rows ``[s, s + p)`` a lower-triangular T turns, and its dense matrix."""
    rows = rng.normal(size=(r, n))
    core = rng.normal(size=(r, r))
    core = core + core.T
    start = int(rng.integers(0, r + 1))
    p = int(rng.integers(0, r - start + 1))
    turn = np.tril(rng.normal(size=(p, p)))
    room = Metric.room(n, r)
    room[:r] = rows
    scale = float(rng.uniform(0.1, 2.0))
    metric = Metric.of_rows(scale, room, r, core, (start, turn))
    turned = rows.copy()
    turned[start : start + p] = turn @ rows[start : start + p]
    return metric, scale * np.eye(n) + turned.T @ core @ turned


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 40),
    r=st.integers(0, 40),
    updates=st.integers(0, 6),
    seed=st.integers(0, 2**32 - 1),
    turned=st.booleans(),
)
def test_products_and_updates_equal_the_dense_matrix(
    n: int, r: int, updates: int, seed: int, turned: bool
) -> None:
    # Low rank while 2r < n, dense after, U's rows turned or not: either way H v and
    # H + V C Vᵀ must be what the dense matrix gives.
    rng = np.random.default_rng(seed)
    if turned:
        metric, dense = _turned(rng, n, r)
    else:
        metric = _low_rank(rng, n, r)
        dense = metric.scale * np.eye(n) + metric.basis @ metric.core @ metric.basis.T
    for _ in range(updates):
        p = int(rng.integers(1, 3))
        vectors = rng.normal(size=(n, p))
        core = rng.normal(size=(p, p))
        core = core + core.T
        metric = metric.plus(vectors, core)
        dense = dense + vectors @ core @ vectors.T
    vector = rng.normal(size=n)
    size = 1.0 + float(np.abs(dense).max())
    np.testing.assert_allclose(metric @ vector, dense @ vector, atol=1e-11 * size * n)
    np.testing.assert_allclose(metric.to_array(), dense, atol=1e-11 * size)
    np.testing.assert_array_equal(metric.to_array(), metric.to_array().T)


def test_it_stays_low_rank_below_half_the_size_and_turns_dense_at_it() -> None:
    rng = np.random.default_rng(2)
    metric = _low_rank(rng, 10, 3)
    assert metric.matrix is None and metric.rank == 3
    metric = metric.plus_outer(rng.normal(size=10), 1.0)
    assert metric.matrix is None and metric.rank == 4
    dense = metric.to_array()
    metric = metric.plus_outer(np.ones(10), -0.5)
    assert metric.matrix is not None and metric.rank == 10
    np.testing.assert_allclose(metric.to_array(), dense - 0.5 * np.ones((10, 10)), atol=1e-12)


def test_zero_and_dense() -> None:
    vector = np.arange(3.0)
    np.testing.assert_array_equal(Metric.zero(3) @ vector, np.zeros(3))
    matrix = np.diag([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(Metric.dense(matrix) @ vector, [0.0, 2.0, 6.0])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), updates=st.integers(1, 40))
def test_updates_of_one_metric_do_not_change_another(seed: int, updates: int) -> None:
    # Updates append U's columns in place when they extend the newest metric: an older
    # metric updated again, or one updated past the room left, must copy and change no
    # other metric's product.
    rng = np.random.default_rng(seed)
    n = 100
    metrics = [_low_rank(rng, n, 3)]
    denses = [metrics[0].to_array()]
    for _ in range(updates):
        parent = int(rng.integers(len(metrics)))
        vector = rng.normal(size=n)
        metrics.append(metrics[parent].plus_outer(vector, 0.5))
        denses.append(denses[parent] + 0.5 * np.outer(vector, vector))
    vector = rng.normal(size=n)
    for metric, dense in zip(metrics, denses, strict=True):
        size = 1.0 + float(np.abs(dense).max())
        np.testing.assert_allclose(metric @ vector, dense @ vector, atol=1e-10 * size * n)
        assert metric.rows.flags.c_contiguous and metric.rows.shape == (metric.rank, n)
