"""Tests of the shared fixtures: the 53-DOF human, random feasible poses, the tube task,
and the one name they are imported by."""

from __future__ import annotations

import ast
import functools
import math
from pathlib import Path

import numpy as np
import pytest

from solver import Constraint, Figure, Problem, SolveResult, SolverInputError, goals, solve
from tests.fixtures.models import (
    ARM_LENGTH,
    LEG_LENGTH,
    TUBE,
    VERTEBRAE,
    human_figure,
    interior_pose,
    limb_effectors,
    limb_length,
    n_effective_dofs,
    random_feasible_pose,
    spine_groups,
    tube_figure,
    tube_task,
)

# G_all is a sum of squared distances [m²] (angles weighted so that 5° weigh as 1 cm).
# The tube task is exactly satisfiable; 1e-12 m² means every goal is met to within
# 1 µm (or 5e-4°), far below anything visible, yet 8+ orders of magnitude above the
# ~1e-20 the solver reaches, so the threshold does not depend on rounding details.
TUBE_OBJECTIVE = 1e-12

MIRRORED = ("clavicle", "upper_arm", "forearm", "hand", "thigh", "shin", "foot", "toe")


def slack(figure: Figure, theta: np.ndarray) -> np.ndarray:
    limits = figure.limits
    return np.asarray(limits.a_in @ theta - limits.b_in)


def position(figure: Figure, theta: np.ndarray, segment: str) -> np.ndarray:
    return np.asarray(figure.forward(theta)[figure.segment(segment).index][:3, 3])


# -- the human ------------------------------------------------------------------------


def test_human_has_53_dofs() -> None:
    figure = human_figure()
    assert figure.n_dofs == 53
    assert human_figure(root_translation=False).n_dofs == 50
    per_segment = {seg.name: len(seg.dofs) for seg in figure.segments}
    trunk = ("pelvis", "spine1", "spine2", "spine3", "neck", "head")
    assert sum(per_segment[name] for name in trunk) == 21
    for side in (".L", ".R"):
        arm = ("clavicle", "upper_arm", "forearm", "hand")
        assert [per_segment[name + side] for name in arm] == [2, 3, 2, 2]
        leg = ("thigh", "shin", "foot", "toe")
        assert [per_segment[name + side] for name in leg] == [3, 1, 2, 1]


def test_human_rest_pose_is_strictly_inside_limits() -> None:
    figure = human_figure()
    rest = figure.zero_pose()
    np.testing.assert_array_equal(rest, 0.0)
    assert slack(figure, rest).min() > 0.0
    assert figure.limits.max_violation(rest) == 0.0


def test_human_bounds_are_plausible() -> None:
    figure = human_figure()
    for index, dof in enumerate(figure.dofs):
        label = figure.dof_label(index)
        assert dof.lower is not None and dof.upper is not None, label
        if dof.kind == "rotation":
            assert -math.pi <= dof.lower < 0.0 < dof.upper <= math.pi, label
        else:
            assert (dof.lower, dof.upper) == (-1.0, 1.0), label


def test_human_has_a_limit_polygon_on_each_shoulder() -> None:
    labels = human_figure().limits.in_labels
    for side in (".L", ".R"):
        edges = [label for label in labels if label.startswith(f"polygon of upper_arm{side}[0, 1]")]
        assert 5 <= len(edges) <= 8


def test_human_is_175_m_tall_and_stands_on_the_floor() -> None:
    figure = human_figure()
    rest = figure.zero_pose()
    head = figure.forward(rest)[figure.segment("head").index]
    top = head[:3, 3] + 0.20 * head[:3, 1]
    assert top[2] == pytest.approx(1.75)
    problem = Problem(figure, [_position_constraint(figure, name) for name in ("foot.L",)])
    sole = problem.effector_states(rest)[0][0]
    assert sole[2] == pytest.approx(0.0, abs=1e-12)


def test_human_is_mirror_symmetric() -> None:
    figure = human_figure()
    theta = random_feasible_pose(figure, np.random.default_rng(3))
    for name in ("pelvis", "spine1", "spine2", "spine3", "neck", "head"):
        theta[list(figure.segment(name).dof_indices)] = 0.0
    for name in MIRRORED:
        left, right = figure.segment(name + ".L"), figure.segment(name + ".R")
        theta[list(right.dof_indices)] = theta[list(left.dof_indices)]
    frames = figure.forward(theta)
    mirror = np.diag([-1.0, 1.0, 1.0])
    for name in MIRRORED:
        left = frames[figure.segment(name + ".L").index]
        right = frames[figure.segment(name + ".R").index]
        np.testing.assert_allclose(mirror @ left[:3, 3], right[:3, 3], atol=1e-12)
        np.testing.assert_allclose(mirror @ left[:3, 1], right[:3, 1], atol=1e-12)


@pytest.mark.parametrize(
    ("segment", "dof", "moved", "axis", "sign"),
    [
        ("upper_arm.L", 0, "hand.L", 1, -1.0),  # shoulder flexion: hand forward (−Y)
        ("upper_arm.L", 1, "hand.L", 0, 1.0),  # abduction: left hand out to +X
        ("upper_arm.R", 1, "hand.R", 0, -1.0),  # abduction: right hand out to −X
        ("forearm.L", 0, "hand.L", 1, -1.0),  # elbow flexion: hand forward
        ("thigh.R", 0, "foot.R", 1, -1.0),  # hip flexion: foot forward
        ("shin.L", 0, "foot.L", 1, 1.0),  # knee flexion: foot backward
        ("spine2", 0, "head", 1, -1.0),  # spine flexion: head forward
        ("clavicle.L", 0, "upper_arm.L", 2, 1.0),  # clavicle elevation: shoulder up
    ],
)
def test_human_positive_flexion_and_abduction_move_the_limb_anatomically(
    segment: str, dof: int, moved: str, axis: int, sign: float
) -> None:
    figure = human_figure()
    theta = figure.zero_pose()
    before = position(figure, theta, moved)
    theta[figure.dof_index(segment, dof)] = 0.3
    after = position(figure, theta, moved)
    assert sign * (after[axis] - before[axis]) > 0.01


def test_limb_effectors_sit_on_palms_soles_and_ankles() -> None:
    figure = human_figure()
    effectors = limb_effectors(figure)
    assert set(effectors) == {"hand.L", "hand.R", "foot.L", "foot.R", "ankle.L", "ankle.R"}
    problem = Problem(figure, [_position_constraint(figure, name) for name in effectors])
    points, normals, _ = problem.effector_states(figure.zero_pose())
    by_name = dict(zip(effectors, points, strict=True))
    shoulder = position(figure, figure.zero_pose(), "upper_arm.L")
    hip = position(figure, figure.zero_pose(), "thigh.L")
    assert np.linalg.norm(by_name["hand.L"] - shoulder) == pytest.approx(ARM_LENGTH)
    assert np.linalg.norm(by_name["ankle.L"] - hip) == pytest.approx(LEG_LENGTH)
    assert by_name["foot.R"][2] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(normals[0], (-1.0, 0.0, 0.0), atol=1e-12)  # left palm: inward
    np.testing.assert_allclose(normals[1], (1.0, 0.0, 0.0), atol=1e-12)
    assert 0.6 < ARM_LENGTH < 0.7 and 0.8 < LEG_LENGTH < 0.9
    assert limb_length("hand.R") == ARM_LENGTH == limb_length("arm")
    assert limb_length("foot.L") == LEG_LENGTH == limb_length("ankle.R")


def test_limb_length_raises_if_name_is_unknown() -> None:
    with pytest.raises(SolverInputError, match="unknown limb"):
        limb_length("tail")


def _position_constraint(figure: Figure, name: str) -> Constraint:
    return Constraint(limb_effectors(figure)[name], goals.Position((0.0, 0.0, 0.0)))


# -- random feasible poses ------------------------------------------------------------


def test_random_feasible_poses_are_strictly_feasible() -> None:
    figure = human_figure()
    rng = np.random.default_rng(0)
    poses = np.array([random_feasible_pose(figure, rng) for _ in range(200)])
    slacks = poses @ figure.limits.a_in.T - figure.limits.b_in
    assert slacks.min() > 0.0
    # They cover the range, not just the neighbourhood of the rest pose.
    span = (poses.max(axis=0) - poses.min(axis=0)) / (figure.upper - figure.lower)
    assert span.min() > 0.5


def test_random_feasible_poses_respect_joint_groups() -> None:
    figure = tube_figure(grouped=True)
    rng = np.random.default_rng(1)
    limits = figure.limits
    poses = np.array([random_feasible_pose(figure, rng) for _ in range(20)])
    assert (poses @ limits.a_in.T - limits.b_in).min() > 0.0
    np.testing.assert_allclose(poses @ limits.a_eq.T, np.tile(limits.b_eq, (20, 1)), atol=1e-12)
    assert np.std(poses, axis=0).max() > 0.1


def test_random_feasible_pose_is_reproducible_and_spread_pulls_toward_the_centre() -> None:
    figure = human_figure()
    first = random_feasible_pose(figure, np.random.default_rng(7))
    again = random_feasible_pose(figure, np.random.default_rng(7))
    np.testing.assert_array_equal(first, again)
    half = random_feasible_pose(figure, np.random.default_rng(7), spread=0.5)
    np.testing.assert_allclose(half, 0.5 * (first + interior_pose(figure)))


@pytest.mark.parametrize("spread", [0.0, -0.5, 1.5])
def test_random_feasible_pose_raises_if_spread_is_out_of_range(spread: float) -> None:
    with pytest.raises(SolverInputError, match="spread"):
        random_feasible_pose(human_figure(), np.random.default_rng(0), spread=spread)


# -- the tube task --------------------------------------------------------------------


@functools.cache
def solved_tube(grouped: bool) -> tuple[Problem, SolveResult]:
    figure, constraints, start = tube_task(grouped=grouped)
    problem = Problem(figure, constraints)
    return problem, solve(problem, start)


@pytest.fixture(params=[True, False], ids=["grouped", "ungrouped"])
def tube_solution(request: pytest.FixtureRequest) -> tuple[Problem, SolveResult]:
    return solved_tube(request.param)


def test_tube_figure_has_70_dofs_and_22_effective_when_grouped() -> None:
    grouped, free = tube_figure(grouped=True), tube_figure(grouped=False)
    assert grouped.n_dofs == free.n_dofs == 70
    assert n_effective_dofs(grouped) == 22
    assert n_effective_dofs(free) == 70
    assert grouped.limits.a_eq.shape == (48, 70)
    assert len(VERTEBRAE) == 17
    assert all(len(grouped.segment(name).dofs) == 3 for name in VERTEBRAE)
    assert len(grouped.segment("head").dofs) == 2 and len(grouped.segment("neck").dofs) == 3


def test_tube_task_has_six_constraints_and_a_feasible_start() -> None:
    figure, constraints, start = tube_task(grouped=True)
    assert len(constraints) == 6
    assert slack(figure, start).min() > 0.0
    np.testing.assert_allclose(figure.limits.a_eq @ start, figure.limits.b_eq, atol=0.0)


def test_tube_task_converges(tube_solution: tuple[Problem, SolveResult]) -> None:
    problem, result = tube_solution
    assert result.status == "converged", result.message
    assert result.fun <= TUBE_OBJECTIVE
    assert np.all(problem.potentials(result.x) <= TUBE_OBJECTIVE)
    assert result.max_violation <= 1e-9


def test_grouped_spine_follows_the_group_ratios() -> None:
    problem, result = solved_tube(True)
    theta = result.x
    for group in spine_groups(problem.figure):
        assert group.ratios[group.members.index(group.reference)] == 1.0
        expected = np.array(group.ratios) * theta[group.reference]
        np.testing.assert_allclose(theta[list(group.members)], expected, rtol=0.0, atol=1e-9)
    extension = spine_groups(problem.figure)[0]
    assert abs(theta[extension.reference]) > 1e-3  # the spine did take part


def test_tube_task_hands_end_on_the_tube(tube_solution: tuple[Problem, SolveResult]) -> None:
    problem, result = tube_solution
    points, x_axes, y_axes = problem.effector_states(result.x)
    axis = np.array(TUBE.axis)
    bottom = np.array(TUBE.bottom)
    for k, (sign, grip) in enumerate(((1.0, TUBE.grips[0]), (-1.0, TUBE.grips[1]))):
        palm, normal = points[k], x_axes[k]
        # On the tube's surface, at the grip, with the palm facing the axis.
        off_axis = (palm - bottom) - ((palm - bottom) @ axis) * axis
        assert np.linalg.norm(off_axis) == pytest.approx(TUBE.radius, abs=1e-5)
        assert (palm - bottom) @ axis == pytest.approx(grip, abs=1e-5)
        np.testing.assert_allclose(normal, -off_axis / np.linalg.norm(off_axis), atol=1e-4)
        assert sign * palm[0] > 0.0  # the left hand on the left side
    for k, sign in ((2, 1.0), (3, -1.0)):  # elbows on their side planes
        assert points[k][0] == pytest.approx(sign * TUBE.elbow_planes, abs=1e-5)
    eye, view = points[4], y_axes[5]
    along = (eye - bottom) @ axis
    assert np.linalg.norm(eye - bottom - along * axis) < 1e-5  # eyes on the axis
    np.testing.assert_allclose(view, -axis, atol=1e-4)  # looking down the tube


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_human_reaches_limb_targets_of_a_random_pose(seed: int) -> None:
    figure = human_figure()
    effectors = limb_effectors(figure)
    names = ("hand.L", "hand.R", "foot.L", "foot.R")
    pose = random_feasible_pose(figure, np.random.default_rng(seed))
    probe = Problem(figure, [_position_constraint(figure, name) for name in names])
    targets = probe.effector_states(pose)[0]
    constraints = [
        Constraint(effectors[name], goals.Position(target))
        for name, target in zip(names, targets, strict=True)
    ]
    problem = Problem(figure, constraints)
    result = solve(problem, figure.zero_pose())
    reached = problem.effector_states(result.x)[0]
    errors = np.linalg.norm(reached - targets, axis=1) / [limb_length(name) for name in names]
    assert result.status == "converged", result.message
    assert errors.max() <= 1e-6
    assert result.max_violation <= 1e-9


# -- the one name ---------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
IMPORTERS = {"import_module", "import_path", "__import__"}


def _imports_bare_fixtures(path: Path) -> bool:
    """Whether the file imports ``fixtures`` or a module of it by that top-level name:
    an import statement, or a call such as ``import_path("fixtures", ...)``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in IMPORTERS
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names = [str(node.args[0].value)]
        else:
            continue
        if any(name.split(".")[0] == "fixtures" for name in names):
            return True
    return False


def test_the_fixtures_are_imported_by_one_name_tests_fixtures() -> None:
    files = [
        path
        for where in ("tests", "bench", "demo", "tools")
        for path in (ROOT / where).rglob("*.py")
    ]
    bare = {path.relative_to(ROOT).as_posix() for path in files if _imports_bare_fixtures(path)}
    assert not bare, f"import the shared fixtures as tests.fixtures in {sorted(bare)}"
