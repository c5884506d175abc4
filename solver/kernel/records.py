"""What the kernel's descent functions answer: their statuses, named, and their records.

Each status enumeration names the numbers ``reach_kernel.c`` returns, as its own
``enum``s of the same names do (``RK_`` and the member's name; the kernel's tests read the
C source and check every number).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from .._checks import FloatArray

__all__ = [
    "DescentStatus",
    "DescentStops",
    "GaussNewtonDescent",
    "GaussNewtonSearch",
    "GaussNewtonStart",
    "Quick",
    "SearchStatus",
    "SettleStatus",
    "Settled",
    "StartStatus",
]


class StartStatus(IntEnum):
    """How ``rk_gauss_newton_start`` ended."""

    STARTED = 0
    """H's start and H g are made."""
    NOT_POSITIVE_DEFINITE = 4
    """F's curvature is not positive definite to rounding: Python's start meets it."""


class SearchStatus(IntEnum):
    """How ``rk_gauss_newton_search`` ended."""

    STEP_TAKEN = 0
    """The line search accepted a point."""
    NO_DESCENT = 1
    """−H g is no descent direction."""
    BLOCKED_AT_ONCE = 2
    """A row blocks the step at once (λ_max ≤ 1e-15): it is added without moving."""
    NO_DECREASE = 3
    """The line search found no decrease."""
    ROW_NOT_A_BOUND = 5
    """The row met is no bound while bounds are active: the descent takes the step itself."""


class DescentStatus(IntEnum):
    """How ``rk_gauss_newton_descent`` ended."""

    GENERAL = -1
    """Anything its steps do not cover (a bound left or met, a slower decrease, a
    Kuhn–Tucker point, the iterations spent): the general descent goes on from its end."""
    GOALS_MET = 0
    """The goals are met."""
    TIME_SPENT = 1
    """The time budget is spent."""
    MET_AT_START = 2
    """The goals are met at the start, before any test."""


DESCENT_STATUSES = {status.value: status for status in DescentStatus}
"""Each ``rk_gauss_newton_descent`` return value's status, found without the enum's call."""


class SettleStatus(IntEnum):
    """How ``rk_settle`` ended."""

    GENERAL = -1
    """A normal matrix is not positive definite: the rounds are numpy's from the start."""
    SETTLED = 0
    """A round was kept."""
    UNSETTLED = 1
    """No round was kept: the point is the start."""
    NOT_RUN = -2
    """No round was run (``rk_quick``: its descent did not meet the goals, or no comfort)."""


SETTLE_STATUSES = {status.value: status for status in SettleStatus}
"""Each ``rk_settle`` return value's status, found without the enum's call."""


class Settled(NamedTuple):
    """What ``rk_settle`` found (see :meth:`Kernel.settle`).

    Attributes:
        status: How it ended.
        point: The end.
        value: G/w there.
        gradient: Its gradient.
        comfort: C there.
        evaluations: Objective evaluations.
        iterations: Rounds taken.
    """

    status: SettleStatus
    point: FloatArray
    value: float
    gradient: FloatArray
    comfort: float
    evaluations: int
    iterations: int


class GaussNewtonDescent(NamedTuple):
    """What ``rk_gauss_newton_descent`` found (see :meth:`Kernel.gauss_newton_descent`).

    Attributes:
        status: How it ended.
        point: The last iterate (with :attr:`DescentStatus.GENERAL`, the last an iteration
            reached, before the one the kernel did not take).
        value: G/w there.
        gradient: Its gradient.
        normed: The gradient whose norm was tested last (None: none was).
        evaluations: Objective evaluations to the point, the start's included.
        iterations: Iterations taken to the point.
    """

    status: DescentStatus
    point: FloatArray
    value: float
    gradient: FloatArray
    normed: FloatArray | None
    evaluations: int
    iterations: int


class DescentStops(NamedTuple):
    """Where a kernel descent stops (:meth:`Kernel.gauss_newton_descent`'s arguments).

    Attributes:
        goal_value: G/w at or below which the goals are met.
        tolerance: ε of the Kuhn–Tucker test.
        floor: The test's shares of ‖g‖ and √|G| (:func:`.optimizer.active_set.kkt_floor`).
        drop: The largest share of G an iteration may leave.
        max_iterations: Most iterations.
        seconds: The time budget from now, or None.
    """

    goal_value: float
    tolerance: float
    floor: tuple[float, float]
    drop: float
    max_iterations: int
    seconds: float | None


class Quick(NamedTuple):
    """What ``rk_quick`` found (see :meth:`Kernel.quick`).

    Attributes:
        descent: Its descent's end, as ``rk_gauss_newton_descent`` finds it.
        rounds: Comfort's rounds from there, or None where none ran.
        kept: Where a round was kept, the rows the rounds' end rests on as
            :func:`solver.optimizer.relax._kept_rounds` finds them where they are bounds
            alone without equality rows, or none (their rows, their multipliers, the norm
            of the gradient off them and the equalities), or None where they are others
            (Python's least squares finds them).
    """

    descent: GaussNewtonDescent
    rounds: Settled | None
    kept: tuple[list[int], FloatArray, float] | None


@dataclass(frozen=True)
class GaussNewtonStart:
    """What ``rk_gauss_newton_start`` found (see :meth:`Kernel.gauss_newton_start`).

    Attributes:
        status: How it ended.
        damping: μ of H's start.
        factor: F at the iterate, scaled, (n, k).
        turn: L⁻¹ of H's start, (k, k).
        hg: H g, (n,).
    """

    status: StartStatus
    damping: float
    factor: FloatArray
    turn: FloatArray
    hg: FloatArray


@dataclass(frozen=True)
class GaussNewtonSearch:
    """What ``rk_gauss_newton_search`` found (see :meth:`Kernel.gauss_newton_search`).

    Attributes:
        status: How it ended.
        slope: gᵀs.
        limit: λ_max of the ratio test (inf: no row blocks).
        hit: The row met at λ_max, or −1.
        alpha: The accepted step factor (0: none).
        value: G/w at the accepted point.
        evaluations: Objective evaluations of the line search.
        point: The accepted point.
        gradient: Its gradient.
    """

    status: SearchStatus
    slope: float
    limit: float
    hit: int
    alpha: float
    value: float
    evaluations: int
    point: FloatArray
    gradient: FloatArray
