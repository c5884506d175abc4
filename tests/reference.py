"""A naive second implementation: forward kinematics, DOF axes and goal potentials.

Written independently of the solver's own kinematics and goal code (one 4×4 product per
DOF, the formulas of Zhao & Badler 1994, §5 term by term), so that tests compare the
solver against it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from helpers import DofPlan, FigurePlan

from solver import AnyOf, Constraint, Effector, goals

# -- reference kinematics ----------------------------------------------------------------


def rodrigues(axis: Sequence[float], angle: float) -> np.ndarray:
    """Rotation (3, 3) by ``angle`` about the unit ``axis``: cos·I + sin·[a]× + (1−cos)·aaᵀ."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    cross = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    c, s = np.cos(angle), np.sin(angle)
    return c * np.eye(3) + s * cross + (1.0 - c) * np.outer(a, a)


def dof_transform(dof: DofPlan, value: float) -> np.ndarray:
    """The 4×4 transform of one DOF at ``value``."""
    matrix = np.eye(4)
    axis = np.asarray(dof.axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    if dof.kind == "rotation":
        matrix[:3, :3] = rodrigues(axis, value)
    else:
        matrix[:3, 3] = value * axis
    return matrix


def reference_forward(plan: FigurePlan, theta: np.ndarray) -> np.ndarray:
    """World matrices (n_segments, 4, 4) by the naive loop W_k = W_parent · R_k · Π D_j."""
    world: dict[str, np.ndarray] = {}
    out = []
    index = 0
    for seg in plan.segments:
        matrix = np.eye(4) if seg.parent is None else world[seg.parent]
        matrix = matrix @ seg.rest
        for dof in seg.dofs:
            matrix = matrix @ dof_transform(dof, float(theta[index]))
            index += 1
        world[seg.name] = matrix
        out.append(matrix)
    return np.array(out)


def reference_dof_axes(plan: FigurePlan, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World axes u (unit for rotations, scaled for translations) and pivots q per DOF."""
    world: dict[str, np.ndarray] = {}
    axes, pivots = [], []
    index = 0
    for seg in plan.segments:
        matrix = np.eye(4) if seg.parent is None else world[seg.parent]
        matrix = matrix @ seg.rest
        for dof in seg.dofs:
            axis = np.asarray(dof.axis) / np.linalg.norm(dof.axis)
            u = matrix[:3, :3] @ axis
            if dof.kind == "rotation":
                u = u / np.linalg.norm(u)
            axes.append(u)
            pivots.append(matrix[:3, 3].copy())
            matrix = matrix @ dof_transform(dof, float(theta[index]))
            index += 1
        world[seg.name] = matrix
    return np.array(axes).reshape(-1, 3), np.array(pivots).reshape(-1, 3)


def effector_state(
    world: np.ndarray, effector: Effector
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World point and unit axes of ``effector`` given its segment's world matrix."""
    point = world[:3, :3] @ effector.point + world[:3, 3]
    x = world[:3, :3] @ effector.x_axis
    y = world[:3, :3] @ effector.y_axis
    return point, x / np.linalg.norm(x), y / np.linalg.norm(y)


# -- the goals' formulas ------------------------------------------------------------------


def reference_potential(goal: goals.Goal, r: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """P(e) of ``goal`` written straight from its formula (Zhao & Badler 1994, §5)."""
    if isinstance(goal, goals.Position):
        return float(np.sum((r - goal.point) ** 2))
    if isinstance(goal, goals.Orientation):
        return float(
            goal.c_dx**2 * np.sum((x - goal.x) ** 2) + goal.c_dy**2 * np.sum((y - goal.y) ** 2)
        )
    if isinstance(goal, goals.PositionOrientation):
        position = float(np.sum((r - goal.point) ** 2))
        turn = reference_potential(goal.orientation, r, x, y)
        return goal.w_position * position + (1.0 - goal.w_position) * turn
    if isinstance(goal, goals.Aim):
        d = goal.point - r
        return float(goal.c_d**2 * np.sum((d / np.linalg.norm(d) - y) ** 2))
    if isinstance(goal, goals.Line):
        nu = goal.direction
        projector = np.eye(3) - np.outer(nu, nu)
        return float(np.sum((projector @ (r - goal.point)) ** 2))
    if isinstance(goal, goals.Plane):
        return float(((r - goal.point) @ goal.normal) ** 2)
    if isinstance(goal, goals.HalfSpace):
        return float(min(0.0, float((r - goal.point) @ goal.normal)) ** 2)
    raise TypeError(f"no reference formula for {type(goal).__name__}")


def reference_objective(
    plan: FigurePlan, items: Sequence[Constraint | AnyOf], theta: np.ndarray
) -> float:
    """G_all = Σ w_i G_i with AnyOf terms w·min_j w_j G_j, from the reference FK."""
    world = reference_forward(plan, theta)
    index = {s.name: k for k, s in enumerate(plan.segments)}

    def weighted(c: Constraint) -> float:
        r, x, y = effector_state(world[index[c.effector.segment]], c.effector)
        return c.weight * reference_potential(c.goal, r, x, y)

    total = 0.0
    for item in items:
        if isinstance(item, AnyOf):
            total += item.weight * min(weighted(c) for c in item.constraints)
        else:
            total += weighted(item)
    return total
