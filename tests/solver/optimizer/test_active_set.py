"""The active set: which rows are active, projections and multipliers."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solver.optimizer.active_set import ActiveSet
from solver.optimizer.compiled_gauss_newton import active_bounds
from solver.optimizer.metric import gauss_newton_start

A_IN = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [np.sqrt(0.5), np.sqrt(0.5), 0.0]])
B_IN = np.zeros(3)
NO_EQ = (np.zeros((0, 3)), np.zeros(0))


def test_at_takes_the_tight_rows_tightest_first_and_skips_dependent_ones() -> None:
    # At the origin all three rows hold with equality; the third is a combination of
    # the first two, so it is left out.
    active = ActiveSet.at(np.zeros(3), *NO_EQ, A_IN, B_IN, slack=1e-10)
    assert active.rows == [0, 1]
    loose = ActiveSet.at(np.array([1.0, 0.0, 0.0]), *NO_EQ, A_IN, B_IN, slack=1e-10)
    assert loose.rows == [1]


def test_projector_and_project_remove_the_active_directions() -> None:
    active = ActiveSet.at(np.array([0.0, 1.0, 1.0]), *NO_EQ, A_IN, B_IN, slack=1e-10)
    assert active.rows == [0]
    vector = np.array([3.0, -2.0, 1.0])
    np.testing.assert_allclose(active.project(vector), [0.0, -2.0, 1.0])
    np.testing.assert_allclose(active.projector() @ vector, [0.0, -2.0, 1.0])
    np.testing.assert_allclose(active.projector(exclude=0), np.eye(3))
    np.testing.assert_allclose(active.project(vector, exclude=0), vector)


def test_project_without_a_row_equals_the_projector_of_the_others() -> None:
    # project(exclude=j) reuses (NᵀN)⁻¹ (a Schur complement), never forming I − N(NᵀN)⁻¹Nᵀ.
    rng = np.random.default_rng(8)
    a_in = rng.normal(size=(4, 7))
    a_in /= np.linalg.norm(a_in, axis=1)[:, None]
    a_eq = np.linalg.qr(rng.normal(size=(7, 1)))[0].T
    active = ActiveSet(a_eq, np.zeros(1), a_in, np.zeros(4))
    for row in range(4):
        active.add(row)
    vector = rng.normal(size=7)
    for column in range(5):
        expected = active.projector(exclude=column) @ vector
        np.testing.assert_allclose(active.project(vector, exclude=column), expected, atol=1e-12)


def test_multipliers_reproduce_the_gradient_on_the_active_rows() -> None:
    active = ActiveSet(*NO_EQ, A_IN, B_IN)
    active.add(0)
    active.add(1)
    gradient = np.array([2.0, -3.0, 0.0])
    np.testing.assert_allclose(active.multipliers(gradient), [2.0, -3.0])
    assert active.remove(0) == 0 and active.rows == [1]


def test_with_row_copies_and_correct_projects_onto_the_rows() -> None:
    active = ActiveSet(*NO_EQ, A_IN, B_IN)
    wider = active.with_row(1)
    assert active.rows == [] and wider.rows == [1]
    np.testing.assert_allclose(wider.correct(np.array([1.0, 1e-9, 2.0])), [1.0, 0.0, 2.0])
    assert not wider.independent(np.array([0.0, 1.0, 0.0]))
    assert wider.independent(np.array([1.0, 0.0, 0.0]))


def test_basis_is_orthonormal_on_the_rows_and_follows_their_changes() -> None:
    active = ActiveSet.at(np.array([0.0, 1.0, 1.0]), *NO_EQ, A_IN, B_IN, slack=1e-10)
    first = active.basis
    np.testing.assert_allclose(first.T @ first, np.eye(1), atol=1e-15)
    np.testing.assert_allclose(np.abs(first[:, 0]), [1.0, 0.0, 0.0], atol=1e-15)
    assert active.basis is first  # kept while the rows stay
    active.add(1)
    both = active.basis
    assert both.shape == (3, 2)
    np.testing.assert_allclose(both @ both.T @ active.matrix, active.matrix, atol=1e-15)
    active.remove(0)
    np.testing.assert_allclose(np.abs(active.basis[:, 0]), [0.0, 1.0, 0.0], atol=1e-15)
    assert active.with_row(0).basis.shape == (3, 2) and active.basis.shape == (3, 1)
    none = ActiveSet.at(np.ones(3), *NO_EQ, A_IN, B_IN, slack=1e-10)
    assert none.basis.shape == (3, 0)


@given(
    n=st.integers(2, 40),
    data=st.data(),
    general=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_bounds_project_and_start_as_the_products_do_bit_for_bit(
    n: int, data: st.DataObject, general: bool
) -> None:
    # Bound rows (±1 on one variable) are projected off by zeroing their variables; that
    # must be exactly what the products with N, (NᵀN)⁻¹ and a QR basis give, so that a
    # descent takes the very same steps either way. A polygon-like row turns it off.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    q = data.draw(st.integers(1, n))
    variables = rng.permutation(n)[:q]
    a_in = np.zeros((q + 1, n))
    a_in[np.arange(q), variables] = rng.choice([-1.0, 1.0], size=q)
    a_in[q, :2] = np.sqrt(0.5)  # two variables: no bound
    active = ActiveSet(np.zeros((0, n)), np.zeros(0), a_in, np.zeros(q + 1))
    for row in range(q):
        active.add(row)
    if general and active.independent(a_in[q]):
        active.add(q)
    matrix, inverse = active.matrix, active.gram_inverse
    is_bounds = not general or active.rows[-1] != q
    assert (active.bounds is not None) == is_bounds
    if is_bounds:
        np.testing.assert_array_equal(np.sort(active.bounds), np.sort(variables))
    vector = rng.normal(size=n)
    expected = vector - matrix @ (inverse @ (matrix.T @ vector))
    np.testing.assert_array_equal(active.project(vector), expected)
    # The compiled Newton step projects by the held variables: the same zeros.
    held = active.held
    assert (held is not None) == is_bounds
    if held is not None:
        np.testing.assert_array_equal(np.flatnonzero(held), np.sort(variables))
        np.testing.assert_array_equal(np.where(held == 1, 0.0, vector), expected)
    empty = ActiveSet(np.zeros((0, n)), np.zeros(0), a_in, np.zeros(q + 1))
    np.testing.assert_array_equal(empty.held, np.zeros(n, dtype=np.uint8))
    column = int(rng.integers(matrix.shape[1]))
    kept = np.delete(matrix, column, axis=1)
    without = vector - kept @ (np.linalg.inv(kept.T @ kept) @ (kept.T @ vector))
    np.testing.assert_allclose(active.project(vector, exclude=column), without, atol=1e-15)
    if is_bounds:
        np.testing.assert_array_equal(active.project(vector, exclude=column), without)
    factor = rng.normal(size=(n, max(1, (n - 1) // 2)))
    value = float(rng.uniform(1e-9, 1.0))
    plain = gauss_newton_start(factor, matrix, value, np.linalg.qr(matrix)[0])
    fast = gauss_newton_start(factor, matrix, value, active.basis, active.bounds)
    for direction in (vector, rng.normal(size=n)):
        np.testing.assert_array_equal(fast @ direction, plain @ direction)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 8),
    m=st.integers(1, 12),
    other=st.booleans(),
)
def test_active_bounds_are_the_rows_active_set_at_takes_when_each_is_a_bound(
    seed: int, n: int, m: int, other: bool
) -> None:
    """The quick path's active rows: ActiveSet.at's, in its order, or None past bounds."""
    rng = np.random.default_rng(seed)
    variables = rng.integers(0, n, m)  # repeats: a second bound on a held variable
    rows = np.zeros((m, n))
    rows[np.arange(m), variables] = rng.choice([-1.0, 1.0], m)
    if other:  # a row on two variables, possibly near
        rows[rng.integers(m)] = np.eye(n)[0] + np.eye(n)[1]
        rows /= np.linalg.norm(rows, axis=1)[:, None]
    phi = rng.normal(size=n)
    slack = np.where(rng.random(m) < 0.5, 0.0, rng.uniform(0.0, 1.0, m))  # ties at 0
    bounds = rows @ phi - slack
    empty = np.empty((0, n))
    want = ActiveSet.at(phi, empty, np.empty(0), rows, bounds, slack=1e-10)
    have = active_bounds(phi, empty, np.empty(0), rows, bounds)
    if want.bounds is None and want.rows:  # a row on two variables taken
        assert have is None
        return
    if have is None:  # a row on two variables near, which at() passed over as dependent
        assert other and bool(
            (np.count_nonzero(rows, axis=1)[rows @ phi - bounds <= 1e-10] > 1).any()
        )
        return
    held, signs, rhs, taken = have
    assert taken == want.rows
    np.testing.assert_array_equal(rhs, want.rhs)
    if taken:
        np.testing.assert_array_equal(held, want.bounds)
        np.testing.assert_array_equal(signs, want.matrix[want.bounds, np.arange(len(taken))])


def _nearly_dependent(rng: np.random.Generator, smallest: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit rows (4, 9): three random ones and a fourth whose part off their span is
    ``smallest`` before it is made unit (its length is at most about 8); and a unit row in
    the span of all four (so dependent on them)."""
    rows = rng.normal(size=(4, 9))
    off = np.linalg.svd(rows[:3])[2][3]  # a unit vector orthogonal to the first three
    rows[3] = rows[0] - 0.5 * rows[1] + 2.0 * rows[2] + smallest * off
    rows /= np.linalg.norm(rows, axis=1)[:, None]
    inside = rng.normal(size=4) @ rows
    return rows, inside / np.linalg.norm(inside)


@given(seed=st.integers(0, 2**32 - 1), smallest=st.sampled_from([1e-2, 1e-3, 3e-4]))
@example(seed=256, smallest=3e-4)  # with the part off drawn at random it fell below 1e-5
def test_a_row_in_the_span_of_nearly_dependent_rows_is_dependent(
    seed: int, smallest: float
) -> None:
    # Through (NᵀN)⁻¹ of nearly dependent rows (condition squared in NᵀN), a row in
    # their span kept a part off it larger than rounding, and was taken for independent:
    # NᵀN with it is singular. Against an orthonormal basis its part off the span is
    # rounding.
    rows, inside = _nearly_dependent(np.random.default_rng(seed), smallest)
    active = ActiveSet(np.zeros((0, 9)), np.zeros(0), rows, np.zeros(4))
    for row in range(4):
        assert active.independent(rows[row])
        active.add(row)
    assert np.linalg.svd(active.matrix, compute_uv=False)[-1] < smallest
    assert not active.independent(inside)
    outside = np.linalg.svd(rows)[2][-1]  # orthogonal to every row
    assert active.independent(outside)


def test_rows_that_rounding_makes_dependent_give_no_error() -> None:
    # A set of rows made exactly dependent (as rounding could) still projects and gives
    # multipliers: the least-squares ones, by the pseudo-inverse of NᵀN.
    a_in = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [np.sqrt(0.5), np.sqrt(0.5), 0.0]])
    active = ActiveSet(*NO_EQ, a_in, np.zeros(3))
    for row in range(3):
        active.add(row)
    assert np.isfinite(active.gram_inverse).all()
    np.testing.assert_allclose(
        active.project(np.array([3.0, -2.0, 1.0])), [0.0, 0.0, 1.0], atol=1e-12
    )
    gradient = np.array([2.0, -3.0, 0.0])
    np.testing.assert_allclose(active.matrix @ active.multipliers(gradient), gradient)
    np.testing.assert_array_equal(active.correct(np.array([1e-3, -1e-3, 5.0])), [0.0, 0.0, 5.0])


def test_correct_puts_active_bounds_exactly_on_their_bounds() -> None:
    # Rounding left φ a few ulps beyond a bound (or inside it): a trial point is put on
    # each active bound exactly, and a general row's variables too where they are bounds.
    a_in = np.array(
        [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, np.sqrt(0.5), np.sqrt(0.5)], [0.0, 0.0, 1.0]]
    )
    b_in = np.array([0.1, -0.3, 0.2, -1.0])
    active = ActiveSet(*NO_EQ, a_in, b_in)
    active.add(0)
    active.add(1)
    off = np.array([0.1 - 1.4e-17, 0.3 + 5.6e-17, 0.7])
    np.testing.assert_array_equal(active.correct(off), [0.1, 0.3, 0.7])
    active.add(2)  # a row that is no bound: the bounds still exact, the row to rounding
    corrected = active.correct(np.array([0.1 + 3e-17, 0.3, 0.1 - 1e-12]))
    assert corrected[0] == 0.1 and corrected[1] == 0.3
    assert abs(a_in[2] @ corrected - b_in[2]) <= 1e-15
    # The box of every bound among the rows, active or not, clamps a descent's exit.
    np.testing.assert_array_equal(
        active.inside(np.array([0.1 - 1e-17, 0.3 + 1e-17, -1.0 - 1e-16])), [0.1, 0.3, -1.0]
    )
