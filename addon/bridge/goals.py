"""Goal empties → solver goals, and the armature's constraints → :class:`solver.Problem`.

Each enabled constraint of ``Object.reach`` names an effector bone, a goal empty and a
goal type: the empty's location and axes give the goal's point, x_g, y_g and ν (Zhao &
Badler 1994, §5). Plane, line and half-space goals take their normal or direction from
the empty's local Z axis.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...solver import AnyOf, Constraint, Effector, Problem, goals
from ..errors import BlenderDataError, labelled
from .rig import Array, Rig, build_rig, to_numpy

GOAL_TYPES = (
    "POSITION",
    "ORIENTATION",
    "POSITION_ORIENTATION",
    "AIM",
    "LINE",
    "PLANE",
    "HALF_SPACE",
)
"""The goal types a constraint may have (``ReachConstraint.goal_type``)."""


def goal_object(entry: Any, armature: Any, scene: Any) -> Any:
    """The goal empty of constraint ``entry``, checked to exist and be usable."""
    goal = entry.goal
    label = f"constraint '{entry.name}'"
    if goal is None:
        raise BlenderDataError(f"{label} has no goal object (it was deleted or never set)")
    if scene is not None and goal.name not in scene.objects:
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' was deleted (it is in no collection of the scene)"
        )
    parent = goal.parent
    while parent is not None:
        if parent == armature:
            raise BlenderDataError(
                f"{label}: goal '{goal.name}' is parented to the armature it poses; unparent it"
            )
        parent = parent.parent
    return goal


def goal_frame(goal: Any, label: str) -> tuple[Array, Array, Array, Array]:
    """The goal object's world location and unit X, Y, Z axes (Y made orthogonal to X).

    Raises:
        BlenderDataError: For a non-finite transform or a zero scale.
    """
    matrix = to_numpy(goal.matrix_world)
    if not np.all(np.isfinite(matrix)):
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' has a non-finite (NaN or infinite) transform"
        )
    point = matrix[:3, 3]
    x, y, z = matrix[:3, 0], matrix[:3, 1], matrix[:3, 2]
    norms = [float(np.linalg.norm(v)) for v in (x, y, z)]
    if min(norms) <= 1e-12:
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' has zero scale; its axes are undefined"
        )
    x = x / norms[0]
    y = y - (y @ x) * x
    y = y / np.linalg.norm(y)
    z = z / norms[2]
    return point, x, y, z


def effector_point(entry: Any, bone: Any) -> tuple[float, float, float]:
    """The constraint's effector point in the bone's frame."""
    if entry.effector == "HEAD":
        return (0.0, 0.0, 0.0)
    if entry.effector == "TAIL":
        return (0.0, float(bone.length), 0.0)
    x, y, z = (float(v) for v in entry.offset)
    return (x, y, z)


def build_goal(entry: Any, goal: Any) -> Any:
    """The solver goal of constraint ``entry`` from the goal empty's world frame.

    Raises:
        BlenderDataError: For a goal object the goal cannot be built from, or bad settings.
    """
    label = f"constraint '{entry.name}'"
    point, x, y, z = goal_frame(goal, label)
    kind = entry.goal_type
    with labelled(label):
        c = goals.commensurate(entry.angle_degrees, entry.angle_length)
        c_dx = c if entry.use_x else 0.0
        c_dy = c if entry.use_y else 0.0
        if kind == "POSITION":
            return goals.Position(point)
        if kind == "ORIENTATION":
            return goals.Orientation(x, y, c_dx=c_dx, c_dy=c_dy)
        if kind == "POSITION_ORIENTATION":
            return goals.PositionOrientation(
                point, x, y, w_position=entry.w_position, c_dx=c_dx, c_dy=c_dy
            )
        if kind == "AIM":
            return goals.Aim(point, c_d=c)
        if kind == "LINE":
            return goals.Line(point, z)
        if kind == "PLANE":
            return goals.Plane(point, z)
        if kind == "HALF_SPACE":
            return goals.HalfSpace(point, z)
    raise BlenderDataError(
        f"{label}: unknown goal type {kind!r}; choose one of {', '.join(GOAL_TYPES)}"
    )


@dataclass
class Setup:
    """A solve's inputs: the rig, the problem, and which constraint is which.

    Attributes:
        rig: The compiled armature.
        problem: The solver problem.
        names: Names of the enabled constraints, in the order of ``problem``'s leaves.
        goals: Goal objects of the enabled constraints.
        movable: Bones in some constraint's chain: the ones a solve may move.
        frames: The goal objects' world matrices the goals were built from.
    """

    rig: Rig
    problem: Problem
    names: list[str]
    goals: list[Any]
    movable: list[str]
    frames: list[Any] = field(default_factory=list)


def build_problem(obj: Any, scene: Any, rig: Rig | None = None) -> Setup:
    """The solver problem of the armature's enabled constraints.

    Args:
        obj: The armature object.
        scene: The scene its goal objects must be in (None: not checked).
        rig: Its rig, if already built.

    Raises:
        BlenderDataError: No enabled constraints, a missing goal or bone, NaN, ….
    """
    rig = build_rig(obj) if rig is None else rig
    entries = [c for c in obj.reach.constraints if c.enabled]
    if not entries:
        raise BlenderDataError(f"armature '{obj.name}' has no enabled constraints; add one first")
    groups: dict[str, list[Constraint]] = {}
    order: list[Constraint | str] = []
    goal_objects = []
    for entry in entries:
        label = f"constraint '{entry.name}'"
        bone = obj.data.bones.get(entry.bone)
        if bone is None:
            raise BlenderDataError(
                f"{label}: effector bone '{entry.bone}' does not exist in '{obj.name}'"
            )
        if entry.chain_start and obj.data.bones.get(entry.chain_start) is None:
            raise BlenderDataError(
                f"{label}: chain start bone '{entry.chain_start}' does not exist in '{obj.name}'"
            )
        goal = goal_object(entry, obj, scene)
        solver_goal = build_goal(entry, goal)
        with labelled(label):
            constraint = Constraint(
                Effector(entry.bone, point=effector_point(entry, bone)),
                solver_goal,
                weight=entry.weight,
                chain_start=entry.chain_start or None,
                priority=entry.priority,
                pinned=entry.pinned,
                name=entry.name,
            )
        goal_objects.append(goal)
        if entry.any_of:
            if entry.any_of not in groups:
                groups[entry.any_of] = []
                order.append(entry.any_of)
            groups[entry.any_of].append(constraint)
        else:
            order.append(constraint)
    final: list[Constraint | AnyOf] = [
        AnyOf(groups[item], name=item) if isinstance(item, str) else item for item in order
    ]
    with labelled(""):
        problem = Problem(rig.figure, final)
    variables = problem.variable_mask
    movable = [
        e.name
        for e, segment in zip(rig.layout, rig.figure.segments, strict=True)
        if any(variables[i] for i in segment.dof_indices)
    ]
    names = [c.name for c in problem.leaves]
    by_name = dict(zip([e.name for e in entries], goal_objects, strict=True))
    targets = [by_name[n] for n in names]
    frames = [goal.matrix_world.copy() for goal in targets]
    return Setup(rig, problem, names, targets, movable, frames)


def refresh_goals(obj: Any, scene: Any, setup: Setup) -> Setup:
    """``setup`` with the goals of the goal objects that moved since it was built.

    Only goals whose object's world matrix changed are rebuilt, and the problem keeps
    its chains (:meth:`solver.Problem.with_goals`); any other change to the constraints
    builds the problem afresh.

    Raises:
        BlenderDataError: As :func:`build_problem`: a deleted goal, NaN, ….
    """
    entries = [c for c in obj.reach.constraints if c.enabled]
    if sorted(e.name for e in entries) != sorted(setup.names):
        return build_problem(obj, scene, setup.rig)
    changed: dict[int, Any] = {}
    frames = list(setup.frames)
    for index, name in enumerate(setup.names):
        entry = obj.reach.constraints[name]
        goal = goal_object(entry, obj, scene)
        if goal != setup.goals[index]:
            return build_problem(obj, scene, setup.rig)
        matrix = goal.matrix_world
        if matrix == frames[index]:
            continue
        changed[index] = build_goal(entry, goal)
        frames[index] = matrix.copy()
    if not changed:
        return setup
    return replace(setup, problem=setup.problem.with_goals(changed), frames=frames)
