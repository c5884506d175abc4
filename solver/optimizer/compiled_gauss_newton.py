"""Goldfarb's Gauss–Newton iterations taken by the compiled kernel.

With the Gauss–Newton start (:mod:`.goldfarb`), an iteration where H starts afresh and
bounds alone are active (or no row) is a damped least-squares step followed by the line
search. The kernel takes such iterations whole (:mod:`solver.kernel`):

- :func:`gauss_newton_descent`: a whole descent of them, in one call (a warm drag
  event's or bake frame's quick path), or the first of its iterations where they are not
  the whole (:class:`Resume`); it holds the rows active at its start, bounds apart from
  the others (a limit polygon's edges, held as equalities are), and adds those its steps
  meet;
- :func:`takes_step`, :func:`start` and :func:`step`: one of them inside the loop of
  :class:`.goldfarb.Run`, which goes on in Python from the kernel's point.

Either way each of the kernel's steps is what Python's would be, to rounding: bit for
bit where bounds and equalities alone are active; with other rows active, a long descent
may part from Python's along directions G does not see.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .._checks import BoolArray, FloatArray, IntArray
from ..kernel import (
    DescentPlan,
    DescentStatus,
    DescentStops,
    GaussNewtonDescent,
    GaussNewtonStart,
    Quick,
    QuickComfort,
    SearchStatus,
    StartStatus,
)
from ..result import Descent, Status
from ..rows import LimitRows
from .active_set import ROUNDING, ROUNDING_ROOT, START_SLACK, ActiveSet, kkt_floor, kkt_message
from .metric import GAUSS_NEWTON_DROP, Equalities, GaussNewtonStep, Metric, woodbury_metric

__all__ = [
    "ActiveBounds",
    "Faces",
    "Iteration",
    "Resume",
    "active_bounds",
    "descent_end",
    "gauss_newton_descent",
    "held_bounds",
    "met_message",
    "settled_descent",
    "start",
    "start_rows",
    "step",
    "takes_step",
]

NO_BOUNDS = np.empty(0, dtype=np.intp)
"""The variables held where no row is active."""
_NO_SIGNS = np.empty(0)

ActiveBounds = tuple[IntArray, FloatArray, FloatArray, list[int]]
"""Bounds active at a start: the variable each holds, its row's entry there (±1), their
right-hand sides and their rows' indices, in :meth:`ActiveSet.at`'s order."""


@dataclass(frozen=True)
class Resume:
    """Where the kernel's descent left off short of its end, for :class:`.goldfarb.Run` to go on.

    Its iterations from the start are :func:`.goldfarb.descend`'s first ones, to rounding;
    the descent from the same start goes on from here with them counted
    (:meth:`.goldfarb.Run.resume`), rather than take them again.

    Attributes:
        point: The last point an iteration reached, φ.
        value: G/w there.
        gradient: Its gradient.
        iterations: The iterations taken to it.
        evaluations: The objective's evaluations, the start's included.
        added: The inequality rows its steps met (bounds and polygons' edges), active from
            there on, in turn.
    """

    point: FloatArray
    value: float
    gradient: FloatArray
    iterations: int
    evaluations: int
    added: tuple[int, ...] = ()


def active_bounds(
    phi0: FloatArray,
    a_eq: FloatArray,
    b_eq: FloatArray,
    a_in: FloatArray | LimitRows,
    b_in: FloatArray,
) -> ActiveBounds | None:
    """The inequality rows :func:`.goldfarb.descend` takes as active at ``phi0``, all bounds.

    :meth:`ActiveSet.at`'s rows after the equalities, tightest first, where each row of
    slack at most :data:`.active_set.START_SLACK` is ±1 on one variable (a bound on a
    variable already held depends on that one's and is passed over, as there). None with
    another active row, or a bound on a variable an equality row touches:
    :func:`gauss_newton_descent` holds bounds, and equalities apart from them (a control
    rig's shares, a joint group), alone.
    """
    found = _bounds(phi0, a_in, b_in)
    if found is None or not a_eq.shape[0] or not len(found[0]):
        return found
    return found if _apart(a_eq, found[0]) else None


@dataclass(frozen=True)
class Faces:
    """Active rows at a start that are no bounds (a limit polygon's edges), for the kernel.

    Its descent holds them among the equality rows, by one orthonormal basis of both.

    Attributes:
        order: Every active inequality row, the bounds' and these, in
            :meth:`ActiveSet.at`'s order.
        rows: These rows (r).
        held: Orthonormal rows spanning the equality rows and these, (e + r, n), and their
            right-hand sides: the kernel holds them as it holds equalities.
        directions: Each of these rows' direction off the other active rows N,
            N (NᵀN)⁻¹ e_j / √((NᵀN)⁻¹_jj), (r, n): its product with the gradient is the
            row's multiplier as Goldfarb's tests weigh it.
        upper: R (e + r, e + r), upper triangular: the equality rows and these are Rᵀ
            times :attr:`held`'s.
    """

    order: list[int]
    rows: list[int]
    held: tuple[FloatArray, FloatArray]
    directions: FloatArray
    upper: FloatArray


def start_rows(
    phi0: FloatArray,
    a_eq: FloatArray,
    b_eq: FloatArray,
    a_in: FloatArray | LimitRows,
    b_in: FloatArray,
) -> tuple[ActiveBounds, Faces | None] | None:
    """The inequality rows :func:`.goldfarb.descend` takes as active at ``phi0``, for the kernel.

    Bounds alone (:func:`active_bounds`), or :meth:`ActiveSet.at`'s rows with those that
    are no bounds as :class:`Faces`, where neither these nor the equality rows touch a
    bound's variable (the kernel holds them apart from the bounds). None where they do.
    """
    found = active_bounds(phi0, a_eq, b_eq, a_in, b_in)
    if found is not None:
        return found, None
    active = ActiveSet.at(phi0, a_eq, b_eq, a_in, b_in, slack=START_SLACK)
    columns, values = active.a_in.bounds()
    order = np.asarray(active.rows, dtype=np.intp)
    is_bound = columns[order] >= 0
    bound_rows, rows = order[is_bound], order[~is_bound]
    variables = columns[bound_rows]
    held = np.vstack([a_eq, active.a_in[rows]])
    if not rows.size or bool(np.any(held[:, variables] != 0.0)):
        return None
    # held = Rᵀ Qᵀ: the rows Qᵀ φ = R⁻ᵀ b span the same face; (NᵀN)⁻¹ = R⁻¹ R⁻ᵀ
    basis, upper = np.linalg.qr(held.T)
    lower_inverse = np.linalg.inv(upper.T)
    sides = lower_inverse @ np.concatenate([b_eq, b_in[rows]])
    turned = lower_inverse[:, len(b_eq) :]  # R⁻ᵀ e_j of each row j that is no bound
    turned /= np.sqrt(np.einsum("ij,ij->j", turned, turned))
    bounds = (variables, values[bound_rows], b_in[bound_rows], bound_rows.tolist())
    held_rows = (np.ascontiguousarray(basis.T), sides)
    directions = np.ascontiguousarray((basis @ turned).T)
    return bounds, Faces(order.tolist(), rows.tolist(), held_rows, directions, upper)


def _apart(a_eq: FloatArray, variables: IntArray) -> bool:
    """Whether no equality row touches a variable of ``variables``."""
    return not bool(np.any(a_eq[:, variables] != 0.0))


def _bounds(
    phi0: FloatArray, a_in: FloatArray | LimitRows, b_in: FloatArray
) -> ActiveBounds | None:
    """:func:`active_bounds` but for the equalities."""
    rows_in = a_in if isinstance(a_in, LimitRows) else LimitRows(a_in, sparse=False)
    slacks = rows_in @ phi0 - b_in
    near = int(np.count_nonzero(slacks <= START_SLACK))
    if not near:
        return NO_BOUNDS, _NO_SIGNS, _NO_SIGNS, []
    order = np.argsort(slacks)[:near]  # ActiveSet.at's order: the tightest first
    columns, values = rows_in.bounds()
    variables = columns[order]
    if bool((variables < 0).any()):
        return None
    if near > 1:  # a second bound on a variable depends on the first
        _, first = np.unique(variables, return_index=True)
        if len(first) < near:
            order = order[np.sort(first)]
            variables = columns[order]
    return variables, values[order], b_in[order], order.tolist()


def gauss_newton_descent(
    gauss_newton_step: GaussNewtonStep,
    phi0: FloatArray,
    active: ActiveBounds,
    *,
    tolerance: float,
    max_iterations: int,
    deadline: float | None,
    goal_value: float,
    equalities: Equalities | None = None,
    faces: Faces | None = None,
) -> Descent | Resume | None:
    """:func:`.goldfarb.descend`'s descent from a start, by the kernel (:func:`start_rows`).

    The active bounds, equality rows apart from their variables (``equalities``) and the
    other active rows (``faces``, a limit polygon's edges, held among the equalities) stay
    active throughout.

    While every iteration is the kernel's Gauss–Newton step on the active rows (no
    multiplier negative enough to leave one by :meth:`.goldfarb.Run.choose_drop`'s tests)
    that either lowers G to at most :data:`.metric.GAUSS_NEWTON_DROP` of itself or lowers
    it onto a row it meets, which then joins the active ones (so that either way H starts
    afresh from the curvature at the next one), the descent makes no metric or active set
    of its own; the kernel takes the same steps and stops alike (the goals met, the time
    spent, a Kuhn–Tucker point with G within ``tolerance`` and no row to leave),
    in one call (:meth:`kernel.Kernel.gauss_newton_descent`): a drag event's descent, a
    warm frame's, a cold solve's that meets its goals on the limits it meets. Anything
    else (a row left, a row met that touches a bound's variable, a slower decrease,
    another Kuhn–Tucker point, the iterations spent) returns where the kernel left off
    (:class:`Resume`, with the rows it met), or None where it took no iteration:
    :func:`.goldfarb.descend`'s descent from the start goes on from there.

    Args:
        gauss_newton_step: The kernel's iterations (:func:`.metric.compiled_step`).
        phi0: Feasible start, shape (n,).
        active: The bounds active there (:func:`start_rows`).
        tolerance: As :func:`.goldfarb.descend`'s.
        max_iterations: As :func:`.goldfarb.descend`'s.
        deadline: As :func:`.goldfarb.descend`'s.
        goal_value: As :func:`.goldfarb.descend`'s.
        equalities: The descent's equality rows (:data:`.metric.Equalities`), or None.
        faces: The active rows that are no bounds (:func:`start_rows`), or None.
    """
    plan = _held(gauss_newton_step, active, equalities, faces)
    stops = _stops(tolerance, max_iterations, deadline, goal_value)
    found = gauss_newton_step.library.gauss_newton_descent(plan, phi0, **stops._asdict())
    return descent_end(
        gauss_newton_step,
        plan,
        found,
        active,
        tolerance=tolerance,
        goal_value=goal_value,
        equalities=equalities,
        faces=faces,
    )


def settled_descent(
    gauss_newton_step: GaussNewtonStep,
    phi0: FloatArray,
    active: ActiveBounds,
    comfort: QuickComfort,
    *,
    tolerance: float,
    max_iterations: int,
    deadline: float | None,
    goal_value: float,
    equalities: Equalities | None = None,
) -> tuple[Quick, DescentPlan]:
    """:func:`gauss_newton_descent`'s kernel descent, then comfort's rounds, in one call.

    From a start where bounds alone are active (``active``, with ``equalities`` apart from
    them): :meth:`kernel.Kernel.quick`, its rounds ``comfort``'s; with the plan, for
    :func:`descent_end`.
    """
    plan = _held(gauss_newton_step, active, equalities, None)
    stops = _stops(tolerance, max_iterations, deadline, goal_value)
    return gauss_newton_step.library.quick(plan, phi0, stops, comfort), plan


def _stops(
    tolerance: float, max_iterations: int, deadline: float | None, goal_value: float
) -> DescentStops:
    """The kernel descent's stops: :func:`.goldfarb.descend`'s, its Kuhn–Tucker floor and drop."""
    seconds = None if deadline is None else deadline - time.perf_counter()
    floor = (ROUNDING, ROUNDING_ROOT)  # kkt_floor's
    return DescentStops(goal_value, tolerance, floor, GAUSS_NEWTON_DROP, max_iterations, seconds)


def _held(
    gauss_newton_step: GaussNewtonStep,
    active: ActiveBounds,
    equalities: Equalities | None,
    faces: Faces | None,
) -> DescentPlan:
    """The kernel's plan with the active bounds, ``equalities`` and ``faces`` held."""
    others = None
    if faces is not None:
        equalities, others = faces.held, (faces.rows, faces.directions, faces.upper)
    return gauss_newton_step.hold(*active, equalities, others)


def met_message(value: float, goal_value: float) -> str:
    """The message of a descent that met the goals: G ``value`` ≤ ``goal_value``."""
    return Status.CONVERGED.message(f"goals met: G {value:.3g} ≤ {goal_value:.3g}")


def descent_end(
    gauss_newton_step: GaussNewtonStep,
    plan: DescentPlan,
    found: GaussNewtonDescent,
    active: ActiveBounds,
    *,
    tolerance: float,
    goal_value: float,
    equalities: Equalities | None = None,
    faces: Faces | None = None,
) -> Descent | Resume | None:
    """What :func:`gauss_newton_descent` returns of the kernel's descent ``found`` on ``plan``."""
    given = equalities
    added = plan.added()  # the rows the steps met, in turn
    if found.status is DescentStatus.GENERAL and not found.iterations:
        return None
    normed = found.normed
    projected = np.inf if normed is None else math.sqrt(float(normed @ normed))
    rows = [*(active[3] if faces is None else faces.order), *added]

    def multipliers() -> FloatArray:
        bounds, signs, _, held = plan.active()
        if held == rows:  # bounds alone
            return signs * found.gradient[bounds]
        # rows that are no bounds: their multipliers as the descent's active set has them
        return _multipliers(found.gradient, given, gauss_newton_step.arrays, rows)

    if found.status is DescentStatus.TIME_SPENT:
        status, message = Status.TIME_LIMIT, Status.TIME_LIMIT.message()
    elif found.status is not DescentStatus.GENERAL:
        status, message = Status.CONVERGED, met_message(found.value, goal_value)
    else:
        floor = kkt_floor(tolerance, found.gradient, found.value)
        held = multipliers() if found.value <= tolerance and projected <= floor else None
        # the general descent's test there: no row to leave (no multiplier below −ε)
        if held is None or (held.size and float(held.min()) < -floor):
            return Resume(
                found.point,
                found.value,
                found.gradient,
                found.iterations,
                found.evaluations,
                tuple(added),
            )
        status = Status.CONVERGED
        message = status.message(kkt_message(projected, floor, tolerance))
        return _descent(found, status, message, rows, projected, held)
    return _descent(found, status, message, rows, projected, multipliers())


def _descent(
    found: GaussNewtonDescent,
    status: Status,
    message: str,
    rows: list[int],
    projected: float,
    multipliers: FloatArray,
) -> Descent:
    """The kernel's descent ``found`` as a :class:`Descent` ending on the active ``rows``."""
    return Descent(
        phi=found.point,
        value=found.value,
        gradient=found.gradient,
        status=status,
        message=message,
        iterations=found.iterations,
        evaluations=found.evaluations,
        active=tuple(rows),
        projected_gradient=projected,
        multipliers=multipliers,
        readds=0,
    )


def _multipliers(
    gradient: FloatArray,
    equalities: Equalities | None,
    arrays: tuple[FloatArray, ...],
    rows: list[int],
) -> FloatArray:
    """:meth:`ActiveSet.multipliers` of ``gradient`` over the inequality ``rows``.

    The rows are the descent's ``arrays``', active with ``equalities``.
    """
    n = len(gradient)
    a_eq, b_eq = (np.empty((0, n)), np.empty(0)) if equalities is None else equalities
    active = ActiveSet(a_eq, b_eq, arrays[5], arrays[6])
    for row in rows:
        active.add(row)
    multipliers: FloatArray = active.multipliers(gradient)[active.k :]
    return multipliers


class Iteration(Protocol):
    """What the kernel's single steps read and set of a descent (:class:`.goldfarb.Run`)."""

    compiled: GaussNewtonStep | None
    curvature: Callable[[FloatArray], FloatArray] | None
    quasi: bool
    expand: bool
    active: ActiveSet
    inactive: BoolArray
    phi: FloatArray
    value: float
    gradient: FloatArray
    factor: FloatArray | None
    factor_at: FloatArray
    largest: float | None
    started: GaussNewtonStart | None
    hg: FloatArray | None
    evaluations: int

    @property
    def h_unmade(self) -> bool:
        """Whether H is yet to be made."""

    def start_h(self, make: Callable[[], Metric]) -> None:
        """Leave H to ``make``."""

    def stuck(self) -> Descent:
        """End a descent whose line search finds no decrease."""

    def add(self, row: int) -> None:
        """Step 4: ``row`` now holds."""

    def accept(
        self,
        point: FloatArray,
        value: float,
        gradient: FloatArray,
        capped: ActiveSet | None,
        hit: int,
    ) -> Descent | None:
        """Steps 4–5 after a line search accepted ``point``."""


def takes_step(run: Iteration) -> bool:
    """Whether the kernel starts ``run``'s H at this iteration (:func:`start`).

    It does where H starts afresh from the curvature (not after the crawls that leave
    it for the projector) with bounds alone active (or no row), besides equalities
    that touch none of their variables, and the search may expand.
    """
    return (
        run.compiled is not None
        and run.curvature is not None  # not once crawls left it for the projector
        and run.h_unmade
        and not run.quasi
        and run.expand
        and held_bounds(run.active) is not None
    )


def held_bounds(active: ActiveSet) -> IntArray | None:
    """The variables ``active``'s inequality rows hold, or None.

    None unless each row is a bound, all on different variables, none of them touched
    by an equality row.
    """
    if not active.rows:
        return NO_BOUNDS
    if not active.k:
        return active.bounds
    variables = active.a_in.bounds()[0][active.rows]
    if bool((variables < 0).any()) or np.unique(variables).size != variables.size:
        return None
    return variables if _apart(active.a_eq, variables) else None


def start(run: Iteration) -> GaussNewtonStart | None:
    """H's Gauss–Newton start at ``run``'s φ by the kernel, and H g (kept in ``run.started``).

    F and H are the kernel's, H made only if an iteration asks for it (as
    :meth:`.goldfarb.Run.initial_h` would make it). None where the curvature is not
    positive definite to rounding: Python's start then meets it.
    """
    assert run.compiled is not None
    active = run.active
    bounds = held_bounds(active)
    assert bounds is not None  # by takes_step
    k = active.k  # the equalities' columns come first
    signs = active.matrix[bounds, k + np.arange(len(bounds))]
    equalities = (active.a_eq, active.b_eq) if k else None
    started, room = run.compiled.start(
        run.phi, run.value, run.gradient, (bounds, signs, active.rhs[k:]), run.inactive, equalities
    )
    if started.status is not StartStatus.STARTED:
        return None
    # F at φ (H's start made from it), as initial_h keeps it
    run.factor, run.factor_at, run.largest = started.factor, run.phi, None
    held = len(bounds) + k
    run.start_h(lambda: woodbury_metric(started.damping, room, held, started.turn))
    run.started = started
    return started


def step(run: Iteration) -> tuple[bool, Descent | None]:
    """Steps 3–5 of ``run`` from H's Gauss–Newton start, by the kernel to the search's end.

    H, F and the accepted point are the kernel's; what follows is
    :meth:`.goldfarb.Run.accept`'s. Returns whether the kernel took the iteration (not
    where the curvature is not positive definite to rounding, nor where the step meets a
    row other than a bound while bounds are active: Python then takes the step) and what
    :meth:`.goldfarb.Run.step` would.
    """
    assert run.compiled is not None
    started = run.started or start(run)
    if started is None:
        return False, None
    found = run.compiled.search(run.phi, run.value, run.gradient, started.hg)
    if found.status is SearchStatus.ROW_NOT_A_BOUND:  # Python's step from the kernel's H g
        run.hg = started.hg
        return False, None
    if found.status is SearchStatus.NO_DESCENT:  # H is fresh, so no reset helps
        return True, run.stuck()
    run.evaluations += found.evaluations
    if found.status is SearchStatus.BLOCKED_AT_ONCE:  # add the row without moving
        run.active.add(found.hit)
        run.add(found.hit)
        return True, None
    if found.status is SearchStatus.NO_DECREASE:  # H is fresh
        return True, run.stuck()
    capped = None
    if found.hit >= 0 and found.alpha >= found.limit:
        capped = run.active.with_row(found.hit)
    return True, run.accept(found.point, found.value, found.gradient, capped, found.hit)
