"""Weights from 1 to 1e6 are equally easy: ``solve`` divides G_all by the smallest weight."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import AnyOf, Constraint, Goldfarb, Problem, goals, solve
from solver.methods.base import weight_scale
from tests.fixtures.models import human_figure, limb_effectors, random_feasible_pose

FIGURE = human_figure()
EFFECTORS = limb_effectors(FIGURE)
LIMBS = ("hand.L", "foot.R", "hand.R")


def limbs_problem(seed: int, weights: tuple[float, ...], *, far: float = 0.0) -> Problem:
    """Three limbs held where a random pose inside the limits puts them (moved ``far``
    [m] in a random direction each), with the given weights."""
    rng = np.random.default_rng(seed)
    world = FIGURE.forward(random_feasible_pose(FIGURE, rng))
    constraints = []
    for name, weight in zip(LIMBS, weights, strict=True):
        effector = EFFECTORS[name]
        frame = world[FIGURE.segment(effector.segment).index]
        point = frame[:3, :3] @ np.asarray(effector.point) + frame[:3, 3]
        point = point + far * rng.normal(size=3)
        constraints.append(Constraint(effector, goals.Position(point), weight=weight))
    return Problem(FIGURE, constraints)


def test_the_weight_scale_is_the_smallest_weight_of_a_leaf_in_g_all() -> None:
    hand, foot = EFFECTORS["hand.L"], EFFECTORS["foot.R"]
    problem = Problem(
        FIGURE,
        [
            Constraint(hand, goals.Position((0.3, 0.0, 1.0)), weight=4.0),
            AnyOf([Constraint(foot, goals.Position((0.1, 0.0, 0.0)), weight=3.0)], weight=5.0),
        ],
    )
    assert weight_scale(problem) == 4.0  # the hand's 4 is below the foot's 5 × 3


@pytest.mark.parametrize("metric", ["gauss_newton", "identity"])
@pytest.mark.parametrize(("seed", "far"), [(0, 0.0), (1, 0.0), (2, 0.0), (0, 0.5)])
def test_weights_times_1_1e3_1e6_take_the_same_steps_to_the_same_pose(
    metric: str, seed: int, far: float
) -> None:
    results = [
        solve(
            limbs_problem(seed, (factor,) * 3, far=far),
            FIGURE.zero_pose(),
            restarts=0,
            method=Goldfarb(start_metric=metric),
        )
        for factor in (1.0, 1e3, 1e6)
    ]
    first = results[0]
    assert first.status == "converged"
    for result, factor in zip(results[1:], (1e3, 1e6), strict=True):
        assert result.status == first.status
        # G_all scales with the weights (to rounding where it is about 0)
        assert result.objective == pytest.approx(
            factor * first.objective, rel=1e-9, abs=factor * 1e-18
        )
        if far:
            assert_same_minimum(result, first)
        else:
            assert abs(result.iterations - first.iterations) <= 1
            np.testing.assert_allclose(result.theta, first.theta, atol=1e-8)


def effector_points(theta: np.ndarray) -> np.ndarray:
    return limbs_problem(0, (1.0,) * 3).effector_states(theta)[0]


def assert_same_minimum(result: Any, first: Any) -> None:
    """With a goal out of reach: the same effector points, in as many steps.

    Out of reach the minimum is a valley along the redundant DOFs (the spine's and the
    limbs' turns that keep the effectors where they are), on which the descent stops at
    the rounding floor of a large G: the rounding of G's sums, which differs with the
    weights' scale, moves that stop along the valley (by up to about 1e-6 rad), so the
    poses may differ there; the effectors, the steps and G may not.
    """
    assert abs(result.iterations - first.iterations) <= 1
    np.testing.assert_allclose(
        effector_points(result.theta), effector_points(first.theta), atol=1e-8
    )


def test_default_restarts_treat_scaled_weights_alike() -> None:
    # A goal out of reach: every restart runs, whatever the weights' scale.
    results = [
        solve(limbs_problem(0, (factor,) * 3, far=0.5), FIGURE.zero_pose(), restarts=2)
        for factor in (1.0, 1e6)
    ]
    assert results[0].restarts == results[1].restarts == 2
    assert results[1].objective == pytest.approx(1e6 * results[0].objective, rel=1e-9)
    assert_same_minimum(results[1], results[0])


def test_mixed_weights_1_to_1e6_end_converged_with_every_goal_met() -> None:
    # Weighted 1, 1e3 and 1e6, the reachable goals are met to rounding long before the
    # absolute Kuhn–Tucker test could be: the descent ends "converged" with them met,
    # not "stalled".
    problem = limbs_problem(0, (1.0, 1e3, 1e6))
    result = solve(problem, FIGURE.zero_pose(), restarts=0)
    assert result.status == "converged", result.message
    assert result.outcome == "met"
    assert result.iterations < 1000
    assert result.objective <= 1e-9
    assert result.max_violation <= 1e-9


@settings(max_examples=15, deadline=None)
@given(exponent=st.floats(min_value=0.0, max_value=6.0), seed=st.integers(0, 3))
def test_any_weight_scale_from_1_to_1e6_gives_the_same_solve(exponent: float, seed: int) -> None:
    factor = 10.0**exponent
    weights = (1.0, 2.0, 0.5)
    plain = solve(limbs_problem(seed, weights), FIGURE.zero_pose(), restarts=0)
    scaled = solve(
        limbs_problem(seed, tuple(factor * w for w in weights)), FIGURE.zero_pose(), restarts=0
    )
    assert scaled.status == plain.status
    assert abs(scaled.iterations - plain.iterations) <= 1
    np.testing.assert_allclose(scaled.theta, plain.theta, atol=1e-8)
