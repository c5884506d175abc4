"""Straight limbs bend: a start off the bounds where the goals pull at second order only.

A straight knee or elbow on its hinge bound is a singular start. Bending it moves the
limb's end across the limb, not along it, so while the goals are unmet the gradient
along that DOF is zero: the first-order tests of every descent keep the DOF on its
bound, and the descent folds the joints above instead (a figure whose hips are lowered
bends at the waist; a straight arm reaching nearer stalls short of its goal). Where the
goals are unmet at the start, each variable on a bound (and in no equality) whose
gradient is flat starts :data:`BEND` inside it: the descent then sees which way the
limb bends, and straightens it again where that is better.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import FloatArray
from .space import ReducedSpace

__all__ = ["BEND", "FLAT", "bent"]

BEND = 0.05
"""How far inside its bound a flat variable starts [rad, or length units of a slide]."""
FLAT = 1e-6
"""A gradient entry at most this share of the largest (or of √G) is flat."""
_ON = 1e-12
"""A variable within this of a bound is on it."""

Objective = Callable[[FloatArray], tuple[float, FloatArray]]


def bent(objective: Objective, space: ReducedSpace, phi: FloatArray, met: float) -> FloatArray:
    """The start φ with its flat variables on bounds moved :data:`BEND` inside them.

    Args:
        objective: φ ↦ (G / w, its gradient).
        space: The reduced space (bounds, equality and limit rows).
        phi: The feasible start.
        met: G / w at most this meets the goals: nothing moves then.

    Returns:
        ``phi`` itself where nothing moves, else a new feasible start.
    """
    low = phi <= space.lower + _ON
    high = phi >= space.upper - _ON
    on = (low | high) & ~np.any(space.a_eq != 0.0, axis=0)
    if not np.any(on):
        return phi
    value, gradient = objective(phi)
    if value <= met:
        return phi
    # against the largest entry, or √G where every entry vanishes (a goal straight ahead)
    size = max(float(np.max(np.abs(gradient), initial=0.0)), float(np.sqrt(value)))
    flat = on & (np.abs(gradient) <= FLAT * size)
    if not np.any(flat):
        return phi
    room = 0.5 * (space.upper - space.lower)
    step = np.minimum(BEND / space.scale, np.where(np.isfinite(room), room, np.inf))
    moved = phi.copy()
    moved[flat & low] += step[flat & low]
    moved[flat & high & ~low] -= step[flat & high & ~low]
    if np.any(space.rows_in @ moved - space.b_in < -_ON):  # a polygon edge in the way
        return phi
    return moved
