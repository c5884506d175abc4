"""Where each effector can possibly be: a ball around its chain's fixed pivot.

The certificate behind "not reachable". Only the problem's variables move; the highest
segment that holds a variable of an effector's line of ancestors turns about a pivot
that nothing moves (its parent's frame times its rest transform). Rotations keep the
distances between successive joints, so the effector point stays within the sum of
those distances of the pivot, measured with every variable translation at 0; a
translation DOF then adds at most its largest excursion, max(|lower|, |upper|). The
ball depends on the fixed DOFs alone, not on the pose of the variables. Any target
farther than that is out of reach whatever the joint limits say, and
the joint limits can only shrink the reachable set further. A ball is an outer bound:
a target inside it may still be out of reach (an inner hole, a limit).

The reachable-space test of Phillips, Zhao & Badler 1990 and Baerlocher & Boulic
2004, reduced to what can be proved cheaply on every drag event.

Given what is pinned (Greeff, Haber & Seidel 2005, "Reachable space": an elbow pinned
in space makes the forearm's length the hand's reach). A pin holds point P of segment
s at its target t. If s lies on the moving part of an effector's line of ancestors,
the effector point r is rigidly linked to P through the joints below s: with
o_1, …, o_k the origins of the segments from s's child down to the effector's
segment, ``‖r − P‖ ≤ ‖P − o_1‖ + Σ ‖o_{j+1} − o_j‖ + ‖r − o_k‖`` (each term is a
distance between two points of one rigid segment, unchanged by rotations; a
translation DOF below s adds its range, as above). So while the pin holds, r stays
in the ball of that radius about t: a tighter outer bound whenever the pin sits
below the chain's pivot. It proves "out of reach" for a method that holds pins
exactly (``"dls"``), and says what is out of reach "given the pins" for the others.

The same balls bound how far a descent need look: :meth:`Reach.within` moves every
target beyond :data:`FAR_REACH` times its ball onto that sphere, so that a goal a
billion metres out does not outweigh a met goal until its term falls below rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._checks import BoolArray, FloatArray, IntArray
from .constraint import Constraint
from .figure import Figure
from .goals.base import Goal
from .goals.orientation import PositionOrientation
from .goals.position import Position
from .rotations import linear_scale

__all__ = ["FAR_REACH", "Reach", "ReachChains", "pin_balls", "reach_balls"]

FAR_REACH = 2.0
"""Targets farther than this many times their chain's reach from its pivot are moved in."""


@dataclass(frozen=True)
class ReachChains:
    """What the balls need from the figure and the variables alone (built once).

    Attributes:
        pivots: Per leaf, the highest segment holding one of its variables, or −1 when
            no variable moves the effector.
        paths: Per leaf, the segments from the effector's up to that highest one.
        translations: Per leaf, the variable translation DOFs that move the effector.
    """

    pivots: IntArray
    paths: tuple[IntArray, ...]
    translations: tuple[IntArray, ...]

    @classmethod
    def build(cls, figure: Figure, variable_mask: BoolArray, effectors: IntArray) -> ReachChains:
        """Each leaf's pivot segment, chain and variable translations.

        Args:
            figure: The figure.
            variable_mask: Whether each DOF is a variable, shape (n_dofs,).
            effectors: Each leaf's effector segment, shape (m,).
        """
        kinematics = figure.kinematics
        parents = kinematics.segment_parent
        holds = np.zeros(kinematics.n_segments, dtype=bool)
        for k, segment in enumerate(figure.segments):
            holds[k] = bool(np.any(variable_mask[list(segment.dof_indices)]))
        pivots = np.full(len(effectors), -1, dtype=np.intp)
        paths: list[IntArray] = []
        translations: list[IntArray] = []
        for i, effector in enumerate(effectors):
            line = [int(effector)]
            while parents[line[-1]] >= 0:
                line.append(int(parents[line[-1]]))
            held = [depth for depth, k in enumerate(line) if holds[k]]
            top = held[-1] if held else -1
            pivots[i] = line[top] if held else -1
            paths.append(np.array(line[: top + 1], dtype=np.intp))
            moving = variable_mask & kinematics.moves[effector] & ~kinematics.dof_rotation
            translations.append(np.flatnonzero(moving))
        return cls(pivots, tuple(paths), tuple(translations))


def reach_balls(
    figure: Figure, chains: ReachChains, world: FloatArray, points: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The ball each leaf's effector point stays in, whatever its variables do.

    Args:
        figure: The figure.
        chains: From :meth:`ReachChains.build` for the same variables.
        world: World frames of the pose (from :meth:`Kinematics.frames`, with the
            roots' parent last), shape (n_segments + 1, 4, 4), every variable
            translation at 0.
        points: The effector points at that pose, shape (m, 3).

    Returns:
        ``(centres, radii)``, shapes (m, 3) and (m,); a radius is +inf when a variable
        translation has no bound, 0 when nothing moves the effector (the centre is then
        the effector point itself).
    """
    m = points.shape[0]
    centres = points.copy()
    radii = np.zeros(m)
    origins = world[:, :3, 3]
    span = np.maximum(np.abs(figure.lower), np.abs(figure.upper))  # inf when unbounded
    for i in range(m):
        pivot = int(chains.pivots[i])
        if pivot < 0:
            continue
        segment = figure.segments[pivot]
        parent = int(figure.kinematics.segment_parent[pivot])
        centres[i] = (world[parent] @ segment.rest)[:3, 3]
        path = chains.paths[i]
        joints = np.concatenate((centres[i][None], origins[path[::-1]], points[i][None]))
        length = float(np.sqrt(((joints[1:] - joints[:-1]) ** 2).sum(axis=1)).sum())
        moving = chains.translations[i]
        if moving.size:
            scale = _translation_scale(world, path)
            length += float(span[moving].sum()) * scale
        radii[i] = length
    return centres, radii


def _translation_scale(world: FloatArray, path: IntArray) -> float:
    """The largest length scale of the frames along ``path`` (1 without scaled rests)."""
    columns = world[path, :3, :3]
    return max(1.0, float(np.sqrt((columns**2).sum(axis=1)).max()))


def pin_balls(
    figure: Figure,
    chains: ReachChains,
    world: FloatArray,
    points: FloatArray,
    effectors: IntArray,
    pins: dict[int, FloatArray],
) -> list[tuple[int, FloatArray, float]]:
    """The balls the pins confine other leaves' effectors to (see the module).

    Args:
        figure: The figure.
        chains: From :meth:`ReachChains.build`.
        world: World frames of the pose, shape (n_segments + 1, 4, 4), every variable
            translation at 0 (as for :func:`reach_balls`).
        points: The effector points at that pose, shape (m, 3).
        effectors: Each leaf's effector segment, shape (m,).
        pins: Target point by leaf index of each position pin.

    Returns:
        ``(leaf, centre, radius)`` per leaf and pin on its moving chain.
    """
    balls: list[tuple[int, FloatArray, float]] = []
    if not pins:
        return balls
    origins = world[:, :3, 3]
    segment_of = np.empty(figure.n_dofs, np.intp)
    for k, part in enumerate(figure.segments):
        segment_of[list(part.dof_indices)] = k
    span = np.maximum(np.abs(figure.lower), np.abs(figure.upper))  # as in reach_balls
    for i in range(points.shape[0]):
        path = [int(k) for k in chains.paths[i]]
        for j, target in pins.items():
            pinned = int(effectors[j])
            if j == i or pinned not in path:
                continue
            below = path[: path.index(pinned)]
            joints = np.concatenate((points[j][None], origins[below[::-1]], points[i][None]))
            radius = float(np.sqrt(((joints[1:] - joints[:-1]) ** 2).sum(axis=1)).sum())
            moving = [d for d in chains.translations[i] if int(segment_of[d]) in below]
            if moving:
                radius += float(span[moving].sum()) * _translation_scale(world, chains.paths[i])
            balls.append((i, target, radius))
    return balls


class Reach:
    """The reach proofs of one problem's effectors: their balls, margins and far targets.

    Built from what the goals do not change (the figure, the variables, the effectors),
    so one serves every problem :meth:`Problem.with_goals <solver.Problem.with_goals>`
    makes from the same one; the goals come with each question.

    Args:
        figure: The figure.
        variable_mask: Whether each DOF is a variable, shape (n_dofs,).
        effectors: Each leaf's effector segment, shape (m,).
        local: Each leaf's effector point (and axes) as columns in its segment's frame,
            shape (m, 4, k), the point first (as :class:`solver.Problem` keeps them).
    """

    def __init__(
        self, figure: Figure, variable_mask: BoolArray, effectors: IntArray, local: FloatArray
    ) -> None:
        self.figure = figure
        self.chains = ReachChains.build(figure, variable_mask, effectors)
        self._effectors = effectors
        self._local = local
        variables = np.flatnonzero(variable_mask)
        self._fixed = ~variable_mask
        self._translations = variables[~figure.kinematics.dof_rotation[variables]]
        self._last: tuple[bytes, FloatArray, FloatArray] | None = None

    def on(self, figure: Figure, motion: FloatArray, scale: float | None = None) -> Reach:
        """The same proofs on ``figure``, this one's figure moved as a whole by ``motion``.

        The chains, pivots and variable translations depend on the segments and the
        variables alone, which a motion keeps, so they are shared; the last balls
        measured are moved along (centres by the motion, radii by its scale), so a bake
        of an armature keyed along a path does not measure them again on every frame.

        Args:
            figure: This figure moved (:meth:`Figure.moved <solver.Figure.moved>`).
            motion: The similarity that moved it (:meth:`Figure.motion_to
                <solver.Figure.motion_to>`), (4, 4).
            scale: Its uniform scale, where known (else measured).
        """
        other = object.__new__(type(self))  # a shallow copy, as copy.copy makes it
        other.__dict__.update(self.__dict__)
        other.figure = figure
        other._last = None
        if self._last is not None:
            key, centres, radii = self._last
            moved_centres = centres @ motion[:3, :3].T + motion[:3, 3]
            moved_radii = radii * (linear_scale(motion[:3, :3]) if scale is None else scale)
            moved_centres.setflags(write=False)
            moved_radii.setflags(write=False)
            other._last = (key, moved_centres, moved_radii)
        return other

    def balls(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The ball each effector point stays in (:func:`reach_balls`), read-only.

        Only the fixed DOFs of ``theta`` count: the balls are measured with every
        variable translation at 0. The last balls are kept (a drag's events, whose
        fixed DOFs stay put, measure them once).
        """
        key = np.asarray(theta, dtype=np.float64)[self._fixed].tobytes()
        if self._last is not None and self._last[0] == key:
            return self._last[1], self._last[2]
        centres, radii = reach_balls(self.figure, self.chains, *self._pose(theta))
        centres.setflags(write=False)
        radii.setflags(write=False)
        self._last = (key, centres, radii)
        return centres, radii

    def leaf_margins(
        self,
        theta: FloatArray,
        leaves: Sequence[Constraint],
        massed: BoolArray | None,
        *,
        pins: bool = True,
    ) -> FloatArray:
        """:meth:`margins` of ``leaves``' goals, +inf for a centre of mass, shape (m,).

        ``massed``: whether each leaf's effector is a centre of mass (None: none is),
        whose reach is no ball about a pivot, so nothing is proved out of it.
        """
        goals = [leaf.goal for leaf in leaves]
        pinned = [leaf.pinned for leaf in leaves]
        margins = self.margins(theta, goals, pinned, pins=pins)
        return margins if massed is None else np.where(massed, np.inf, margins)

    def margins(
        self, theta: FloatArray, goals: Sequence[Goal], pinned: Sequence[bool], *, pins: bool
    ) -> FloatArray:
        """Each leaf's reach margin: the smallest over its chain's ball and its pins' balls.

        Args:
            theta: Joint values, shape (n_dofs,), already checked.
            goals: Each leaf's goal.
            pinned: Whether each leaf is a pin (:func:`solver.pin`).
            pins: Count the pins' balls.

        Returns:
            Shape (m,): how deep each goal's target set enters the smallest ball, in
            length units (negative: out of reach).
        """
        centres, radii = self.balls(theta)
        triples = zip(goals, centres, radii, strict=True)
        result = np.array([goal.reach_margin(c, r) for goal, c, r in triples])
        targets: dict[int, FloatArray] = {}
        for j, (goal, held) in enumerate(zip(goals, pinned, strict=True)):
            placed = isinstance(goal, PositionOrientation) and goal.w_position > 0
            if pins and held and (isinstance(goal, Position) or placed):
                targets[j] = goal.point  # type: ignore[attr-defined]
        if not targets:
            return result
        world, points = self._pose(theta)
        ring = pin_balls(self.figure, self.chains, world, points, self._effectors, targets)
        for i, centre, radius in ring:
            result[i] = min(result[i], goals[i].reach_margin(centre, radius))
        return result

    def within(
        self, theta: FloatArray, goals: Sequence[Goal], targets: FloatArray | None = None
    ) -> dict[int, Goal]:
        """The goals to move in: each whose target set lies beyond :data:`FAR_REACH` balls.

        The ball of each leaf (:meth:`balls`) scales by :data:`FAR_REACH`; such a goal
        moves straight toward the centre onto it (:meth:`Goal.within
        <solver.goals.Goal.within>`). Returns the moved goals by leaf index.

        ``targets``: every goal's point (m, 3) when each is a single point; the goals
        well inside their balls are then passed over at once.
        """
        centres, radii = self.balls(theta)
        moved: dict[int, Goal] = {}
        considered = range(len(goals))
        if targets is not None:  # only the points not well inside their spheres are asked
            offset = targets - centres
            distance = np.sqrt((offset * offset).sum(axis=1))
            outside = ~(distance < (1.0 - 1e-9) * FAR_REACH * radii)
            considered = np.flatnonzero(outside).tolist() if outside.any() else []
        for j in considered:
            goal, radius = goals[j], radii[j]
            if np.isfinite(radius):
                near = goal.within(centres[j], FAR_REACH * float(radius))
                if near is not goal:
                    moved[j] = near
        return moved

    def _pose(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """World frames and effector points with every variable translation at 0."""
        posed = np.array(theta, dtype=np.float64)
        posed[self._translations] = 0.0
        world = self.figure.kinematics.world(posed)
        points = (world[self._effectors] @ self._local)[:, :3, 0]
        return world, points
