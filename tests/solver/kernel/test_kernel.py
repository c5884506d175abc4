"""The compiled kernel (``solver.kernel``): it loads here, agrees with numpy to rounding,
refuses itself when it cannot, and the solver runs the same on either path."""

from __future__ import annotations

import _ctypes
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    numpy_and_compiled,
    random_effector,
    random_figure_plan,
    random_goal,
    random_theta,
    solves_with_and_without_compiled_steps,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import long_chain

import solver
from solver import Constraint, Dof, Effector, Figure, Problem, goals, kernel, rotations, solve
from solver import goals as goals_module
from solver import rows as rows_module
from solver.jacobian import Jacobian
from solver.kernel import check
from solver.kernel.layouts import DescentPlan
from solver.optimizer import goldfarb
from solver.rows import LimitRows
from tests.fixtures.bank import bank, build
from tests.fixtures.models import human_figure, limb_effectors, random_feasible_pose

SEEDS = range(12)


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the loaded kernel for one test (and load it again after), with no
    REACH_KERNEL in the environment."""
    monkeypatch.setattr(kernel.loading, "_state", {})
    monkeypatch.delenv("REACH_KERNEL", raising=False)


def test_the_kernel_for_this_platform_is_built_and_in_use() -> None:
    tag = kernel.platform_tag()
    assert tag is not None, "no kernel target for this machine"
    path = kernel.LIBRARY_FOLDER / kernel.library_name(tag)
    assert path.is_file(), f"{path} is missing: build it with python tools/build_kernel.py"
    if os.environ.get("REACH_KERNEL", "").lower() in {"0", "numpy", "off"}:
        assert kernel.status() == kernel.Status(False, "numpy (REACH_KERNEL asks for it)")
    else:
        assert kernel.status() == kernel.Status(True, f"compiled kernel ({tag})")
        assert kernel.active() is not None


@pytest.mark.parametrize(
    ("system", "machine", "tag", "name"),
    [
        ("linux", "x86_64", "linux-x64", "reach_kernel-linux-x64.so"),
        ("darwin", "arm64", "macos-arm64", "reach_kernel-macos-arm64.dylib"),
        ("darwin", "x86_64", "macos-x64", "reach_kernel-macos-x64.dylib"),
        ("win32", "AMD64", "windows-x64", "reach_kernel-windows-x64.dll"),
        ("win32", "ARM64", "windows-arm64", "reach_kernel-windows-arm64.dll"),
    ],
)
def test_platform_names_are_blenders(system: str, machine: str, tag: str, name: str) -> None:
    assert kernel.platform_tag(system, machine) == tag
    assert kernel.library_name(tag) == name


def test_an_unknown_platform_runs_numpy(monkeypatch: pytest.MonkeyPatch, fresh_state: None) -> None:
    assert kernel.platform_tag("sunos5", "sparc") is None
    monkeypatch.setattr(kernel.loading, "platform_tag", lambda: None)
    assert kernel.active() is None
    assert kernel.status().text.startswith("numpy (no kernel is built for ")


def test_the_environment_can_ask_for_numpy(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    monkeypatch.setenv("REACH_KERNEL", "numpy")
    assert kernel.active() is None
    assert kernel.status() == kernel.Status(False, "numpy (REACH_KERNEL asks for it)")


def test_a_missing_library_runs_numpy(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None, tmp_path: Path
) -> None:
    monkeypatch.setattr(kernel.loading, "LIBRARY_FOLDER", tmp_path)
    assert kernel.active() is None
    tag = kernel.platform_tag()
    assert kernel.status().text == f"numpy (the kernel for {tag} is not installed)"


def test_a_file_that_is_no_library_runs_numpy(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None, tmp_path: Path
) -> None:
    tag = kernel.platform_tag()
    assert tag is not None
    (tmp_path / kernel.library_name(tag)).write_bytes(b"not a shared library\n" * 50)
    monkeypatch.setattr(kernel.loading, "LIBRARY_FOLDER", tmp_path)
    assert kernel.active() is None
    assert kernel.status().text.startswith(f"numpy (the {tag} kernel did not load: ")


def test_a_library_without_the_kernel_runs_numpy(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None, tmp_path: Path
) -> None:
    # A real shared library that lacks rk_abi: the compiled module behind ctypes.
    tag = kernel.platform_tag()
    assert tag is not None
    other = Path(_ctypes.__file__)
    (tmp_path / kernel.library_name(tag)).write_bytes(other.read_bytes())
    monkeypatch.setattr(kernel.loading, "LIBRARY_FOLDER", tmp_path)
    assert kernel.active() is None
    assert kernel.status().text.startswith(f"numpy (the {tag} kernel did not load: ")


def test_a_library_of_another_abi_runs_numpy(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    monkeypatch.setattr(kernel.loading, "ABI", kernel.ABI + 1)
    assert kernel.active() is None
    assert f"kernel speaks ABI {kernel.ABI}, not {kernel.ABI + 1})" in kernel.status().text


def _pivots_off_by_a_micron(frames):  # type: ignore[no-untyped-def]
    world, axes, pivots = frames
    return world, axes, pivots + 1e-6


@pytest.mark.parametrize(
    ("function", "wrong", "said"),
    [
        ("frames", _pivots_off_by_a_micron, "its pivots differ from numpy's"),
        ("gradient_tree", lambda out: 0.5 * out, "its gradient over the tree differs from numpy's"),
        (
            "factor",
            lambda out: out[:, ::-1] if out.shape[1] > 3 else out,
            "its Gauss–Newton factor differs from numpy's",
        ),
    ],
)
def test_a_kernel_with_wrong_answers_is_not_used(
    function: str, wrong, said: str, monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:  # type: ignore[no-untyped-def]
    real = getattr(kernel.Kernel, function)

    def answers(self: kernel.Kernel, *arguments):  # type: ignore[no-untyped-def]
        return wrong(real(self, *arguments))

    monkeypatch.setattr(kernel.Kernel, function, answers)
    assert kernel.active() is None
    assert kernel.status().text.endswith(f"kernel failed its check: {said})")


def test_a_kernel_whose_check_fails_with_an_error_is_not_used(
    monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    def breaks(self: kernel.Kernel, *arguments: object) -> object:
        raise ValueError("a wrong shape")

    monkeypatch.setattr(kernel.Kernel, "woodbury_start", breaks)
    assert kernel.active() is None
    assert kernel.status().text.endswith("kernel failed its check: ValueError: a wrong shape)")


def test_a_figure_pickled_solves_with_its_own_arrays() -> None:
    # A copy of a figure carries the kernel's tree; the addresses the kernel reads are
    # those of the copy's arrays, not of the arrays it was copied from (long gone).
    figure = long_chain(6, limit=1.0)
    copied = pickle.loads(pickle.dumps(figure))
    tree = copied.kinematics.kernel_tree
    assert tree.pointers == tuple(array.ctypes.data for array in tree.arrays)
    assert tree.pointers != figure.kinematics.kernel_tree.pointers
    goal = Constraint(Effector("seg5"), goals.Position((0.3, 0.5, 0.2)))
    theta = np.full(figure.n_dofs, 0.1)
    want = solve(Problem(figure, [goal]), theta, restarts=0)
    have = solve(Problem(copied, [goal]), theta, restarts=0)
    assert (have.nit, have.fun) == (want.nit, want.fun)


def test_switched_off_the_solver_runs_numpy() -> None:
    with kernel.enabled(False):
        assert kernel.active() is None
        assert kernel.status() == kernel.Status(False, "numpy (the kernel is switched off)")
    assert (kernel.active() is None) == (not kernel.status().compiled)


@pytest.mark.parametrize("seed", SEEDS)
def test_frames_axes_and_pivots_agree_with_numpy(seed: int) -> None:
    rng = np.random.default_rng(900 + seed)
    plan, figure = random_figure_plan(rng, int(rng.integers(1, 30)), chain=bool(seed % 2))
    theta = random_theta(rng, plan) * 3.0
    compiled = kernel.active()
    assert compiled is not None or not kernel.status().compiled
    kinematics = figure.kinematics
    frames = kinematics.frames(theta)
    axes, pivots = kinematics.dof_axes(frames)
    world, got_axes, got_pivots = kinematics.pose(theta)
    tolerance = 1e-12 * max(1.0, float(np.abs(frames.world).max()))
    np.testing.assert_allclose(world, frames.world, rtol=0, atol=tolerance)
    np.testing.assert_allclose(got_axes, axes, rtol=0, atol=tolerance)
    np.testing.assert_allclose(got_pivots, pivots, rtol=0, atol=tolerance)
    np.testing.assert_array_equal(kinematics.world(theta), world)
    variables = np.arange(0, figure.n_dofs, 2)
    _, some_axes, some_pivots = kinematics.pose(theta, variables)
    np.testing.assert_array_equal(some_axes, got_axes[variables])
    np.testing.assert_array_equal(some_pivots, got_pivots[variables])


KINDS = {
    "positions": ("Position",),
    "orientations": ("Orientation",),
    "positions and orientations": ("PositionOrientation",),
    "all three": ("Position", "Orientation", "PositionOrientation"),
}


@pytest.mark.parametrize("kinds", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_compiled_objective_is_numpys_to_rounding(seed: int, kinds: str) -> None:
    # Position, orientation and position+orientation goals (apart and together, a y
    # axis of no weight among them) on effectors off their segments' origins, with turned
    # axes, on random trees (a scaling rest, every DOF kind), unequal weights (one zero)
    # and goals near and far: the kernel's one call gives numpy's G, gradient and pose.
    compiled = kernel.active()
    if compiled is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(1900 + seed)
    plan, figure = random_figure_plan(rng, int(rng.integers(1, 30)), chain=bool(seed % 2))
    names = [segment.name for segment in plan.segments]
    m = int(rng.integers(1, 12))
    weights = rng.uniform(0.1, 50.0, m)
    weights[rng.integers(m)] = 0.0 if m > 1 else weights[0]
    constraints = [
        Constraint(
            random_effector(rng, str(rng.choice(names))),
            random_goal(str(rng.choice(KINDS[kinds])), rng),
            w,
        )
        for w in weights
    ]
    problem = Problem(figure, constraints)
    for theta in (random_theta(rng, plan), random_theta(rng, plan) * 3.0):
        want, have = numpy_and_compiled(problem, theta)
        assert problem.derived.objective_plan is not None  # the kernel's objective ran
        size = max(1.0, float(weights.sum() * problem.chain_lengths.max() ** 2))
        assert have[0] == pytest.approx(want[0], rel=1e-14, abs=1e-15 * size)
        for expected, got in zip(want[1:], have[1:], strict=True):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * size)
        # the pose kept serves the curvature at the same θ, as numpy's does
        factor = problem.gauss_newton_factor(theta)
        with kernel.enabled(False):
            problem._evaluated = None
            np.testing.assert_allclose(
                factor, problem.gauss_newton_factor(theta), rtol=0, atol=1e-12 * size
            )


@pytest.mark.parametrize("m", [1, 7, 8, 9, 16, 23, 129, 300])
def test_the_compiled_objective_sums_the_goals_as_numpy_does(m: int) -> None:
    # Translations alone with points and goals on a grid of eighths place every effector
    # exactly, so each weighted potential is the same number on both paths (a square
    # distance of eighths is exact, its weighting one rounding): their totals agree bit
    # for bit only where the kernel adds them up in numpy's order (pairwise, eight
    # partial sums, in numpy's own C loop on every CPU). The gradient's sums over the
    # goals go through BLAS on numpy's path, in an order that depends on the CPU: each
    # of m terms t rounds once and any order of their sum is within (m − 1)·u·Σ|t| of the
    # exact one, so the two paths differ by at most 2(m + 1)·u·Σ|t|.
    compiled = kernel.active()
    if compiled is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(m)
    figure = Figure()
    figure.add_segment("body", dofs=[Dof.translation(axis) for axis in ("x", "y", "z")])
    constraints = [
        Constraint(
            Effector("body", rng.integers(-8, 9, 3) / 8.0),
            goals.Position(rng.integers(-64, 65, 3) / 8.0),
            float(weight),
        )
        for weight in rng.uniform(0.01, 100.0, m)
    ]
    problem = Problem(figure, constraints)
    theta = np.array([0.5, -1.25, 2.0])
    want, have = numpy_and_compiled(problem, theta)
    assert problem.derived.objective_plan is not None
    assert have[0] == want[0]
    terms = np.array(
        [2.0 * c.weight * (theta + c.effector.point - c.goal.point) for c in constraints]
    )
    bound = 2.0 * (m + 1) * np.finfo(float).eps / 2.0 * np.abs(terms).sum(axis=0)
    assert np.all(np.abs(have[1] - want[1]) <= bound)
    np.testing.assert_allclose(want[1], terms.sum(axis=0), rtol=1e-12)  # the terms are G's


def _same(have: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(have, want, strict=True))


def _compiled(problem: Problem, theta: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel's G, gradient and pose of ``problem`` at ``theta``, evaluated anew."""
    problem._evaluated = None
    value, gradient = problem.evaluate_variables(theta)
    pose = problem._evaluated
    assert pose is not None and problem.derived.objective_plan is not None
    kept = (pose.points, pose.x, pose.y, pose.axes, pose.pivots, pose.at)
    return (np.array([value]), gradient.copy(), *(np.copy(a) for a in kept))


@pytest.mark.parametrize("seed", range(12))
def test_the_kernel_keeps_the_frames_no_variable_moves_to_the_bit(seed: int) -> None:
    # Chains from segments below the root leave the DOFs above them fixed: between
    # evaluations that change only the variables, the kernel makes the frames of the
    # segments the variables move alone and keeps the others. Each evaluation is a fresh
    # problem's (every frame made) to the bit: after the variables moved, after a fixed
    # DOF moved, and between the plan of a figure moved as a whole and its own, which
    # share the scratch the frames are kept in.
    # Half the problems have a plane goal: their frames are made for the leaves' objective.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(5300 + seed)
    plan, figure = random_figure_plan(rng, int(rng.integers(4, 25)), chain=bool(seed % 2))
    kinds = ("Position", "Orientation", "PositionOrientation", "Plane")[: 3 + seed % 2]
    starts = [str(rng.choice([s.name for s in plan.segments[1:]])) for _ in range(3)]
    weights = rng.uniform(0.5, 5.0, len(starts))
    constraints = [
        Constraint(random_effector(rng, start), random_goal(kind, rng), w, chain_start=start)
        for start, kind, w in zip(starts, rng.choice(kinds, len(starts)), weights, strict=True)
    ]
    problem = Problem(figure, constraints)
    variables = problem.variables
    assert len(variables) < figure.n_dofs  # some DOF is fixed
    fixed = np.setdiff1d(np.arange(figure.n_dofs), variables)

    def fresh(theta: np.ndarray, on: Figure = figure) -> tuple[np.ndarray, ...]:
        return _compiled(Problem(on, constraints), theta)

    theta = random_theta(rng, plan)
    assert _same(_compiled(problem, theta), fresh(theta))
    for _ in range(3):  # the variables move: the fixed segments' frames are kept
        theta = theta.copy()
        theta[variables] += rng.uniform(-0.3, 0.3, len(variables))
        want = fresh(theta)
        assert _same(_compiled(problem, theta), want)
    theta = theta.copy()
    theta[fixed[rng.integers(len(fixed))]] += 0.25  # a fixed DOF moves: every frame anew
    want = fresh(theta)
    assert _same(_compiled(problem, theta), want)
    motion = np.eye(4)
    motion[:3, :3] = rotations.euler_matrix(rng.uniform(-1.0, 1.0, 3), "XYZ")
    motion[:3, 3] = rng.uniform(-1.0, 1.0, 3)
    moved_figure = figure.moved(motion)
    moved = problem.on(moved_figure)
    for on, posed in ((moved_figure, moved), (figure, problem), (moved_figure, moved)):
        want = fresh(theta, on)
        assert _same(_compiled(posed, theta), want)


def test_only_squared_distances_in_plain_sums_take_the_compiled_objective() -> None:
    figure = Figure()
    figure.add_segment("arm", dofs=[Dof.rotation("x"), Dof.rotation("z")])
    hand = Effector("arm", (0.0, 1.0, 0.0))
    reach_it = Constraint(hand, goals.Position((0.0, 0.5, 0.5)))
    turn_it = Constraint(hand, goals.Orientation((0, 0, 1), (0, 1, 0)))
    hold_it = Constraint(hand, goals.PositionOrientation((0.0, 0.5, 0.5), (0, 0, 1), (0, 1, 0)))
    for constraints, compiled in (
        ([reach_it], kernel.active() is not None),
        ([reach_it, turn_it, hold_it], kernel.active() is not None),
        (
            [reach_it, Constraint(hand, goals.Plane((0.0, 0.0, 0.2), (0, 0, 1)))],
            kernel.active() is not None,
        ),
        ([solver.AnyOf([reach_it, Constraint(hand, goals.Position((0.5, 0.5, 0)))])], False),
    ):
        problem = Problem(figure, constraints)
        want, have = numpy_and_compiled(problem, np.array([0.3, -0.2]))
        assert (problem.compiled_goals() is not None) is compiled
        assert have[0] == pytest.approx(want[0], rel=1e-14)


def test_the_self_check_passes_on_the_kernel_in_use() -> None:
    compiled = kernel.active()
    if compiled is None:
        assert not kernel.status().compiled
        return
    assert check.self_check(compiled) is None


def _evaluations(problem: solver.Problem, theta: np.ndarray) -> tuple[np.ndarray, ...]:
    """G with its gradient, the Gauss–Newton factor and the effectors' Jacobians."""
    problem._evaluated = None  # the cache holds the other path's pose
    value, gradient = problem.evaluate_variables(theta)
    return (
        np.array([value]),
        gradient,
        problem.gauss_newton_factor(theta),
        problem.effector_jacobians(theta),
    )


@pytest.mark.parametrize("case", bank("ci"), ids=lambda case: case.name)
def test_the_bank_evaluates_alike_on_both_paths(case) -> None:  # type: ignore[no-untyped-def]
    # Everything a descent asks of a problem, at the start and at another pose (the
    # evaluations do not heed the limits).
    problem, theta0 = build(case, solver)
    heaviest = float(problem.weights.sum() * problem.chain_lengths.max() ** 2)
    for theta in (theta0, theta0 + 0.3):
        with kernel.enabled(False):
            numpy_values = _evaluations(problem, theta)
        compiled_values = _evaluations(problem, theta)
        for want, have in zip(numpy_values, compiled_values, strict=True):
            # Rounding of the effectors' places (1e-16 of a limb) reaches the derivatives
            # through the goals' weights.
            size = max(1.0, float(np.abs(want).max()), heaviest)
            np.testing.assert_allclose(have, want, rtol=0, atol=1e-12 * size)


@pytest.mark.parametrize("case", bank("ci"), ids=lambda case: case.name)
def test_the_bank_solves_alike_on_both_paths(case) -> None:  # type: ignore[no-untyped-def]
    # Rounding apart, a descent takes the same steps; where many poses meet the goals
    # (a redundant figure), its last steps may end at another of them: the verdict and
    # G agree, not the pose.
    problem, theta0 = build(case, solver)
    with kernel.enabled(False):
        numpy_result = solve(problem, theta0, restarts=0)
    compiled_result = solve(problem, theta0, restarts=0)
    assert compiled_result.outcome == numpy_result.outcome
    met = problem.goal_tolerance(1e-6)
    if max(compiled_result.fun, numpy_result.fun) > met:
        assert compiled_result.fun == pytest.approx(numpy_result.fun, rel=1e-6, abs=met)


def test_strided_and_converted_inputs_give_numpys_answers() -> None:
    # Views (transposed, strided, float32) are copied for the call; each copy must
    # live until the call returns, or a later copy may take its memory.
    compiled = kernel.active()
    if compiled is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(8)
    n, m = 7, 3
    # A chain of 7 segments, a variable in each, parts on segments 2, 4 and 6: variable
    # j moves the parts at or below its segment.
    parent, segment, part = np.arange(-1, n - 1), np.arange(n), np.array([2, 4, 6])
    moves = (segment[:, None] <= part[None, :]).astype(np.float64)
    rotation = (np.arange(n) % 3 != 2).astype(np.uint8)
    axes = rng.normal(size=(3, n)).T  # views, not C-contiguous
    pivots = rng.normal(size=(n, 6))[:, ::2]
    vectors = rng.normal(size=(3, 3 * m)).T
    weights = rng.uniform(size=(m, 3)).T
    points, force = vectors[:m], rng.normal(size=(m, 3)).astype(np.float32)
    coefficient = rng.uniform(size=2 * m)[::2]
    tree = kernel.GradientTree.of(parent, segment, part, rotation.astype(bool))
    jacobian = Jacobian(moves, rotation.astype(bool))
    with kernel.enabled(False):
        want_factor = jacobian.factor(vectors, axes, pivots, weights)
        want_gradient = jacobian.gradient(
            points, force, vectors[m : 2 * m], coefficient, axes, pivots
        )
    for _ in range(20):
        have = compiled.factor(moves, rotation, vectors, weights, axes, pivots)
        np.testing.assert_allclose(have, want_factor, rtol=0, atol=1e-13)
        have = compiled.gradient_tree(
            tree, points, force, vectors[m : 2 * m], coefficient, axes, pivots
        )
        np.testing.assert_allclose(have, want_gradient, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("tag", "header"),
    [
        ("linux-x64", "elf x86-64"),
        ("windows-x64", "pe x86-64"),
        ("windows-arm64", "pe arm64"),
        ("macos-x64", "mach-o x86-64"),
        ("macos-arm64", "mach-o arm64 signed"),
    ],
)
def test_each_platforms_library_is_built_for_that_platform(tag: str, header: str) -> None:
    # The machine code each library's header declares; Apple Silicon loads only signed
    # code, so its library must carry a code signature (an ad-hoc one).
    path = kernel.LIBRARY_FOLDER / kernel.library_name(tag)
    assert path.is_file(), f"{path} is missing: build it with python tools/build_kernel.py"
    data = path.read_bytes()
    if data[:4] == b"\x7fELF":
        machine = int.from_bytes(data[18:20], "little")
        found = "elf " + {0x3E: "x86-64", 0xB7: "arm64"}.get(machine, hex(machine))
    elif data[:2] == b"MZ":
        pe = int.from_bytes(data[0x3C:0x40], "little")
        assert data[pe : pe + 4] == b"PE\0\0"
        machine = int.from_bytes(data[pe + 4 : pe + 6], "little")
        found = "pe " + {0x8664: "x86-64", 0xAA64: "arm64"}.get(machine, hex(machine))
    else:
        assert int.from_bytes(data[:4], "little") == 0xFEEDFACF  # 64-bit Mach-O
        cpu = int.from_bytes(data[4:8], "little")
        found = "mach-o " + {0x01000007: "x86-64", 0x0100000C: "arm64"}.get(cpu, hex(cpu))
        commands, offset, kinds = int.from_bytes(data[16:20], "little"), 32, []
        for _ in range(commands):
            kinds.append(int.from_bytes(data[offset : offset + 4], "little"))
            offset += int.from_bytes(data[offset + 4 : offset + 8], "little")
        if 0x1D in kinds:  # LC_CODE_SIGNATURE
            found += " signed"
    assert found == header


def _without_compiled_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        solver.methods.base.Scaled, "gauss_newton_step", lambda self, p, **options: None
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(4, 24),
    goals=st.integers(1, 4),
    reach=st.sampled_from([0.05, 0.4, 3.0]),
    slides=st.booleans(),
    iterations=st.integers(1, 4),
)
@example(seed=0, segments=7, goals=1, reach=0.05, slides=True, iterations=2)
@example(seed=1368, segments=6, goals=2, reach=0.05, slides=True, iterations=3)
def test_the_compiled_gauss_newton_step_takes_pythons_steps(
    seed: int, segments: int, goals: int, reach: float, slides: bool, iterations: int
) -> None:
    # Chains with limits (rows the ratio test meets), slides, goals near (a step short of
    # the unit one), far (the search expands) and out of reach, unequal weights: each of
    # the first iterations, taken by the kernel from H's fresh start with no row active,
    # gives Python's iterate to rounding, with the same evaluations and stop.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.6, slide_every=3 if slides else 0)
    theta = rng.uniform(-0.3, 0.3, figure.n_dofs)
    world = figure.forward(theta)
    constraints = []
    for segment in rng.choice(segments, goals, replace=False):
        point = world[segment][:3, 3] + rng.normal(scale=reach, size=3)
        constraints.append(
            Constraint(
                Effector(f"seg{segment}"), goals_module.Position(point), rng.uniform(0.2, 5.0)
            )
        )
    problem = Problem(figure, constraints)
    have, want, taken = solves_with_and_without_compiled_steps(problem, theta, iterations)
    if 2 * 3 * goals < len(problem.variables):
        assert taken  # the first iteration at least: no row is active at the start
    assert have.status == want.status
    assert have.nit == want.nit and have.nfev == want.nfev
    size = max(1.0, float(np.abs(want.x).max()))
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-9 * size)
    # G is a weighted sum of squared distances on a chain 1 long: its root moves with the
    # effectors, each within n·1e-9·size of the other path's where the DOFs are within
    # 1e-9·size (relative to G alone the test fails near a met goal, G of 1e-10, where the
    # paths' rounding differs by 3e-18).
    weights = sum(c.weight for c in constraints)
    apart = len(want.x) * 1e-9 * size * np.sqrt(weights)
    assert abs(np.sqrt(have.fun) - np.sqrt(want.fun)) <= apart


def _row_index_by_loop(a: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """Each row's bound (its one nonzero entry, ±1) or −1, and its nonzero span, row by row."""
    bounds, spans = [], []
    for row in a:
        where = np.flatnonzero(row)
        one = len(where) == 1 and abs(row[where[0]]) == 1.0
        bounds.append(int(where[0]) if one else -1)
        spans.append([int(where[0]), int(where[-1]) + 1] if len(where) else [len(row)] * 2)
    return bounds, spans


def test_each_limit_rows_index_is_its_bound_and_its_span() -> None:
    # A bound is a lone ±1; a lone 2, two entries or none are no bound; the span runs from
    # the first nonzero entry to past the last (n, n for none).
    a = np.array(
        [
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, -1.0],
            [2.0, 0.0, 0.0, 0.0],
            [0.0, 0.5, -0.3, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 1.0],
            [-1.0, 0.0, 0.0, 0.0],
        ]
    )
    rows, columns = np.nonzero(a)
    # found from the dense rows, or from their nonzeros as a long chain's are kept
    for limit in (LimitRows(a), LimitRows.of_nonzeros(a, rows, columns, a[rows, columns])):
        bound, span, faces = limit.index()
        assert bound.tolist() == [1, 3, -1, -1, -1, -1, 0]
        assert span.tolist() == [[1, 2], [3, 4], [0, 1], [1, 3], [4, 4], [0, 4], [0, 1]]
        assert bound.dtype == span.dtype == np.int32 and span.flags.c_contiguous
        assert faces == 2
        assert limit.index() is limit.index()  # found once
    empty_bound, empty_span, _ = LimitRows(np.empty((0, 5))).index()
    assert empty_bound.shape == (0,) and empty_span.shape == (0, 2)


def test_the_kernels_descent_indexes_the_rows_it_is_bound_to() -> None:
    # The human's limits (bounds and the shoulders' polygon rows) in a cold Solve: every
    # descent the kernel takes reads each row's bound and span as the rows are.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    figure = human_figure()
    effectors = [limb_effectors(figure)[name] for name in ("hand.L", "hand.R", "foot.L", "foot.R")]
    probe = Problem(figure, [Constraint(e, goals.Position(np.zeros(3))) for e in effectors])
    points, _, _ = probe.effector_states(random_feasible_pose(figure, np.random.default_rng(3)))
    problem = Problem(
        figure,
        [Constraint(e, goals.Position(p)) for e, p in zip(effectors, points, strict=True)],
    )
    bound_to: list[DescentPlan] = []
    objectives: set[int] = set()  # the objective plans each bind read
    indexed: list[tuple[int, int]] = []  # the shape of each set of rows indexed
    rows_bound: set[int] = set()  # each set of rows a descent bound
    bind, index = DescentPlan.bind, rows_module._row_index

    def noting(plan: DescentPlan, arrays: tuple[np.ndarray, ...], *rest: object) -> None:
        bind(plan, arrays, *rest)  # type: ignore[arg-type]
        bound_to.append(plan)
        objectives.add(id(plan.objective))
        rows_bound.add(id(arrays[5]))

    def indexing(shape: tuple[int, int], *rest: np.ndarray) -> object:
        indexed.append(shape)
        return index(shape, *rest)

    def afresh(problem: Problem) -> Problem:
        """``problem``, its quick path's step made anew: each solve binds its own arrays."""
        problem.derived.quick_step = None
        return problem

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DescentPlan, "bind", noting)
        patch.setattr(rows_module, "_row_index", indexing)
        solve(problem, figure.zero_pose(), restarts=0)
        # the next drag event's goals
        moved = problem.with_goals({i: goals.Position(p + 0.01) for i, p in enumerate(points)})
        solve(afresh(moved), figure.zero_pose(), restarts=0)
        # a bake's next frame: the armature moved as a whole, its rows the same
        shift = np.eye(4)
        shift[:3, 3] = (0.02, 0.0, 0.0)
        solve(afresh(moved.on(figure.moved(shift))), figure.zero_pose(), restarts=0)
    assert bound_to
    polygons = 0
    for plan in bound_to:
        assert plan.bound is not None
        a = plan.bound[5]
        bounds, spans = _row_index_by_loop(a)
        assert plan.index is not None
        assert plan.index.bound.tolist() == bounds and plan.index.span.tolist() == spans
        assert plan.index.faces == sum(high - low > 1 for low, high in spans)
        polygons = max(polygons, plan.index.faces)
    assert polygons  # rows that are no bounds were indexed too
    # each array of rows is indexed once, however many descents bind it, on either figure
    assert len(indexed) == len(rows_bound) < len(bound_to)
    assert len(objectives) > 1  # the moved figure's objective plan bound them too


@pytest.mark.parametrize("seed", [0, 4, 8, 9, 10, 13, 15, 21])
def test_after_crawls_leave_the_curvature_the_kernel_takes_no_gauss_newton_step(seed: int) -> None:
    # A heavy goal far out of reach with a light one near: the descent crawls and, at the
    # third crawl, leaves the curvature for the projector; the kernel then takes no
    # Gauss–Newton step, and the descent ends where Python's does. (Its last steps lower
    # G by rounding alone, so their line searches may try other steps and say
    # "converged" or "stalled" by rounding: the counts and the word may differ, not G.)
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(seed)
    figure = long_chain(12, limit=0.6)
    theta = rng.uniform(-0.3, 0.3, figure.n_dofs)
    world = figure.forward(theta)
    far = world[11][:3, 3] + rng.normal(scale=3.0, size=3)
    near = world[5][:3, 3] + rng.normal(scale=0.05, size=3)
    problem = Problem(
        figure,
        [
            Constraint(Effector("seg11"), goals_module.Position(far), 5e4),
            Constraint(Effector("seg5"), goals_module.Position(near)),
        ],
    )
    crawls: list[int] = []
    projected: list[bool] = []
    crawled, compiled_step = goldfarb.Run.crawled, goldfarb.Run.compiled_step

    def crawl(run: goldfarb.Run) -> None:
        crawls.append(run.crawls)
        crawled(run)

    def step(run: goldfarb.Run) -> tuple[bool, object]:
        projected.append(run.curvature is None)
        return compiled_step(run)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goldfarb.Run, "crawled", crawl)
        patch.setattr(goldfarb.Run, "compiled_step", step)
        have = solve(problem, theta, restarts=0)
    with pytest.MonkeyPatch.context() as patch:
        _without_compiled_steps(patch)
        want = solve(problem, theta, restarts=0)
    assert max(crawls) >= 2 and projected and not any(projected)
    assert have.fun == pytest.approx(want.fun, rel=1e-9)
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 40))
def test_the_kernels_quaternions_of_euler_turns_are_numpys(seed: int, k: int) -> None:
    # Every order and turns of any size, even several whole turns: the same numbers.
    compiled = kernel.active()
    if compiled is None:
        return
    rng = np.random.default_rng(seed)
    angles = rng.uniform(-20.0, 20.0, (k, 3))
    axes = np.array([rng.permutation(3) for _ in range(k)]).reshape(k, 3)
    np.testing.assert_allclose(
        compiled.euler_quaternions(angles, axes),
        rotations.numpy_euler_quaternions(angles, axes),
        rtol=0.0,
        atol=1e-15,
    )


def test_the_kernels_quaternion_of_an_axis_out_of_range_is_nan() -> None:
    # A bad axis cannot make the library write out of its row.
    compiled = kernel.active()
    if compiled is None:
        return
    got = compiled.euler_quaternions(np.full((3, 3), 0.5), [[0, 1, 2], [0, 3, 1], [-1, 0, 0]])
    assert np.isfinite(got[0]).all() and np.isnan(got[1:]).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 40), near=st.booleans())
def test_the_kernels_euler_angles_of_quaternions_are_numpys(seed: int, k: int, near: bool) -> None:
    """Every order, with and without angles to stay near, gimbal lock among them."""
    compiled = kernel.active()
    if compiled is None:
        return
    rng = np.random.default_rng(seed)
    quaternions = rng.normal(size=(k, 4)) * rng.uniform(0.1, 10.0, (k, 1))  # not unit
    for order in rotations.EULER_ORDERS:
        locked = quaternions.copy()
        # a quarter turn about the order's middle axis: b = ±π/2, where cos b is 0
        middle = 1 + "XYZ".index(order[1])
        locked[::3] = 0.0
        locked[::3, 0] = 1.0
        locked[::3, middle] = rng.choice([-1.0, 1.0])
        compat = rng.uniform(-9.0, 9.0, (k, 3)) if near else None
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(kernel, "active", lambda: None)
            want, want_matrices = rotations.quaternions_euler(locked, order, compat)
        have, matrices = rotations.quaternions_euler(locked, order, compat)
        np.testing.assert_allclose(matrices, want_matrices, rtol=0.0, atol=1e-15)
        np.testing.assert_allclose(have, want, rtol=0.0, atol=1e-12)
