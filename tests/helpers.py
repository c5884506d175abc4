"""Plain test helpers: seeded random figures, goals and poses, finite differences, errors.

The fixtures in ``conftest.py`` wrap these functions; hypothesis tests import them
directly (``from helpers import random_figure``). The second implementation the solver
is compared against is in ``reference.py``; small named figures and problems in
``problems.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import solver
from solver import Dof, Effector, Figure, Problem, goals

NAMED_AXES = {
    "x": (1.0, 0.0, 0.0),
    "y": (0.0, 1.0, 0.0),
    "z": (0.0, 0.0, 1.0),
    "-x": (-1.0, 0.0, 0.0),
    "-y": (0.0, -1.0, 0.0),
    "-z": (0.0, 0.0, -1.0),
}

GOAL_TYPES = (
    "Position",
    "Orientation",
    "PositionOrientation",
    "Aim",
    "Line",
    "Plane",
    "HalfSpace",
)
"""Every goal type (Zhao & Badler 1994, §5), by class name in :mod:`solver.goals`."""


# -- random geometry ---------------------------------------------------------------------


def random_unit(rng: np.random.Generator) -> np.ndarray:
    """A random unit 3-vector."""
    while True:
        v = rng.normal(size=3)
        norm = np.linalg.norm(v)
        if norm > 1e-3:
            return v / norm


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A random proper rotation matrix (3, 3), from a random unit quaternion."""
    w, x, y, z = rng.normal(size=4)
    n = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def random_frame(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random orthonormal pair (x, y) of 3-vectors."""
    rotation = random_rotation(rng)
    return rotation[:, 0].copy(), rotation[:, 1].copy()


def random_rest(rng: np.random.Generator, *, scale: bool = True, reach: float = 0.4) -> np.ndarray:
    """A random similarity (4, 4): rotation times a uniform scale, plus a translation."""
    factor = rng.uniform(0.7, 1.4) if scale else 1.0
    rest = np.eye(4)
    rest[:3, :3] = factor * random_rotation(rng)
    rest[:3, 3] = rng.normal(scale=reach, size=3)
    return rest


# -- random figures ----------------------------------------------------------------------


@dataclass(frozen=True)
class DofPlan:
    """What a test asked for, kept apart from what the solver stored."""

    kind: str
    axis: tuple[float, float, float]
    lower: float | None
    upper: float | None
    rigidity: float

    def to_dof(self, name_axis: str | None = None) -> Dof:
        """The solver DOF, passing the axis by name when one was drawn."""
        axis = name_axis if name_axis is not None else self.axis
        make = Dof.rotation if self.kind == "rotation" else Dof.translation
        return make(axis, lower=self.lower, upper=self.upper, rigidity=self.rigidity)


@dataclass(frozen=True)
class SegmentPlan:
    """One segment of a :class:`FigurePlan`."""

    name: str
    parent: str | None
    rest: np.ndarray
    dofs: tuple[DofPlan, ...]


@dataclass(frozen=True)
class FigurePlan:
    """The raw description of a random figure, for the reference FK."""

    segments: tuple[SegmentPlan, ...]

    @property
    def n_dofs(self) -> int:
        """Total number of DOFs."""
        return sum(len(s.dofs) for s in self.segments)

    def offsets(self) -> dict[str, int]:
        """Index in θ of each segment's first DOF, counted here in ``segments`` order."""
        out: dict[str, int] = {}
        count = 0
        for seg in self.segments:
            out[seg.name] = count
            count += len(seg.dofs)
        return out

    def ancestors(self, name: str) -> list[str]:
        """``name`` and its ancestors, from ``name`` up to the root."""
        parents = {s.name: s.parent for s in self.segments}
        path: list[str] = []
        current: str | None = name
        while current is not None:
            path.append(current)
            current = parents[current]
        return path

    def depth(self, name: str) -> int:
        """Number of ancestors of ``name``."""
        return len(self.ancestors(name)) - 1


def _random_dof(rng: np.random.Generator, kind: str | None = None) -> tuple[DofPlan, str | None]:
    if kind is None:
        kind = "rotation" if rng.random() < 0.65 else "translation"
    name_axis = None
    if rng.random() < 0.35:
        name_axis = str(rng.choice(list(NAMED_AXES)))
        axis = NAMED_AXES[name_axis]
    else:
        axis = tuple(float(c) for c in random_unit(rng))
    span = 2.0 if kind == "rotation" else 0.5
    roll = rng.random()
    if roll < 0.5:
        lower, upper = -rng.uniform(0.1, span), rng.uniform(0.1, span)
    elif roll < 0.65:
        lower, upper = -rng.uniform(0.1, span), None
    elif roll < 0.8:
        lower, upper = None, rng.uniform(0.1, span)
    else:
        lower, upper = None, None
    roll = rng.random()
    if roll < 0.6:
        rigidity = 0.0
    elif roll < 0.88:
        rigidity = float(rng.uniform(0.1, 0.9))
    else:
        rigidity = 1.0
    return DofPlan(kind, axis, lower, upper, rigidity), name_axis


def random_figure_plan(
    rng: np.random.Generator,
    n_segments: int,
    *,
    chain: bool = False,
    scale: bool = True,
    max_dofs: int = 3,
) -> tuple[FigurePlan, Figure]:
    """A seeded random figure and the raw plan it was built from.

    Segment 0 (an ancestor of every segment when ``chain`` or when it is the only
    root) always has a free rotation, a free translation and a partly rigid rotation, so
    every chain to the root mixes DOF kinds and rigidities. Other segments get 0 to
    ``max_dofs`` DOFs with random kinds, unit axes (random vectors or axis names such as
    "-y"), bounds around 0 (one-sided or none) and rigidity (0, in (0, 1), or 1).

    Args:
        rng: The seeded generator.
        n_segments: Number of segments, ≥ 1.
        chain: A serial chain (each segment the child of the previous) instead of a
            random tree.
        scale: Give rest matrices a random uniform scale in [0.7, 1.4].
        max_dofs: Most DOFs per segment after the first.

    Returns:
        ``(plan, figure)``.
    """
    segments: list[SegmentPlan] = []
    fig = Figure()
    for k in range(n_segments):
        name = f"seg{k}"
        if k == 0:
            parent = None
        elif chain:
            parent = f"seg{k - 1}"
        else:
            parent = f"seg{int(rng.integers(0, k))}"
        rest = random_rest(rng, scale=scale)
        if k == 0:
            first, _ = _random_dof(rng, "rotation")
            second, _ = _random_dof(rng, "translation")
            third, _ = _random_dof(rng, "rotation")
            drawn = [
                (DofPlan(first.kind, first.axis, first.lower, first.upper, 0.0), None),
                (DofPlan(second.kind, second.axis, second.lower, second.upper, 0.0), None),
                (DofPlan(third.kind, third.axis, third.lower, third.upper, 0.5), None),
            ]
        else:
            drawn = [_random_dof(rng) for _ in range(int(rng.integers(0, max_dofs + 1)))]
        dof_plans = tuple(d for d, _ in drawn)
        fig.add_segment(name, parent=parent, rest=rest, dofs=[d.to_dof(n) for d, n in drawn])
        segments.append(SegmentPlan(name, parent, rest.copy(), dof_plans))
    return FigurePlan(tuple(segments)), fig


def random_figure(rng: np.random.Generator, n_segments: int, **options: bool | int) -> Figure:
    """A seeded random figure; see :func:`random_figure_plan` for ``options``."""
    return random_figure_plan(rng, n_segments, **options)[1]  # type: ignore[arg-type]


def random_theta(rng: np.random.Generator, plan: FigurePlan) -> np.ndarray:
    """Random joint values (not necessarily within the bounds)."""
    values = []
    for seg in plan.segments:
        for dof in seg.dofs:
            span = 1.5 if dof.kind == "rotation" else 0.3
            values.append(rng.uniform(-span, span))
    return np.array(values, dtype=np.float64)


def random_posed_figure(
    seed: int, low: int, high: int
) -> tuple[np.random.Generator, FigurePlan, Figure, np.ndarray]:
    """A generator seeded with ``seed``, a random figure of ``low`` to ``high − 1``
    segments (with its plan) and a random pose θ of it, drawn in that order."""
    rng = np.random.default_rng(seed)
    plan, fig = random_figure_plan(rng, int(rng.integers(low, high)))
    return rng, plan, fig, random_theta(rng, plan)


def deepest_segment(plan: FigurePlan) -> str:
    """The segment with the most ancestors (the first one on ties)."""
    return max((s.name for s in plan.segments), key=plan.depth)


# -- random goals and effectors ---------------------------------------------------------


def random_goal(kind: str, rng: np.random.Generator, r: np.ndarray | None = None) -> goals.Goal:
    """A goal of type ``kind`` with random parameters.

    ``r`` (the effector's current point) lets a half-space goal put r outside by a
    random margin, and keeps an aim point away from r.
    """
    r = np.zeros(3) if r is None else np.asarray(r, dtype=np.float64)
    p = r + rng.normal(scale=0.5, size=3)
    gx, gy = random_frame(rng)
    if kind == "Position":
        return goals.Position(p)
    if kind == "Orientation":
        return goals.Orientation(gx, gy, c_dx=rng.uniform(0.05, 0.5), c_dy=rng.uniform(0.0, 0.5))
    if kind == "PositionOrientation":
        return goals.PositionOrientation(
            p, gx, gy, w_position=rng.uniform(0.1, 0.9), c_dx=rng.uniform(0.05, 0.5)
        )
    if kind == "Aim":
        return goals.Aim(r + rng.uniform(0.3, 1.0) * random_unit(rng), c_d=rng.uniform(0.05, 0.5))
    if kind == "Line":
        return goals.Line(p, random_unit(rng) * rng.uniform(0.5, 3.0))
    if kind == "Plane":
        return goals.Plane(p, random_unit(rng) * rng.uniform(0.5, 3.0))
    if kind == "HalfSpace":
        normal = random_unit(rng)
        return goals.HalfSpace(r + rng.uniform(0.1, 0.6) * normal, normal)
    raise ValueError(kind)


def random_effector(rng: np.random.Generator, segment: str) -> Effector:
    """An effector on ``segment`` with a random point and random orthonormal axes."""
    ex, ey = random_frame(rng)
    return Effector(segment, point=rng.normal(scale=0.3, size=3), x_axis=ex, y_axis=ey)


# -- finite differences ------------------------------------------------------------------


def central_difference(
    function: Callable[[np.ndarray], float], x: np.ndarray, step: float = 1e-6
) -> np.ndarray:
    """Central finite-difference gradient of a scalar function."""
    x = np.asarray(x, dtype=np.float64)
    gradient = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = step
        gradient[i] = (function(x + e) - function(x - e)) / (2.0 * step)
    return gradient


def relative_error(reference: np.ndarray, value: np.ndarray) -> float:
    """‖reference − value‖ / max(‖reference‖, 1e-8)."""
    reference = np.asarray(reference, dtype=np.float64)
    value = np.asarray(value, dtype=np.float64)
    return float(np.linalg.norm(reference - value) / max(np.linalg.norm(reference), 1e-8))


FD_TOLERANCE = 1e-6
"""Largest relative error of a gradient against central differences."""


def objective_value(problem: Problem) -> Callable[[np.ndarray], float]:
    """θ ↦ G_all of ``problem`` (the value only)."""
    return lambda theta: problem.objective(theta)[0]


# -- errors ------------------------------------------------------------------------------

BAD_NUMBERS = (np.nan, np.inf, -np.inf)
"""Numbers that every check of finite input rejects."""


@contextlib.contextmanager
def raises_input_error(match: str) -> Iterator[pytest.ExceptionInfo[solver.SolverInputError]]:
    """``pytest.raises(solver.SolverInputError, match=match)``, also checking ValueError.

    Every bad-input error of the solver is a :class:`solver.SolverInputError`, which
    callers may catch as a plain ``ValueError``.
    """
    with pytest.raises(solver.SolverInputError, match=match) as info:
        yield info
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, solver.ReachError)


def solves_with_and_without_compiled_steps(
    problem: Problem, theta: np.ndarray, iterations: int
) -> tuple[solver.SolveResult, solver.SolveResult, bool]:
    """``problem`` solved from ``theta`` (no restarts, ``iterations`` at most) twice.

    First as it is, noting the Gauss–Newton iterations the kernel takes (the quick
    path's descent, ``Goldfarb.kernel_descent``, or one step at a time,
    ``goldfarb.Run.compiled_step``), then with no compiled step (Python's iterations
    alone). Returns both results and whether the kernel took an iteration.
    """
    from solver.methods.goldfarb import Goldfarb
    from solver.optimizer import goldfarb

    taken = []
    original = goldfarb.Run.compiled_step
    descent = Goldfarb.kernel_descent

    def counted(run: goldfarb.Run) -> tuple[bool, object]:
        taken.append(True)
        return original(run)

    def quick(*args: Any, **options: Any) -> object:
        found = descent(*args, **options)
        taken.append(found is not None)  # None: it left off at once
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goldfarb.Run, "compiled_step", counted)
        patch.setattr(Goldfarb, "kernel_descent", staticmethod(quick))
        have = solver.solve(problem, theta, restarts=0, max_iterations=iterations)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            solver.methods.base.Scaled, "gauss_newton_step", lambda self, p, **options: None
        )
        want = solver.solve(problem, theta, restarts=0, max_iterations=iterations)
    return have, want, any(taken)


def numpy_and_compiled(
    problem: Problem, theta: np.ndarray, *, curvature: bool = False
) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """G, its gradient and the pose kept with them, by numpy and then by the kernel.

    The pose: the leaves' points, x and y axes, the variables' axes and pivots, the parts'
    points; with ``curvature``, then the Gauss–Newton curvature made from that pose.
    """
    from solver import kernel

    answers = []
    for on in (False, True):
        problem._evaluated = None  # the cache holds the other path's pose
        with kernel.enabled(on):
            value, gradient = problem.evaluate_variables(theta)
            pose = problem._evaluated
            assert pose is not None
            kept = (pose.points, pose.x, pose.y, pose.axes, pose.pivots, pose.at)
            made = (problem.gauss_newton_variables(theta),) if curvature else ()
        answers.append((value, gradient, *kept, *made))
    return answers[0], answers[1]
