"""Pins: hold a segment's point (and optionally its orientation) where it is now.

A pin (Greeff, Haber & Seidel 2005) is a constraint whose goal is the pinned point's
current place: a :class:`~solver.goals.Position` goal at the point's world position,
or a :class:`~solver.goals.PositionOrientation` goal that also holds the segment's
axes, flagged ``pinned=True``. How each method honours it:

- ``"goldfarb"`` (the default), ``"lbfgsb"`` and ``"dls"``: the pins are one level above
  all priority levels, met first and then held exactly; the goals move only where the
  pins stay (:mod:`solver.optimizer.levels`; task priority, Baerlocher & Boulic 1998).
- ``"jacobian_transpose"``: a pin is a goal of weight :data:`PIN_WEIGHT` (unless given),
  so it gives way only where the other goals pull harder than that weight; the
  benchmarks measure the drift.

:meth:`solver.Problem.reach_margins` counts pins: a pinned point inside another
constraint's chain becomes that chain's pivot (see :mod:`solver.reach`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._checks import finite_array
from .constraint import Constraint, Effector
from .exceptions import SolverInputError
from .figure import Figure
from .goals import C5, Position, PositionOrientation

__all__ = ["PIN_WEIGHT", "pin"]

PIN_WEIGHT = 100.0
"""Default weight of a pin: what the methods without priorities weigh it by (within the
pins' own level, the methods with them weigh pins against each other by it)."""


def pin(
    figure: Figure,
    theta: ArrayLike,
    segment: str,
    point: ArrayLike = (0.0, 0.0, 0.0),
    *,
    orientation: bool = False,
    chain_start: str | None = None,
    weight: float = PIN_WEIGHT,
    c_d: float = C5,
    name: str = "",
) -> Constraint:
    """A constraint that holds ``segment``'s ``point`` where it is at ``theta``.

    Args:
        figure: The figure.
        theta: The pose the point is pinned at, shape (n_dofs,).
        segment: The pinned segment.
        point: The pinned point in the segment's frame, shape (3,) (a bone's head is the
            origin).
        orientation: Also hold the segment's axes (a position + orientation goal with
            equal shares, its axes weighted by ``c_d``).
        chain_start: The pin's chain start (None: to the root), as for any constraint.
        weight: The pin's weight for the methods without priorities.
        c_d: Weight of the axes when ``orientation`` is set.
        name: Label used in messages (default "Pin on <segment>").

    Returns:
        A :class:`~solver.Constraint` with ``pinned=True`` and priority 0.

    Raises:
        SolverInputError: For an unknown segment, a bad pose or point.
    """
    if not isinstance(figure, Figure):
        raise SolverInputError(f"pin needs a solver.Figure, got {type(figure).__name__}")
    pose = figure.check_theta(theta, "pin: theta")
    local = finite_array(point, f"pin on {segment!r}: point", (3,))
    index = [s.name for s in figure.segments].index(figure.segment(segment).name)
    world = figure.forward(pose)[index]
    place = world[:3, :3] @ local + world[:3, 3]
    columns = world[:3, :3] / np.linalg.norm(world[:3, :3], axis=0)
    effector = Effector(segment, local)
    if orientation:
        goal: Position | PositionOrientation = PositionOrientation(
            place, columns[:, 0], columns[:, 1], w_position=0.5, c_dx=c_d, c_dy=c_d
        )
    else:
        goal = Position(place)
    return Constraint(
        effector, goal, weight, chain_start, 0, pinned=True, name=name or f"Pin on {segment}"
    )
