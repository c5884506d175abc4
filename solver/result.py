"""The result of :func:`solver.solve`: how a solve ended and what it found."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

import numpy as np

from ._checks import FloatArray, copied_with

__all__ = ["MESSAGES", "Descent", "Outcome", "SolveResult", "Status"]


class Status(StrEnum):
    """How a descent or a solve ended; equal to its value (``Status.CONVERGED == "converged"``)."""

    CONVERGED = "converged"
    """A Kuhn–Tucker point, or every goal met to ``goal_tolerance``."""
    TIME_LIMIT = "time_limit"
    """The time limit ran out."""
    MAX_ITERATIONS = "max_iterations"
    """The iteration limit ran out."""
    STALLED = "stalled"
    """The line search found no decrease away from a Kuhn–Tucker point."""

    def message(self, detail: str = "") -> str:
        """The human-readable reason: :data:`MESSAGES` of this status, then ``detail``."""
        return f"{MESSAGES[self]}: {detail}" if detail else MESSAGES[self]


class Outcome(StrEnum):
    """What a solve found, in the user's terms (``Outcome.MET == "met"``).

    :class:`Status` says why the descents stopped; the outcome says what the pose is
    worth, and claims "not reachable" only with a proof.
    """

    MET = "met"
    """G_all is at most ``goal_tolerance`` (or ``tolerance``): every goal is met."""
    NOT_REACHABLE = "not_reachable"
    """Some goal lies beyond its chain's reach, proved by a negative
    :meth:`Problem.reach_margins <solver.Problem.reach_margins>` (see ``unreachable``);
    the pose is a Kuhn–Tucker point as close as the figure allows nearby."""
    LOCAL_MINIMUM = "local_minimum"
    """A Kuhn–Tucker point with goals unmet and no proof that they cannot be met: a
    pose elsewhere may meet them (more restarts may find it). ``held_by`` names the
    limits that hold it here."""
    UNFINISHED = "unfinished"
    """The time or iteration limit ran out, or the line search stalled, with goals
    unmet: solving on may get closer."""


MESSAGES: dict[Status, str] = {
    Status.CONVERGED: "converged",
    Status.TIME_LIMIT: "time limit reached; returning the best iterate",
    Status.MAX_ITERATIONS: "iteration limit reached",
    Status.STALLED: "stalled: the line search found no decrease; not a Kuhn–Tucker point",
}
"""The headline of every status's message (details follow it after a colon)."""


@dataclass(frozen=True)
class Descent:
    """Outcome of one local descent.

    Attributes:
        phi: Final iterate, shape (n,).
        value: G at phi.
        gradient: ∇G at phi, shape (n,).
        status: How the descent ended.
        message: Human-readable reason (:meth:`Status.message`).
        iterations: Accepted steps plus active-set changes.
        evaluations: Objective evaluations.
        active: Active inequality rows at the end.
        projected_gradient: ‖Pg‖ at the end.
        multipliers: Inequality multipliers of ``active``.
        readds: Limits added back to the active set with G no lower than when they
            were dropped: the signature of a cycle (0 in every descent measured).
        levels: Each priority level's G over its own smallest weight, highest first,
            when the descent solved the levels in turn (empty otherwise): descents are
            then ranked level by level.
    """

    phi: FloatArray
    value: float
    gradient: FloatArray
    status: Status
    message: str
    iterations: int
    evaluations: int
    active: tuple[int, ...]
    projected_gradient: float
    multipliers: FloatArray
    readds: int = 0
    levels: tuple[float, ...] = ()

    def revised(self, **changes: Any) -> Descent:
        """This descent with the fields ``changes`` names changed, as ``dataclasses.replace``.

        Made by :func:`._checks.copied_with` (a warm drag event revises its descent a few
        times).

        Raises:
            TypeError: For a name that is no field.
        """
        unknown = changes.keys() - _DESCENT_FIELDS
        if unknown:
            raise TypeError(f"Descent has no field {sorted(unknown)[0]!r}")
        return copied_with(self, **changes)


_DESCENT_FIELDS = frozenset(known.name for known in fields(Descent))


RESTART_GAIN = 1e-8
"""Share of G a restart's pose must lower it by to replace the best pose so far. A
smaller gain is rounding, not a better pose, and a pose reached from elsewhere may be
far from the start (a torso turned half round for 1e-13 of G)."""


def ranks(new: Descent, best: Descent, floor: float = 0.0) -> int:
    """+1 when ``new`` is the better descent, −1 when worse, 0 when they tie.

    By G, or level by level when both solved the same priority levels (the highest level
    that differs decides). A difference within :data:`RESTART_GAIN` of the value, or of
    two values both at most ``floor`` (met), is none.
    """
    pairs = (
        zip(new.levels, best.levels, strict=True)
        if new.levels and len(new.levels) == len(best.levels)
        else ((new.value, best.value),)
    )
    for a, b in pairs:
        if max(a, b) <= floor or abs(a - b) <= RESTART_GAIN * abs(b):
            continue
        return 1 if a < b else -1
    return 0


def replaces(new: Descent, best: Descent, start: FloatArray, floor: float = 0.0) -> bool:
    """Whether a restart's descent ``new`` replaces the best one so far.

    It does when it ranks better (:func:`ranks`); when they tie, when it ends nearer the
    start (φ, the solve's start pose), so equal poses stay near it.
    """
    rank = ranks(new, best, floor)
    if rank:
        return rank > 0
    return float(np.linalg.norm(new.phi - start)) < float(np.linalg.norm(best.phi - start))


@dataclass(frozen=True)
class SolveResult:
    """What :func:`solver.solve` found, in scipy's vocabulary plus IK extras.

    Attributes:
        x: Joint values θ, shape (n_dofs,); never violates a limit.
        fun: G_all at ``x``.
        jac: ∂G_all/∂θ at ``x``, shape (n_dofs,), 0 for fixed DOFs.
        nit: Iterations, over all descents.
        nfev: Objective evaluations, over all descents.
        status: How the solve ended (a :class:`Status`, equal to its string value):
            ``"converged"`` (a Kuhn–Tucker point; the goals may still be unreachable,
            see ``fun``), ``"time_limit"``, ``"max_iterations"`` or ``"stalled"``.
        message: Human-readable reason (:meth:`Status.message`).
        active_set: Labels of the joint limits active at ``x``.
        active: Rows of ``figure.limits`` (inequalities) active at ``x``.
        max_violation: Largest violation at ``x`` of the limits the solve holds
            (``Problem.moving_limits``), ≤ 1e-9.
        projected_gradient: ‖Pg‖ in the solver's scaled variables at ``x``.
        elapsed: Wall time [s].
        restarts: Restarts run after the first descent.
        outcome: What the pose is worth (:class:`Outcome`): met, not reachable (proved),
            a local minimum, or unfinished.
        unreachable: Indices of the constraints (in ``Problem.constraints``) proved out
            of reach: their :meth:`~solver.Problem.reach_margins` are negative.
        held_by: Labels of the active limits with positive multipliers at ``x``: the
            limits that stop the goals from coming closer here.
        readds: Over all descents, limits added back to the active set with G no
            lower than when they were dropped (a cycle's signature: dropping and adding
            one limit over and over); 0 for methods without an active set.
    """

    x: FloatArray = field(repr=False)
    fun: float
    jac: FloatArray = field(repr=False)
    nit: int
    nfev: int
    status: Status
    message: str
    active_set: tuple[str, ...]
    active: tuple[int, ...]
    max_violation: float
    projected_gradient: float
    elapsed: float
    restarts: int
    outcome: Outcome
    unreachable: tuple[int, ...]
    held_by: tuple[str, ...]
    readds: int = 0

    @property
    def success(self) -> bool:
        """True when the solver stopped at a Kuhn–Tucker point."""
        return self.status is Status.CONVERGED

    @property
    def theta(self) -> FloatArray:
        """Alias of :attr:`x`."""
        return self.x

    @property
    def objective(self) -> float:
        """Alias of :attr:`fun`."""
        return self.fun

    @property
    def iterations(self) -> int:
        """Alias of :attr:`nit`."""
        return self.nit
