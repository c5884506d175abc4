"""A warm solve of Gauss–Newton steps alone (``solve._quick``) changes nothing it returns.

Drags of chains with limits, slides and unequal weights, goals near, far and out of
reach: each solve's result, field by field and bit for bit, is the general path's (the
projected gradient's norm to rounding).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import (
    Comfort,
    Constraint,
    Effector,
    Figure,
    Problem,
    SolveResult,
    Status,
    goals,
    kernel,
    solve,
)
from solver.limits import project_onto_limits
from solver.methods.base import Scaled, weight_scale
from solver.optimizer import compiled_gauss_newton
from solver.optimizer.active_set import ROUNDING, ROUNDING_ROOT, kkt_floor
from solver.optimizer.metric import GAUSS_NEWTON_DROP, GaussNewtonStep
from solver.optimizer.space import ReducedSpace
from solver.result import Descent
from tests.fixtures.models import human_figure, limb_effectors, random_feasible_pose

solve_module = importlib.import_module("solver.solve")  # the module, not the function
method_module = importlib.import_module("solver.methods.goldfarb")

LIMB_ENDS = ("hand.L", "hand.R", "foot.L", "foot.R")

FIELDS = (
    "fun",
    "nit",
    "nfev",
    "status",
    "message",
    "active_set",
    "active",
    "max_violation",
    "restarts",
    "outcome",
    "unreachable",
    "held_by",
    "readds",
)


def _same_results(have: SolveResult, want: SolveResult) -> None:
    np.testing.assert_array_equal(have.x, want.x)
    np.testing.assert_array_equal(have.jac, want.jac)
    for name in FIELDS:
        assert getattr(have, name) == getattr(want, name), name
    # The projected gradient's norm is the kernel's sum on the quick path and BLAS's on
    # the general one, whose order depends on the CPU: equal to rounding of its n terms.
    assert have.projected_gradient == pytest.approx(want.projected_gradient, rel=1e-13)


def _drag(
    seed: int,
    segments: int,
    n_goals: int,
    reach: float,
    slides: bool,
    restarts: int,
    comfort: float = 0.0,
    tied: int = 0,
    resumed: list[bool] | None = None,
) -> tuple[int, int]:
    """A drag of 8 events, each solved both ways from the last result.

    The goals follow effector points of poses along a straight line in joint space
    (within the limits), each pushed ``reach`` off in a fixed random direction (0: every
    event reachable), with ``comfort`` toward the rest pose (0: none), and ``tied`` pairs
    of joints turning in a fixed ratio (a joint group's equalities). Returns how many
    events the quick path took, and how many it was tried on (``resumed``: whether the
    general descent went on from where it left off, event by event).
    """
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.6, slide_every=3 if slides else 0)
    lower, upper = np.maximum(figure.lower, -0.5), np.minimum(figure.upper, 0.5)
    theta, end = rng.uniform(lower, upper), rng.uniform(lower, upper)
    for k in range(min(tied, segments // 2)):  # seg 2k's first turn leads seg 2k+1's
        ratio = float(rng.uniform(0.4, 1.0))
        figure.add_linear_equality({(f"seg{2 * k}", 0): ratio, (f"seg{2 * k + 1}", 0): -1.0})
        first, second = figure.dof_index(f"seg{2 * k}", 0), figure.dof_index(f"seg{2 * k + 1}", 0)
        theta[second] = ratio * theta[first]
    chosen = rng.choice(np.arange(1, segments), n_goals, replace=False)
    offsets = rng.normal(size=(n_goals, 3))
    offsets *= reach / np.linalg.norm(offsets, axis=1)[:, None]
    weights = rng.uniform(0.2, 5.0, n_goals)

    def targets(pose: np.ndarray) -> list[np.ndarray]:
        world = figure.forward(pose)
        return [world[s][:3, 3] + d for s, d in zip(chosen, offsets, strict=True)]

    problem = Problem(
        figure,
        [
            Constraint(Effector(f"seg{s}"), goals.Position(p), w)
            for s, p, w in zip(chosen, targets(theta), weights, strict=True)
        ],
    )
    tolerance = problem.goal_tolerance(1e-7)
    quick: list[bool] = []
    start = theta.copy()
    for fraction in np.linspace(0.0, 0.08, 9)[1:]:  # steps of 1% of the way
        moved = targets(start + fraction * (end - start))
        problem = problem.with_goals({k: goals.Position(p) for k, p in enumerate(moved)})
        if comfort:
            problem = problem.with_comfort(Comfort.rest(figure.n_dofs, comfort))
        want = _both_ways(
            problem, theta, quick, resumed, restarts=restarts, goal_tolerance=tolerance
        )
        assert want.max_violation <= 1e-9  # the ties and the limits kept
        theta = want.x
    return sum(quick), len(quick)


def _both_ways(
    problem: Problem,
    theta: np.ndarray,
    quick: list[bool],
    resumed: list[bool] | None = None,
    **options: Any,
) -> SolveResult:
    """Solve with the quick path tried and without it; check they agree; note if it was taken.

    Only the solve's first kernel descent counts: comfort's restorations run more. It is
    taken where it is the whole descent (``quick``), and ``resumed`` where the general
    descent went on from where it left off.
    """
    taken: list[object] = []
    have = _noting_descents(problem, theta, taken, **options)
    quick.extend(isinstance(found, Descent) for found in taken[:1])
    if resumed is not None:
        resumed.extend(isinstance(found, compiled_gauss_newton.Resume) for found in taken[:1])
    want = _general(problem, theta, **options)
    _same_results(have, want)
    return want


def _noting_descents(
    problem: Problem, theta: np.ndarray, found: list[object], **options: Any
) -> SolveResult:
    """``problem`` solved, each kernel descent's answer (Descent, Resume or None) in ``found``."""
    with pytest.MonkeyPatch.context() as patch:
        _note_descents(patch, lambda answer, step, options: found.append(answer))
        return solve(problem, theta, **options)


Note = Callable[[object, GaussNewtonStep, dict[str, Any]], None]
"""(a kernel descent's answer, its step, its options) ↦ nothing."""


def _note_descents(patch: pytest.MonkeyPatch, note: Note) -> None:
    """Pass each of Goldfarb's kernel descents' answers (Descent, Resume or None) to ``note``.

    Those taken alone and those taken with comfort's rounds in the same call
    (:meth:`Goldfarb.settled`), whose answer is the descent's end as
    :func:`compiled_gauss_newton.descent_end` gives it.
    """
    alone, settled = (
        compiled_gauss_newton.gauss_newton_descent,
        compiled_gauss_newton.settled_descent,
    )

    def counted(step: GaussNewtonStep, phi0: np.ndarray, active: Any, **options: Any) -> object:
        answer = alone(step, phi0, active, **options)
        note(answer, step, options)
        return answer

    def counted_settled(
        step: GaussNewtonStep, phi0: np.ndarray, active: Any, comfort: Any, **options: Any
    ) -> object:
        quick, plan = settled(step, phi0, active, comfort, **options)
        answer = compiled_gauss_newton.descent_end(
            step,
            plan,
            quick.descent,
            active,
            tolerance=options["tolerance"],
            goal_value=options["goal_value"],
            equalities=options.get("equalities"),
        )
        note(answer, step, options)
        return quick, plan

    patch.setattr(method_module, "gauss_newton_descent", counted)
    patch.setattr(method_module, "settled_descent", counted_settled)


def _general(problem: Problem, theta: np.ndarray, **options: Any) -> SolveResult:
    """``problem`` solved by the general path alone (no quick path tried)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solve_module, "QUICK", False)
        return solve(problem, theta, **options)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(5, 20),
    n_goals=st.integers(1, 4),
    reach=st.sampled_from([0.0, 0.05, 0.4, 3.0]),
    slides=st.booleans(),
    restarts=st.sampled_from([0, 8]),
    comfort=st.sampled_from([0.0, 0.0, 0.5, 1.0]),
)
def test_a_quick_solve_returns_what_the_general_path_does(
    seed: int,
    segments: int,
    n_goals: int,
    reach: float,
    slides: bool,
    restarts: int,
    comfort: float,
) -> None:
    _drag(seed, segments, n_goals, reach, slides, restarts, comfort)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(4, 16),
    n_goals=st.integers(1, 3),
    reach=st.sampled_from([0.0, 0.05, 0.4]),
    tied=st.integers(1, 4),
    comfort=st.sampled_from([0.0, 0.5]),
)
def test_a_quick_solve_of_tied_joints_returns_what_the_general_path_does(
    seed: int, segments: int, n_goals: int, reach: float, tied: int, comfort: float
) -> None:
    """Equalities (a joint group, a control rig's shares) stay active through the kernel's
    descent, as through the general path's: the same result, bit for bit."""
    _drag(seed, segments, n_goals, reach, False, 0, comfort, tied)


@pytest.mark.parametrize("comfort", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_a_warm_drag_of_tied_joints_takes_the_quick_path(seed: int, comfort: float) -> None:
    taken, tried = _drag(seed, 16, 2, 0.0, False, 0, comfort, tied=3)
    if kernel.active() is None:  # no kernel steps, so no quick path
        assert taken == 0
        return
    assert tried == 8 and taken >= 6


@pytest.mark.parametrize("seed", range(4))
def test_a_drag_of_tied_joints_ends_where_numpys_does(seed: int) -> None:
    """The kernel's descent holding equalities, and numpy's: each event of a drag (comfort
    on) ends at the same pose to rounding of the steps, the goal met and the ties kept."""
    if kernel.active() is None:
        return  # no kernel, nothing to compare
    rng = np.random.default_rng(seed)
    figure = long_chain(10, limit=1.0)
    theta, end = rng.uniform(-0.4, 0.4, (2, figure.n_dofs))
    for k in range(3):
        ratio = float(rng.uniform(0.4, 1.0))
        figure.add_linear_equality({(f"seg{2 * k}", 1): ratio, (f"seg{2 * k + 1}", 1): -1.0})
        theta[figure.dof_index(f"seg{2 * k + 1}", 1)] = (
            ratio * theta[figure.dof_index(f"seg{2 * k}", 1)]
        )
    comfort = Comfort.rest(figure.n_dofs, 0.5)
    have = want = theta
    for fraction in np.linspace(0.0, 0.08, 9)[1:]:
        point = figure.forward(theta + fraction * (end - theta))[9][:3, 3]
        problem = Problem(figure, [Constraint(Effector("seg9"), goals.Position(point))])
        problem = problem.with_comfort(comfort)
        tolerance = problem.goal_tolerance(1e-7)
        have = solve(problem, have, restarts=0, goal_tolerance=tolerance).x
        with kernel.enabled(False):
            want = solve(problem, want, restarts=0, goal_tolerance=tolerance).x
        np.testing.assert_allclose(have, want, rtol=0, atol=1e-6)
        assert problem.potentials(have)[0] <= tolerance
        ties = figure.limits.a_eq @ have - figure.limits.b_eq
        assert float(np.abs(ties).max()) <= 1e-12


def _polygon_chain(segments: int, radius: float) -> Figure:
    """:func:`long_chain` with each joint's first two turns in a hexagon of ``radius``."""
    figure = long_chain(segments, limit=1.0)
    angles = 0.3 + 2.0 * np.pi * np.arange(6) / 6
    hexagon = np.c_[radius * np.cos(angles), radius * np.sin(angles)]
    for k in range(segments):
        figure.add_polygon_limit(f"seg{k}", (0, 1), hexagon)
    return figure


@pytest.mark.parametrize("comfort", [0.0, 1.0])
@pytest.mark.parametrize("reach", [0.0, 0.05])
def test_a_drag_against_limit_polygons_ends_as_the_general_path_does(
    reach: float, comfort: float
) -> None:
    """Joints swinging in hexagons, goals dragged from poses beyond them: the kernel's
    descent holds the polygons' edges active at its start and those its steps meet, and
    each event ends as the general path's from the same start does, to rounding of the
    steps: the same verdict, within every limit, G the same (the pose may differ along
    directions G does not see, which the goals leave free)."""
    descents: list[object] = []

    def counted(found: object, step: GaussNewtonStep, options: dict[str, Any]) -> None:
        polygons = options.get("faces") is not None or any(
            np.count_nonzero(step.arrays[5][row]) > 1 for row in step.plan.added()
        )
        descents.append((found, polygons))

    for seed in range(6):
        rng = np.random.default_rng([seed, 11])
        segments = int(rng.integers(6, 14))
        figure = _polygon_chain(segments, 0.22)
        start, end = np.zeros(figure.n_dofs), np.zeros(figure.n_dofs)
        for k in range(segments):
            for j, spread in ((0, 0.1), (1, 0.1), (2, 0.5)):
                i = figure.dof_index(f"seg{k}", j)
                start[i], end[i] = rng.uniform(-spread, spread), rng.uniform(-3, 3) * spread
        chosen = rng.choice(np.arange(1, segments), 2, replace=False)
        offsets = rng.normal(size=(2, 3))
        offsets *= reach / np.linalg.norm(offsets, axis=1)[:, None]
        theta = start
        for fraction in np.linspace(0.0, 1.0, 11)[1:]:
            world = figure.forward(start + fraction * (end - start))
            problem = Problem(
                figure,
                [
                    Constraint(Effector(f"seg{s}"), goals.Position(world[s][:3, 3] + d))
                    for s, d in zip(chosen, offsets, strict=True)
                ],
            )
            if comfort:
                problem = problem.with_comfort(Comfort.rest(figure.n_dofs, comfort))
            tolerance = problem.goal_tolerance(1e-7)
            with pytest.MonkeyPatch.context() as patch:
                _note_descents(patch, counted)
                have = solve(problem, theta, restarts=0, goal_tolerance=tolerance)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(solve_module, "QUICK", False)
                want = solve(problem, theta, restarts=0, goal_tolerance=tolerance)
            assert have.outcome == want.outcome
            assert have.max_violation <= 1e-9 and want.max_violation <= 1e-9
            assert have.fun == pytest.approx(want.fun, rel=1e-6, abs=tolerance)
            theta = want.x
    if kernel.active() is None:
        assert not descents  # no kernel steps, so no quick path
        return
    held = [found for found, polygons in descents if polygons]
    assert len(held) >= len(descents) // 4  # polygons' edges held in many descents
    if not reach:  # goals met: often by the kernel's descent alone (else it slows near
        # the compromise and the general descent goes on)
        assert sum(isinstance(found, Descent) for found in held) >= len(held) // 4


def test_the_polygon_edges_a_kernel_descent_meets_are_held_exactly() -> None:
    """What the kernel keeps of the rows it holds as equalities after each whole descent:
    Q orthonormal, R with Rᵀ Q the rows themselves and Rᵀ times the sides their bounds,
    each edge's drop-test direction N (NᵀN)⁻¹ e_j / √((NᵀN)⁻¹_jj), and the end on every
    active row to rounding; descents one after another on one plan, holding more or
    fewer edges at their starts."""
    if kernel.active() is None:
        return  # no kernel, nothing to compare
    grown = 0
    plans: list[object] = []
    figure = _polygon_chain(14, 0.22)  # 42 variables: room for more rows than a descent adds
    chosen = (9, 13)
    problem = Problem(
        figure, [Constraint(Effector(f"seg{s}"), goals.Position(np.zeros(3))) for s in chosen]
    )
    for seed in range(8):
        rng = np.random.default_rng([seed, 13])
        start = np.zeros(figure.n_dofs)
        for k in range(14):
            for j, spread in ((0, 0.2), (1, 0.2), (2, 0.5)):
                start[figure.dof_index(f"seg{k}", j)] = rng.uniform(-spread, spread)
        start = project_onto_limits(start, figure.limits)  # on some edges, within every polygon
        world = figure.forward(start + rng.uniform(-0.6, 0.6, figure.n_dofs))
        problem = problem.with_goals(
            {k: goals.Position(world[s][:3, 3]) for k, s in enumerate(chosen)}
        )
        space = ReducedSpace.build(problem, start)
        scaled = Scaled(space, weight_scale(problem), None)
        step = scaled.gauss_newton_step(problem)
        assert step is not None
        phi = space.phi(space.base)
        found = compiled_gauss_newton.start_rows(
            phi, space.a_eq, space.b_eq, space.rows_in, space.b_in
        )
        assert found is not None
        active, faces = found
        end = compiled_gauss_newton.gauss_newton_descent(
            step,
            phi,
            active,
            tolerance=1e-10,
            max_iterations=50,
            deadline=None,
            goal_value=problem.goal_tolerance(1e-9) / scaled.weight,
            faces=faces,
        )
        if end is None:
            continue
        plans.append(step.plan)
        basis, sides, upper, directions = step.plan.equality_rows()
        start_edges = [] if faces is None else faces.rows
        added = step.plan.added()
        edges = [*start_edges, *(row for row in added if row not in active[3])]
        edges = [row for row in edges if np.count_nonzero(space.a_in[row]) > 1]
        grown += len(edges) > len(start_edges)
        rows, bounds = space.a_in[edges], space.b_in[edges]
        assert len(basis) == len(edges) == len(directions)
        np.testing.assert_allclose(basis @ basis.T, np.eye(len(edges)), atol=1e-12)
        np.testing.assert_allclose(upper.T @ basis, rows, atol=1e-12)
        np.testing.assert_allclose(upper.T @ sides, bounds, atol=1e-12)
        inverse = np.linalg.inv(rows @ rows.T)
        want = (rows.T @ inverse / np.sqrt(np.diag(inverse))).T
        np.testing.assert_allclose(directions, want, atol=1e-9)
        point = end.phi if isinstance(end, Descent) else end.point
        assert float(np.abs(rows @ point - bounds).max(initial=0.0)) <= 1e-12
        assert float((space.a_in @ point - space.b_in).min()) >= -1e-12
    assert grown >= 3  # edges met and held in several descents
    assert len({id(plan) for plan in plans}) == 1  # all on one plan


@pytest.mark.parametrize("restarts", [0, 8])
def test_a_compromise_goes_on_from_where_the_kernels_descent_left_off(restarts: int) -> None:
    """Goals out of reach: the kernel's steps slow down short of the compromise, and the
    first descent goes on from their end rather than take them again, with the same
    result, bit for bit (:func:`_both_ways`), as the general path's from the start. (Once
    at the compromise, a drag's next events slow down at their first step; so may a
    first event whose goals lie near the compromise.)"""
    firsts = []
    for seed in range(6):
        resumed: list[bool] = []
        taken, _ = _drag(seed, 12, 2, 0.4, False, restarts, resumed=resumed)
        firsts.append(resumed[0] if resumed else False)
        if kernel.active() is None:
            assert taken == 0 and not any(resumed)
    if kernel.active() is not None:
        assert sum(firsts) >= 3


@pytest.mark.parametrize("comfort", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_a_warm_drag_of_reachable_goals_takes_the_quick_path(seed: int, comfort: float) -> None:
    taken, tried = _drag(seed, 16, 2, 0.0, False, 0, comfort)
    if kernel.active() is None:  # no kernel steps, so no quick path
        assert taken == 0
        return
    assert tried == 8 and taken >= 6


@pytest.mark.parametrize("seed", range(4))
def test_a_short_chain_with_an_oriented_goal_takes_the_quick_path_and_ends_where_numpy_does(
    seed: int,
) -> None:
    """Four joints and a position+orientation goal on the last (9 columns of F beside 12
    variables, where numpy starts from the dense inverse): each event of a drag, comfort
    on, is the kernel's descent, and each ends where numpy's own ends."""
    if kernel.active() is None:
        return  # no kernel, nothing to compare
    rng = np.random.default_rng(seed)
    figure = long_chain(4, limit=1.0)
    theta, end = rng.uniform(-0.4, 0.4, (2, figure.n_dofs))
    comfort = Comfort.rest(figure.n_dofs, 0.5)
    have = want = theta
    descents: list[bool] = []

    def counted(found: object, step: GaussNewtonStep, options: dict[str, Any]) -> None:
        descents.append(isinstance(found, Descent))

    for fraction in np.linspace(0.0, 0.08, 9)[1:]:
        frame = figure.forward(theta + fraction * (end - theta))[3]
        goal = goals.PositionOrientation(frame[:3, 3], frame[:3, 0], frame[:3, 1])
        problem = Problem(figure, [Constraint(Effector("seg3"), goal)]).with_comfort(comfort)
        tolerance = problem.goal_tolerance(1e-7)
        taken = len(descents)
        with pytest.MonkeyPatch.context() as patch:
            _note_descents(patch, counted)
            have = solve(problem, have, restarts=0, goal_tolerance=tolerance).x
        assert descents[taken]  # the solve's first descent is the kernel's whole
        with kernel.enabled(False):
            want = solve(problem, want, restarts=0, goal_tolerance=tolerance).x
        np.testing.assert_allclose(have, want, rtol=0, atol=1e-6)
        assert problem.potentials(have)[0] <= tolerance


def test_a_quick_solve_out_of_time_stops_where_the_general_path_does() -> None:
    """A budget spent at once: one iteration each way, then the time limit, the same pose."""
    if kernel.active() is None:
        pytest.skip("no kernel here: the quick path needs its steps")
    figure = long_chain(16, limit=1.2)
    start = np.full(figure.n_dofs, 0.05)
    world = figure.forward(np.full(figure.n_dofs, 0.12))
    problem = Problem(
        figure,
        [Constraint(Effector(f"seg{s}"), goals.Position(world[s][:3, 3]), 1.0) for s in (8, 15)],
    )
    taken: list[bool] = []
    tolerance = problem.goal_tolerance(1e-9)
    want = _both_ways(problem, start, taken, restarts=0, goal_tolerance=tolerance, time_limit=1e-12)
    assert taken == [True]
    assert want.status is Status.TIME_LIMIT and want.nit == 1


def _stepwise(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    step: GaussNewtonStep,
    phi: np.ndarray,
    active: compiled_gauss_newton.ActiveBounds,
    goal_value: float,
    tolerance: float,
) -> tuple[np.ndarray, float, int, int, bool, list[int]]:
    """The kernel's descent taken one kernel start and search at a time, by its rule.

    The Kuhn–Tucker test on the projected gradient, the drop tests of the most negative
    bound multiplier (Goldfarb's ``‖Hg‖ ≤ −β`` and the Newton comparison off its bound),
    then a step that must either leave G at most a fifth lower or lower G onto a bound it
    meets, which is held from then on (no time limit). Returns the last point a step
    reached, G there, the evaluations and the steps taken to it, whether the goals are met
    there (else a test or a step stopped it short), and the rows of the bounds held there.
    """
    bounds, signs, rhs, rows = active
    rows = list(rows)
    value, gradient = objective(phi)
    evaluations, iterations = 1, 0
    inactive = np.ones(len(step.arrays[6]), dtype=bool)
    inactive[rows] = False
    while value > goal_value:
        projected = gradient.copy()
        projected[bounds] = 0.0
        floor = kkt_floor(tolerance, gradient, value)
        if float(np.sqrt(projected @ projected)) <= floor or iterations >= 50:
            return phi, value, evaluations, iterations, False, rows
        started, _ = step.start(phi, value, gradient, (bounds, signs, rhs), inactive)
        assert started.status == 0
        hg = started.hg
        multipliers = signs * gradient[bounds]
        if multipliers.size and multipliers.min() < 0.0:
            beta = float(multipliers.min())
            factor = started.factor
            reach = factor[bounds[int(np.argmin(multipliers))]]
            largest = float(np.einsum("ij,ij->i", factor, factor).max())
            curvature = float(reach @ reach) + max(1e-7 * largest, abs(value), 1e-12)
            if np.sqrt(hg @ hg) <= -beta or float(gradient @ hg) * curvature <= beta * beta:
                return phi, value, evaluations, iterations, False, rows
        taken = step.search(phi, value, gradient, hg)
        if taken.status:
            return phi, value, evaluations, iterations, False, rows
        if taken.hit >= 0 and taken.alpha >= taken.limit:  # a row met: held, if a bound
            variables, entries = _bound_of(step, taken.hit)
            if variables < 0 or not taken.value < value:
                return phi, value, evaluations, iterations, False, rows
            bounds, signs = np.append(bounds, variables), np.append(signs, entries)
            rhs = np.append(rhs, step.arrays[6][taken.hit])
            rows.append(taken.hit)
            inactive[taken.hit] = False
        elif not taken.value <= GAUSS_NEWTON_DROP * value:
            return phi, value, evaluations, iterations, False, rows
        iterations += 1
        evaluations += taken.evaluations
        phi, value, gradient = taken.point, taken.value, taken.gradient
    return phi, value, evaluations, iterations, True, rows


def _bound_of(step: GaussNewtonStep, row: int) -> tuple[int, float]:
    """The variable inequality ``row`` of ``step``'s descent bounds and its entry there (±1),
    or (−1, 0) where it is no bound."""
    entries = step.arrays[5][row]
    variables = np.flatnonzero(entries)
    if len(variables) != 1 or abs(entries[variables[0]]) != 1.0:
        return -1, 0.0
    return int(variables[0]), float(entries[variables[0]])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(5, 16),
    n_goals=st.integers(1, 3),
    reach=st.floats(0.0, 2.0),
    jump=st.floats(0.01, 0.9),
    held=st.integers(0, 4),
)
# far jumps where a step lowers G by less than a fifth and later ones meet the goals
@example(seed=20, segments=14, n_goals=2, reach=0.0, jump=0.54, held=0)
@example(seed=157, segments=16, n_goals=3, reach=0.0, jump=0.58, held=0)
@example(seed=376, segments=15, n_goals=3, reach=0.0, jump=0.62, held=0)
def test_the_kernels_descent_takes_its_steps_and_stops_by_their_rule(
    seed: int, segments: int, n_goals: int, reach: float, jump: float, held: int
) -> None:
    """In one call, what its steps do one at a time: the same points, bit for bit, also
    where it stops short of the goals (the general descent goes on from that point)."""
    _descent_by_its_rule(seed, segments, n_goals, reach, jump, held, 1.0)


def test_the_kernels_descent_holds_the_bounds_its_steps_meet() -> None:
    """Joints of ±0.3 rad, goals from poses up to 0.5 rad away: steps meet bounds, which
    the descent then holds, as its steps one at a time do (bit for bit)."""
    holding = 0
    for seed in range(12):
        rng = np.random.default_rng([seed, 7])
        segments, n_goals = int(rng.integers(5, 16)), int(rng.integers(1, 4))
        met = _descent_by_its_rule(seed, segments, n_goals, 0.0, 0.5, 0, 0.3)
        if met is None:
            return  # no kernel, nothing to compare
        holding += met[1] > met[0]  # a bound met and held
    assert holding >= 8


def _descent_by_its_rule(
    seed: int, segments: int, n_goals: int, reach: float, jump: float, held: int, limit: float
) -> tuple[int, int] | None:
    """The kernel's descent in one call against :func:`_stepwise`, on a chain of joints
    within ±``limit``; the bounds active at the start and at the end (None: no kernel)."""
    if kernel.active() is None:
        return None  # no kernel, nothing to compare
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=limit)
    theta = rng.uniform(-0.3, 0.3, figure.n_dofs) * min(limit, 1.0)
    world = figure.forward(theta + rng.uniform(-jump, jump, figure.n_dofs))
    chosen = rng.choice(np.arange(1, segments), n_goals, replace=False)
    offsets = rng.normal(size=(n_goals, 3))
    offsets *= reach / np.linalg.norm(offsets, axis=1)[:, None]
    problem = Problem(
        figure,
        [
            Constraint(Effector(f"seg{s}"), goals.Position(world[s][:3, 3] + d), w)
            for s, d, w in zip(chosen, offsets, rng.uniform(0.2, 5.0, n_goals), strict=True)
        ],
    )
    variables = np.flatnonzero(problem.variable_mask)
    on = rng.choice(variables, min(held, len(variables)), replace=False)
    theta[on] = np.where(rng.random(len(on)) < 0.5, figure.lower[on], figure.upper[on])
    space = ReducedSpace.build(problem, theta)
    scaled = Scaled(space, weight_scale(problem), None)
    step = scaled.gauss_newton_step(problem)
    if step is None:
        return None
    phi = space.phi(space.base)
    goal_value = problem.goal_tolerance(1e-9) / scaled.weight
    active = compiled_gauss_newton.active_bounds(
        phi, space.a_eq, space.b_eq, space.rows_in, space.b_in
    )
    assert active is not None  # a chain's limits are bounds
    assert len(active[3]) == len(on)  # the start is on them
    want = _stepwise(scaled.objective(problem), step, phi, active, goal_value, 1e-10)
    have = step.library.gauss_newton_descent(
        step.hold(*active),
        phi,
        goal_value=goal_value,
        tolerance=1e-10,
        floor=(ROUNDING, ROUNDING_ROOT),
        drop=GAUSS_NEWTON_DROP,
        max_iterations=50,
        seconds=None,
    )
    point, value, evaluations, iterations, met, rows = want
    assert have.status in (0, 2) if met else have.status == -1
    np.testing.assert_array_equal(have.point, point)
    assert (have.value, have.evaluations, have.iterations) == (value, evaluations, iterations)
    assert step.plan.active()[3] == rows  # the start's bounds, then those the steps met
    return len(active[3]), len(rows)


def test_a_problem_moved_with_its_figure_solves_as_one_built_on_the_moved_figure() -> None:
    """Its kernel plan is the original's moved (shared descents), taken in turns with it."""
    figure = long_chain(12, limit=0.8)
    rng = np.random.default_rng(5)
    start = rng.uniform(-0.3, 0.3, figure.n_dofs)
    world = figure.forward(rng.uniform(-0.4, 0.4, figure.n_dofs))
    constraints = [
        Constraint(Effector(f"seg{s}"), goals.Position(world[s][:3, 3]), w)
        for s, w in ((6, 1.0), (11, 2.5))
    ]
    problem = Problem(figure, constraints)
    first = solve(problem, start, restarts=0)  # the kernel's plan made and used
    motion = np.eye(4)
    motion[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    motion[:3, :3] *= np.sign(np.linalg.det(motion[:3, :3]))
    motion[:3, 3] = (0.2, -0.1, 0.4)
    moved = figure.moved(motion)
    carried = [goals.Position(motion[:3, :3] @ world[s][:3, 3] + motion[:3, 3]) for s in (6, 11)]
    on = problem.on(moved).with_goals(dict(enumerate(carried)))
    fresh = Problem(moved, [c.with_goal(g) for c, g in zip(constraints, carried, strict=True)])
    _same_results(solve(on, start, restarts=0), solve(fresh, start, restarts=0))
    _same_results(solve(problem, start, restarts=0), first)  # the original's plan again
    if kernel.active() is not None:
        plan, original = on.derived.objective_plan, problem.derived.objective_plan
        assert plan is not None and original is not None
        assert plan.descents is original.descents


@pytest.mark.parametrize("seed", range(4))
def test_a_solve_with_comfort_returns_its_problems_own_value_and_gradient_at_its_pose(
    seed: int,
) -> None:
    """Comfort's rounds keep the kernel's last evaluation for the result: the value and
    gradient a solve returns are those of the same problem evaluated afresh at its pose,
    bit for bit."""
    rng = np.random.default_rng(seed)
    figure = long_chain(10, limit=1.0)
    theta = rng.uniform(-0.4, 0.4, figure.n_dofs)
    point = figure.forward(theta + rng.uniform(-0.1, 0.1, figure.n_dofs))[9][:3, 3]

    def problem() -> Problem:
        made = Problem(figure, [Constraint(Effector("seg9"), goals.Position(point))])
        return made.with_comfort(Comfort.rest(figure.n_dofs, 0.5))

    solved = problem()
    result = solve(solved, theta, restarts=0, goal_tolerance=solved.goal_tolerance(1e-7))
    value, gradient = problem().evaluate(result.x)  # a new problem: nothing kept
    assert result.fun == value
    np.testing.assert_array_equal(result.jac, gradient)


def _limbs_at_rest(limbs: int) -> tuple[Figure, Problem, np.ndarray]:
    """The human, position goals on its first ``limbs`` hands and feet, their points at rest."""
    figure = human_figure()
    effectors = limb_effectors(figure)
    ends = LIMB_ENDS[:limbs]
    problem = Problem(figure, [Constraint(effectors[n], goals.Position(np.zeros(3))) for n in ends])
    points, _, _ = problem.effector_states(figure.zero_pose())
    return figure, problem, points


@pytest.mark.parametrize("limbs", [1, 4])
@pytest.mark.parametrize("comfort", [0.0, 1.0])
def test_a_warm_drag_evaluates_nothing_after_the_kernels_descent(
    limbs: int, comfort: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A drag of the human's hands and feet, one dragged, the others held: the kernel's
    descent (and comfort's rounds) leave its pose at their end, so the solve's result reads
    its value and gradient there instead of evaluating the problem once more (a trial the
    rounds refused was the last they evaluated); the result is the problem's own there."""
    figure, problem, points = _limbs_at_rest(limbs)
    start = figure.zero_pose()
    calls: list[int] = []
    library = kernel.active()
    if library is not None:
        evaluate = type(library).objective

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return evaluate(self, *args, **kwargs)

        monkeypatch.setattr(type(library), "objective", counted)
    theta = start
    for event in range(1, 13):
        moved = points[0] + np.array([0.0, -0.15, 0.1]) * event / 12
        problem = problem.with_goals(
            {j: goals.Position(moved if j == 0 else points[j]) for j in range(limbs)}
        )
        solved = problem.with_comfort(Comfort.rest(figure.n_dofs, comfort) if comfort else None)
        result = solve(solved, theta, restarts=0, goal_tolerance=problem.goal_tolerance(1e-6))
        assert result.outcome == "met"
        fresh = problem.with_comfort(solved.comfort).with_goals({})  # nothing kept
        value, gradient = fresh.evaluate(result.x)
        assert result.fun == value
        np.testing.assert_array_equal(result.jac, gradient)
        theta = result.x
    if library is not None:
        assert calls == [1] * 12  # the fresh problems' evaluations alone


@pytest.mark.parametrize("seed", range(6))
def test_a_cold_solve_without_a_goal_tolerance_starts_with_the_kernels_descent(seed: int) -> None:
    """The human from rest to four hand and foot targets of a random pose, no goal
    tolerance (the Kuhn–Tucker test alone ends a descent), restarts on: the kernel takes
    the first iterations in one call (to a Kuhn–Tucker point with the goals met, or it
    hands over), and the solve ends where the general path alone ends, to rounding: the
    same iterations, evaluations, status and verdict."""
    figure = human_figure()
    rng = np.random.default_rng(seed)
    effectors = limb_effectors(figure)
    start = figure.zero_pose()
    probe = Problem(
        figure, [Constraint(effectors[n], goals.Position(np.zeros(3))) for n in LIMB_ENDS]
    )
    points, _, _ = probe.effector_states(random_feasible_pose(figure, rng))
    problem = Problem(
        figure,
        [
            Constraint(effectors[n], goals.Position(p))
            for n, p in zip(LIMB_ENDS, points, strict=True)
        ],
    )
    descents: list[object] = []
    have = _noting_descents(problem, start, descents)
    want = _general(problem, start)
    if kernel.active() is not None:
        first = descents[0]  # the whole descent to a Kuhn–Tucker point, or its first steps
        assert isinstance(first, Descent | compiled_gauss_newton.Resume)
        assert first.iterations >= 1
        if isinstance(first, Descent):
            assert first.message.startswith("converged: Kuhn–Tucker point")
    for name in ("nit", "nfev", "status", "restarts", "outcome", "unreachable"):
        assert getattr(have, name) == getattr(want, name), name
    assert want.outcome == "met"
    # where the goals are met the pose may drift, by rounding, along what G does not see
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-8)
    assert have.fun <= problem.goal_tolerance(1e-9)


@pytest.mark.parametrize("comfort", [0.0, 1.0])
@pytest.mark.parametrize("moving", [False, True])
@pytest.mark.parametrize("plane", [False, True])
def test_a_drags_events_renew_one_kernel_step_and_solve_as_a_fresh_one_does(
    comfort: float, moving: bool, plane: bool
) -> None:
    """The quick path keeps its kernel step for the problems sharing its derived parts and
    writes the next event's goals, start and rows into it: each event of a drag of the
    human's four limbs (unequal weights; a foot on a plane, whose goal the kernel reads
    with a face; the figure moved as a whole between events, as a moving armature's bake
    does) solves bit for bit as with a step made afresh, and its step is the last one's."""
    figure = human_figure()
    effectors = limb_effectors(figure)
    start = figure.zero_pose()
    weights = (1.0, 2.5, 0.7, 1.3)
    problem = Problem(
        figure,
        [
            Constraint(effectors[n], goals.Position(np.zeros(3)), w)
            for n, w in zip(LIMB_ENDS, weights, strict=True)
        ],
    )
    points, _, _ = problem.effector_states(start)
    theta, made, renewed = start, None, []
    for event in range(1, 13):
        motion = np.eye(4)
        if moving:
            turn = 0.02 * event
            motion[:2, :2] = ((np.cos(turn), -np.sin(turn)), (np.sin(turn), np.cos(turn)))
            motion[:3, 3] = (0.01 * event, -0.02 * event, 0.0)
            problem = problem.on(figure.moved(motion))
        placed = points @ motion[:3, :3].T + motion[:3, 3]
        placed[0] += np.array([0.0, -0.15, 0.1]) * event / 12
        wanted: dict[int, goals.Goal] = {j: goals.Position(placed[j]) for j in range(4)}
        if plane:
            wanted[3] = goals.Plane(placed[3], motion[:3, 2])
        problem = problem.with_goals(wanted).with_comfort(
            Comfort.rest(figure.n_dofs, comfort) if comfort else None
        )
        options: dict[str, Any] = {"restarts": 0, "goal_tolerance": problem.goal_tolerance(1e-6)}
        have = solve(problem, theta, **options)
        renewed.append(problem.derived.quick_step is made)
        problem.derived.quick_step = None  # the next solve makes its step afresh
        want = solve(problem, theta, **options)
        made = problem.derived.quick_step
        _same_results(have, want)
        theta = want.x
    if kernel.active() is not None:  # each event but the first renewed the last one's step
        assert renewed == [False] + [True] * 11


@pytest.mark.parametrize("limbs", [1, 4])
def test_a_comfort_drags_descent_and_rounds_in_one_kernel_call_change_nothing(limbs: int) -> None:
    """A drag of the human's hands and feet with comfort, one dragged, the others held: each
    event's descent and comfort's rounds in one kernel call (``Goldfarb.settled``), the
    rounds' end kept at once where it rests on bounds alone, return what the descent and the
    rounds in two calls return, bit for bit (the projected gradient's norm to rounding)."""
    library = kernel.active()
    figure, problem, points = _limbs_at_rest(limbs)
    start = figure.zero_pose()
    kept: list[bool] = []
    original = method_module.kept_at_once

    def counted(*args: Any, **kwargs: Any) -> Descent | None:
        found = original(*args, **kwargs)
        kept.append(found is not None)
        return found

    theta = start
    for event in range(1, 13):
        moved = points[0] + np.array([0.1, -0.2, 0.15]) * event / 12
        problem = problem.with_goals(
            {j: goals.Position(moved if j == 0 else points[j]) for j in range(limbs)}
        )
        solved = problem.with_comfort(Comfort.rest(figure.n_dofs, 1.0))
        options: dict[str, Any] = {"restarts": 0, "goal_tolerance": problem.goal_tolerance(1e-6)}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(method_module, "kept_at_once", counted)
            have = solve(solved, theta, **options)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(method_module, "SETTLED", False)
            want = solve(solved.with_goals({}), theta, **options)
        _same_results(have, want)
        theta = want.x
    if library is None:  # no kernel, so no kernel call to take both
        assert not kept
        return
    assert len(kept) == 12 and sum(kept) >= 9  # the rounds' end kept at once on most events
