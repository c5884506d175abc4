"""The reduced space: scaled free DOFs φ and the limits over them."""

from __future__ import annotations

import numpy as np

from solver import Constraint, Dof, Effector, Figure, Problem, goals
from solver.optimizer.space import ReducedSpace


def _figure() -> Figure:
    fig = Figure()
    fig.add_segment(
        "a",
        dofs=[
            Dof.rotation("x", lower=-1.0, upper=1.0, rigidity=0.5),
            Dof.rotation("y", rigidity=1.0),
            Dof.rotation("z", lower=-0.5, upper=0.5),
        ],
    )
    fig.add_segment("b", parent="a", dofs=[Dof.rotation("x", lower=-2.0, upper=2.0)])
    fig.add_linear_equality({("a", 0): 1.0, ("a", 2): -1.0})
    fig.add_linear_equality({("a", 0): 2.0, ("a", 2): -2.0})  # the same equation again
    return fig


def _space(theta0: np.ndarray) -> tuple[Problem, ReducedSpace]:
    fig = _figure()
    problem = Problem(fig, [Constraint(Effector("a"), goals.Position((0.0, 1.0, 0.0)))])
    return problem, ReducedSpace.build(problem, theta0)


def test_locked_and_unchained_dofs_are_not_variables_and_rigid_ones_are_scaled() -> None:
    _, space = _space(np.array([0.2, 0.3, 0.2, 0.1]))
    np.testing.assert_array_equal(space.variables, [0, 2])
    np.testing.assert_allclose(space.scale, [0.5, 1.0])
    assert space.n == 2
    np.testing.assert_allclose(space.lower, [-2.0, -0.5])
    np.testing.assert_allclose(space.upper, [2.0, 0.5])


def test_theta_and_phi_map_back_and_forth_keeping_fixed_dofs() -> None:
    theta0 = np.array([0.2, 0.3, 0.2, 0.1])
    _, space = _space(theta0)
    phi = space.phi(theta0)
    np.testing.assert_allclose(phi, [0.4, 0.2])
    np.testing.assert_allclose(space.theta(phi), theta0)
    moved = space.theta(np.array([1.0, -0.1]))
    np.testing.assert_allclose(moved, [0.5, 0.3, -0.1, 0.1])


def test_rows_are_unit_and_redundant_equalities_collapse() -> None:
    theta0 = np.array([0.2, 0.3, 0.2, 0.1])
    problem, space = _space(theta0)
    assert space.a_eq.shape == (1, 2)
    np.testing.assert_allclose(np.linalg.norm(space.a_in, axis=1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(space.a_eq, axis=1), 1.0)
    # Rows with no free DOF (b's bounds) are dropped; the others keep their figure row.
    assert len(space.in_rows) == 4
    labels = [problem.limits.in_labels[j] for j in space.in_rows]
    assert all(label.startswith("a[") for label in labels)
    phi0 = space.phi(theta0)
    assert np.all(space.a_in @ phi0 >= space.b_in - 1e-12)
    np.testing.assert_allclose(space.a_eq @ phi0, space.b_eq)


def test_rows_are_made_once_per_problem_and_follow_the_start_pose() -> None:
    # the rows over the variables are kept (drag events share them via with_goals); the
    # right-hand sides still come from each start pose's fixed DOFs
    problem, first = _space(np.zeros(4))
    moved = problem.with_goals({0: goals.Position((0.2, 0.9, 0.0))})
    theta = np.array([0.1, 0.3, 0.1, 0.0])  # "a" Y is locked: fixed at 0.3
    second = ReducedSpace.build(moved, theta)
    assert second.a_in is first.a_in and second.a_eq is first.a_eq
    fresh = ReducedSpace.build(Problem(problem.figure, list(problem.constraints)), theta)
    np.testing.assert_array_equal(second.a_in, fresh.a_in)
    np.testing.assert_array_equal(second.b_in, fresh.b_in)
    np.testing.assert_array_equal(second.b_eq, fresh.b_eq)


def test_rows_in_are_the_inequality_rows() -> None:
    _, space = _space(np.array([0.2, 0.3, 0.2, 0.1]))
    phi = np.array([0.3, -0.7])
    np.testing.assert_allclose(space.rows_in @ phi, space.a_in @ phi)
    np.testing.assert_array_equal(space.rows_in.dense, space.a_in)


def test_rows_from_the_nonzeros_are_the_dense_rows() -> None:
    # A chain long enough for the sparse products, with polygons, rigid and locked DOFs
    # and DOFs outside the chain: the rows over the variables, made from the limits'
    # nonzeros, are those of the dense matrices, and so is the start's right-hand side.
    rng = np.random.default_rng(4)
    fig = Figure()
    parent = None
    for k in range(120):
        fig.add_segment(
            f"s{k}",
            parent,
            dofs=[
                Dof.rotation("x", lower=-1.0, upper=1.0, rigidity=float(rng.uniform(0, 0.9))),
                Dof.rotation("y", lower=-0.5, upper=0.5, rigidity=1.0 if k % 7 == 0 else 0.0),
                Dof.rotation("z", lower=-0.8, upper=0.6),
            ],
        )
        if k % 5 == 0:
            fig.add_polygon_limit(f"s{k}", (0, 2), [(-0.5, -0.5), (0.6, -0.4), (0.1, 0.5)])
        parent = f"s{k}"
    problem = Problem(fig, [Constraint(Effector("s80"), goals.Position((0.0, 1.0, 0.0)))])
    theta0 = np.clip(rng.normal(scale=0.1, size=fig.n_dofs), fig.lower, fig.upper)
    space = ReducedSpace.build(problem, theta0)
    variables = problem.variables
    scale = np.array([fig.dofs[j].scale for j in variables])
    dense = fig.limits.a_in[:, variables] * scale
    norms = np.linalg.norm(dense, axis=1)
    keep = norms > 1e-12
    assert space.rows_in.sparse  # the products go by the nonzeros
    np.testing.assert_array_equal(space.in_rows, np.flatnonzero(keep))
    np.testing.assert_allclose(space.a_in, dense[keep] / norms[keep, None], rtol=1e-15)
    fixed = np.setdiff1d(np.arange(fig.n_dofs), variables)
    b_in = fig.limits.b_in[keep] - fig.limits.a_in[np.ix_(keep, fixed)] @ theta0[fixed]
    np.testing.assert_allclose(space.b_in, b_in / norms[keep], rtol=1e-14, atol=1e-15)
