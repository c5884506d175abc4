"""Seeded feasible starts for restarts: spread over the limits, or near a pose.

Zhao & Badler 1994 run one descent from the user's pose. A descent from rest can end in
a local minimum far from a pose that meets every goal (a hand reaching behind the back
from a T-pose); restarts near the start or the best pose then stay in the same basin.
Two kinds of start, both inside every limit and deterministic for a seeded generator:

- :func:`spread`: starts spread over the whole feasible set. Each variable is
  stratified across the spread starts of one solve (a Latin hypercube: the k-th start
  takes the k-th of ``count`` equal slices of each variable's range, the slices
  shuffled per variable) and uniform within its slice; a bounded variable spans its
  bounds, an unbounded one ``span`` either side of the anchor (a full turn for a
  rotation). The point is made feasible exactly: from a feasible anchor, a walk toward
  it in the null space of the equalities, stopped at the first limit it meets (a
  polygon edge), then a hit-and-run move inside the polytope, three times over.
- :func:`perturb`: a move within a radius of a pose (the best so far), made feasible
  the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray

__all__ = ["Box", "Starts", "latin_slices", "perturb", "spread"]

_WALKS = 3
"""Walks toward the drawn point (each followed by a hit-and-run move) of one spread start."""


@dataclass(frozen=True)
class Box:
    """The range each variable's spread starts are drawn from.

    Attributes:
        low: Shape (n,), finite.
        high: Shape (n,), finite, ≥ ``low``.
    """

    low: FloatArray
    high: FloatArray

    @classmethod
    def around(
        cls, anchor: FloatArray, lower: FloatArray, upper: FloatArray, span: FloatArray
    ) -> Box:
        """The bounds, and ``anchor ± span`` where a variable has no bound.

        Args:
            anchor: Feasible pose, shape (n,).
            lower: Lower bounds (−inf where none), shape (n,).
            upper: Upper bounds (+inf where none), shape (n,).
            span: Half-width where a bound is missing (π for an unscaled rotation, 0 to
                keep a translation at the anchor), shape (n,).
        """
        low = np.where(np.isfinite(lower), lower, np.minimum(anchor - span, upper))
        high = np.where(np.isfinite(upper), upper, np.maximum(anchor + span, lower))
        return cls(low, np.maximum(high, low))


def spread(
    anchor: FloatArray,
    box: Box,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    slices: FloatArray,
    rng: np.random.Generator,
) -> FloatArray:
    """A feasible start drawn from given slices of the box (one Latin-hypercube sample).

    Args:
        anchor: Feasible pose the walk starts from, shape (n,).
        box: The variables' ranges.
        a_eq: Orthonormal equality rows, shape (k, n).
        a_in: Unit inequality rows (``a_in φ ≥ b_in``), shape (m, n); bounds among them.
        b_in: Shape (m,).
        slices: Per variable, the slice to draw from as a fraction pair: the slice
            ``[slices[0, i], slices[1, i]]`` of ``box`` (0 = low, 1 = high), shape (2, n).
        rng: Random generator (seeded by the caller).

    Returns:
        A point that satisfies every limit ``anchor`` satisfies, shape (n,).
    """
    fraction = rng.uniform(slices[0], slices[1])
    target = box.low + fraction * (box.high - box.low)
    reach = float(np.max(box.high - box.low, initial=0.0))
    point = anchor
    for _ in range(_WALKS):
        point = _toward(point, target - point, a_eq, a_in, b_in, 1.0)
        point = _toward(point, rng.standard_normal(len(point)), a_eq, a_in, b_in, reach, rng)
    return point


def latin_slices(count: int, n: int, rng: np.random.Generator) -> FloatArray:
    """Slices of a Latin hypercube over ``n`` variables for ``count`` starts.

    Each variable's range is cut into ``count`` equal slices, dealt to the starts in a
    random order of its own: every slice of every variable goes to exactly one start.

    Returns:
        Shape (count, 2, n): per start, the (low, high) fractions of each variable.
    """
    order = np.argsort(rng.random((count, n)), axis=0).astype(np.float64)
    return np.stack([order / count, (order + 1.0) / count], axis=1)


def perturb(
    phi: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    radius: float,
    rng: np.random.Generator,
) -> FloatArray:
    """A random feasible point near ``phi``.

    Every variable moves by a step uniform in ``[−radius, radius]``, clipped into its
    bounds; the move is projected onto the null space of the equalities and shortened
    where it would cross another limit (a polygon edge). Two hit-and-run moves along
    random directions follow, so that narrow limits do not pin the point.

    Args:
        phi: Feasible start, shape (n,).
        lower: Lower bounds of the variables (−inf where none), shape (n,).
        upper: Upper bounds of the variables (+inf where none), shape (n,).
        a_eq: Orthonormal equality rows, shape (k, n).
        a_in: Unit inequality rows (``a_in φ ≥ b_in``), shape (m, n).
        b_in: Shape (m,).
        radius: Largest move per variable, in φ units ([rad] for unscaled rotations).
        rng: Random generator (seeded by the caller).

    Returns:
        A point that satisfies every limit ``phi`` satisfies, shape (n,).
    """
    n = int(phi.shape[0])
    target = np.clip(phi + rng.uniform(-radius, radius, n), lower, upper)
    point = _toward(phi, target - phi, a_eq, a_in, b_in, 1.0)
    for _ in range(2):
        point = _toward(point, rng.standard_normal(n), a_eq, a_in, b_in, radius, rng)
    return point


def _toward(
    point: FloatArray,
    direction: FloatArray,
    a_eq: FloatArray,
    a_in: FloatArray,
    b_in: FloatArray,
    reach: float,
    rng: np.random.Generator | None = None,
) -> FloatArray:
    """Move along ``direction`` (in the equalities' null space) as far as the limits allow.

    Without ``rng`` the move goes to ``reach`` times the direction, shortened at the
    first limit; with ``rng`` the direction is normalised and the step drawn uniformly
    from the feasible interval within ``[−reach, reach]`` (a hit-and-run move).
    """
    if a_eq.shape[0]:
        direction = direction - a_eq.T @ (a_eq @ direction)
    norm = float(np.linalg.norm(direction))
    if norm < 1e-12:
        return point
    if rng is not None:
        direction = direction / norm
    rates = a_in @ direction
    slack = np.maximum(a_in @ point - b_in, 0.0)
    low, high = (-reach, reach) if rng is not None else (0.0, reach)
    going_down = rates < -1e-12
    going_up = rates > 1e-12
    if np.any(going_down):
        high = min(high, float(np.min(slack[going_down] / -rates[going_down])))
    if np.any(going_up) and rng is not None:
        low = max(low, float(np.max(-slack[going_up] / rates[going_up])))
    if high <= low:
        return point
    step = rng.uniform(low, high) if rng is not None else high
    moved: FloatArray = point + step * direction
    return moved


class Starts:
    """The restarts' starts of one solve: spread starts and perturbations of the best.

    Restart k (from 1) alternates: odd k take the next spread start (stratified over
    the ``(restarts + 1) // 2`` spread starts of the solve, see :func:`spread`), even k
    a :func:`perturb` of the best pose so far within a radius of 0.5·k/2 (at most π).
    Spread starts find other basins; perturbations of the best refine the basin found.
    Everything is drawn from one generator seeded once: the same seed gives the same
    starts.
    """

    def __init__(
        self,
        anchor: FloatArray,
        box: Box,
        limits: tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray],
        restarts: int,
        seed: int,
    ) -> None:
        """Plan the starts.

        Args:
            anchor: The solve's feasible start pose, shape (n,).
            box: The variables' ranges for spread starts.
            limits: ``(lower, upper, a_eq, a_in, b_in)`` of the variables.
            restarts: Most restarts of the solve.
            seed: Seed of every draw.
        """
        self.anchor, self.box, self.limits = anchor, box, limits
        self.rng = np.random.default_rng(seed)
        self.slices = latin_slices(max((restarts + 1) // 2, 1), len(anchor), self.rng)

    def start(self, attempt: int, best: FloatArray) -> FloatArray:
        """The start of restart ``attempt`` (1, 2, …), given the best pose so far."""
        lower, upper, a_eq, a_in, b_in = self.limits
        if attempt % 2 == 1:
            slices = self.slices[(attempt // 2) % len(self.slices)]
            return spread(self.anchor, self.box, a_eq, a_in, b_in, slices, self.rng)
        radius = min(np.pi, 0.5 * (attempt // 2))
        return perturb(best, lower, upper, a_eq, a_in, b_in, radius, self.rng)
