"""Goal empties → solver goals, and the armature's constraints → :class:`solver.Problem`.

Each enabled constraint of ``Object.reach`` names an effector bone, a goal empty and a
goal type: the empty's location and axes give the goal's point, x_g, y_g and ν (Zhao &
Badler 1994, §5). Plane, line and half-space goals take their normal or direction from
the empty's local Z axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import bpy
import numpy as np

from ...solver import AnyOf, Constraint, Effector, Problem, goals
from ...solver.rotations import gram_entries, similar_rows
from ..errors import BlenderDataError, labelled
from ..vocabulary import GOAL_TYPES
from .animated import mesh_bones
from .arrays import Array
from .balance import balance_constraints
from .bone_ends import end_local
from .kinds import figure_rig
from .rig import Rig, far_at, matrix_values, to_numpy
from .soles import support_points


@dataclass(frozen=True)
class Placed:
    """A goal object's world matrix read from its own channels.

    For a goal nothing else moves (:func:`moves_alone`) its world matrix is its basis
    matrix (location, rotation and scale with their deltas), which Blender computes
    when asked: a drag event that just moved it solves without evaluating the view
    layer first. Blender evaluates it with the pose written.

    Attributes:
        goal: The goal object's session id.
        matrix: Its basis matrix, which stands for its world matrix.
    """

    goal: int
    matrix: Any

    @classmethod
    def of(cls, goal: Any) -> Placed:
        """``goal`` as its own channels place it now."""
        return cls(goal.session_uid, goal.matrix_basis)


def world_of(goal: Any, placed: Placed | None = None) -> Any:
    """The goal object's world matrix: as evaluated, or as ``placed`` reads it."""
    if placed is not None and placed.goal == goal.session_uid:
        return placed.matrix
    return goal.matrix_world


def moves_alone(goal: Any, armature: Any) -> bool:
    """Whether only ``goal``'s own channels place it and nothing Reach reads moves with it.

    It has no parent, constraint or driver, and neither the armature nor another goal
    of the armature's constraints follows it (:func:`placed` may read it then).
    """
    animation = goal.animation_data
    if goal.parent is not None or len(goal.constraints) or (animation and animation.drivers):
        return False
    if _follows(armature, goal, set()):
        return False
    others = {entry.goal for entry in armature.reach.constraints} - {goal, None}
    return not any(_follows(other, goal, set()) for other in others)


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
    route = _follows(goal, armature, set())
    if route:
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' moves with the armature it poses ({route}), so "
            "every pose would move it again; unparent it, or mute or remove that constraint "
            "or driver"
        )
    return goal


def _follows(obj: Any, armature: Any, seen: set[str]) -> str:
    """How ``obj`` is moved by ``armature`` (a parent, a constraint, a driver), or "".

    Routes through other objects count: an empty parented to another that copies a bone.
    """
    if obj.name in seen:
        return ""
    seen.add(obj.name)
    parent = obj.parent
    if parent is not None and (parent == armature or _follows(parent, armature, seen)):
        return f"'{obj.name}' is parented to '{parent.name}'"
    for constraint in obj.constraints:
        if getattr(constraint, "mute", False) or constraint.influence == 0.0:
            continue
        targets = [getattr(constraint, "target", None)]
        targets += [t.target for t in getattr(constraint, "targets", ())]  # Armature constraint
        for target in targets:
            if target is not None and (target == armature or _follows(target, armature, seen)):
                kind = constraint.type.replace("_", " ").title()
                return f"the {kind} constraint '{constraint.name}' of '{obj.name}'"
    animation = obj.animation_data
    for driver in animation.drivers if animation is not None else ():
        for variable in driver.driver.variables:
            for target in variable.targets:
                source = target.id
                if source is not None and (
                    source == armature
                    or (isinstance(source, bpy.types.Object) and _follows(source, armature, seen))
                ):
                    return f"a driver on '{obj.name}' {driver.data_path}"
    return ""


def goal_frame(
    goal: Any, label: str, matrix: Any | None = None, back: Array | None = None
) -> tuple[Array, Array, Array, Array]:
    """The goal object's world location and unit X, Y, Z axes (Y made orthogonal to X).

    ``matrix``: its world matrix as just read (None: read here). ``back``: as
    :func:`_goal_matrix`'s.

    Raises:
        BlenderDataError: For a non-finite transform or a zero scale.
    """
    matrix = _goal_matrix(goal, label, matrix, back)
    point = matrix[:3, 3]
    x, y, z = matrix[:3, 0], matrix[:3, 1], matrix[:3, 2]
    norms = [float(np.linalg.norm(v)) for v in (x, y, z)]
    x = x / norms[0]
    y = y - (y @ x) * x
    y = y / np.linalg.norm(y)
    z = z / norms[2]
    return point, x, y, z


def _goal_matrix(
    goal: Any, label: str, read: Any | None = None, back: Array | None = None
) -> Array:
    """The goal object's world matrix, checked: finite, near the origin, with no zero scale.

    ``read``: that matrix as just read (None: read here). ``back``: where given, the
    matrix is carried back by it (:attr:`Setup.back`).

    Raises:
        BlenderDataError: For a non-finite transform, one past :data:`.rig.FAR`, or a
            zero scale.
    """
    values = _checked_values(goal, label, world_of(goal) if read is None else read)
    matrix = np.array(values, dtype=float).reshape(4, 4)
    return matrix if back is None else back @ matrix


def _goal_point(goal: Any, label: str, read: Any | None = None, back: Array | None = None) -> Array:
    """The goal object's world location, its matrix checked as :func:`_goal_matrix` checks it.

    ``back``: as :func:`_goal_matrix`'s.
    """
    values = _checked_values(goal, label, world_of(goal) if read is None else read)
    point = np.array((values[3], values[7], values[11]))
    return point if back is None else back[:3, :3] @ point + back[:3, 3]


def _checked_values(goal: Any, label: str, matrix: Any) -> tuple[float, ...]:
    """The values of the goal object's world ``matrix``, row by row, checked.

    On Python's floats: a goal's one matrix, each drag event's, costs numpy more.

    Raises:
        BlenderDataError: As :func:`_goal_matrix`.
    """
    values = matrix_values(matrix)
    if not all(map(math.isfinite, values)):
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' has a non-finite (NaN or infinite) transform"
        )
    distance = max(abs(values[3]), abs(values[7]), abs(values[11]))
    if (error := far_at(f"{label}: goal '{goal.name}'", distance)) is not None:
        raise error
    # each axis's squared length (the columns of its rotation and scale)
    squares = [
        values[j] * values[j] + values[4 + j] * values[4 + j] + values[8 + j] * values[8 + j]
        for j in range(3)
    ]
    if min(squares) <= 1e-24:
        raise BlenderDataError(
            f"{label}: goal '{goal.name}' has zero scale; its axes are undefined"
        )
    return values


def effector_point(entry: Any, bone: Any) -> tuple[float, float, float]:
    """The constraint's effector point in the bone's frame.

    A tail effector is where the bone ends on the body (:func:`.bone_ends.end_local`).
    """
    if entry.effector == "HEAD":
        return (0.0, 0.0, 0.0)
    if entry.effector == "TAIL":
        x, y, z = end_local(bone).to_tuple()
        return (x, y, z)
    x, y, z = (float(v) for v in entry.offset)
    return (x, y, z)


def contact_support(obj: Any, entry: Any, goal_matrix: Any) -> Array:
    """A contact constraint's support points in world space (:mod:`.soles`), shape (k, 3)."""
    bone = obj.data.bones[entry.bone]
    turns = entry.goal_type == "POSITION_ORIENTATION"
    return support_points(obj, bone, effector_point(entry, bone), to_numpy(goal_matrix), turns)


AXIS_VECTORS = {
    "POS_X": (1.0, 0.0, 0.0),
    "NEG_X": (-1.0, 0.0, 0.0),
    "POS_Y": (0.0, 1.0, 0.0),
    "NEG_Y": (0.0, -1.0, 0.0),
    "POS_Z": (0.0, 0.0, 1.0),
    "NEG_Z": (0.0, 0.0, -1.0),
}
"""The bone axes an aim or orientation goal may use, in the bone's frame."""

AIM_SIDE = {"X": "POS_Y", "Y": "POS_Z", "Z": "POS_X"}
"""For an aim along a bone axis, the axis given as the effector's other (unused) one."""


def effector_axes(entry: Any) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The effector's x and y axes in the bone's frame, from the constraint's axis settings.

    An aim aims the chosen axis (the effector's y axis); an orientation turns the bone
    axes chosen for the goal's X and Y onto them.

    Raises:
        BlenderDataError: If the axes for the goal's X and Y are the same or opposite.
    """
    if entry.goal_type == "AIM":
        aim = entry.aim_axis
        return AXIS_VECTORS[AIM_SIDE[aim[-1]]], AXIS_VECTORS[aim]
    if entry.goal_type not in {"ORIENTATION", "POSITION_ORIENTATION"}:
        return AXIS_VECTORS["POS_X"], AXIS_VECTORS["POS_Y"]
    x, y = entry.match_x_axis, entry.match_y_axis
    if x[-1] == y[-1]:
        raise BlenderDataError(
            f"constraint '{entry.name}': the bone axes matched to the goal's X ({x}) and "
            f"Y ({y}) must be different axes; choose two of X, Y and Z"
        )
    return AXIS_VECTORS[x], AXIS_VECTORS[y]


def effector(entry: Any, bone: Any) -> Effector:
    """The constraint's effector: its point and axes in the bone's frame.

    Raises:
        BlenderDataError: For axes that are not a valid pair.
    """
    x_axis, y_axis = effector_axes(entry)
    with labelled(f"constraint '{entry.name}'"):
        return Effector(entry.bone, point=effector_point(entry, bone), x_axis=x_axis, y_axis=y_axis)


def build_goal(entry: Any, goal: Any, matrix: Any | None = None, back: Array | None = None) -> Any:
    """The solver goal of constraint ``entry`` from the goal empty's world frame.

    ``matrix``: that frame as just read (None: read here). ``back``: where given, the
    goal is carried back by it into the figure's frame (:attr:`Setup.back`).

    Raises:
        BlenderDataError: For a goal object the goal cannot be built from, or bad settings.
    """
    label = f"constraint '{entry.name}'"
    kind = entry.goal_type
    if kind == "POSITION":  # the point alone, finite (checked): no axes to make unit
        return goals.Position(_goal_point(goal, label, matrix, back))
    if kind == "AIM":  # the point alone too (the effector's axis aims at it)
        point = _goal_point(goal, label, matrix, back)
        with labelled(label):
            return goals.Aim(point, c_d=goals.commensurate(entry.angle_degrees, entry.angle_length))
    point, x, y, z = goal_frame(goal, label, matrix, back)
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
class SetupWork:
    """What a problem's steps work out once from its constraints and bones, when first asked.

    Attributes:
        sets: Each Any-of set's name and its members' names (:attr:`Setup.sets`).
        measure: How :func:`.evaluated.measure` reads the effectors from Blender's pose
            (its plan, which that module alone reads).
    """

    sets: dict[str, list[str]] | None = None
    measure: object | None = None


@dataclass
class Setup:
    """A solve's inputs: the rig, the problem, and which constraint is which.

    Attributes:
        rig: The compiled armature.
        problem: The solver problem.
        names: Names of the enabled constraints, in the order of ``problem``'s leaves,
            then those of the balance constraints (:mod:`.balance`), if any.
        goals: Goal objects of the enabled constraints, in that order (the balance
            constraints have none).
        movable: Bones in some constraint's chain: the ones a solve may move.
        frames: The goal objects' world matrices the goals were built from.
        back: Where the armature moved as a whole since its figure was built and the
            goals are carried back instead of the figure moved (:func:`refresh_goals`'s
            ``carry``): the rigid motion (4 × 4) that takes world coordinates now into the
            figure's. None: the figure stands where the armature is.
    """

    rig: Rig
    problem: Problem
    names: list[str]
    goals: list[Any]
    movable: list[str]
    frames: list[Any] = field(default_factory=list)
    twins: dict[str, tuple[str, Array]] = field(default_factory=dict)
    """Per effector bone "met" is measured on another bone for, that bone and the
    effector bone's frame in its frame: the bone a constraint named, where it follows
    its control (:mod:`.followers`), else the deform bone standing in for a bone that
    deforms nothing (:func:`.animated.mesh_bones`). Found once per problem."""
    kept: SetupWork = field(default_factory=lambda: SetupWork(), compare=False, repr=False)
    """What is worked out once from the constraints and bones and reused by every step.
    A copy made with ``replace``, which keeps the constraints and bones (new goals, a
    moved armature), shares it."""
    back: Array | None = None

    @property
    def sets(self) -> dict[str, list[str]]:
        """Each Any-of set's name and the names of its members (kept: new goals keep them)."""
        sets = self.kept.sets
        if sets is None:
            sets = self.kept.sets = {
                item.name: [member.name for member in item.constraints]
                for item in self.problem.constraints
                if isinstance(item, AnyOf)
            }
        return sets

    def world(self, obj: Any) -> Array:
        """The armature ``obj``'s world matrix now, in the figure's frame (see ``back``)."""
        world = self.rig.world_now(obj)
        return world if self.back is None else self.back @ world

    @property
    def lines(self) -> list[str]:
        """The bones on some effector's line of ancestors: the bones that move an effector."""
        segments = effector_lines(self.rig, self.problem)
        return [e.name for k, e in enumerate(self.rig.layout) if k in segments]


def effector_lines(rig: Rig, problem: Problem) -> set[int]:
    """The segments of the effectors and of all their ancestors."""
    parents = rig.figure.kinematics.segment_parent
    lines: set[int] = set()
    for segment in problem.effector_segments:
        current = int(segment)
        while current >= 0 and current not in lines:
            lines.add(current)
            current = int(parents[current])
    return lines


def build_problem(
    obj: Any, scene: Any, rig: Rig | None = None, placed: Placed | None = None
) -> Setup:
    """The solver problem of the armature's enabled constraints.

    Args:
        obj: The armature object.
        scene: The scene its goal objects must be in (None: not checked).
        rig: Its rig, if already built.
        placed: A goal read from its own channels (:class:`Placed`), or None.

    Raises:
        BlenderDataError: No enabled constraints, a missing goal or bone, NaN, ….
    """
    rig = figure_rig(obj) if rig is None else rig
    entries = [c for c in obj.reach.constraints if c.enabled]
    if not entries:
        raise BlenderDataError(f"armature '{obj.name}' has no enabled constraints; add one first")
    groups: dict[str, list[Constraint]] = {}
    order: list[Constraint | str] = []
    goal_objects = []
    named: dict[str, tuple[str, Array]] = {}
    below = 1 if obj.reach.balance else 0  # balance comes before every constraint
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
        solver_goal = build_goal(entry, goal, world_of(goal, placed))
        with labelled(label):
            point, start, twin = rig.kind.on_figure(obj, rig, entry, effector(entry, bone), label)
            if twin is not None:
                named[point.segment] = twin
            constraint = Constraint(
                point,
                solver_goal,
                weight=entry.weight,
                chain_start=start,
                priority=entry.priority + below,
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
    if below:
        contacts = [
            (entry.name, contact_support(obj, entry, world_of(goal, placed)))
            for entry, goal in zip(entries, goal_objects, strict=True)
            if entry.contact
        ]
        final += balance_constraints(obj, rig, contacts)
    with labelled(""):
        problem = Problem(rig.figure, final)
    _check_defects(rig, problem)
    variables = problem.variable_mask
    movable = [
        e.name
        for e, segment in zip(rig.layout, rig.figure.segments, strict=True)
        if any(variables[i] for i in segment.dof_indices)
    ]
    names = [c.name for c in problem.leaves]
    by_name = dict(zip([e.name for e in entries], goal_objects, strict=True))
    targets = [by_name[n] for n in names if n in by_name]  # the balance has no goal object
    frames = [world_of(goal, placed).copy() for goal in targets]
    twins = mesh_bones(obj, {leaf.effector.segment for leaf in problem.leaves}) | named
    return Setup(rig, problem, names, targets, movable, frames, twins)


def _check_defects(rig: Rig, problem: Problem) -> None:
    """Refuse the bones Reach cannot pose where they move an effector (see ``Rig.defects``).

    A bone outside every effector's line of ancestors moves no effector, so its pose
    scale or inheritance does not matter to the solve.

    Raises:
        BlenderDataError: Naming each such bone and the fix.
    """
    if not rig.defects:
        return
    lines = effector_lines(rig, problem)
    found = [
        rig.defects[e.name]
        for k, e in enumerate(rig.layout)
        if k in lines and e.name in rig.defects
    ]
    if found:
        raise BlenderDataError("; ".join(found))


def refresh_goals(
    obj: Any,
    scene: Any,
    setup: Setup,
    moved: Sequence[Any] | None = None,
    placed: Placed | None = None,
    *,
    steady: bool = False,
    carry: bool = False,
) -> Setup:
    """``setup`` with the goals of the goal objects that moved since it was built.

    Only goals whose object's world matrix changed are rebuilt, and the problem keeps
    its chains (:meth:`solver.Problem.with_goals`); any other change to the constraints,
    or a fixed bone location changed since, builds the problem afresh (a figure that
    only moved as a whole, its armature object or a control rig's root control, keeps
    its rig, moved along: :meth:`.rig.Rig.now`).

    ``moved``: during a drag, the object dragged; on a bake's later frames, none (a frame
    moves goals but deletes or parents none). Every goal object is checked to be the one
    its constraint names, but only those in ``moved`` and goals named anew are checked
    again for deletion and for moving with the armature (the others were when the drag
    or bake began). None: every goal is. ``placed``: a goal read from its own channels
    (:class:`Placed`), or None. ``steady``: a drag's event, the armature checked as
    :meth:`.rig.Rig.is_current` checks it then. ``carry``: a bake's frame of a rig whose
    θ is written straight into its bones (:attr:`.rig.RigKind.direct`), without Balance:
    where the armature moved rigidly as a whole, the goals are carried back into the
    figure's frame (:attr:`Setup.back`) instead of the figure moved to the armature
    (the same problem to rounding, without a moved figure and problem a frame).

    Raises:
        BlenderDataError: As :func:`build_problem`: a deleted goal, NaN, ….
    """
    back = None
    carry = carry and setup.rig.kind.direct and not obj.reach.balance
    if carry:
        found = setup.rig.motion(obj, steady=steady)
        if found is None:
            return build_problem(obj, scene, placed=placed)
        back = None if found[1] is None else _back(found[1])
        carry = back is not None or found[1] is None  # (not rigid: the figure moved instead)
    if not carry:
        if setup.back is not None:  # goals carried back last time: built where it is now
            return build_problem(obj, scene, placed=placed)
        rig = setup.rig.now(obj, steady=steady)
        if rig is None:
            return build_problem(obj, scene, placed=placed)
        if rig is not setup.rig:  # the figure moved as a whole
            setup = replace(setup, rig=rig, problem=setup.problem.on(rig.figure))
    here = setup.rig if back is None else None  # (a rig carried back stands elsewhere)
    entries = {c.name: c for c in obj.reach.constraints if c.enabled}
    named = setup.names[: len(setup.goals)]
    if sorted(entries) != sorted(named):
        return build_problem(obj, scene, here, placed)
    # every goal carried anew where the figure's frame moved against the world's
    anew = back is not setup.back and (
        back is None or setup.back is None or _moved(back, setup.back)
    )
    changed: dict[int, Any] = {}
    frames = list(setup.frames)
    for index, name in enumerate(named):
        entry, goal = entries[name], setup.goals[index]
        checked = moved is None or goal in moved or entry.goal != goal
        if checked and goal_object(entry, obj, scene) != goal:
            return build_problem(obj, scene, here, placed)
        matrix = world_of(goal, placed)
        if not anew and matrix == frames[index]:
            continue
        if entry.contact and obj.reach.balance:  # the support polygon moved
            return build_problem(obj, scene, here, placed)
        changed[index] = build_goal(entry, goal, matrix, back)
        frames[index] = matrix.copy()
    if not changed:
        return setup
    problem = setup.problem.with_goals(changed)
    return replace(setup, problem=problem, frames=frames, back=back if anew else setup.back)


RIGID = 1e-6
"""How far a motion's axes may stray from unit length and from square to each other
(their products) for goals to be carried back by it (:func:`refresh_goals`): an
armature's world matrices are single precision, whose rotations square to about 1e-7."""


def _moved(back: Array, last: Array) -> bool:
    """Whether ``back`` differs from ``last`` at all (the armature moved since last read)."""
    return bool((back != last).any())


def _back(motion: Array) -> Array | None:
    """The inverse of ``motion`` (4 × 4) where it is rigid (:data:`RIGID`), else None."""
    rows = motion.tolist()
    xx, yy, zz, xy, xz, yz = gram_entries(rows)
    largest = max(abs(xx - 1.0), abs(yy - 1.0), abs(zz - 1.0), abs(xy), abs(xz), abs(yz))
    if largest > RIGID or not similar_rows(rows):
        return None
    inverse: Array = np.linalg.inv(motion)
    return inverse
