"""Goldfarb's projected BFGS on small problems with known Kuhn–Tucker points."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from solver import Status
from solver.optimizer import metric
from solver.optimizer.active_set import kkt_floor
from solver.optimizer.goldfarb import descend
from solver.rows import LimitRows

EMPTY_EQ = (np.zeros((0, 3)), np.zeros(0))


def _distance_to(target: np.ndarray):
    """φ ↦ (‖φ − target‖², its gradient)."""

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        delta = phi - target
        return float(delta @ delta), 2.0 * delta

    return objective


def _nonnegative(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of φ ≥ 0."""
    return np.eye(n), np.zeros(n)


@pytest.mark.parametrize("gauss_newton", [False, True], ids=["projector", "gauss_newton"])
def test_bounded_least_squares_ends_at_the_clipped_target(gauss_newton: bool) -> None:
    target = np.array([0.5, -1.0, 2.0])
    curvature = (lambda phi: 2.0 * np.eye(3)) if gauss_newton else None
    run = descend(
        _distance_to(target),
        np.ones(3),
        *EMPTY_EQ,
        *_nonnegative(3),
        tolerance=1e-12,
        max_iterations=100,
        deadline=None,
        curvature=curvature,
    )
    assert run.status is Status.CONVERGED
    np.testing.assert_allclose(run.phi, [0.5, 0.0, 2.0], atol=1e-10)
    assert run.active == (1,)
    assert run.multipliers.shape == (1,) and run.multipliers[0] > 0.0
    assert np.all(run.phi >= 0.0)


def test_equality_constrained_least_squares_ends_at_the_projection() -> None:
    target = np.array([1.0, 2.0, 3.0])
    a_eq = np.full((1, 3), 1.0 / np.sqrt(3.0))
    b_eq = a_eq @ np.array([1.0, 0.0, 0.0])  # φ₁ + φ₂ + φ₃ = 1
    run = descend(
        _distance_to(target),
        np.array([1.0, 0.0, 0.0]),
        a_eq,
        b_eq,
        np.zeros((0, 3)),
        np.zeros(0),
        tolerance=1e-12,
        max_iterations=100,
        deadline=None,
    )
    assert run.status is Status.CONVERGED
    np.testing.assert_allclose(run.phi, target - (target.sum() - 1.0) / 3.0, atol=1e-10)


def test_iterates_never_leave_the_limits_and_never_raise_the_value() -> None:
    seen: list[tuple[np.ndarray, float]] = []
    descend(
        _distance_to(np.array([-2.0, 3.0, -0.5])),
        np.array([1.0, 1.0, 1.0]),
        *EMPTY_EQ,
        *_nonnegative(3),
        tolerance=1e-12,
        max_iterations=100,
        deadline=None,
        callback=lambda phi, value: seen.append((phi.copy(), value)),
    )
    values = [value for _, value in seen]
    assert all(b <= a for a, b in itertools.pairwise(values))
    assert all(np.all(phi >= -1e-15) for phi, _ in seen)


def test_iteration_and_time_limits_end_the_descent() -> None:
    options = {"tolerance": 1e-12, "deadline": None}
    objective = _distance_to(np.array([3.0, -1.0, 2.0]))
    start = np.array([0.1, 0.2, 0.3])
    limited = descend(objective, start, *EMPTY_EQ, *_nonnegative(3), max_iterations=1, **options)  # type: ignore[arg-type]
    assert limited.status is Status.MAX_ITERATIONS
    assert limited.iterations == 1
    late = descend(
        objective,
        start,
        *EMPTY_EQ,
        *_nonnegative(3),
        tolerance=1e-12,
        max_iterations=100,
        deadline=time.perf_counter() - 1.0,
    )
    # a budget already spent still buys one step: anytime, but never empty-handed
    assert late.status is Status.TIME_LIMIT
    assert late.iterations == 1
    assert late.value < objective(start)[0]


def test_goal_value_stops_as_soon_as_it_is_reached() -> None:
    run = descend(
        _distance_to(np.array([1.0, 1.0, 1.0])),
        np.zeros(3),
        *EMPTY_EQ,
        *_nonnegative(3),
        tolerance=1e-14,
        max_iterations=100,
        deadline=None,
        goal_value=0.5,
    )
    assert run.status is Status.CONVERGED
    assert "goals met" in run.message
    assert run.value <= 0.5


def test_kkt_floor_is_the_largest_of_tolerance_and_the_rounding_terms() -> None:
    gradient = np.array([3.0, 4.0])  # ‖g‖ = 5
    assert kkt_floor(1e-3, gradient, 4.0) == 1e-3
    assert kkt_floor(1e-12, gradient, 0.0) == pytest.approx(5e-7)
    assert kkt_floor(1e-12, np.zeros(2), 1e6) == pytest.approx(1e-3)


@pytest.mark.parametrize("gauss_newton", [False, True], ids=["projector", "gauss_newton"])
def test_limit_rows_by_their_nonzeros_give_the_dense_rows_descent(gauss_newton: bool) -> None:
    # 200 variables within ±0.5 and a few two-variable rows: the ratio test by the rows'
    # nonzeros (LimitRows) must take the very steps of the dense rows.
    rng = np.random.default_rng(6)
    n = 200
    rows = [sign * np.eye(n)[j] for j in range(n) for sign in (1.0, -1.0)]
    for j in range(0, n - 1, 7):
        rows.append(np.where(np.isin(np.arange(n), [j, j + 1]), np.sqrt(0.5), 0.0))
    a_in = np.array(rows)
    b_in = np.concatenate([np.full(2 * n, -0.5), np.full(len(rows) - 2 * n, -0.6)])
    sparse = LimitRows(a_in)
    assert sparse.sparse
    target = rng.normal(size=n)
    factor = rng.normal(size=(n, 6)) if gauss_newton else None
    weights = factor @ factor.T + np.eye(n) if factor is not None else np.eye(n)

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        delta = phi - target
        return float(delta @ weights @ delta), 2.0 * weights @ delta

    runs = [
        descend(
            objective,
            np.zeros(n),
            np.zeros((0, n)),
            np.zeros(0),
            rows_in,
            b_in,
            tolerance=1e-10,
            max_iterations=2000,
            deadline=None,
            curvature=None if factor is None else lambda phi: np.sqrt(2.0) * factor,
        )
        for rows_in in (a_in, sparse)
    ]
    assert runs[0].iterations == runs[1].iterations and runs[0].active == runs[1].active
    np.testing.assert_allclose(runs[1].phi, runs[0].phi, atol=1e-12)
    assert runs[1].status is Status.CONVERGED
    assert float(np.min(a_in @ runs[1].phi - b_in)) >= -1e-12


def test_a_limit_added_back_without_a_decrease_counts_as_a_readd() -> None:
    from solver.optimizer.active_set import ActiveSet
    from solver.optimizer.goldfarb import Run

    a_in, b_in = _nonnegative(3)
    start = np.array([0.0, 1.0, 1.0])  # on the limit φ₀ ≥ 0
    active = ActiveSet.at(start, *EMPTY_EQ, a_in, b_in, slack=1e-10)
    run = Run(_distance_to(np.array([1.0, 0.5, 0.5])), start, active, 1e-12, None, None)
    run.multipliers = run.active.multipliers(run.gradient)
    run.drop(0)  # the limit leaves the active set at G = 1.5 …
    run.active.add(0)
    run.add(0)  # … and comes back with G unchanged: one cycle's turn
    assert run.readds == 1
    run.drop(0)
    run.value -= 0.5  # a step lowered G before the limit came back: no cycle
    run.active.add(0)
    run.add(0)
    assert run.readds == 1
    # From the same start, the descent itself never adds a dropped limit back.
    result = descend(
        _distance_to(np.array([1.0, 0.5, 0.5])),
        start,
        *EMPTY_EQ,
        a_in,
        b_in,
        tolerance=1e-12,
        max_iterations=100,
        deadline=None,
    )
    assert result.status is Status.CONVERGED and result.readds == 0
    np.testing.assert_allclose(result.phi, [1.0, 0.5, 0.5], atol=1e-9)


def test_a_crawl_leaves_a_face_by_a_negative_multiplier_else_leaves_gauss_newton() -> None:
    from solver.optimizer.active_set import ActiveSet
    from solver.optimizer.goldfarb import Run

    a_in, b_in = _nonnegative(3)
    target = np.array([1.0, 0.5, 0.5])
    curvature = lambda phi: np.sqrt(2.0) * np.eye(3)  # noqa: E731
    # On the face φ₀ = 0 the target pulls inward: the crawl leaves the face by it.
    start = np.array([0.0, 0.5, 0.5])
    active = ActiveSet.at(start, *EMPTY_EQ, a_in, b_in, slack=1e-10)
    run = Run(_distance_to(target), start, active, 1e-12, None, curvature)
    run.crawled()
    assert run.leave and run.curvature is not None
    ineq = run.active.multipliers(run.gradient)[run.active.k :]
    assert ineq[0] == pytest.approx(-2.0)
    run.h = metric.Metric.dense(10.0 * np.eye(3))  # ‖Hg‖ = 20 > −β = 2
    assert run.choose_drop(ineq, floor=1e-12) == 0
    # Once: Goldfarb's test alone keeps the face while ‖Hg‖ > −β.
    assert not run.leave and run.choose_drop(ineq, floor=1e-12) is None
    # The request holds for one test only, even one with nothing to drop.
    run.leave = True
    assert run.choose_drop(-ineq, floor=1e-12) is None and not run.leave
    # At a Kuhn–Tucker point (‖Pg‖ = 0 here) the multiplier alone decides, without H.
    run.h, run.projected = None, 0.0
    assert run.choose_drop(ineq, floor=3.0) is None and run._h is None
    assert run.choose_drop(ineq, floor=1.0) == 0 and run._h is None
    # Inside every limit: two crawls restart H from the curvature, the third leaves it.
    inside = np.array([0.5, 0.5, 0.5])
    active = ActiveSet.at(inside, *EMPTY_EQ, a_in, b_in, slack=1e-10)
    run = Run(_distance_to(target), inside, active, 1e-12, None, curvature)
    for crawls in (1, 2):
        run.crawled()
        assert run.curvature is not None and run.fresh and run.crawls == crawls
    run.crawled()
    assert run.curvature is None and run.fresh


@pytest.mark.parametrize("deadline", [None, 3600.0])
def test_a_start_too_slow_for_the_deadline_takes_the_projector(
    deadline: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A machine that factors 1 unit of work a second: no Gauss–Newton start of a
    # 800×80 factor fits an hour, so under that deadline the descent starts from the
    # projector (and still descends within the limits); with no deadline it factors.
    monkeypatch.setattr(metric.START_CLOCK, "rate", 1.0)
    started: list[int] = []
    real_start = metric.gauss_newton_start

    def counted(*arguments):  # type: ignore[no-untyped-def]
        started.append(1)
        return real_start(*arguments)

    monkeypatch.setattr(metric, "gauss_newton_start", counted)
    rng = np.random.default_rng(2)
    factor = rng.normal(size=(800, 80))
    target = factor @ rng.normal(size=80)

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        residual = factor.T @ (phi - target)
        return float(residual @ residual), 2.0 * factor @ residual

    start = np.ones(800)  # no limit active
    run = descend(
        objective,
        start,
        np.zeros((0, 800)),
        np.zeros(0),
        *_nonnegative(800),
        tolerance=1e-12,
        max_iterations=5,
        deadline=None if deadline is None else time.perf_counter() + deadline,
        curvature=lambda phi: np.sqrt(2.0) * factor,
    )
    assert bool(started) is (deadline is None)
    assert run.value < objective(start)[0]
    assert np.all(run.phi >= 0.0)


@pytest.mark.parametrize(
    ("weights", "leaves"), [((1e-3, 1e-4), True), ((1e-3, 1.0), False)], ids=["leave", "stay"]
)
def test_a_face_is_left_when_a_newton_step_off_it_promises_more_than_one_on_it(
    weights: tuple[float, float], leaves: bool
) -> None:
    # G = c₀(φ₀ − 1)² + c₁(φ₁ − 0.1)² on φ₀ ≥ 0, from (0, 0): the face φ₀ = 0 has a
    # negative multiplier (−2c₀). With the Gauss–Newton metric, ‖Hg‖ ≈ 0.1 exceeds
    # −β = 2e-3, so Goldfarb's test alone keeps the face either way; off it a Newton
    # step lowers G by about c₀, on it by about 0.01·c₁, and the larger decides.
    from solver.optimizer.active_set import ActiveSet
    from solver.optimizer.goldfarb import Run

    c = np.array(weights)
    target = np.array([1.0, 0.1])

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        delta = phi - target
        return float(c @ delta**2), 2.0 * c * delta

    curvature = lambda phi: np.diag(np.sqrt(2.0 * c))  # noqa: E731
    start = np.zeros(2)
    face = (np.zeros((0, 2)), np.zeros(0), np.eye(2)[:1], np.zeros(1))  # φ₀ ≥ 0
    active = ActiveSet.at(start, *face, slack=0)
    run = Run(objective, start, active, 1e-12, None, curvature)
    ineq = run.active.multipliers(run.gradient)[run.active.k :]
    run.projected = float(np.linalg.norm(run.active.project(run.gradient)))
    hg = run.h @ run.gradient
    assert ineq[0] == pytest.approx(-2.0 * c[0]) and np.linalg.norm(hg) > -ineq[0]
    assert (run.choose_drop(ineq, floor=1e-12) == 0) is leaves
    limits = {"tolerance": 1e-12, "max_iterations": 50, "deadline": None}
    result = descend(objective, start, *face, curvature=curvature, **limits)
    assert result.status is Status.CONVERGED
    np.testing.assert_allclose(result.phi, target, atol=1e-9)
