"""The truncated-Newton step: conjugate gradients on difference quotients of ∇G."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import Constraint, Effector, Problem, goals, solve
from solver.optimizer import goldfarb
from solver.optimizer.newton import PRODUCTS, difference_product, newton_step


def quadratic(
    matrix: np.ndarray, vector: np.ndarray
) -> tuple[Callable[[np.ndarray], np.ndarray], list[int]]:
    """∇G of G(x) = ½ xᵀAx − bᵀx, and how many times it was called."""
    calls = [0]

    def gradient(x: np.ndarray) -> np.ndarray:
        calls[0] += 1
        return matrix @ x - vector

    return gradient, calls


def spd(rng: np.random.Generator, n: int, spread: float) -> np.ndarray:
    q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    return (q * np.geomspace(1.0, spread, n)) @ q.T


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 8))
def test_on_a_quadratic_the_step_solves_the_newton_equation_to_its_forcing_term(
    seed: int, n: int
) -> None:
    rng = np.random.default_rng(seed)
    matrix, vector = spd(rng, n, 10.0), rng.normal(size=n)
    gradient_at, calls = quadratic(matrix, vector)
    x = rng.normal(size=n)
    g = gradient_at(x)
    product = difference_product(gradient_at, x, g)
    step, evaluations = newton_step(product, g, lambda v: v, lambda v: v, None, 1.0)
    assert step is not None
    assert evaluations == calls[0] - 1 <= PRODUCTS
    residual = np.linalg.norm(matrix @ step + g)
    first = np.linalg.norm(g)
    assert residual <= min(0.1, np.sqrt(first)) * first + 1e-6 * first
    assert float(g @ step) < 0.0  # a descent direction
    # With the exact product the forcing term holds to rounding.
    step, _ = newton_step(lambda v: matrix @ v, g, lambda v: v, lambda v: v, None, 1.0)
    assert step is not None
    residual = np.linalg.norm(matrix @ step + g)
    assert residual <= min(0.1, np.sqrt(first)) * first * (1.0 + 1e-12)


def test_an_exact_preconditioner_gives_newtons_step_after_one_product() -> None:
    rng = np.random.default_rng(3)
    matrix, vector = spd(rng, 6, 1e4), rng.normal(size=6)
    gradient_at, _ = quadratic(matrix, vector)
    x = rng.normal(size=6)
    g = gradient_at(x)
    inverse = np.linalg.inv(matrix)
    step, evaluations = newton_step(
        difference_product(gradient_at, x, g), g, lambda v: v, lambda v: inverse @ v, None, 1.0
    )
    assert evaluations == 1
    assert step is not None
    np.testing.assert_allclose(step, -inverse @ g, rtol=1e-6)
    step, _ = newton_step(lambda v: matrix @ v, g, lambda v: v, lambda v: inverse @ v, None, 1.0)
    assert step is not None
    np.testing.assert_allclose(step, -inverse @ g, rtol=1e-9)


def test_the_step_stays_on_the_active_rows_null_space() -> None:
    rng = np.random.default_rng(4)
    matrix, vector = spd(rng, 5, 100.0), rng.normal(size=5)
    gradient_at, _ = quadratic(matrix, vector)
    row = np.array([1.0, 0.0, 0.0, 0.0, 0.0])

    def project(v: np.ndarray) -> np.ndarray:
        return v - row * float(row @ v)

    x = rng.normal(size=5)
    step, _ = newton_step(lambda v: matrix @ v, gradient_at(x), project, project, None, 1.0)
    assert step is not None
    assert abs(float(row @ step)) <= 1e-12
    # On the face: Newton's equation of G restricted to the last four coordinates, solved
    # to the forcing term.
    g = gradient_at(x)
    residual = np.linalg.norm(matrix[1:, 1:] @ step[1:] + g[1:])
    first = np.linalg.norm(g[1:])
    assert residual <= min(0.1, np.sqrt(first / np.linalg.norm(g))) * first * (1 + 1e-6)


def test_negative_curvature_ends_the_iteration_with_what_was_found() -> None:
    matrix = np.diag([1.0, -1.0])
    gradient_at, _ = quadratic(matrix, np.zeros(2))
    # Along the first preconditioned direction the curvature is negative: no step.
    step, evaluations = newton_step(
        lambda v: matrix @ v,
        np.array([0.0, -1.0]),
        lambda v: v,
        lambda v: v,
        None,
        1.0,
    )
    assert step is None and evaluations == 1
    # Positive first, negative second: the first iterate is kept.
    x = np.array([1.0, 0.1])
    step, evaluations = newton_step(
        lambda v: matrix @ v, gradient_at(x), lambda v: v, lambda v: v, None, 1.0
    )
    assert evaluations == 2
    assert step is not None and float(gradient_at(x) @ step) < 0.0
    np.testing.assert_allclose(step, -(1.01 / 0.99) * np.array([1.0, -0.1]))


def test_a_passed_deadline_takes_no_product() -> None:
    gradient_at, calls = quadratic(np.eye(3), np.ones(3))
    product = difference_product(gradient_at, np.zeros(3), -np.ones(3))
    step, evaluations = newton_step(product, -np.ones(3), lambda v: v, lambda v: v, 0.0, 1.0)
    assert step is None and evaluations == 0 and calls[0] == 0


def stretched_chain() -> tuple[Problem, np.ndarray]:
    """60 segments (180 DOFs) held at 10 points of a bent pose, the tip pulled out of reach."""
    figure = long_chain(60, limit=0.6)
    rng = np.random.default_rng(7)
    bent = rng.uniform(-0.3, 0.3, size=figure.n_dofs)
    sites = [Effector(f"seg{k}", (0.0, 1.0 / 60, 0.0)) for k in range(5, 60, 6)]
    probe = Problem(figure, [Constraint(e, goals.Position((0.0, 0.0, 0.0))) for e in sites])
    points = probe.effector_states(bent)[0]
    points[-1] = points[-1] + np.array([0.0, 0.15, 0.05])
    problem = Problem(
        figure, [Constraint(e, goals.Position(p)) for e, p in zip(sites, points, strict=True)]
    )
    return problem, bent


def test_newtons_step_brings_a_chain_held_out_of_reach_to_its_minimum_in_fewer_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem, start = stretched_chain()
    with_newton = solve(problem, start, restarts=0)
    monkeypatch.setattr(goldfarb, "_SLOW", -1.0)  # never a Newton step
    without = solve(problem, start, restarts=0)
    assert with_newton.status == without.status == "converged"
    assert with_newton.outcome == without.outcome != "met"
    # The same minimum (to the stop's rounding floor of a large G), in fewer iterations.
    assert with_newton.objective <= without.objective * (1.0 + 1e-9)
    assert with_newton.iterations < without.iterations
