"""Goldfarb's method with the BFGS update on Rosen's gradient projection.

Goldfarb 1969 and Rosen 1960, as used by Zhao & Badler 1994, App. A.

Minimise G(φ) subject to ``E φ = e`` and ``A φ ≥ b`` (unit rows), from a feasible φ.

State: feasible φ; the active set (equalities always in); ``H`` (positive
semi-definite, ``H·N = 0`` for the matrix N of active rows as columns), kept as a scaled
identity plus a low-rank term (:mod:`.low_rank`) so that an iteration costs O(n·r).
H starts as the projector ``I − N(NᵀN)⁻¹Nᵀ`` (Zhao & Badler 1994), or, given the goals'
Gauss–Newton curvature B, as the damped inverse ``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` on N's null
space (:mod:`.metric`): the first step is then a damped least-squares step, and a
warm-started drag event converges in a few iterations. With that start, H also starts
afresh from the curvature whenever a row is added (instead of step 4's update) and
after every step that lowers G by 20% or more (instead of step 5's: the hybrid of
Fletcher & Xu 1987): met goals make G a zero-residual least-squares problem, where
Gauss–Newton steps converge quadratically; where G stays large, BFGS takes over. A
step that lowers G by next to nothing is a crawl (:meth:`Run.crawled`).

1. g = ∇G(φ); multipliers λ = (NᵀN)⁻¹Nᵀg; projected gradient ``Pg = g − Nλ``. If
   ‖Pg‖ ≤ ε and every inequality multiplier is ≥ −ε: a Kuhn–Tucker point. Here
   ``ε = max(tolerance, 1e-7·‖g‖, 1e-6·√G)`` (:func:`kkt_floor`): when G stays large
   (an unreachable goal) rounding hides any further decrease.
2. Scaled multipliers ``β_j = λ_j (NᵀN)⁻¹_jj^(−1/2)``. If some β_j < 0 and ‖Pg‖ ≤ ε,
   ``‖Hg‖ ≤ −β_j`` (Goldfarb's test) or, given the curvature, a Newton step off row j
   promises more decrease than one on the face (:meth:`Run.leaving_pays`), drop the
   most negative:
   ``H ← H + P a aᵀ P / (aᵀ P a)``, P the projector onto the null space of the
   remaining active rows; back to 1.
3. s = −Hg; ``λ_max`` from the ratio test over inactive rows; line search on
   ``(0, λ_max]`` from the unit step (see :mod:`.linesearch`: beyond the paper's
   ``(0, min(1, λ_max)]``, it expands past 1 while G still falls steeply). A row met at
   once, or within rounding of φ where the search finds no decrease (:func:`within_rounding`),
   is added without moving.
4. If the step reached λ_max, add that row: ``H ← H − H a aᵀ H / (aᵀ H a)``.
5. Otherwise, with σ = αs and y = g⁺ − g, if σᵀy > 0 update H by BFGS when
   ``σᵀy ≥ yᵀHy`` and by DFP otherwise (the switch of Fletcher 1970). If that step
   lowered G by next to nothing (``_SLOW``), the next step is a truncated-Newton step
   preconditioned by H (:mod:`.newton`): where goals stay out of reach, the residuals'
   own curvature shapes G, and the updates learn it one direction a step.

Every trial point is put back onto the active rows (a correction of rounding size: an
active bound's variable onto the bound exactly, other rows by projection), so iterates
stay feasible; G is evaluated at exactly the accepted point and never increases. The
descent's last point is clamped into every bound among the rows (:meth:`ActiveSet.inside`):
where two rows tie in the ratio test, rounding may leave the one not added an ulp beyond.

The active set and its ratio test (:mod:`.active_set`), H's start and update
(:mod:`.metric`), the line search (:mod:`.linesearch`) and the Gauss–Newton iterations
the compiled kernel takes (:mod:`.compiled_gauss_newton`) live beside this module;
steps 1–5 stay here as one loop over one state (φ, G, g, the active set and H).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .._checks import BoolArray, FloatArray, same
from ..kernel import GaussNewtonStart
from ..result import Descent, Status
from ..rows import LimitRows
from . import compiled_gauss_newton
from .active_set import START_SLACK, ActiveSet, kkt_floor, kkt_message
from .linesearch import ProjectedTrial, line_search
from .metric import (
    GAUSS_NEWTON_DROP,
    START_CLOCK,
    GaussNewtonStep,
    Metric,
    fletcher_update,
    gauss_newton_damping,
    projector_start,
)
from .newton import Product, compiled_newton_step, difference_product, newton_step

__all__ = ["Run", "descend"]

Objective = Callable[[FloatArray], tuple[float, FloatArray]]
Curvature = Callable[[FloatArray], FloatArray]
Hessian = Callable[[FloatArray], Product | None]
"""φ ↦ (v ↦ ∇²G(φ) v), or None where the objective makes no product."""

_CRAWL = 1e-9
"""Relative decrease of G at or below which a step with the Gauss–Newton metric crawls."""
_CRAWLS = 3
"""Crawling steps after which a descent leaves the Gauss–Newton metric for the projector
(before that, each crawl restarts H from the curvature)."""
_SLOW = 1e-4
"""Relative decrease of G at or below which a step updated by BFGS or DFP is slow: the
next step is Newton's (:meth:`Run.newton`). Below a decrease of a fifth (where the
quasi-Newton update takes over) the metric still serves a goal at the edge of its reach,
whose steps lower G by a few percent each; Newton's products pay where it crawls."""
_FLAT_STEPS = 2
"""Steps in a row without a decrease of G after which the descent stops."""
AT_ONCE = 1e-15
"""A row a step meets after a move of at most this share of φ's size (its largest entry,
1 where that is less) is within rounding of φ: where the line search toward it finds no
decrease of G (one that short lowers G by rounding alone), the row is added without
moving, as a row met at once is; the kernel's search does the same."""


def descend(
    objective: Objective,
    phi0: FloatArray,
    a_eq: FloatArray,
    b_eq: FloatArray,
    a_in: FloatArray | LimitRows,
    b_in: FloatArray,
    *,
    tolerance: float,
    max_iterations: int,
    deadline: float | None,
    callback: Callable[[FloatArray, float], None] | None = None,
    curvature: Curvature | None = None,
    goal_value: float | None = None,
    expand: bool = True,
    hessian: Hessian | None = None,
    gauss_newton_step: GaussNewtonStep | None = None,
    resume: compiled_gauss_newton.Resume | None = None,
) -> Descent:
    """Run Goldfarb's projected BFGS from a feasible ``phi0``.

    Args:
        objective: φ ↦ (G, ∇G).
        phi0: Feasible start, shape (n,).
        a_eq: Orthonormal equality rows, shape (k, n).
        b_eq: Shape (k,).
        a_in: Unit inequality rows (``a_in φ ≥ b_in``), shape (m, n); as
            :class:`~solver.rows.LimitRows` (a reduced space's ``rows_in``) the ratio
            test's products cost O(nonzeros).
        b_in: Shape (m,).
        tolerance: ε of the Kuhn–Tucker test on ‖Pg‖ and the multipliers.
        max_iterations: Most iterations.
        deadline: ``time.perf_counter()`` value to stop at, or None.
        callback: Called with (φ, G) at the start and after every accepted step.
        curvature: φ ↦ F, with ``B = F Fᵀ`` the goals' Gauss–Newton estimate of the Hessian.
            With it, H starts (and restarts) as ``Z (Zᵀ(B + μI)Z)⁻¹ Zᵀ`` (Z a basis of
            the active rows' null space, μ a small damping) instead of the projector.
        goal_value: Stop as soon as G ≤ this value (G ≥ 0 is then within it of its
            least possible value); None: only the Kuhn–Tucker test stops the descent.
        expand: Let the line search expand past the unit step (see :mod:`.linesearch`);
            False keeps every step within it, as in Zhao & Badler 1994, where G is a
            model good near the start only (a level's tangent, :mod:`.levels`).
        hessian: G's exact Hessian products for Newton's step; without it (or where it
            gives None) the step differences gradients.
        gauss_newton_step: The compiled kernel's iterations (:func:`.metric.compiled_step`):
            where bounds alone are active (or no row) and H starts afresh, the kernel
            starts H and forms H g, and takes the step from there to the end of the line
            search; it computes what steps 2 to 5 would from there, to rounding.
        resume: Where the kernel's descent from ``phi0`` left off
            (:func:`.compiled_gauss_newton.gauss_newton_descent`): its iterations are this
            descent's first ones, so it goes on from there (:meth:`Run.resume`), with the
            bounds they met active.

    Returns:
        The final iterate and how the descent ended.
    """
    active = ActiveSet.at(phi0, a_eq, b_eq, a_in, b_in, slack=START_SLACK)
    for row in () if resume is None else resume.added:  # the bounds the kernel's steps met
        active.add(row)
    run = Run(objective, phi0, active, tolerance, callback, curvature)
    run.expand = expand
    run.hessian = hessian
    run.compiled = gauss_newton_step if curvature is not None else None
    if resume is not None:
        run.resume(resume)
    return run.loop(max_iterations, deadline, goal_value)


class Run:
    """State of one descent; :meth:`loop` runs steps 1–5 until a stop."""

    def __init__(
        self,
        objective: Objective,
        phi0: FloatArray,
        active: ActiveSet,
        tolerance: float,
        callback: Callable[[FloatArray, float], None] | None,
        curvature: Curvature | None,
    ) -> None:
        self.objective = objective
        self.curvature = curvature
        self.factor: FloatArray | None = None
        self.largest: float | None = None  # B's largest diagonal entry, once asked
        self.factor_at = phi0
        self.a_in, self.b_in = active.a_in, active.b_in
        self.tolerance = tolerance
        self.callback = callback
        self.phi = phi0.copy()
        self.value, self.gradient = objective(self.phi)
        self.scale = float(np.sqrt(self.gradient @ self.gradient))
        self.evaluations = 1
        self.iterations = 0
        if callback is not None:
            callback(self.phi, self.value)
        self.active = active
        self.inactive: BoolArray = np.ones(len(self.b_in), dtype=bool)
        self.inactive[self.active.rows] = False
        self._h: Metric | None = None
        # H's start the kernel factored, made into H only if an iteration uses it
        self._kernel_start: Callable[[], Metric] | None = None
        self.fresh = True
        self.quasi = False  # H holds a quasi-Newton update of the last step
        self.hg: FloatArray | None = None  # Hg of this iteration's drop test, if formed
        self.started: GaussNewtonStart | None = None  # the kernel's start of H at φ, if made
        self.stepped = False
        self.flat = 0
        self.crawls = 0
        self.leave = False  # drop the most negative multiplier's limit next
        self.dropped: dict[int, float] = {}  # row: G when it was dropped
        self.readds = 0
        self.projected = np.inf
        self.multipliers = np.empty(0)
        self.expand = True
        self.hessian: Hessian | None = None
        self.deadline: float | None = None
        self.product_seconds: float | None = None  # a compiled Hessian product's, last seen
        self.compiled: GaussNewtonStep | None = None

    def resume(self, end: compiled_gauss_newton.Resume) -> None:
        """Go on from where the kernel's iterations from the start left off.

        Each was a Gauss–Newton step on the start's active rows that lowered G to at most
        :data:`.metric.GAUSS_NEWTON_DROP` of itself, after which H starts afresh; so the
        state after them is the point, its value and gradient, and the counts (the start's
        gradient norm, :attr:`scale`, is the descent's own).
        """
        self.phi, self.value, self.gradient = end.point.copy(), end.value, end.gradient.copy()
        self.iterations, self.evaluations = end.iterations, end.evaluations
        self.stepped = end.iterations > 0

    def finish(self, status: Status, detail: str = "") -> Descent:
        """The descent's end; its point within every bound exactly (:meth:`ActiveSet.inside`)."""
        return Descent(
            phi=self.active.inside(self.phi),
            value=self.value,
            gradient=self.gradient,
            status=status,
            message=status.message(detail),
            iterations=self.iterations,
            evaluations=self.evaluations,
            active=tuple(self.active.rows),
            projected_gradient=float(self.projected),
            multipliers=self.multipliers[self.active.k :].copy(),
            readds=self.readds,
        )

    @property
    def h(self) -> Metric:
        """H, (re)started lazily: a restart needs no curvature if the descent stops."""
        if self._h is None:
            start, self._kernel_start = self._kernel_start, None
            self._h = self.initial_h() if start is None else start()
        return self._h

    @h.setter
    def h(self, value: Metric | None) -> None:
        self._h = value
        self._kernel_start = None
        self.quasi = False

    @property
    def h_unmade(self) -> bool:
        """Whether H is yet to be made: neither made nor left to the kernel's start."""
        return self._h is None and self._kernel_start is None

    def start_h(self, make: Callable[[], Metric]) -> None:
        """Leave H to ``make`` (the kernel's start), called only if an iteration asks for H."""
        self.h = None
        self._kernel_start = make

    def initial_h(self) -> Metric:
        """H at a (re)start: the projector, or the damped Gauss–Newton inverse on its range.

        The Gauss–Newton curvature is taken at the current iterate (reused only when the
        active set changed without a step). Under a deadline the start is the projector
        when the Gauss–Newton one would not end in time (:class:`.metric.StartClock`).
        """
        if self.curvature is None:
            return projector_start(self.active.matrix, self.active.gram_inverse)
        if self.factor is None or not same(self.phi, self.factor_at):
            self.factor = self.curvature(self.phi)
            self.factor_at = self.phi
            self.largest = None
        (n, k), q = self.factor.shape, self.active.matrix.shape[1]
        if not START_CLOCK.fits(n, k, q, self.deadline):
            # Too large to factor in the time left (thousands of variables, hundreds of
            # goals): a projected gradient step now beats a better step too late.
            return projector_start(self.active.matrix, self.active.gram_inverse)
        active = self.active
        basis, bounds = active.basis, active.bounds
        return START_CLOCK.timed(self.factor, active.matrix, self.value, basis, bounds)

    def reset(self) -> bool:
        """Restart H as at the start; False when it was fresh already."""
        if self.fresh:
            return False
        self.h = None
        self.fresh = True
        return True

    def floor(self) -> float:
        """ε of the Kuhn–Tucker test (see the module's step 1)."""
        return kkt_floor(self.tolerance, self.gradient, self.value)

    def stuck(self) -> Descent:
        """End a descent whose line search finds no decrease.

        Converged at a Kuhn–Tucker point (to the floor of :func:`kkt_floor`), else stalled.
        """
        floor = self.floor()
        ineq = self.multipliers[self.active.k :]
        if self.projected <= floor and (not ineq.size or float(ineq.min()) >= -floor):
            return self.finish(
                Status.CONVERGED,
                "Kuhn–Tucker point to rounding: no representable decrease is left",
            )
        if self.value <= self.tolerance:
            return self.finish(
                Status.CONVERGED,
                f"goals met to rounding: G {self.value:.3g} ≤ {self.tolerance:.3g} and no "
                "representable decrease is left",
            )
        return self.finish(Status.STALLED)

    def loop(self, max_iterations: int, deadline: float | None, goal: float | None) -> Descent:
        """Steps 1–5 until a stop: the goals met, a Kuhn–Tucker point, the budget spent."""
        self.deadline = deadline
        while True:
            if goal is not None and self.value <= goal:
                self.multipliers = self.active.multipliers(self.gradient)
                return self.finish(Status.CONVERGED, f"goals met: G {self.value:.3g} ≤ {goal:.3g}")
            # Step 1: multipliers, projected gradient, Kuhn–Tucker test.
            active = self.active
            lam = active.multipliers(self.gradient)
            self.multipliers = lam
            pg = self.gradient - active.matrix @ lam if lam.size else self.gradient
            self.projected = float(np.sqrt(pg @ pg))
            floor = self.floor()
            ineq = lam[active.k :]
            if self.projected <= floor and (not ineq.size or float(ineq.min()) >= 0.0):
                return self.converged(floor)
            drop = self.choose_drop(ineq, floor)
            if drop is None and self.projected <= floor:
                return self.converged(floor)
            if self.iterations >= max_iterations:
                return self.finish(Status.MAX_ITERATIONS, f"{max_iterations} iterations")
            # Anytime, but never empty-handed: a budget shorter than one step still gets
            # one (a drag event always moves the figure toward its goal).
            if deadline is not None and self.stepped and time.perf_counter() >= deadline:
                return self.finish(Status.TIME_LIMIT)
            self.iterations += 1
            if drop is not None:  # Step 2
                self.drop(drop)
                continue
            if self.started is not None or compiled_gauss_newton.takes_step(self):
                taken, outcome = self.compiled_step()
                if outcome is not None:
                    return outcome
                if taken:
                    continue
            step = -(self.h @ self.gradient if self.hg is None else self.hg)
            if self.quasi:  # G fell slowly on the last step: take Newton's step
                step = self.newton(step)
            slope = float(self.gradient @ step)
            if slope >= 0.0:
                if self.reset():
                    continue
                return self.stuck()
            outcome = self.step(step, slope)  # Steps 3–5
            if outcome is not None:
                return outcome

    def converged(self, floor: float) -> Descent:
        """Step 1's stop at a Kuhn–Tucker point (``floor``: step 1's ε)."""
        return self.finish(Status.CONVERGED, kkt_message(self.projected, floor, self.tolerance))

    def choose_drop(self, ineq: FloatArray, floor: float) -> int | None:
        """Step 2's test: the inequality to drop, or None (``floor``: step 1's ε).

        ‖Hg‖ is formed only for the tests themselves: at a Kuhn–Tucker point the
        multipliers alone decide, and H, which may need a fresh Gauss–Newton start, is
        not built for a descent that ends there. Hg is kept in :attr:`hg` for the step
        that follows when no row is dropped.
        """
        self.hg = None
        self.started = None
        leave, self.leave = self.leave, False  # a crawl's request holds for one test
        if not ineq.size:
            return None
        diagonal = np.diag(self.active.gram_inverse)[self.active.k :]
        beta = ineq / np.sqrt(diagonal)
        worst = int(np.argmin(beta))
        if beta[worst] >= 0.0:
            return None
        if leave:
            return worst
        if self.projected <= floor:
            return worst if ineq[worst] < -floor else None
        hg = self.direction()
        if float(np.sqrt(hg @ hg)) <= -beta[worst] or self.leaving_pays(worst, beta[worst], hg):
            return worst
        self.hg = hg
        return None

    def leaving_pays(self, position: int, beta: float, hg: FloatArray) -> bool:
        """Whether a Newton step off the face by inequality ``position`` promises more.

        Goldfarb's test ``‖Hg‖ ≤ −β`` weighs a step against a slope, which agree in
        scale while H is about the projector. From a Gauss–Newton start H is about the
        inverse Hessian on the face, of scale 1/μ (a million where G is near 1e-6), and
        the test keeps a face that many limits hold long after its multipliers say
        "leave": every step along it lowers G by a thousandth. Here the decreases a
        Newton step promises are weighed instead: ½ gᵀHg on the face against
        ``½ β² / κ`` off it, along the unit direction d that leaves the row (whose slope
        is β), with ``κ = ‖Fᵀd‖² + μ`` its Gauss–Newton curvature, damped as H's start.
        Without the curvature there is no κ, and Goldfarb's test alone decides.
        """
        if self.curvature is None or self.factor is None:
            return False
        # The row's part off the other active rows is N (NᵀN)⁻¹ e_j, of length √((NᵀN)⁻¹_jj).
        column = self.active.k + position
        inverse = self.active.gram_inverse
        off = self.active.matrix @ inverse[:, column]
        reach = (self.factor.T @ off) / float(np.sqrt(inverse[column, column]))
        if self.largest is None:
            rows = np.einsum("ij,ij->i", self.factor, self.factor)
            self.largest = float(rows.max(initial=0.0))
        curvature = float(reach @ reach) + gauss_newton_damping(self.largest, self.value)
        return float(self.gradient @ hg) * curvature <= beta * beta

    def drop(self, position: int) -> None:
        """Step 2: drop an inequality; H grows by the dropped row's projected direction.

        Goldfarb's update, whatever H started from: the next step ``−Hg`` then leaves the
        dropped row's boundary into its feasible side (``aᵀs = −aᵀPg > 0`` for a negative
        multiplier), so the row cannot block the step at once and be added back without
        a decrease of G. Restarting H instead (from the Gauss–Newton curvature on the
        smaller active set) gives a step that may point back into the row: drop and add
        then repeat without end.
        """
        column = self.active.k + position
        a = self.active.matrix[:, column]
        pa = self.active.project(a, exclude=column)
        h = self.h  # on the active set before the drop
        row = self.active.remove(position)
        self.dropped[row] = self.value
        self.inactive[row] = True
        self.h = h.plus_outer(pa, 1.0 / float(a @ pa))
        self.fresh = False

    def add(self, row: int) -> None:
        """Step 4: ``row`` (already in the active set) now holds; H loses its direction."""
        self.inactive[row] = False
        if self.dropped.pop(row, np.inf) <= self.value:
            self.readds += 1
        if self.curvature is None:
            a = self.a_in[row]
            ha = self.h @ a
            curvature = float(a @ ha)
            if curvature > 1e-14:
                self.h = self.h.plus_outer(ha, -1.0 / curvature)
                return
        self.h = None
        self.fresh = True

    def step(self, step: FloatArray, slope: float) -> Descent | None:
        """Steps 3–5: ratio test, line search, then add a row or update H."""
        step = self.active.project(step)
        limit, hit = self.active.first_block(step, self.phi, self.inactive)
        if not self.expand and limit > 1.0:
            limit, hit = 1.0, -1
        if hit >= 0 and limit <= 1e-15:  # blocked at once: add the row without moving
            self.active.add(hit)
            self.add(hit)
            return None
        trial = ProjectedTrial(
            self.objective, self.phi, step, self.active, limit, hit if hit >= 0 else None
        )
        search = line_search(trial, self.value, slope, limit)
        self.evaluations += search.evaluations
        flat = search.alpha <= 0.0 or search.value >= self.value
        if hit >= 0 and flat and within_rounding(limit, step, self.phi):
            self.active.add(hit)  # no decrease short of a row this near: add it
            self.add(hit)
            return None
        if search.alpha <= 0.0 or search.gradient is None:
            return None if self.reset() else self.stuck()
        capped = trial.rows_at_cap() if trial.hit is not None and search.alpha >= limit else None
        return self.accept(trial.points[search.alpha], search.value, search.gradient, capped, hit)

    def accept(
        self,
        point: FloatArray,
        value: float,
        gradient: FloatArray,
        capped: ActiveSet | None,
        hit: int,
    ) -> Descent | None:
        """Steps 4–5 after a line search accepted ``point``: add a row or update H.

        ``capped``: the active rows with row ``hit``, where the step met that row.
        """
        self.flat = self.flat + 1 if value >= self.value else 0
        if self.flat > _FLAT_STEPS:
            return self.stuck()
        value0 = self.value
        sigma = point - self.phi
        y = gradient - self.gradient
        self.phi, self.value, self.gradient = point, value, gradient
        self.stepped = True
        if self.callback is not None:
            self.callback(self.phi, self.value)
        self.fresh = False
        if capped is not None:  # Step 4
            self.active = capped
            self.add(hit)
            return None
        if self.curvature is not None and value0 - value <= _CRAWL * abs(value0):
            self.crawled()
            return None
        if self.curvature is not None and value <= GAUSS_NEWTON_DROP * value0:
            # Fletcher & Xu 1987: G fell fast, so the goals' residuals dominate the Hessian and
            # the Gauss–Newton curvature at the new point is the better metric.
            self.h = None
            self.fresh = True
            return None
        self.update(sigma, y)  # Step 5
        self.quasi = value0 - value <= _SLOW * abs(value0)
        return None

    def direction(self) -> FloatArray:
        """H g: the kernel's where it starts H (:func:`.compiled_gauss_newton.start`), else H's."""
        if compiled_gauss_newton.takes_step(self):
            started = compiled_gauss_newton.start(self)
            if started is not None:
                return started.hg
        return self.h @ self.gradient

    def compiled_step(self) -> tuple[bool, Descent | None]:
        """Steps 3–5 from H's Gauss–Newton start, by the kernel.

        See :func:`.compiled_gauss_newton.step`.
        """
        return compiled_gauss_newton.step(self)

    def crawled(self) -> None:
        """A step with the Gauss–Newton metric lowered G by at most ``_CRAWL`` of itself.

        With a limit whose multiplier is negative, the descent is near the face's own
        minimum: the next iteration leaves the face by the most negative one
        (Goldfarb's test waits for ``‖Hg‖ ≤ −β``, which a damped metric may not reach
        before the steps stop counting, as on long chains with many goals). Otherwise H
        restarts from the curvature, and at the third crawl the descent leaves the
        curvature for the projector: where G stays large (heavy goals out of reach),
        ``B + μI`` with μ ≥ G is no model of the curvature and each step lowers G by
        next to nothing of itself. From the projector, BFGS reaches a Kuhn–Tucker point.
        The first two crawls restart H from the curvature rather than leave it, which
        meets more targets of the 1990 figure's four limbs from rest.
        """
        ineq = self.active.multipliers(self.gradient)[self.active.k :]
        if ineq.size and float(ineq.min()) < 0.0:
            self.leave = True
            return
        self.crawls += 1
        if self.crawls >= _CRAWLS:
            self.curvature = None
        self.h = None
        self.fresh = True

    def update(self, sigma: FloatArray, y: FloatArray) -> None:
        """Step 5: H by :func:`.metric.fletcher_update`."""
        self.h = fletcher_update(self.h, sigma, y)

    def newton(self, step: FloatArray) -> FloatArray:
        """The truncated-Newton step (:mod:`.newton`) preconditioned by H, else ``step``.

        Taken after a step updated by BFGS or DFP (step 5) that lowered G by at most
        ``_SLOW`` of itself, never right after a drop: Goldfarb's update then points the
        step off the dropped row's boundary, which a step from the Hessian need not do.
        A step of G falling faster keeps the quasi-Newton metric, which costs no
        gradient beyond the line search's.
        """
        product = None if self.hessian is None else self.hessian(self.phi)
        differences = product is None
        solve = getattr(product, "newton_step", None)
        held = None if solve is None else self.active.held
        if solve is not None and held is not None:
            began = time.perf_counter()
            newton, products = compiled_newton_step(
                solve,
                self.gradient,
                held,
                self.h,
                self.deadline,
                self.scale,
                self.product_seconds,
            )
            if products:
                self.product_seconds = (time.perf_counter() - began) / products
            return self._newton_or(newton, step)
        if product is None:
            product = difference_product(
                lambda phi: self.objective(phi)[1], self.phi, self.gradient
            )
        newton, products = newton_step(
            product,
            self.gradient,
            self.active.project,
            self.h.__matmul__,
            self.deadline,
            self.scale,
        )
        if differences:
            self.evaluations += products
        return self._newton_or(newton, step)

    def _newton_or(self, newton: FloatArray | None, step: FloatArray) -> FloatArray:
        """Newton's step when it is one of descent, else ``step``."""
        if newton is None or not float(self.gradient @ newton) < 0.0:
            return step
        return newton


def within_rounding(limit: float, step: FloatArray, phi: FloatArray) -> bool:
    """Whether the move ``limit`` × ``step`` to a row is at most :data:`AT_ONCE` of φ's size.

    Sizes are largest entries, as the kernel's search measures them.
    """
    size = max(1.0, float(np.abs(phi).max(initial=0.0)))
    return limit * float(np.abs(step).max(initial=0.0)) <= AT_ONCE * size
