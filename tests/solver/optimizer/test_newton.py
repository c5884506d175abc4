"""The truncated-Newton step: conjugate gradients on difference quotients of ∇G, and the
same iteration in the compiled kernel."""

from __future__ import annotations

import time
from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import Constraint, Effector, Problem, goals, kernel, solve
from solver.optimizer import goldfarb, newton
from solver.optimizer.low_rank import Metric
from solver.optimizer.metric import gauss_newton_start
from solver.optimizer.newton import (
    PRODUCTS,
    compiled_newton_step,
    difference_product,
    newton_step,
)


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


def held_chain(
    rng: np.random.Generator, segments: int, reach: float
) -> tuple[Problem, np.ndarray, np.ndarray]:
    """A chain with goals every few segments, ``reach`` away from a random pose, and a
    random set of the problem's variables held (as by active bounds)."""
    figure = long_chain(segments, slide_every=4)
    theta = rng.uniform(-0.4, 0.4, figure.n_dofs)
    sites = [Effector(f"seg{k}", (0.0, 0.5 / segments, 0.0)) for k in range(2, segments, 5)]
    probe = Problem(figure, [Constraint(e, goals.Position((0.0, 0.0, 0.0))) for e in sites])
    points = probe.effector_states(theta)[0] + rng.normal(0.0, reach, (len(sites), 3))
    weights = rng.uniform(0.2, 5.0, len(sites))
    problem = Problem(
        figure,
        [
            Constraint(e, goals.Position(p), float(w))
            for e, p, w in zip(sites, points, weights, strict=True)
        ],
    )
    held = (rng.random(len(problem.variables)) < 0.2).astype(np.uint8)
    return problem, theta, held


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    segments=st.integers(3, 40),
    reach=st.sampled_from([0.01, 0.3, 3.0]),
    products=st.integers(1, PRODUCTS),
    start=st.sampled_from(["gauss-newton", "updated", "dense"]),
)
def test_the_compiled_step_is_numpys_to_rounding(
    seed: int, segments: int, reach: float, products: int, start: str
) -> None:
    # Goals near and far (an indefinite Hessian far away), unequal weights, held
    # variables, every form of H (Woodbury's low rank, updated, dense) and every cap on
    # the products: the kernel's iteration takes the same products and the same step.
    compiled = kernel.active()
    if compiled is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(seed)
    problem, theta, held = held_chain(rng, segments, reach)
    product = problem.hessian_product(theta)
    assert product is not None and hasattr(product, "newton_step")
    value, gradient = problem.evaluate_variables(theta)
    mask = held.astype(bool)
    columns = np.eye(len(held))[:, mask]
    metric = gauss_newton_start(
        problem.gauss_newton_factor(theta), columns, value, columns, np.flatnonzero(mask)
    )
    if start == "updated":
        for _ in range(3):
            vector = rng.normal(size=len(held))
            vector[mask] = 0.0
            metric = metric.plus_outer(vector, float(rng.uniform(0.1, 1.0)))
    elif start == "dense":
        metric = Metric.dense(metric.to_array())

    def project(vector: np.ndarray) -> np.ndarray:
        zeroed = vector.copy()
        zeroed[mask] = 0.0
        return zeroed

    scale = float(np.linalg.norm(gradient)) * float(rng.uniform(0.5, 2.0))
    with mock.patch.object(newton, "PRODUCTS", products):
        want, want_products = newton_step(
            product, gradient, project, metric.__matmul__, None, scale
        )
    have, have_products = product.newton_step(gradient, held, metric, scale, products, 0.1)
    assert have_products == want_products
    if want is None:
        assert have is None
        return
    assert have is not None
    np.testing.assert_array_equal(have[mask], 0.0)
    assert np.linalg.norm(have - want) <= 1e-9 * np.linalg.norm(want)


def test_compiled_steps_count_their_products_before_the_deadline() -> None:
    calls: list[int] = []

    def solve(*arguments: object) -> tuple[np.ndarray | None, int]:
        calls.append(int(arguments[4]))  # type: ignore[call-overload]
        return None, 0

    held = np.zeros(2, dtype=np.uint8)
    metric = Metric.dense(np.eye(2))
    gradient = np.ones(2)
    assert compiled_newton_step(solve, gradient, held, metric, 0.0, 1.0, 1e-3) == (None, 0)
    assert calls == []  # a passed deadline takes no product
    compiled_newton_step(solve, gradient, held, metric, None, 1.0, 1e-3)
    far = time.perf_counter() + 60.0
    compiled_newton_step(solve, gradient, held, metric, far, 1.0, None)
    near = time.perf_counter() + 0.0035
    compiled_newton_step(solve, gradient, held, metric, near, 1.0, 1e-3)
    assert calls[:2] == [PRODUCTS, PRODUCTS]
    assert 1 <= calls[2] <= 4  # at most the products that start before it
