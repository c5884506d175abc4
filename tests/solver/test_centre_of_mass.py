"""The centre of mass as an effector: its point, derivatives, goals, and balance."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import FD_TOLERANCE, central_difference, raises_input_error, relative_error
from problems import random_problem

from solver import CentreOfMass, Comfort, Constraint, Problem, goals, solve
from solver.methods.goldfarb import FENCE_SLOPE, Goldfarb, next_shift
from tests.fixtures.models import feet_pins, human_figure, palm_goal

POINT_GOALS = ("Position", "Line", "Plane", "HalfSpace")


def masses_of(figure, seed: int) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    names = [s.name for s in figure.segments]
    masses = {n: float(rng.uniform(0.5, 5.0)) for n in names}
    points = {n: rng.normal(scale=0.2, size=3) for n in names[::2]}
    return masses, points


def centre(figure, theta, masses, points) -> np.ndarray:
    world = figure.forward(theta)
    total = sum(masses.values())
    place = np.zeros(3)
    for k, segment in enumerate(figure.segments):
        local = np.append(points.get(segment.name, np.zeros(3)), 1.0)
        place += masses[segment.name] * (world[k] @ local)[:3]
    return place / total


def goal_of(kind: str, near: np.ndarray) -> goals.Goal:
    if kind == "Position":
        return goals.Position(near + np.array((0.2, -0.1, 0.3)))
    if kind == "Line":
        return goals.Line(near + np.array((0.2, 0.0, 0.0)), (0.0, 1.0, 1.0))
    if kind == "Plane":
        return goals.Plane(near + np.array((0.0, 0.0, 0.3)), (0.3, 0.0, 1.0))
    return goals.HalfSpace(near + np.array((0.4, 0.0, 0.0)), (1.0, 0.0, 0.0))  # the point outside


@pytest.mark.parametrize("kind", POINT_GOALS)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_centre_of_mass_its_gradient_and_curvature_match_their_definitions(
    kind: str, seed: int
) -> None:
    base, theta = random_problem(seed, 6, 2)
    figure = base.figure
    masses, points = masses_of(figure, seed)
    effector = CentreOfMass(masses, points)
    place = centre(figure, theta, masses, points)
    hand = base.leaves[0]
    problem = Problem(figure, [Constraint(effector, goal_of(kind, place), 2.0), hand])
    assert np.allclose(problem.effector_states(theta)[0][0], place, atol=1e-12)
    # G_all's gradient against central differences, the plain goal beside it included.
    gradient = problem.objective(theta)[1]
    numeric = central_difference(lambda t: problem.objective(t)[0], theta)
    assert relative_error(numeric, gradient) <= FD_TOLERANCE
    # The effector's Jacobian and the Gauss–Newton curvature of a position goal.
    numeric_jacobian = np.array(
        [
            central_difference(lambda t, k=k: problem.effector_states(t)[0][0][k], theta)
            for k in range(3)
        ]
    )[:, problem.variables]
    jacobians = problem.effector_jacobians(theta)
    assert relative_error(numeric_jacobian, jacobians[0, :3]) <= FD_TOLERANCE
    assert np.all(jacobians[0, 3:] == 0.0)  # its axes are the world's
    if kind == "Position":
        only = Problem(figure, [Constraint(effector, goal_of(kind, place), 2.0)])
        factor = only.gauss_newton_factor(theta)
        expected = 2.0 * 2.0 * numeric_jacobian.T @ numeric_jacobian
        assert relative_error(expected, factor @ factor.T) <= 1e-5


def test_a_goal_on_the_centre_of_mass_is_met_by_every_method() -> None:
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    masses = {s.name: 1.0 for s in figure.segments}
    here = centre(figure, theta, masses, {})
    target = here + np.array((0.0, -0.05, -0.03))
    for method in ("goldfarb", "dls", "lbfgsb"):
        problem = Problem(
            figure,
            [*feet_pins(figure, theta), Constraint(CentreOfMass(masses), goals.Position(target))],
        )
        result = solve(problem, theta, method=method)
        assert np.linalg.norm(problem.effector_states(result.x)[0][2] - target) <= 1e-6, method


SUPPORT = (np.array((-0.09, -0.15)), np.array((0.09, 0.05)))
"""The standing human's feet from heel to toes, outer edge to outer edge (x, y) [m]."""


def support_half_spaces() -> list[goals.HalfSpace]:
    """A half-space per edge of the feet's rectangle, normals inward."""
    low, high = SUPPORT
    edges = [
        ((low[0], 0.0, 0.0), (1.0, 0.0, 0.0)),
        ((high[0], 0.0, 0.0), (-1.0, 0.0, 0.0)),
        ((0.0, low[1], 0.0), (0.0, 1.0, 0.0)),
        ((0.0, high[1], 0.0), (0.0, -1.0, 0.0)),
    ]
    return [goals.HalfSpace(point, normal) for point, normal in edges]


def trunk_heavy(figure) -> CentreOfMass:
    """The human's centre of mass, its pelvis and spine 7 kg a segment, the rest 1 kg."""
    return CentreOfMass(
        {
            s.name: 1.0 + (s.name in ("pelvis", "spine1", "spine2", "spine3")) * 6.0
            for s in figure.segments
        }
    )


def test_balance_keeps_the_centre_of_mass_over_the_feet_while_a_hand_reaches() -> None:
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    body = trunk_heavy(figure)
    pins = feet_pins(figure, theta)
    reach = palm_goal(figure, theta, (0.0, -0.75, -0.3))
    feet = np.array([p.goal.point for p in pins])
    plain = solve(Problem(figure, [*pins, reach]), theta)
    balance = [Constraint(body, half) for half in support_half_spaces()]
    reaching = Constraint(reach.effector, reach.goal, priority=1)
    problem = Problem(figure, [*pins, *balance, reaching])
    result = solve(problem, theta)

    def over_the_feet(pose: np.ndarray) -> bool:
        point = problem.effector_states(pose)[0][2][:2]
        low, high = SUPPORT
        return bool(np.all(point >= low - 1e-6) and np.all(point <= high + 1e-6))

    assert not over_the_feet(plain.x)  # reaching 75 cm forward tips the body over
    assert over_the_feet(result.x)
    # the hand still reaches as far as balance lets it: nearer than from rest
    hand = reach.goal.point
    assert np.linalg.norm(problem.effector_states(result.x)[0][6] - hand) < np.linalg.norm(
        problem.effector_states(theta)[0][6] - hand
    )
    assert np.abs(problem.effector_states(result.x)[0][:2] - feet).max() <= 1e-9


def test_balance_that_goals_meet_costs_a_few_solves_of_one_level_and_keeps_comfort(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    body = trunk_heavy(figure)
    # the feet held as goals beside the hand (contacts, as Balance's are), not as pins
    feet = [Constraint(p.effector, p.goal, priority=1) for p in feet_pins(figure, theta)]
    reach = palm_goal(figure, theta, (0.0, -0.45, -0.5))
    reaching = Constraint(reach.effector, reach.goal, priority=1)
    balance = [Constraint(body, half) for half in support_half_spaces()]
    problem = Problem(figure, [*feet, *balance, reaching])
    low, high = SUPPORT

    def outside(pose: np.ndarray) -> float:
        point = problem.effector_states(pose)[0][2][:2]
        return float(max(np.max(low - point), np.max(point - high)))

    plain = solve(Problem(figure, [*feet, reaching]), theta)
    assert outside(plain.x) > 0.01  # the reach alone tips the body over the toes
    levels = []
    monkeypatch.setattr(
        Goldfarb, "by_levels", lambda self, leg, *args: levels.append(leg) or pytest.fail("levels")
    )
    comfort = Comfort(np.zeros(figure.n_dofs))
    kept = solve(problem.with_comfort(comfort), theta)
    stiff = solve(problem, theta)
    for result in (kept, stiff):
        assert result.outcome == "met"
        assert outside(result.x) <= 0.0  # inside every fence, not to a tolerance
    assert not levels
    # comfort still acts where balance leaves freedom: the pose is nearer rest
    assert float(kept.x @ kept.x) < float(stiff.x @ stiff.x) - 0.05


def test_balance_beside_a_goal_out_of_reach_keeps_the_passes_pose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    feet = [Constraint(p.effector, p.goal, priority=1) for p in feet_pins(figure, theta)]
    reach = palm_goal(figure, theta, (0.0, -5.0, -0.3))  # past the whole reach of its chain
    problem = Problem(
        figure,
        [
            *feet,
            *(Constraint(trunk_heavy(figure), half) for half in support_half_spaces()),
            Constraint(reach.effector, reach.goal, priority=1),
        ],
    )
    low, high = SUPPORT
    plain = solve(Problem(figure, [*feet, Constraint(reach.effector, reach.goal)]), theta)
    centre = problem.effector_states(plain.x)[0][2][:2]
    assert np.any(centre < low) or np.any(centre > high)  # the reach alone tips it over
    monkeypatch.setattr(Goldfarb, "by_levels", lambda self, leg, *args: pytest.fail("levels"))
    result = solve(problem.with_comfort(Comfort(np.zeros(figure.n_dofs))), theta, restarts=0)
    assert result.outcome == "not_reachable"
    centre = problem.effector_states(result.x)[0][2][:2]
    assert np.all(centre >= low) and np.all(centre <= high)  # inside, not to a tolerance


def test_balance_that_keeps_a_reachable_goal_unmet_goes_on_from_the_passes_pose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hand reaches its goal alone, but not with the centre of mass over the feet: the
    # passes end at the levels' Kuhn–Tucker point with the goal unmet, and the levels'
    # descent goes on from there (it can only better that pose), not from the start.
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    feet = [Constraint(p.effector, p.goal, priority=1) for p in feet_pins(figure, theta)]
    reach = palm_goal(figure, theta, (0.3, -1.1, -0.3))
    body = trunk_heavy(figure)
    reaching = Constraint(reach.effector, reach.goal, priority=1)
    problem = Problem(
        figure, [*feet, *(Constraint(body, half) for half in support_half_spaces()), reaching]
    )
    assert solve(Problem(figure, [*feet, reaching]), theta).outcome == "met"
    passes, starts = [], []
    fenced_level, by_levels = Goldfarb.fenced_level, Goldfarb.by_levels

    def fenced(self, leg, *args):  # type: ignore[no-untyped-def]
        found = fenced_level(self, leg, *args)
        passes.append((found.phi.copy(), leg.scaled.space.theta(found.phi)))
        return found

    def levels(self, leg, *args):  # type: ignore[no-untyped-def]
        starts.append(leg.start.copy())
        return by_levels(self, leg, *args)

    monkeypatch.setattr(Goldfarb, "fenced_level", fenced)
    monkeypatch.setattr(Goldfarb, "by_levels", levels)
    result = solve(problem, theta, restarts=0)
    assert result.outcome == "local_minimum"
    assert len(starts) == 1 and np.array_equal(starts[0], passes[-1][0])
    low, high = SUPPORT
    centre = problem.effector_states(result.x)[0][2][:2]
    assert np.all(centre >= low - 1e-9) and np.all(centre <= high + 1e-9)
    # the hand unmet, and no farther from its goal than the passes left it
    misses = [
        float(np.linalg.norm(problem.effector_states(pose)[0][-1] - reach.goal.point))
        for pose in (result.x, passes[-1][1])
    ]
    assert 0.01 < misses[0] <= misses[1] + 1e-9


def test_a_fence_moves_in_to_bring_its_point_just_inside() -> None:
    depth = 1e-6
    for slope in (1.0, 0.6, 0.2):
        pulled = -0.03  # where the goals leave the point with the plane at the fence

        def height(shift: float, slope: float = slope, pulled: float = pulled) -> float:
            return pulled + slope * shift

        shift, previous = 0.0, None
        for _ in range(2):
            shift, previous = (
                next_shift(shift, height(shift), previous, depth),
                (
                    shift,
                    height(shift),
                ),
            )
        assert height(shift) == pytest.approx(depth, abs=1e-15)
    # a point that hardly follows its fence is moved no further than the least slope asks
    assert next_shift(0.0, -0.01, (0.5, -0.01 - 0.5 * 1e-6), 0.0) == pytest.approx(
        0.01 / FENCE_SLOPE
    )


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: CentreOfMass({}), "at least one"),
        (lambda: CentreOfMass({"a": -1.0}), "mass of 'a'"),
        (lambda: CentreOfMass({"a": 0.0, "b": 0.0}), "total mass is 0"),
        (lambda: CentreOfMass({"a": 1.0}, {"b": (0, 0, 0)}), "'b', which has no mass"),
        (lambda: CentreOfMass({"a": 1.0}, {"a": (np.nan, 0, 0)}), "point of 'a'"),
        (
            lambda: Constraint(CentreOfMass({"a": 1.0}), goals.Orientation((1, 0, 0), (0, 1, 0))),
            "acts on its point alone",
        ),
    ],
)
def test_bad_centres_of_mass_are_named(make: object, match: str) -> None:
    with raises_input_error(match):
        make()  # type: ignore[operator]


def test_a_chain_start_with_no_mass_below_it_is_named() -> None:
    base = random_problem(3, 5, 1)[0]
    figure = base.figure
    last = figure.segments[-1].name
    only_root = CentreOfMass({figure.segments[0].name: 1.0})
    with raises_input_error("no segment with a mass lies below"):
        Problem(figure, [Constraint(only_root, goals.Position((0, 0, 0)), chain_start=last)])
