"""The active set: which rows are active, projections and multipliers."""

from __future__ import annotations

import numpy as np

from solver.optimizer.active_set import ActiveSet

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
