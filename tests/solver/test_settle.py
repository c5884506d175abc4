"""Comfort's Newton rounds (``solver.optimizer.relax.settle``): the kernel's ``rk_settle``
computes what numpy's do, and the rounds keep their promises (goals as met, comfort
lower, limits kept)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import Comfort, Constraint, Effector, Problem, goals, kernel, solve
from solver.methods import Goldfarb
from solver.methods.base import Scaled, weight_scale
from solver.methods.goldfarb import compiled_settle
from solver.optimizer import relax
from solver.optimizer.budget import Budget
from solver.optimizer.levels import HOLD
from solver.optimizer.projection import active_rows
from solver.optimizer.relax import (
    HOLD_SHARE,
    ROUNDS,
    ComfortAim,
    Rounds,
    next_radius,
    settle,
    settle_constants,
)
from solver.optimizer.space import ReducedSpace
from solver.result import Descent

DRAGS = {
    "seed": st.integers(0, 2**32 - 1),
    "segments": st.integers(6, 18),
    "n_goals": st.integers(1, 3),
    "move": st.floats(0.0, 0.2),
    "polygons": st.booleans(),
    "oriented": st.booleans(),
    "grouped": st.booleans(),
}
"""A chain, its goals and a drag event's move (:func:`_settling`)."""


def _settling(
    seed: int,
    segments: int,
    n_goals: int,
    move: float,
    polygons: bool = False,
    oriented: bool = False,
    grouped: bool = False,
) -> tuple[Problem, np.ndarray]:
    """A chain within ±0.6 rad a joint, its goals on its effectors at a random pose and
    then moved ``move`` of the way to another pose's (a drag event), with comfort toward
    the rest pose; with ``polygons``, two joints also within a hexagon and comfort toward a
    random pose that presses the joints against them; ``oriented``, the first goal holds
    its effector's frame too (a position+orientation goal, as a planted foot's);
    ``grouped``, two joints on the way to a goal turn alike (three equalities, as a
    control rig's chest shares its turn between two spine bones)."""
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.6)
    chosen = rng.choice(np.arange(1, segments), n_goals, replace=False)
    tied = int(rng.integers(0, max(chosen))) if grouped else 0
    if grouped:
        for axis in range(3):
            figure.add_linear_equality({(f"seg{tied}", axis): 1.0, (f"seg{tied + 1}", axis): -1.0})
    spread = 0.5
    reference = np.zeros(figure.n_dofs)
    if polygons:  # on joints that move a goal
        angles = 2.0 * np.pi * np.arange(6) / 6.0
        hexagon = np.c_[0.45 * np.cos(angles), 0.45 * np.sin(angles)]
        for index in rng.choice(np.arange(max(chosen) + 1), 2, replace=False):
            figure.add_polygon_limit(f"seg{index}", (0, 1), hexagon)
        spread = 0.2  # inside the hexagon's inscribed circle (radius 0.39)
        reference = rng.uniform(-2.0, 2.0, figure.n_dofs)
    lower, upper = np.maximum(figure.lower, -spread), np.minimum(figure.upper, spread)
    theta, end = rng.uniform(lower, upper), rng.uniform(lower, upper)
    if grouped:  # both poses keep the group
        for pose in (theta, end):
            pose[3 * tied + 3 : 3 * tied + 6] = pose[3 * tied : 3 * tied + 3]
    aim = figure.forward(theta + move * (end - theta))
    kinds: list[goals.Goal] = [goals.Position(aim[s][:3, 3]) for s in chosen]
    if oriented:
        frame = aim[chosen[0]]
        kinds[0] = goals.PositionOrientation(frame[:3, 3], frame[:3, 0], frame[:3, 1])
    problem = Problem(
        figure,
        [
            Constraint(Effector(f"seg{s}"), goal, w)
            for s, goal, w in zip(chosen, kinds, rng.uniform(0.2, 5.0, n_goals), strict=True)
        ],
    ).with_comfort(Comfort(reference))
    return problem, theta


class _Unmet(Exception):
    """The goals' descent left a goal unmet: the rounds have no start."""


def _both(
    problem: Problem, theta: np.ndarray, rounds: int | None = None, *, drawn: bool = True
) -> tuple[Descent, ComfortAim, Rounds, Rounds | None, dict[str, float]]:
    """The goals' kernel descent from θ, then numpy's rounds and the kernel's from its end
    (at most ``rounds`` of them; None: as many as the solver takes).

    Where the descent leaves a goal unmet, a case ``drawn`` by hypothesis is not one;
    otherwise :class:`_Unmet` is raised."""
    space = ReducedSpace.build(problem, theta)
    scaled = Scaled(space, weight_scale(problem), problem.comfort)
    method = Goldfarb()
    step = method.compiled(problem, scaled)
    rounds_step = scaled.gauss_newton_step(problem, sized=False)  # the rounds' at any size
    assert rounds_step is not None
    tolerance = problem.goal_tolerance(1e-7) / scaled.weight
    budget = Budget(1e-10, 1000, None, tolerance)
    first = method.goals(problem, scaled, space.phi(theta), budget, step)
    met = first.value <= tolerance  # the rounds start where the goals are met
    if drawn:
        assume(met)
    elif not met:
        raise _Unmet
    aim = scaled.comfort_aim(problem)
    assert aim is not None
    longest = float(np.max(problem.chain_lengths))
    ceiling = first.value * (1.0 + HOLD_SHARE) + (HOLD * longest) ** 2
    constants = settle_constants(aim, ceiling, longest)
    if rounds is not None:
        constants["rounds"] = rounds
    ours = settle(
        first, aim, space, scaled.objective(problem), scaled.curvature(problem), constants, budget
    )
    theirs = compiled_settle(rounds_step, first, aim, constants, budget, space)
    assert theirs is not None  # the kernel's normal matrices are positive definite
    return first, aim, ours, theirs, constants


SINGULAR = 1e-13
"""A normal matrix whose smallest eigenvalue is below this share of its largest is singular."""


@contextmanager
def _conditioning() -> Iterator[list[float]]:
    """Numpy's rounds with the smallest share of eigenvalues of their normal matrices kept
    (in the list yielded, its one entry)."""
    worst = [1.0]
    solve_damped = relax._damped_solve

    def damped(matrix: np.ndarray, right: np.ndarray) -> np.ndarray:
        if len(right):
            values = np.linalg.eigvalsh(matrix)
            worst[0] = min(worst[0], float(values[0] / max(values[-1], 1e-300)))
        return solve_damped(matrix, right)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(relax, "_damped_solve", damped)
        yield worst


@pytest.fixture(scope="module")
def compiled() -> Iterator[None]:
    """The kernel loaded, whatever REACH_KERNEL asks of the other tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernel.loading, "_state", {})
        patch.delenv("REACH_KERNEL", raising=False)
        with kernel.enabled(True):
            assert kernel.active() is not None, "tools/test builds the kernel for this platform"
            yield


@settings(max_examples=100, deadline=None)
@given(**DRAGS)
@example(
    seed=207, segments=16, n_goals=1, move=0.0, polygons=True, oriented=False, grouped=True
)  # condition number 3.6e10: the two 4.9e-8 apart
@example(
    seed=11, segments=11, n_goals=1, move=0.064453125, polygons=True, oriented=False, grouped=True
)  # the two just over κ·ε·step apart
def test_a_kernel_round_is_numpys(
    compiled: None,
    seed: int,
    segments: int,
    n_goals: int,
    move: float,
    polygons: bool,
    oriented: bool,
    grouped: bool,
) -> None:
    """One round (its step with the limits it holds, polygons' rows among them, the trust
    radius, the second-order correction, the merit's test and the steps onto the goals)
    computes the same to rounding."""
    problem, theta = _settling(seed, segments, n_goals, move, polygons, oriented, grouped)
    with _conditioning() as worst:
        first, _, ours, theirs, _ = _both(problem, theta, rounds=1)
    assert theirs is not None
    # a singular normal matrix (the goals' columns and the rows held dependent, where
    # comfort presses most joints onto their limits): its damped solve's answer is
    # rounding's, numpy's and the kernel's alike
    assume(worst[0] > SINGULAR)
    assert (theirs.moved, theirs.iterations, theirs.evaluations) == (
        ours.moved,
        ours.iterations,
        ours.evaluations,
    )
    # rounding in a solve grows with its matrix's condition number: a nearly dependent
    # held row (a polygon's edge beside a group's tie) leaves the two a few times a step's
    # κ·ε apart (each solve's error is bounded by a small multiple of κ·ε)
    step = float(np.max(np.abs(ours.phi - first.phi), initial=0.0))
    rounding = 4.0 * np.finfo(float).eps / worst[0] * step
    np.testing.assert_allclose(theirs.phi, ours.phi, rtol=0.0, atol=1e-8 + rounding)
    assert theirs.value == pytest.approx(ours.value, rel=1e-3, abs=1e-20)


@settings(max_examples=100, deadline=None)
@given(**DRAGS)
def test_the_kernels_rounds_and_numpys_keep_the_goals_and_lower_comfort(
    compiled: None,
    seed: int,
    segments: int,
    n_goals: int,
    move: float,
    polygons: bool,
    oriented: bool,
    grouped: bool,
) -> None:
    """Every round runs, on both: the goals end near as met as at the start, comfort lower.

    The rounds are the same to rounding; where comfort has more than one optimum on the
    goals, rounding can send the two to different ones, so their ends are not compared.
    """
    problem, theta = _settling(seed, segments, n_goals, move, oriented=oriented, grouped=grouped)
    first, aim, ours, theirs, constants = _both(problem, theta)
    assert theirs is not None
    start = aim.value(first.phi)
    for rounds in (ours, theirs):
        assert rounds.value <= constants["nearby"]  # the goals' own descent ends the rest
        assert aim.value(rounds.phi) <= start
        assert rounds.iterations <= ROUNDS


@settings(max_examples=60, deadline=None)
@given(**DRAGS)
def test_the_rounds_lower_comfort_and_keep_the_goals_and_limits(
    seed: int,
    segments: int,
    n_goals: int,
    move: float,
    polygons: bool,
    oriented: bool,
    grouped: bool,
) -> None:
    """A solve with comfort meets what one without meets, within every limit, nearer the
    comfort pose (each joint a rotation of mass 1: C is the squared distance)."""
    problem, theta = _settling(seed, segments, n_goals, move, polygons, oriented, grouped)
    plain = solve(problem.with_comfort(None), theta, restarts=0, goal_tolerance=1e-9)
    relaxed = solve(problem, theta, restarts=0, goal_tolerance=1e-9)
    comfort = problem.comfort
    assert comfort is not None
    if plain.outcome != "met":
        return
    assert relaxed.outcome == "met"
    assert relaxed.max_violation <= 1e-9
    assert np.all(relaxed.x >= problem.figure.lower) and np.all(relaxed.x <= problem.figure.upper)
    rest = comfort.reference
    assert np.sum((relaxed.x - rest) ** 2) <= np.sum((plain.x - rest) ** 2) + 1e-12


def test_the_trust_radius_starts_from_the_move_kept_where_a_longer_one_was_refused() -> None:
    """A round that refused its move at the radius and kept a halved one hands on the move
    it kept; the gain against the tangent model's promise then halves or doubles it."""
    assert next_radius(0.25, 0.0625, False, 0.5, 1.0) == 0.0625
    assert next_radius(0.25, 0.0625, False, 0.1, 1.0) == 0.03125  # a poor gain: halved
    assert next_radius(0.25, 0.0625, False, 0.9, 1.0) == 0.125  # a good gain: doubled
    # kept whole (at the radius, or a shorter mix): the radius stays unless the gain says
    assert next_radius(0.25, 0.25, True, 0.5, 1.0) == 0.25
    assert next_radius(0.25, 0.0625, True, 0.9, 1.0) == 0.25
    assert next_radius(0.25, 0.25, True, 0.9, 1.0) == 0.5


ROUND_EVALUATIONS = 4.2
"""Most evaluations a round, on average over drawn drags: a kept trial takes two (with its
correction onto the goals), each refused one two more."""


def test_the_rounds_seldom_try_a_move_they_would_refuse(compiled: None) -> None:
    """Over 100 drawn drag events, numpy's rounds and the kernel's take at most
    :data:`ROUND_EVALUATIONS` evaluations a round on average: a round starts from the move
    the last one kept and tries Anderson's mix only after a whole step (trying the trust
    radius and the mix again after each refusal took 4.8 on the same events)."""
    rng = np.random.default_rng(1)
    evaluations, rounds = np.zeros(2), np.zeros(2)
    for _ in range(100):
        problem, theta = _settling(
            int(rng.integers(0, 2**32)),
            int(rng.integers(6, 19)),
            int(rng.integers(1, 4)),
            float(rng.uniform(0.0, 0.2)),
            *(bool(flag) for flag in rng.integers(0, 2, 3)),
        )
        try:
            _, _, ours, theirs, _ = _both(problem, theta, drawn=False)
        except _Unmet:
            continue
        assert theirs is not None
        for k, found in enumerate((ours, theirs)):
            evaluations[k] += found.evaluations
            rounds[k] += found.iterations
    assert rounds.min() > 200
    assert np.all(evaluations / rounds <= ROUND_EVALUATIONS)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), segments=st.integers(6, 18), move=st.floats(0.0, 0.2))
def test_rounds_ending_off_every_limit_keep_the_equalities_least_squares_fit(
    seed: int, segments: int, move: float
) -> None:
    # a control rig's shares (orthonormal equality rows) and no limit row active at the
    # rounds' end: the projected gradient is ∇G less its least-squares fit on the
    # equalities, as the general fit over every held row finds it, and no row's multiplier
    problem, theta = _settling(seed, segments, 1, move, grouped=True)
    first, aim, ours, _theirs, _constants = _both(problem, theta)
    space = ReducedSpace.build(problem, theta)
    assume(ours.moved and not len(active_rows(ours.phi, space)))
    kept = relax._kept_rounds(first, ours, aim.value(ours.phi), space, ours.iterations)
    rows = space.a_eq
    assert rows.shape[0] == 3
    fit = np.linalg.lstsq(rows.T, ours.gradient, rcond=None)[0]
    general = float(np.linalg.norm(ours.gradient - rows.T @ fit))
    assert kept.multipliers.shape == (0,)
    assert kept.active == ()
    scale = max(float(np.linalg.norm(ours.gradient)), 1e-300)
    assert abs(kept.projected_gradient - general) <= 1e-12 * scale
    assert np.all(np.isfinite(kept.phi)) and kept.phi is ours.phi
