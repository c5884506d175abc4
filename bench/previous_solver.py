"""The previous solver, as a peer in the same process: ``solver/`` at an earlier commit.

:func:`load` extracts that commit's ``solver/`` (``git archive``) into a temporary
folder and imports it from there as a package of another name; its modules import one
another relatively, so it loads beside today's ``solver``. :func:`transplant` rebuilds a
problem of today's solver with the other's classes, so that both solve the very same
problem.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.harness import ROOT, import_path

PREVIOUS = "2d225ae"
"""The solver before its robustness work (no drop update for the Gauss–Newton start, one
isotropic curvature for every goal type, dense n×n start)."""

_FOLDERS: list[tempfile.TemporaryDirectory[str]] = []


def load(commit: str = PREVIOUS, name: str = "previous_solver") -> ModuleType:
    """Import ``solver/`` as it was at ``commit``, as package ``name``.

    Raises:
        RuntimeError: When git cannot read that commit (say, a shallow clone).
    """
    if name in sys.modules:
        return sys.modules[name]
    folder = tempfile.TemporaryDirectory(prefix="reach-previous-")
    _FOLDERS.append(folder)
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "solver"],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        raise RuntimeError(
            f"cannot read solver/ at commit {commit}: {detail.decode().strip() or error}; "
            "the previous solver needs the repository's history (not a shallow clone)"
        ) from error
    target = Path(folder.name)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return import_path(name, target / "solver")


def transplant(problem: Any, module: ModuleType) -> Any:
    """``problem`` (today's) rebuilt with ``module``'s classes: same figure, limits, goals.

    Raises:
        ValueError: For limit polygons or equalities, which the figure keeps only as
            rows (the benchmarks that use this have none).
    """
    figure = problem.figure
    limits = figure.limits
    bounds = sum(d.lower is not None for d in figure.dofs) + sum(
        d.upper is not None for d in figure.dofs
    )
    if limits.a_eq.shape[0] or limits.a_in.shape[0] != bounds:
        raise ValueError("transplant: limit polygons and equalities are not carried over")
    other = module.Figure()
    for segment in figure.segments:
        dofs = [
            module.Dof(d.kind, d.axis, d.lower, d.upper, d.rigidity, d.name) for d in segment.dofs
        ]
        other.add_segment(segment.name, segment.parent, segment.rest, dofs)
    items = []
    for item in problem.constraints:
        if isinstance(item, type(problem.leaves[0])):
            items.append(_constraint(item, module))
        else:
            members = [_constraint(c, module) for c in item.constraints]
            items.append(module.AnyOf(members, item.weight, name=item.name))
    return module.Problem(other, items)


def _constraint(constraint: Any, module: ModuleType) -> Any:
    e = constraint.effector
    effector = module.Effector(e.segment, e.point, e.x_axis, e.y_axis)
    goal = _goal(constraint.goal, module.goals)
    return module.Constraint(
        effector, goal, constraint.weight, constraint.chain_start, name=constraint.name
    )


def _goal(goal: Any, goals: ModuleType) -> Any:
    kind = type(goal).__name__
    if kind == "Position":
        return goals.Position(goal.point)
    if kind == "Orientation":
        return goals.Orientation(goal.x, goal.y, goal.c_dx, goal.c_dy)
    if kind == "PositionOrientation":
        o = goal.orientation
        return goals.PositionOrientation(goal.point, o.x, o.y, goal.w_position, o.c_dx, o.c_dy)
    if kind == "Aim":
        return goals.Aim(goal.point, goal.c_d)
    if kind == "Line":
        return goals.Line(goal.point, goal.direction)
    if kind in ("Plane", "HalfSpace"):
        return getattr(goals, kind)(goal.point, goal.normal)
    raise ValueError(f"transplant: unknown goal type {kind}")
