"""Is it met on Blender's pose? The goals measured on the evaluated armature.

Reach's figure is a model of the armature: Blender evaluates the pose it writes through
bone constraints, drivers, keyframes on a frame change, Local Location and the like, so
a goal Reach's model meets can be missed by the pose the user sees. After a solve, a
drag event or a live update, :func:`measure` takes each constraint's effector from
Blender's evaluated bones and measures its goal there; where that differs from the
model, :func:`diverging_bones` names the bones whose evaluated pose differs first (their
children inherit the difference) and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...solver import CentreOfMass
from ...solver.goals import Position
from ...solver.rotations import linear_scale
from .animated import DRIVEN_CHANNELS, action_curves
from .arrays import Array, channel
from .goals import Setup, effector_lines
from .rig import to_numpy

AGREE = 1e-5
"""Relative difference (of the figure's largest chain length) below which Blender's
pose and Reach's agree: single-precision rounding of bone matrices."""

AGREE_ANGLE = 1e-4
"""Angle [rad] below which a bone's evaluated rotation and Reach's agree."""

SPARSE = 16
"""Effectors' carriers are read one by one, by name, where the armature has this many
times as many bones: just after Blender's evaluation the bones' memory is cold, and
reading every bone's matrix costs more than reading the few that carry goals."""


@dataclass(frozen=True)
class Measured:
    """The constraints measured on Blender's evaluated pose.

    Attributes:
        residuals: Per enabled constraint, √P on Blender's pose (the solver's units).
        diverging: Per bone whose evaluated pose differs first from Reach's (on an
            effector's line of ancestors), why; empty when the two agree.
        agree: Whether every residual on Blender's pose is Reach's model's.
    """

    residuals: dict[str, float]
    diverging: dict[str, str]
    agree: bool = True


def measure(
    obj: Any, setup: Setup, theta: Array, model: dict[str, float], slack: float = 0.0
) -> Measured:
    """Measure every enabled constraint on the evaluated pose, after the pose is written.

    Every bone's evaluated matrix is read at once and every goal measured in one batch
    (the problem's stacked goals), as the solver measures its own.

    Args:
        obj: The armature object (its pose written and the view layer updated).
        setup: The problem solved.
        theta: The pose written.
        model: Per constraint, √P on Reach's model (to compare with).
        slack: A difference (world units) beyond rounding that still agrees: bones the
            write left that far off, knowingly (their ends, and a point one bone length
            along x and z); an effector away from its carrier's head may be off by that
            times its lever (:attr:`_Plan.lever`), and agrees within that.
    """
    world = setup.world(obj)
    plan = _plan(obj, setup, None)
    matrices = None
    if plan.massed or SPARSE * len(plan.names) > len(plan.rows):
        matrices, plan = _every(obj, setup)
    leaves = setup.problem.leaves
    if plan.placed.size:  # each effector carried by its bone's frame, at once
        if matrices is None:
            bones = obj.pose.bones
            frames = world @ np.array([bones[name].matrix for name in plan.names], np.float64)
        else:
            frames = world @ matrices[plan.carriers]
        if plan.twinned:
            frames = frames @ plan.offsets
    if plan.pointwise:  # position goals read each effector's point alone
        points = (frames[:, :3, :3] @ plan.local[:, 0, :, None])[:, :, 0] + frames[:, :3, 3]
        x = y = points  # (read by no goal)
    elif not plan.massed:
        turned = plan.local @ frames[:, :3, :3].transpose(0, 2, 1)
        points, x, y = turned[:, 0], _unit(turned[:, 1]), _unit(turned[:, 2])
        points += frames[:, :3, 3]
    else:
        points, x, y = np.zeros((3, len(leaves), 3))
        if plan.placed.size:
            turned = plan.local @ frames[:, :3, :3].transpose(0, 2, 1)
            points[plan.placed] = turned[:, 0] + frames[:, :3, 3]
            x[plan.placed], y[plan.placed] = _unit(turned[:, 1]), _unit(turned[:, 2])
        assert matrices is not None  # a centre of mass reads every bone (not sparse)
        for centre, members in plan.centres:  # balance: the parts' mean, world axes
            frames = matrices[centre.carriers] @ centre.offsets
            parts = (frames[:, :3, :3] @ centre.local[:, :, None])[:, :, 0] + frames[:, :3, 3]
            points[members] = world[:3, :3] @ (centre.shares @ parts) + world[:3, 3]
            x[members], y[members] = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    values = setup.problem.potentials_at(points, x, y)
    residuals = {
        name: math.sqrt(max(float(value), 0.0))
        for name, value in zip(setup.names, values.tolist(), strict=True)
    }
    size = max(1.0, setup.problem.longest_chain)
    allowed = AGREE * size + slack * plan.lever
    agree = all(abs(residuals[n] - model[n]) <= allowed for n in setup.names)
    diverging = {} if agree else diverging_bones(obj, setup, theta)
    if not agree:
        if matrices is None:
            matrices, plan = _every(obj, setup)
        for bone, twin in setup.twins.items():
            row = plan.rows[bone]
            if _differs(world, matrices[row], plan.carrier(matrices, bone), size):
                diverging[twin[0]] = (
                    f"it does not follow '{bone}', which Reach poses in its place: the rig "
                    "poses it from other controls (a limb switched to IK, or a control set in "
                    "Figure > Moves With that does not move it)"
                )
    return Measured(residuals, diverging, agree)


def _every(obj: Any, setup: Setup) -> tuple[Array, _Plan]:
    """Every pose bone's evaluated matrix, and the plan for that many bones."""
    matrices = pose_matrices(obj)
    return matrices, _plan(obj, setup, len(matrices))


def _unit(vectors: Array) -> Array:
    """Each row over its length (a scaled bone scales its axes; a zero one stays zero)."""
    unit: Array = vectors / np.maximum(np.sqrt((vectors * vectors).sum(axis=1)), 1e-300)[:, None]
    return unit


@dataclass(frozen=True)
class _Centre:
    """Where :func:`measure` finds a centre of mass's parts among the evaluated matrices.

    Attributes:
        carriers: Each part's carrier's row (its bone's, or its twin's).
        offsets: The part's bone frame in its carrier's (identity for its own), (p, 4, 4).
        local: Each part's mass point in its bone's frame, (p, 3).
        shares: Each part's share of the mass, (p,): they sum to 1, so the mean of the
            parts in armature space, carried by the object's matrix, is the world's.
    """

    carriers: Array
    offsets: Array
    local: Array
    shares: Array


@dataclass(frozen=True)
class _Plan:
    """Where :func:`measure` finds each effector among the evaluated bones' matrices.

    Attributes:
        rows: Each bone's row in ``pose.bones``.
        twins: :attr:`.goals.Setup.twins`.
        placed: The leaves whose effector a bone carries (not a centre of mass).
        carriers: Their carrier's row: the effector bone's, or its twin's.
        names: Their carrier's name.
        offsets: The effector bone's frame in its carrier's (identity for its own).
        twinned: Whether any effector is carried by a twin.
        local: Each placed effector's point, x and y axes in its bone's frame (p, 3, 3).
        massed: The leaves whose effector is a centre of mass.
        centres: Each distinct centre of mass among them and its leaves.
        pointwise: Whether every goal is a position, which reads the effector's point
            alone (a bone carries each).
        lever: The most an effector's point may miss for each unit its carrier's ends
            and axis points miss: the miss of a point d from the head of a bone of
            length l is within the head's plus 2·√3·d/l times the axis points' (a
            bone's frame is affine in its four points).
    """

    rows: dict[str, int]
    twins: dict[str, tuple[str, Array]]
    placed: Array
    carriers: Array
    names: list[str]
    offsets: Array
    twinned: bool
    local: Array
    massed: list[int]
    centres: list[tuple[_Centre, Any]]
    pointwise: bool
    lever: float

    def carrier(self, matrices: Array, bone: str) -> Array:
        """The evaluated pose matrix (armature space) that carries points of ``bone``'s frame.

        It is the bone's own, or that of the bone standing in for it (its twin, with
        ``bone``'s frame in the twin's frame).
        """
        twin = self.twins.get(bone)
        own: Array = matrices[self.rows[bone if twin is None else twin[0]]]
        return own if twin is None else own @ twin[1]


def _plan(obj: Any, setup: Setup, n_bones: int | None) -> _Plan:
    """:func:`measure`'s plan of ``setup`` for an armature of ``n_bones`` pose bones.

    Made once per problem and kept with it (:attr:`.goals.SetupWork.measure`); None: the
    kept one, whatever its count of bones (made where there is none).
    """
    kept = setup.kept.measure
    if isinstance(kept, _Plan) and (n_bones is None or len(kept.rows) == n_bones):
        return kept
    reader = setup.rig.reader
    if reader is not None and (n_bones is None or reader.n_bones == n_bones):
        rows: dict[str, int] = dict(reader.rows)
    else:
        rows = {name: k for k, name in enumerate(obj.pose.bones.keys())}
    twins = setup.twins
    leaves = setup.problem.leaves
    placed = [k for k, leaf in enumerate(leaves) if not isinstance(leaf.effector, CentreOfMass)]
    bones = [leaves[k].effector.segment for k in placed]
    names = [bone if bone not in twins else twins[bone][0] for bone in bones]
    carriers = [rows[name] for name in names]
    offsets = np.array([twins[bone][1] if bone in twins else np.eye(4) for bone in bones]).reshape(
        -1, 4, 4
    )
    local = np.array(
        [[e.point, e.x_axis, e.y_axis] for e in (leaves[k].effector for k in placed)]
    ).reshape(-1, 3, 3)
    massed = [k for k, leaf in enumerate(leaves) if isinstance(leaf.effector, CentreOfMass)]
    grouped: dict[int, list[int]] = {}
    for k in massed:
        grouped.setdefault(id(leaves[k].effector), []).append(k)
    centres = []
    for members in grouped.values():
        effector = leaves[members[0]].effector
        assert isinstance(effector, CentreOfMass)
        parts = [part for part, _, _ in effector.parts]
        centre = _Centre(
            carriers=np.array([rows[twins[n][0] if n in twins else n] for n in parts], np.intp),
            offsets=np.array([twins[n][1] if n in twins else np.eye(4) for n in parts]),
            local=np.array([at for _, _, at in effector.parts], dtype=np.float64),
            shares=np.array([share for _, share, _ in effector.parts]),
        )
        centres.append((centre, np.array(members, np.intp)))
    plan = _Plan(
        rows=rows,
        twins=twins,
        placed=np.array(placed, np.intp),
        carriers=np.array(carriers, np.intp),
        names=names,
        offsets=offsets,
        twinned=any(bone in twins for bone in bones),
        local=local,
        massed=massed,
        centres=centres,
        pointwise=len(placed) == len(leaves)
        and all(type(leaf.goal) is Position for leaf in leaves),
        lever=_lever(obj, names, offsets, local),
    )
    setup.kept.measure = plan
    return plan


def _lever(obj: Any, carriers: list[str], offsets: Array, local: Array) -> float:
    """:attr:`_Plan.lever` of effectors at ``local`` points, ``offsets`` in ``carriers``."""
    if not carriers:
        return 1.0
    points = (offsets[:, :3, :3] @ local[:, 0, :, None])[:, :, 0] + offsets[:, :3, 3]
    bones = obj.data.bones
    lengths = np.array([max(bones[name].length, 1e-12) for name in carriers])
    reach = np.sqrt((points * points).sum(axis=1)) / lengths
    return 1.0 + 2.0 * math.sqrt(3.0) * float(reach.max())


def pose_matrices(obj: Any) -> Array:
    """Every pose bone's evaluated matrix (armature space), in ``pose.bones`` order, (n, 4, 4)."""
    # Blender keeps matrices column by column.
    flat = channel(obj.pose.bones, "matrix", 16)
    matrices: Array = flat.reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64)
    return matrices


def _differs(world: Array, first: Array, second: Array, size: float) -> bool:
    """Whether two armature-space frames differ beyond :data:`AGREE` or :data:`AGREE_ANGLE`."""
    one, two = world @ first, world @ second
    moved = float(np.linalg.norm(one[:3, 3] - two[:3, 3]))
    return moved > AGREE * size or _angle(one, two) > AGREE_ANGLE


def diverging_bones(obj: Any, setup: Setup, theta: Array) -> dict[str, str]:
    """The bones whose evaluated pose differs from Reach's where their parent's does not.

    Only bones on some effector's line of ancestors count; each gets the likeliest
    reason: its bone constraints, a driver, keyframes, or Blender's own evaluation.
    """
    figure = setup.rig.figure
    model = figure.forward(theta)
    world = setup.world(obj)
    size = max(1.0, setup.problem.longest_chain)
    parents = figure.kinematics.segment_parent
    lines = effector_lines(setup.rig, setup.problem)
    differs: dict[int, bool] = {}
    found: dict[str, str] = {}
    for k in sorted(lines):  # parents come before children in the figure
        name = setup.rig.layout[k].name
        frame = world @ to_numpy(obj.pose.bones[name].matrix)
        moved = float(np.linalg.norm(frame[:3, 3] - model[k][:3, 3]))
        differs[k] = moved > AGREE * size or _angle(frame, model[k]) > AGREE_ANGLE
        parent = int(parents[k])
        if differs[k] and not differs.get(parent, False):
            found[name] = _why(obj, name)
    return found


def _angle(first: Array, second: Array) -> float:
    """The angle [rad] between the rotations of two frames (4, 4) of the same scale."""
    scale = linear_scale(first[:3, :3]) or 1.0
    turn = first[:3, :3] @ second[:3, :3].T / scale**2
    axis = (turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1])
    return math.atan2(0.5 * math.hypot(*axis), 0.5 * (float(np.trace(turn)) - 1.0))


def _why(obj: Any, bone: str) -> str:
    """The likeliest reason Blender poses ``bone`` otherwise than Reach wrote it."""
    pose_bone = obj.pose.bones[bone]
    prefix = f'pose.bones["{bone}"].'
    animation = obj.animation_data
    if animation is not None:  # a driver overrides a channel whatever else acts on it
        for driver in animation.drivers:
            if driver.data_path.startswith(prefix) and driver.data_path.endswith(DRIVEN_CHANNELS):
                return f"a driver on its {driver.data_path[len(prefix) :]}"
    active = [
        c for c in pose_bone.constraints if not getattr(c, "mute", False) and c.influence > 0.0
    ]
    if active:
        kinds = ", ".join(dict.fromkeys(c.type.replace("_", " ").title() for c in active))
        return f"its {kinds} constraint{'s' if len(active) > 1 else ''}"
    if animation is not None:
        action = animation.action
        if action is not None and any(
            c.data_path.startswith(prefix) for c in action_curves(action)
        ):
            return "its keyframes (a frame change puts them back; key the pose or bake)"
    return "Blender's evaluation (Local Location, Child Of, or a parent's setting)"
