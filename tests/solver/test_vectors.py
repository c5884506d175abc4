"""Row-wise cross products and skew matrices against numpy's cross product."""

from __future__ import annotations

import numpy as np

from solver.vectors import axis_torque, cross, skews


def test_cross_matches_numpy(rng: np.random.Generator) -> None:
    a, b = rng.normal(size=(2, 7, 3))
    np.testing.assert_allclose(cross(a, b), np.cross(a, b), rtol=1e-14, atol=1e-15)


def test_skews_multiply_as_cross_products(rng: np.random.Generator) -> None:
    vectors = rng.normal(size=(4, 3))
    w = rng.normal(size=3)
    blocks = skews(vectors)  # (3, 12): [v_0]×, [v_1]×, … side by side
    assert blocks.shape == (3, 12)
    for k, v in enumerate(vectors):
        np.testing.assert_allclose(blocks[:, 3 * k : 3 * k + 3] @ w, np.cross(v, w), atol=1e-14)


def test_axis_torque_sums_both_axes_and_is_none_without_gradients(
    rng: np.random.Generator,
) -> None:
    x, y, dx, dy = rng.normal(size=(4, 5, 3))
    np.testing.assert_allclose(axis_torque(x, y, dx, dy), np.cross(x, dx) + np.cross(y, dy))
    np.testing.assert_allclose(axis_torque(x, y, dx, None), np.cross(x, dx))
    assert axis_torque(x, y, None, None) is None
