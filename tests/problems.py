"""Small named figures and problems shared by the solver's tests (and random problems for
the comparison with scipy)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from solver import AnyOf, Constraint, Dof, Effector, Figure, Problem, goals


def _qr_rotation(rng: np.random.Generator) -> np.ndarray:
    """A random rotation by QR; :func:`random_problem`'s draws (and so the iteration
    counts pinned in the tests) depend on it."""
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    if np.linalg.det(q) < 0:
        q[:, 0] *= -1
    return q


def translation(x: float, y: float, z: float) -> np.ndarray:
    """The (4, 4) translation by (x, y, z)."""
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


def three_segment_arm(
    names: Sequence[str] = ("shoulder", "elbow", "hand"), link: float = 0.3
) -> Figure:
    """A three-segment arm along +y: shoulder (x, z rotations), elbow (x), hand (no DOFs).

    Shoulder x in [−1, 1], shoulder z unbounded, elbow x in [0, 2.5]; ``link`` between
    joints. ``names`` renames the three segments.
    """
    shoulder, elbow, hand = names
    offset = translation(0.0, link, 0.0)
    fig = Figure()
    fig.add_segment(shoulder, dofs=[Dof.rotation("x", lower=-1.0, upper=1.0), Dof.rotation("z")])
    fig.add_segment(
        elbow, parent=shoulder, rest=offset, dofs=[Dof.rotation("x", lower=0.0, upper=2.5)]
    )
    fig.add_segment(hand, parent=elbow, rest=offset)
    return fig


def chain_figure() -> Figure:
    """root → upper → lower → hand, each joint one x rotation, 0.5 apart along y; plus a
    branch root → other with a z rotation (the root also translates along x)."""
    offset = translation(0.0, 0.5, 0.0)
    fig = Figure()
    fig.add_segment("root", dofs=[Dof.rotation("z"), Dof.translation("x")])
    fig.add_segment("upper", parent="root", rest=offset, dofs=[Dof.rotation("x")])
    fig.add_segment("lower", parent="upper", rest=offset, dofs=[Dof.rotation("x")])
    fig.add_segment("hand", parent="lower", rest=offset, dofs=[Dof.rotation("x")])
    fig.add_segment("other", parent="root", rest=offset, dofs=[Dof.rotation("z")])
    return fig


def long_chain(segments: int, *, limit: float | None = None, slide_every: int = 0) -> Figure:
    """``segments`` segments 1/segments apart along y, each turning about x, z and y.

    ``limit``: each rotation within ±limit (None: free); ``slide_every``: every such
    segment (from the third) also slides along y, between its first and second turns.
    """
    figure = Figure()
    parent = None
    bounds = {} if limit is None else {"lower": -limit, "upper": limit}
    for k in range(segments):
        rest = np.eye(4)
        rest[1, 3] = 0.0 if k == 0 else 1.0 / segments
        dofs = [Dof.rotation(axis, **bounds) for axis in ("x", "z", "y")]
        if slide_every and k % slide_every == 2:
            dofs.insert(1, Dof.translation("y"))
        figure.add_segment(f"seg{k}", parent, rest, dofs)
        parent = f"seg{k}"
    return figure


def arm_and_head() -> Figure:
    """``upper_arm``, ``forearm``, ``hand`` 0.5 apart (:func:`three_segment_arm`), and a
    second root ``head`` with one rotation about y."""
    fig = three_segment_arm(("upper_arm", "forearm", "hand"), 0.5)
    fig.add_segment("head", dofs=[Dof.rotation("y")])
    return fig


def hand_constraint() -> Constraint:
    """A position goal at the origin for the ``hand`` segment's origin."""
    return Constraint(Effector("hand"), goals.Position((0, 0, 0)))


def hand_problem(fig: Figure | None = None) -> Problem:
    """:func:`arm_and_head` (or ``fig``) with the hand's origin going to (0, 0.5, 0.5)."""
    fig = fig or arm_and_head()
    return Problem(fig, [Constraint(Effector("hand"), goals.Position((0.0, 0.5, 0.5)))])


def planar_arm(lengths: list[float], lower: float = -math.pi, upper: float = math.pi) -> Figure:
    """Links along +Y rotating about Z; segment k's joint sits at the end of link k − 1."""
    fig = Figure()
    parent = None
    for k, _ in enumerate(lengths):
        rest = translation(0.0, lengths[k - 1] if k else 0.0, 0.0)
        name = f"link{k}"
        fig.add_segment(name, parent, rest, [Dof.rotation("z", lower=lower, upper=upper)])
        parent = name
    return fig


def tip(fig: Figure, lengths: list[float]) -> Effector:
    return Effector(f"link{len(lengths) - 1}", (0.0, lengths[-1], 0.0))


def random_problem(seed: int, n_segments: int, n_goals: int) -> tuple[Problem, np.ndarray]:
    """A random tree with bounds, a limit polygon, a joint-group equality and random goals.

    The zero pose is feasible: bounds contain 0, polygons contain the origin and the
    equalities are homogeneous.
    """
    rng = np.random.default_rng(seed)
    fig = Figure()
    names: list[str] = []
    for k in range(n_segments):
        rest = np.eye(4)
        rest[:3, :3] = _qr_rotation(rng)
        rest[:3, 3] = rng.normal(size=3) * 0.3 + (0.0, 0.3, 0.0)
        dofs = []
        for _ in range(int(rng.integers(1, 4))):
            lower = -float(rng.uniform(0.1, 2.0))
            upper = float(rng.uniform(0.1, 2.0))
            if rng.random() < 0.15:
                dofs.append(Dof.translation(rng.normal(size=3), lower=lower / 4, upper=upper / 4))
            else:
                rigidity = float(rng.choice([0.0, 0.0, 0.3, 0.7]))
                dofs.append(
                    Dof.rotation(rng.normal(size=3), lower=lower, upper=upper, rigidity=rigidity)
                )
        parent = names[int(rng.integers(len(names)))] if names else None
        name = f"s{k}"
        fig.add_segment(name, parent, rest, dofs)
        names.append(name)
    two = [s for s in fig.segments if len(s.dofs) >= 2]
    if two:
        seg = two[int(rng.integers(len(two)))]
        sides = int(rng.integers(3, 8))
        radius = float(rng.uniform(0.2, 1.0))
        turn = float(rng.uniform(0, 2 * math.pi))
        angles = turn + 2 * math.pi * np.arange(sides) / sides
        if rng.random() < 0.5:
            angles = angles[::-1]
        fig.add_polygon_limit(
            seg.name, (0, 1), np.c_[radius * np.cos(angles), radius * np.sin(angles)]
        )
    if fig.n_dofs >= 4 and rng.random() < 0.7:
        a, b = rng.choice(len(fig.segments), size=2, replace=False)
        first, second = fig.segments[int(a)], fig.segments[int(b)]
        fig.add_linear_equality(
            {(first.name, 0): 1.0, (second.name, 0): -float(rng.uniform(0.3, 1.5))}
        )
    kinds = [
        lambda p, f: goals.Position(p),
        lambda p, f: goals.Orientation(f[:, 0], f[:, 1]),
        lambda p, f: goals.PositionOrientation(p, f[:, 0], f[:, 1], w_position=0.7, c_dy=0.0),
        lambda p, f: goals.Aim(p + rng.normal(size=3)),
        lambda p, f: goals.Line(p, rng.normal(size=3)),
        lambda p, f: goals.Plane(p, rng.normal(size=3)),
        lambda p, f: goals.HalfSpace(p, rng.normal(size=3)),
    ]
    theta_goal = rng.uniform(fig.lower, fig.upper) * 0.5
    theta_goal = np.where(np.isfinite(theta_goal), theta_goal, 0.0)
    frames = fig.forward(np.zeros(fig.n_dofs) if fig.limits.a_eq.size else theta_goal)
    constraints: list[Constraint | AnyOf] = []
    for _ in range(n_goals):
        seg = fig.segments[int(rng.integers(len(fig.segments)))]
        point = rng.normal(size=3) * 0.2
        frame = frames[seg.index]
        target = frame[:3, :3] @ point + frame[:3, 3] + rng.normal(size=3) * 0.3
        orientation = _qr_rotation(rng)
        goal = kinds[int(rng.integers(len(kinds)))](target, orientation)
        constraints.append(Constraint(Effector(seg.name, point), goal, float(rng.uniform(0.5, 2))))
    if len(constraints) >= 3 and rng.random() < 0.3:
        constraints = [AnyOf(constraints[:2]), *constraints[2:]]
    return Problem(fig, constraints), np.zeros(fig.n_dofs)
