"""Effectors, constraints and disjunctive sets of constraints (Zhao & Badler 1994, §4–5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_array, nonnegative
from .exceptions import SolverInputError
from .goals.base import Goal, orthonormal_pair

__all__ = ["AnyOf", "CentreOfMass", "Constraint", "Effector"]


class Effector:
    """A point and two orthonormal unit vectors fixed in a segment.

    Args:
        segment: Name of the segment the effector is fixed in.
        point: The point r in the segment's frame, shape (3,).
        x_axis: Unit x axis in the segment's frame, shape (3,).
        y_axis: Unit y axis, orthogonal to x, in the segment's frame, shape (3,).

    Raises:
        SolverInputError: For an empty segment name, NaN, or axes that are not orthonormal.
    """

    __slots__ = ("point", "segment", "x_axis", "y_axis")

    def __init__(
        self,
        segment: str,
        point: ArrayLike = (0.0, 0.0, 0.0),
        x_axis: ArrayLike = (1.0, 0.0, 0.0),
        y_axis: ArrayLike = (0.0, 1.0, 0.0),
    ) -> None:
        if not isinstance(segment, str) or not segment:
            raise SolverInputError(f"Effector: segment must be a segment name, got {segment!r}")
        self.segment = segment
        self.point: FloatArray = finite_array(point, f"Effector on {segment!r}: point", (3,))
        self.x_axis, self.y_axis = orthonormal_pair(x_axis, y_axis, f"Effector on {segment!r}")

    def __repr__(self) -> str:
        return f"Effector({self.segment!r}, point={self.point.tolist()})"


class CentreOfMass(Effector):
    """The centre of mass of a figure's segments as an effector: ``Σ mₛ rₛ / Σ mₛ``.

    Each segment with a mass contributes its mass point rₛ (fixed in the segment,
    its origin unless given); the effector's point is their mass-weighted mean and its
    axes are the world's, so it takes the goals on a point alone (position, line, plane,
    half-space): a half-space per edge of a support polygon keeps a figure balanced.

    Args:
        masses: Segment name → mass (any unit, ≥ 0); at least one positive.
        points: Segment name → its mass point in the segment's frame, shape (3,); a
            segment not given has its mass at its origin.

    Attributes:
        parts: ``(segment, share, point)`` per segment with a mass, share = mₛ / Σ m.
        total: Σ m.

    Raises:
        SolverInputError: For no masses, a negative or non-finite mass, a zero total, a
            non-finite point, or a point for a segment with no mass given.
    """

    __slots__ = ("parts", "total")

    def __init__(
        self, masses: Mapping[str, float], points: Mapping[str, ArrayLike] | None = None
    ) -> None:
        if not isinstance(masses, Mapping) or not masses:
            raise SolverInputError(
                "CentreOfMass needs a mapping of segment names to masses, at least one"
            )
        located = dict(points or {})
        for name in located:
            if name not in masses:
                raise SolverInputError(
                    f"CentreOfMass: a point is given for {name!r}, which has no mass",
                    item=name,
                )
        parts: list[tuple[str, float, FloatArray]] = []
        for name, mass in masses.items():
            value = nonnegative(mass, f"CentreOfMass: mass of {name!r}")
            point = finite_array(
                located.get(name, (0.0, 0.0, 0.0)), f"CentreOfMass: point of {name!r}", (3,)
            )
            if value > 0.0:
                parts.append((name, value, point))
        total = sum(mass for _, mass, _ in parts)
        if not parts or total <= 0.0:
            raise SolverInputError(
                "CentreOfMass: the total mass is 0; give the segments positive masses",
                item="masses",
            )
        super().__init__(parts[0][0])
        self.total = float(total)
        self.parts = tuple((name, mass / total, point) for name, mass, point in parts)

    def __repr__(self) -> str:
        return f"CentreOfMass({len(self.parts)} segments, total={self.total:g})"


class Constraint:
    """An effector, a goal, a weight and a joint chain (Zhao & Badler 1994, §4).

    Args:
        effector: The effector the goal acts on.
        goal: The goal's potential.
        weight: w ≥ 0; the constraint contributes ``w · P(e(θ))``.
        chain_start: The segment whose joint starts the chain that moves the effector;
            the chain runs from it down to the effector's segment. ``None``: to the root.
        priority: The constraint's level, 0 the highest: ``"goldfarb"`` (the default),
            ``"lbfgsb"`` and ``"dls"`` solve each level at no cost to the levels above it
            (strict priority); ``"jacobian_transpose"`` weighs every constraint by its
            weight alone.
        pinned: Whether this constraint is a pin (see :func:`solver.pin`):
            ``"goldfarb"``, ``"lbfgsb"`` and ``"dls"`` hold pins exactly, above every
            priority level; ``"jacobian_transpose"`` weighs them as goals.
        name: Optional label used in messages.

    Raises:
        SolverInputError: For a non-effector, a non-goal, a negative or NaN weight, or a
            priority that is not an integer ≥ 0.
    """

    __slots__ = ("chain_start", "effector", "goal", "name", "pinned", "priority", "weight")

    def __init__(
        self,
        effector: Effector,
        goal: Goal,
        weight: float = 1.0,
        chain_start: str | None = None,
        priority: int = 0,
        *,
        pinned: bool = False,
        name: str = "",
    ) -> None:
        label = name or "Constraint"
        if not isinstance(effector, Effector):
            raise SolverInputError(
                f"{label}: effector must be a solver.Effector, got {type(effector).__name__}"
            )
        _check_goal(label, effector, goal)
        self.effector = effector
        self.goal = goal
        self.weight = nonnegative(weight, f"{label} on {effector.segment!r}: weight")
        if chain_start is not None and (not isinstance(chain_start, str) or not chain_start):
            raise SolverInputError(
                f"{label}: chain_start must be a segment name or None, got {chain_start!r}"
            )
        self.chain_start = chain_start
        if (
            isinstance(priority, bool)
            or not isinstance(priority, (int, np.integer))
            or priority < 0
        ):
            raise SolverInputError(f"{label}: priority must be an integer ≥ 0, got {priority!r}")
        self.priority = int(priority)
        self.pinned = bool(pinned)
        self.name = name or f"{type(goal).__name__} on {effector.segment}"

    def with_goal(self, goal: Goal) -> Constraint:
        """The same constraint (effector, weight, chain, priority, pin, name) on ``goal``.

        Only the goal is checked: the rest was when this constraint was made (a drag
        replaces a goal every event).

        Raises:
            SolverInputError: As the constructor, for a goal it would refuse.
        """
        _check_goal(self.name, self.effector, goal)
        other = object.__new__(Constraint)
        for slot in Constraint.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.goal = goal
        return other

    def __repr__(self) -> str:
        extra = f", priority={self.priority}" if self.priority else ""
        return f"Constraint({self.name!r}, weight={self.weight}{extra})"


def _check_goal(label: str, effector: Effector, goal: Goal) -> None:
    """Raise unless ``goal`` is a goal ``effector`` can have (no axes on a centre of mass).

    Raises:
        SolverInputError: Naming ``label`` and the goal's type.
    """
    if not isinstance(goal, Goal):
        raise SolverInputError(
            f"{label}: goal must be one of solver.goals (Position, Orientation, "
            f"PositionOrientation, Aim, Line, Plane, HalfSpace), got {type(goal).__name__}"
        )
    if isinstance(effector, CentreOfMass) and any(goal.curvature()[1:]):
        raise SolverInputError(
            f"{label}: a goal on the centre of mass acts on its point alone (Position, "
            f"Line, Plane, HalfSpace), not on axes; got {type(goal).__name__}",
            item=label,
        )


class AnyOf:
    """A disjunctive set: contributes ``weight · min_j (w_j · G_j)`` (Zhao & Badler 1994).

    Its gradient is that of the member with the smallest weighted potential: e.g. keep
    a point outside a convex polyhedron with one half-space per face.

    Args:
        constraints: The members, at least one; each keeps its own weight.
        weight: w ≥ 0 of the whole set.
        name: Optional label used in messages.

    Raises:
        SolverInputError: For an empty set, a member that is not a Constraint, or a
            negative or NaN weight.
    """

    __slots__ = ("constraints", "name", "weight")

    def __init__(self, constraints: Sequence[Constraint], weight: float = 1.0, *, name: str = ""):
        if isinstance(constraints, Constraint) or not isinstance(constraints, Sequence):
            raise SolverInputError(
                f"AnyOf needs a list of constraints, got {type(constraints).__name__}"
            )
        members = tuple(constraints)
        if not members:
            raise SolverInputError("AnyOf needs at least one constraint")
        for k, member in enumerate(members):
            if not isinstance(member, Constraint):
                raise SolverInputError(
                    f"AnyOf member {k} must be a solver.Constraint, got {type(member).__name__}"
                )
        self.constraints = members
        self.weight = nonnegative(weight, "AnyOf weight")
        self.name = name or f"AnyOf({len(members)})"

    def __repr__(self) -> str:
        return f"AnyOf({list(self.constraints)!r}, weight={self.weight})"
