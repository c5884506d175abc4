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
