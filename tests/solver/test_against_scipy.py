"""Reach against scipy's SLSQP on the same objective and the same linear limits."""

from __future__ import annotations

import numpy as np
import pytest
from problems import random_problem

from solver import solve
from solver.solve import within_reach
from tests.fixtures.peers import slsqp


@pytest.mark.slow
def test_reach_ends_at_or_below_slsqp_on_random_problems() -> None:
    seeds = range(60)
    wins = 0
    losses: list[tuple[int, float, float]] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        problem, theta0 = random_problem(
            5000 + seed, int(rng.integers(2, 7)), int(rng.integers(1, 5))
        )
        ours = solve(problem, theta0)
        # both minimise G_all with the far targets moved in, as solve's descents do
        solved = within_reach(problem, theta0)
        theirs = slsqp(solved, theta0).x
        assert ours.max_violation <= 1e-9
        their_violation = problem.limits.max_violation(theirs)
        our_value, their_value = solved.objective(ours.x)[0], solved.objective(theirs)[0]
        if our_value <= their_value + 1e-8 or their_violation > 1e-8:
            wins += 1
        else:
            losses.append((seed, our_value, their_value))
    assert wins >= 0.95 * len(seeds), f"Reach above SLSQP on {losses}"
