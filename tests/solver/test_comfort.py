"""Comfort: the aim below every goal that pulls the free DOFs toward a reference pose."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import FD_TOLERANCE, central_difference, raises_input_error, relative_error
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from problems import planar_arm, random_problem, tip

from solver import Comfort, Constraint, Dof, Figure, Problem, goals, pin, solve
from solver.optimizer.relax import MET, ComfortAim
from solver.solve import within_reach
from tests.fixtures.models import feet_pins, human_figure, limb_length, palm_goal

LENGTHS = [0.3, 0.25, 0.2]
START = np.array([0.5, -0.8, -0.6])


def arm_goal() -> tuple[Problem, np.ndarray]:
    """The planar arm with its tip's goal where the tip is at ``START``: one DOF spare."""
    fig = planar_arm(LENGTHS)
    effector = tip(fig, LENGTHS)
    place = Problem(fig, [Constraint(effector, goals.Position((0.0, 0.0, 0.0)))])
    point = place.effector_states(START)[0][0]
    return Problem(fig, [Constraint(effector, goals.Position(point))]), point


def least_comfort_on_the_branch(point: np.ndarray, lowest: float = -np.pi) -> float:
    """Σθ² least over the arm's poses with the tip at ``point``, the wrist bent as at START
    and the shoulder at least ``lowest``."""
    best = np.inf
    for shoulder in np.linspace(lowest, np.pi, 200_001):
        elbow = LENGTHS[0] * np.array([-np.sin(shoulder), np.cos(shoulder)])
        reach = point[:2] - elbow
        span = float(np.linalg.norm(reach))
        cosine = (span**2 - LENGTHS[1] ** 2 - LENGTHS[2] ** 2) / (2 * LENGTHS[1] * LENGTHS[2])
        if abs(cosine) > 1.0:
            continue
        wrist = -np.arccos(cosine)  # bent the same way as START's
        heading = np.arctan2(-reach[0], reach[1]) - np.arctan2(
            LENGTHS[2] * np.sin(wrist), LENGTHS[1] + LENGTHS[2] * np.cos(wrist)
        )
        middle = (heading - shoulder + np.pi) % (2 * np.pi) - np.pi
        best = min(best, shoulder**2 + middle**2 + wrist**2)
    return float(best)


@pytest.mark.parametrize("method", ["goldfarb", "lbfgsb"])
def test_comfort_finds_the_most_comfortable_pose_that_keeps_the_goal(method: str) -> None:
    problem, point = arm_goal()
    result = solve(problem.with_comfort(Comfort.rest(3)), START, method=method)
    assert np.linalg.norm(problem.effector_states(result.x)[0][0] - point) <= 1e-9
    assert float(result.x @ result.x) == pytest.approx(least_comfort_on_the_branch(point), abs=1e-8)
    # Without comfort the met goal leaves the pose where it starts; the methods that do
    # not solve by levels leave comfort out.
    assert np.allclose(solve(problem, START, method=method).x, START)
    assert np.allclose(solve(problem.with_comfort(Comfort.rest(3)), START, method="dls").x, START)


@pytest.mark.parametrize("held", ["pinned", "priority"])
def test_comfort_below_held_levels_finds_the_most_comfortable_pose(held: str) -> None:
    # The tip pinned, or its goal at priority 1: comfort is then a level below a held one,
    # whose rounds take comfort's minimiser on its tangent; they end at the least on the
    # branch, as comfort's rounds below one level of goals do.
    problem, point = arm_goal()
    fig = problem.figure
    effector = tip(fig, LENGTHS)
    if held == "pinned":
        leaf = pin(fig, START, effector.segment, effector.point)
    else:
        leaf = Constraint(effector, goals.Position(point), priority=1)
    result = solve(Problem(fig, [leaf]).with_comfort(Comfort.rest(3)), START)
    assert np.linalg.norm(problem.effector_states(result.x)[0][0] - point) <= 1e-9
    assert float(result.x @ result.x) == pytest.approx(least_comfort_on_the_branch(point), abs=1e-8)


def test_comfort_below_a_pin_and_a_goal_out_of_reach_is_least_where_both_hold() -> None:
    # Five links: the end of the third pinned, the tip's goal 60 cm from the pin, beyond the
    # last two links' 35 cm (within twice the arm's reach, so not moved in). At its least
    # the last two links point straight at it from the pin, and the first three keep the
    # pin with one joint spare: a closed curve of poses, over which comfort, the last level,
    # falls from the start's side to its least (found by brute force over both bends).
    lengths = [0.3, 0.25, 0.2, 0.2, 0.15]
    start = np.array([0.4, -0.5, -0.6, 0.3, -0.2])
    fig = planar_arm(lengths)
    held = pin(fig, start, "link3")
    pinned = Problem(fig, [held]).effector_states(start)[0][0][:2]
    target = np.array([pinned[0] - 0.48, pinned[1] + 0.36, 0.0])
    leaf = Constraint(tip(fig, lengths), goals.Position(target))
    result = solve(Problem(fig, [held, leaf]).with_comfort(Comfort.rest(5)), start)
    placed = Problem(fig, [held]).effector_states(result.x)[0][0][:2]
    assert np.linalg.norm(placed - pinned) <= 1e-9
    aim = np.arctan2(0.48, 0.36)  # the straight last links' heading from the pin
    least = np.inf
    for bend in np.linspace(-np.pi, np.pi, 100_001):  # the middle joint of the three
        span = np.sqrt(sum(np.array(lengths[1:3]) ** 2) + 2 * np.prod(lengths[1:3]) * np.cos(bend))
        along = (lengths[0] ** 2 - span**2 + pinned @ pinned) / (2 * np.linalg.norm(pinned))
        if along**2 > lengths[0] ** 2:
            continue
        for side in (1.0, -1.0):  # the first joint's two ways to the pin
            across = side * np.sqrt(lengths[0] ** 2 - along**2)
            unit = pinned / np.linalg.norm(pinned)
            elbow = along * unit + across * np.array([-unit[1], unit[0]])
            first = np.arctan2(-elbow[0], elbow[1])
            reach = pinned - elbow
            heading = np.arctan2(-reach[0], reach[1]) - np.arctan2(
                lengths[2] * np.sin(bend), lengths[1] + lengths[2] * np.cos(bend)
            )
            second = (heading - first + np.pi) % (2 * np.pi) - np.pi
            fourth = (aim - first - second - bend + np.pi) % (2 * np.pi) - np.pi
            least = min(least, first**2 + second**2 + bend**2 + fourth**2)
    assert float(result.x @ result.x) == pytest.approx(least, abs=1e-6)


def test_comfort_stops_at_a_limit_and_slides_along_it() -> None:
    # The shoulder's least-comfort angle (0.46 rad) lies below its lower bound 0.48: the
    # relaxed pose rests on the bound, the goal still met, and is the least on it.
    _, point = arm_goal()
    fig = Figure()
    parent = None
    for k, lower in enumerate([0.48, -np.pi, -np.pi]):
        rest = np.eye(4)
        rest[1, 3] = LENGTHS[k - 1] if k else 0.0
        fig.add_segment(f"link{k}", parent, rest, [Dof.rotation("z", lower=lower, upper=np.pi)])
        parent = f"link{k}"
    problem = Problem(fig, [Constraint(tip(fig, LENGTHS), goals.Position(point))])
    result = solve(problem.with_comfort(Comfort.rest(3)), START)
    assert result.x[0] == pytest.approx(0.48, abs=1e-12)
    assert result.max_violation <= 1e-12
    assert np.linalg.norm(problem.effector_states(result.x)[0][0] - point) <= 1e-9
    least = least_comfort_on_the_branch(point, lowest=0.48)
    assert float(result.x @ result.x) == pytest.approx(least, abs=1e-8)


def test_a_share_aims_part_of_the_way_and_a_drag_relaxes_over_events() -> None:
    problem, _ = arm_goal()
    full = solve(problem.with_comfort(Comfort.rest(3)), START).x
    half = solve(problem.with_comfort(Comfort.rest(3, share=0.5)), START).x
    assert START @ START > half @ half > full @ full
    pose = START
    for _ in range(30):  # a drag's events: each goes half of what is left
        pose = solve(problem.with_comfort(Comfort.rest(3, share=0.5)), pose, restarts=0).x
    assert pose == pytest.approx(full, abs=1e-6)


def test_comfort_toward_a_stored_pose_weighs_stiff_joints_more() -> None:
    problem, point = arm_goal()
    reference = np.array([0.2, 0.2, 0.2])
    toward = solve(problem.with_comfort(Comfort(reference)), START).x
    assert np.sum((toward - reference) ** 2) < np.sum((START - reference) ** 2)
    stiff = Figure()  # the same arm with a stiff shoulder
    parent = None
    for k, segment in enumerate(problem.figure.segments):
        dof = Dof.rotation("z", lower=-np.pi, upper=np.pi, rigidity=0.8 if k == 0 else 0.0)
        stiff.add_segment(segment.name, parent, segment.rest, [dof])
        parent = segment.name
    held = Problem(stiff, [Constraint(tip(stiff, LENGTHS), goals.Position(point))])
    stiffer = solve(held.with_comfort(Comfort(reference)), START).x
    assert abs(stiffer[0] - reference[0]) < abs(toward[0] - reference[0])


def test_weights_choose_which_joints_give_way() -> None:
    problem, _ = arm_goal()
    light = solve(problem.with_comfort(Comfort(np.zeros(3), weights=[1.0, 1.0, 1.0])), START).x
    heavy = solve(problem.with_comfort(Comfort(np.zeros(3), weights=[50.0, 1.0, 1.0])), START).x
    assert abs(heavy[0]) < abs(light[0])


def test_masses_are_the_weights_given_else_the_units_asked_for() -> None:
    variables = np.array([0, 2])
    weighed = Comfort(np.zeros(3), weights=[4.0, 5.0, 6.0])
    np.testing.assert_array_equal(weighed.masses(variables), [4.0, 6.0])
    np.testing.assert_array_equal(weighed.masses(variables, np.ones(2)), [4.0, 6.0])
    plain = Comfort(np.zeros(3))
    np.testing.assert_array_equal(plain.masses(variables, np.array([1.0, 0.25])), [1.0, 0.25])
    with raises_input_error("without weights needs the units"):
        plain.masses(variables)


def test_comfort_never_costs_a_goal_or_a_pin_on_the_human() -> None:
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    pins = feet_pins(figure, theta)
    hand = palm_goal(figure, theta, (0.0, -0.75, -0.2))
    problem = Problem(figure, [*pins, hand])
    plain = solve(problem, theta)
    relaxed = solve(problem.with_comfort(Comfort.rest(figure.n_dofs)), theta)
    assert np.sqrt(problem.potentials(relaxed.x)[2]) <= 1e-6 * limb_length("hand.L")
    places = np.array([p.goal.point for p in pins])
    assert np.abs(problem.effector_states(relaxed.x)[0][:2] - places).max() <= 1e-9
    assert relaxed.max_violation <= 1e-9
    # The goals' levels run as without comfort; comfort then only lowers its own potential.
    assert float(relaxed.x @ relaxed.x) < 0.97 * float(plain.x @ plain.x)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), share=st.floats(0.1, 1.0))
def test_comfort_keeps_every_level_and_the_limits(seed: int, share: float) -> None:
    problem, theta = random_problem(seed, 6, 3)
    # Targets beyond reach are moved in for the descents (solve.within_reach): the goals'
    # level is then kept on those, not to rounding on the targets as given.
    assume(within_reach(problem, theta) is problem)
    reference = np.random.default_rng(seed).normal(scale=0.5, size=problem.n_dofs)
    plain = solve(problem, theta, restarts=0)
    comfort = solve(problem.with_comfort(Comfort(reference, share)), theta, restarts=0)
    assert comfort.max_violation <= 1e-9
    scale = max(1.0, float(np.max(problem.chain_lengths)))
    # the goals may end worse by rounding of their G (1e-9 of it: relax.HOLD_SHARE) and
    # each goal by MET of the longest chain, as the rounds keep them (relax.MET)
    weights = float(problem.weighting.leaves.sum())
    assert comfort.fun <= plain.fun * (1.0 + 2e-9) + weights * (MET * scale) ** 2


def test_the_comfort_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    comfort = Comfort(rng.normal(size=6), 0.7)
    variables = np.array([0, 2, 3, 5])
    scale = np.array([1.0, 0.5, 0.2, 1.0])
    masses = np.array([1.0, 1.0, 4.0, 0.25])
    aim = ComfortAim(comfort.target(rng.normal(size=6), variables, scale), masses)
    potential = aim.potential
    phi = rng.normal(size=4)
    assert aim.value(phi) == potential(phi)[0]
    numeric = central_difference(lambda x: potential(x)[0], phi)
    assert relative_error(numeric, potential(phi)[1]) <= FD_TOLERANCE
    factor = comfort.factor(masses)
    hessian = np.array(
        [central_difference(lambda x, k=k: potential(x)[1][k], phi) for k in range(4)]
    )
    assert relative_error(hessian, factor @ factor.T) <= FD_TOLERANCE


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda n: Comfort(np.zeros(n), 0.0), "share must be in"),
        (lambda n: Comfort(np.zeros(n), 1.5), "share must be in"),
        (lambda n: Comfort(np.full(n, np.nan)), "comfort reference"),
        (lambda n: Comfort(np.zeros(n + 1)), "comfort reference has"),
        (lambda n: np.zeros(n), "must be a solver.Comfort"),
        (lambda n: Comfort(np.zeros(n), weights=-np.ones(n)), "weights must be ≥ 0"),
        (lambda n: Comfort(np.zeros(n), weights=np.ones(n + 2)), "comfort weights"),
    ],
)
def test_bad_comfort_is_named(make: object, match: str) -> None:
    problem, _ = arm_goal()
    with raises_input_error(match):
        Problem(problem.figure, problem.constraints, comfort=make(3))  # type: ignore[operator]
    with raises_input_error(match):
        problem.with_comfort(make(3))  # type: ignore[operator]


def test_with_comfort_shares_the_problem_and_keeps_the_last_one_made() -> None:
    problem, point = arm_goal()
    assert problem.comfort is None
    assert problem.with_comfort(None) is problem
    weights = np.array([2.0, 1.0, 1.0])
    relaxed = problem.with_comfort(Comfort(np.zeros(3), 0.5, weights))
    assert relaxed is not problem
    assert relaxed.leaves is problem.leaves
    assert relaxed.derived is problem.derived
    # a drag's events each make an equal comfort anew: they get the same problem back
    assert problem.with_comfort(Comfort(np.zeros(3), 0.5, weights.copy())) is relaxed
    assert problem.with_comfort(Comfort(np.zeros(3), 0.4, weights)) is not relaxed
    assert relaxed.with_comfort(None).comfort is None
    moved = relaxed.with_goals({0: goals.Position(point + 0.01)})
    assert moved.comfort is relaxed.comfort
    assert moved.with_comfort(Comfort.rest(3)).goal_points is moved.goal_points
    built = Problem(problem.figure, problem.constraints, comfort=Comfort(np.zeros(3), 0.5))
    assert solve(built, START).x == pytest.approx(
        solve(problem.with_comfort(Comfort(np.zeros(3), 0.5)), START).x, abs=0.0
    )
