"""The inverse-Hessian estimate H of a projected quasi-Newton descent: start and update.

H starts either as the projector onto the null space of the active rows (the plain
projected BFGS of Goldfarb 1969) or, given the goals' Gauss–Newton curvature ``B = F Fᵀ``,
as the damped inverse ``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` (Z a basis of that null space; through
Woodbury's identity when F has few columns). After a step it is
updated by BFGS or DFP, chosen by the switch of Fletcher 1970.

Beyond the paper, H is kept as a :class:`.low_rank.Metric`, ``c I + U M Uᵀ``: the
projector is ``I − N(NᵀN)⁻¹Nᵀ`` with U = N, Woodbury's start ``(P − PF S⁻¹ FᵀP)/μ``
with Uᵀ = [Qᵀ; L⁻¹FᵀP] (Q an orthonormal basis of the active rows, S = L Lᵀ,
P = I − QQᵀ; see :func:`_woodbury_start` for why not PF itself), and every
update appends its two vectors to U. Neither start nor update forms an n×n matrix
while U has fewer than n/2 columns: a step costs O(n·r) for r columns, not O(n²).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .. import kernel
from .._checks import BoolArray, FloatArray, IntArray
from ..rows import RowIndex
from .low_rank import Metric

__all__ = [
    "GAUSS_NEWTON_DROP",
    "START_CLOCK",
    "Equalities",
    "GaussNewtonStep",
    "Metric",
    "StartClock",
    "compiled_step",
    "fletcher_update",
    "gauss_newton_damping",
    "gauss_newton_start",
    "projector_start",
    "woodbury_metric",
]

GAUSS_NEWTON_DROP = 0.8
"""With the Gauss–Newton metric, a step that leaves G at most this fraction of its
value restarts H from the curvature at the new point (the hybrid switch of Fletcher & Xu 1987:
G fell by 20% or more) instead of the BFGS update."""
_DAMPING = 1e-7
"""Damping μ of the Gauss–Newton metric, relative to the largest diagonal entry of the
reduced curvature (μ is at least G, so that far from the goals steps stay short)."""
_DAMPING_G = 1.0
"""Damping μ relative to G."""
_COMPILED_START = 200_000
"""Work n·k² of Woodbury's start up to which the compiled kernel factors it: beyond, numpy's
blocked products are the faster."""
_SMALL_WORK = 4e6
"""Work (:meth:`StartClock.work`) below which a start is never skipped: under a
millisecond."""


def projector_start(active: FloatArray, gram_inverse: FloatArray) -> Metric:
    """The projector ``I − N(NᵀN)⁻¹Nᵀ`` onto the null space of the active rows.

    Args:
        active: The active rows as columns N, shape (n, q).
        gram_inverse: ``(NᵀN)⁻¹``, shape (q, q).
    """
    n, q = active.shape
    if q >= n:
        return Metric.zero(n)
    return Metric(n, 1.0, active, -gram_inverse)


class StartClock:
    """Predicts how long :func:`gauss_newton_start` takes, from its size and this machine.

    The work is ``n·k² + n·q²`` for Woodbury's start (the decomposition of an n×k
    matrix, the QR of the q active rows), ``n³`` for the dense one. The machine's rate is
    timed on a 2000×100 start when first needed (a few milliseconds, once), then set by
    every start long enough to time. A descent with a deadline starts from the projector
    when the prediction says the Gauss–Newton start would not end in time.
    """

    SHORTEST = 1e-3
    """Starts predicted (or timed) shorter than this [s] are never skipped (nor timed)."""

    def __init__(self) -> None:
        self.rate: float | None = None

    @staticmethod
    def work(n: int, k: int, q: int) -> float:
        """The work of a start over n variables, k factor columns and q active rows."""
        return float(n * k * k + n * q * q) if 2 * k < n else float(n) ** 3

    def predict(self, n: int, k: int, q: int) -> float:
        """Seconds the start is expected to take."""
        if self.rate is None:
            factor = np.random.default_rng(0).normal(size=(2000, 100))
            self.timed(factor, np.empty((2000, 0)), 1.0)
            assert self.rate is not None
        return self.work(n, k, q) / self.rate

    def fits(self, n: int, k: int, q: int, deadline: float | None) -> bool:
        """Whether a start of this size ends before ``deadline`` (None: always)."""
        if deadline is None or self.work(n, k, q) < _SMALL_WORK:
            return True
        seconds = self.predict(n, k, q)
        return seconds < self.SHORTEST or time.perf_counter() + seconds <= deadline

    def timed(
        self,
        factor: FloatArray,
        active: FloatArray,
        value: float,
        basis: FloatArray | None = None,
        bounds: IntArray | None = None,
    ) -> Metric:
        """:func:`gauss_newton_start`, timed to set the rate."""
        began = time.perf_counter()
        metric = gauss_newton_start(factor, active, value, basis, bounds)
        seconds = time.perf_counter() - began
        if seconds >= self.SHORTEST or self.rate is None:
            work = self.work(factor.shape[0], factor.shape[1], active.shape[1])
            self.rate = work / max(seconds, 1e-9)
        return metric


START_CLOCK = StartClock()
"""The clock every descent consults (the machine's speed is the same for all)."""


def gauss_newton_start(
    factor: FloatArray,
    active: FloatArray,
    value: float,
    basis: FloatArray | None = None,
    bounds: IntArray | None = None,
) -> Metric:
    """The damped Gauss–Newton inverse ``Z(Zᵀ(B + μI)Z)⁻¹Zᵀ`` on the active rows' null space.

    With ``B = F Fᵀ`` and P = ZZᵀ the projector onto the null space, Woodbury's identity
    gives ``H = (P − PF(μI + FᵀPF)⁻¹FᵀP)/μ``: a k×k solve instead of an n×n inverse, used
    when F has at most half as many columns as rows (a long chain with a few goals).

    Args:
        factor: F with the Gauss–Newton curvature ``B = F Fᵀ``, shape (n, k).
        active: The active rows as columns N, shape (n, q).
        value: G at the current iterate (μ is at least G).
        basis: An orthonormal basis of the active rows' span (n, q), when known
            (:attr:`.active_set.ActiveSet.basis`); else Woodbury's start finds one.
        bounds: The variable each active row bounds, when each is a bound
            (:attr:`.active_set.ActiveSet.bounds`): Woodbury's start then projects F by
            zeroing their rows, which is what the product with the basis gives.

    Returns:
        H, symmetric, ``H N = 0``: low rank beside ``I/μ`` through Woodbury's identity,
        else dense.
    """
    n, k = factor.shape
    if 2 * k < n:
        return _woodbury_start(factor, active, value, basis, bounds)
    hessian = factor @ factor.T
    columns = active.shape[1]
    null: FloatArray | None = None  # Z
    reduced: FloatArray = hessian
    if columns:
        null = np.linalg.qr(active, mode="complete")[0][:, columns:]
        if not null.shape[1]:
            return Metric.zero(n)
        reduced = null.T @ hessian @ null
    damping = gauss_newton_damping(float(np.max(np.diag(reduced))), value)
    reduced = reduced + damping * np.eye(reduced.shape[0])
    inverse: FloatArray = np.asarray(np.linalg.inv(reduced), dtype=np.float64)
    if null is not None:
        inverse = null @ inverse @ null.T
    return Metric.dense(0.5 * (inverse + inverse.T))


def gauss_newton_damping(largest: float, value: float) -> float:
    """μ of the Gauss–Newton start, from G and the reduced curvature's largest diagonal."""
    return max(_DAMPING * largest, _DAMPING_G * abs(value), 1e-12)


def _woodbury_start(
    factor: FloatArray,
    active: FloatArray,
    value: float,
    basis: FloatArray | None,
    bounds: IntArray | None = None,
) -> Metric:
    """:func:`gauss_newton_start` through Woodbury's identity (F has few columns).

    ``H = I/μ + [Q, PF] diag(−I/μ, −S⁻¹/μ) [Q, PF]ᵀ`` with ``S = FᵀPF + μI``, kept as
    ``H = (I − [Q, PF L⁻ᵀ][Q, PF L⁻ᵀ]ᵀ)/μ`` with ``S = L Lᵀ`` its Cholesky factor (the
    same matrix: ``PF S⁻¹ FᵀP = (PF L⁻ᵀ)(PF L⁻ᵀ)ᵀ``). ``−S⁻¹/μ`` itself loses
    ``cond(S)`` to rounding, up to 1e7 with μ at 1e-7 of the curvature: near a met goal
    of a long chain it can make gᵀHg negative, so that the step rises and the descent
    stalls short of the goal. Through the triangular factor the loss is ``cond(L)``, the
    square root, so that gᵀHg keeps its sign and the rounding of g/μ bounds H's error.
    The metric keeps the rows of FᵀP and turns them by L⁻¹ in each product
    (:class:`.low_rank.Metric`'s turn), which costs k² a product rather than n·k² once
    to form PF L⁻ᵀ. The start costs n·k² for the Gram matrix and k³ for the factor and
    its inverse.
    """
    n, k = factor.shape
    q = 0
    if active.shape[1]:
        rows = np.linalg.qr(active)[0] if basis is None else basis
        if rows.shape[1] >= n:
            return Metric.zero(n)
        q = rows.shape[1]
    room = Metric.room(n, q + k)
    if q:
        room[:q] = rows.T
    compiled = kernel.active()
    factored = None
    if compiled is not None and n * k * k <= _COMPILED_START:
        factored = compiled.woodbury_start(factor, room, q, bounds, _DAMPING, _DAMPING_G, value)
    if factored is not None:
        damping, turn = factored
    else:
        damping, turn = _woodbury_factor(factor, room, q, rows if q else None, bounds, value)
    return woodbury_metric(damping, room, q, turn)


def woodbury_metric(damping: float, room: FloatArray, q: int, turn: FloatArray) -> Metric:
    """H of Woodbury's start from its factorisation: ``(I − [Q, PF L⁻ᵀ][…]ᵀ)/μ``.

    ``room``'s first q rows are Q's, the next k = len(turn) are (PF)ᵀ; ``turn`` is L⁻¹.
    """
    r = q + turn.shape[0]
    core = np.zeros((r, r))
    core.flat[:: r + 1] = -1.0 / damping
    return Metric.of_rows(1.0 / damping, room, r, core, (q, turn))


def _woodbury_factor(
    factor: FloatArray,
    room: FloatArray,
    q: int,
    rows: FloatArray | None,
    bounds: IntArray | None,
    value: float,
) -> tuple[float, FloatArray]:
    """μ and L⁻¹ of Woodbury's start, with (PF)ᵀ written into rows q to q + k of ``room``.

    ``rows``: the active rows' orthonormal basis (n, q), or None with no active row.
    """
    k = factor.shape[1]
    projected = room[q : q + k]  # (PF)ᵀ
    projected[:] = factor.T
    if rows is not None:
        if bounds is not None:
            projected[:, bounds] = 0.0
        else:
            projected[:] = (factor - rows @ (rows.T @ factor)).T
    # the largest diagonal entry of P B P stands for that of Zᵀ B Z
    largest = float(np.einsum("ij,ij->j", projected, projected).max())
    damping = gauss_newton_damping(largest, value)
    gram = projected @ projected.T
    gram.flat[:: k + 1] += damping
    factor_l = _cholesky(gram)
    if factor_l is None:
        # μ ≥ 1e-7 of the largest diagonal entry keeps S positive definite to rounding;
        # where rounding breaks it all the same (entries of wildly different sizes),
        # H starts from the projector scaled by 1/μ, as with no curvature at all.
        projected[:] = 0.0
        return damping, np.zeros((k, k))
    turn: FloatArray = np.asarray(np.linalg.inv(factor_l), dtype=np.float64)
    turn[_upper_triangle(k)] = 0.0  # L⁻¹ is lower triangular: the rest is rounding alone
    return damping, turn


def _cholesky(matrix: FloatArray) -> FloatArray | None:
    """The lower Cholesky factor of ``matrix``, or None where it is not positive definite."""
    if not np.isfinite(matrix).all():
        return None
    try:
        lower: FloatArray = np.asarray(np.linalg.cholesky(matrix), dtype=np.float64)
    except np.linalg.LinAlgError:
        return None
    return lower


_UPPER: dict[int, tuple[IntArray, IntArray]] = {}


def _upper_triangle(k: int) -> tuple[IntArray, IntArray]:
    """The indices of a k×k matrix's strict upper triangle (kept: a descent asks often)."""
    upper = _UPPER.get(k)
    if upper is None:
        upper = _UPPER[k] = np.triu_indices(k, 1)
    return upper


Equalities = tuple[FloatArray, FloatArray]
"""Equality rows a descent keeps active throughout, orthonormal (e, n), zero on every
variable a bound holds, and their right-hand sides (e,)."""


class GaussNewtonStep:
    """The kernel's Gauss–Newton iterations of one descent over φ, on its active bounds.

    :meth:`start` starts H afresh from the curvature at φ and gives H g; :meth:`search`
    takes the step −H g to the end of its line search; :meth:`bound`'s plan runs such
    iterations in one call (:meth:`kernel.Kernel.gauss_newton_descent`). Made by
    :func:`compiled_step`.
    """

    def __init__(
        self,
        library: kernel.Kernel,
        objective: kernel.ObjectivePlan,
        arrays: tuple[FloatArray, ...],
        weight_scale: float,
        k: int,
        index: RowIndex,
    ) -> None:
        self.library, self.objective, self.arrays = library, objective, arrays
        self.weight_scale, self.k, self.index = weight_scale, k, index
        self.plan = objective.descent(len(arrays[3]))

    def renewed(
        self,
        objective: kernel.ObjectivePlan,
        given: tuple[FloatArray, ...],
        weight_scale: float,
        index: RowIndex,
    ) -> bool:
        """Whether this step, its arrays rewritten in place, is :func:`compiled_step`'s of these.

        ``given``: the arrays :func:`compiled_step` would bind, in its order (the faces
        :data:`_NO_FACES` where there are none). It is where the plan (or one :meth:`moved
        <kernel.ObjectivePlan.moved>` from it: the figure moved as a whole), the weight
        scale, the arrays no solve of the plan varies (which variables move which parts,
        the scale, the rows) and the others' shapes are the same; its goals' vectors and
        weights, θ at the start, the rows' bounds and the faces are then copied into its
        own (made with ``own``), and the plan forgets the pose it evaluated last, which
        was of the arrays before.
        """
        arrays = self.arrays
        goal, weight, moves, base, scale, rows, sides, faces = given
        if (  # (written out: a drag event asks, and generators cost more than the tests)
            objective.descents is not self.objective.descents  # (moved plans share them)
            or weight_scale != self.weight_scale
            or index is not self.index
            or moves is not arrays[2]
            or scale is not arrays[4]
            or rows is not arrays[5]
            or (faces is _NO_FACES) != (arrays[7] is _NO_FACES)
            or goal.shape != arrays[0].shape
            or weight.shape != arrays[1].shape
            or base.shape != arrays[3].shape
            or sides.shape != arrays[6].shape
            or faces.shape != arrays[7].shape
        ):
            return False
        np.copyto(arrays[0], goal)
        np.copyto(arrays[1], weight)
        np.copyto(arrays[3], base)
        np.copyto(arrays[6], sides)
        if faces is not _NO_FACES:
            np.copyto(arrays[7], faces)
        if objective is not self.objective:  # the figure moved as a whole: bound again
            self.objective = objective
            self.plan = objective.descent(len(arrays[3]))
        self.plan.forget_pose(arrays)
        return True

    def bound(self) -> kernel.DescentPlan:
        """The plan, bound to this descent (another of the same figure may have bound its own)."""
        plan = self.plan = self.objective.descent(len(self.arrays[3]))
        if plan.bound is not self.arrays:
            plan.bind(self.arrays, self.index, self.weight_scale, (_DAMPING, _DAMPING_G))
        return plan

    def start(
        self,
        phi: FloatArray,
        value: float,
        gradient: FloatArray,
        active: tuple[IntArray, FloatArray, FloatArray],
        inactive: BoolArray,
        equalities: Equalities | None = None,
    ) -> tuple[kernel.GaussNewtonStart, FloatArray]:
        """H's start at φ on the active bounds (and the equalities), and H g.

        Args:
            phi: The iterate, (n,).
            value: G/w there.
            gradient: Its gradient, (n,).
            active: The bounds active: the variable each holds (q,), its row's entry there
                (±1) and their right-hand sides (q,).
            inactive: Whether each inequality row is inactive.
            equalities: The equality rows, always active (:data:`Equalities`), or None.

        Returns:
            The kernel's start, and the metric's buffer: its first q rows are the bounds'
            rows, the next e the equalities', the next k (PF)ᵀ.
        """
        plan = self.bound()
        bounds, signs, rhs = active
        q = len(bounds)
        plan.hold(bounds, signs, rhs, inactive, equalities)
        e = plan.held_rows - q
        room = Metric.room(len(phi), q + e + self.k)  # H's rows: the active ones, then (PF)ᵀ
        room[:q] = 0.0
        room[np.arange(q), bounds] = signs
        if equalities is not None and e:
            room[q : q + e] = equalities[0]
        return self.library.gauss_newton_start(plan, phi, value, gradient, room), room

    def hold(
        self,
        bounds: IntArray,
        signs: FloatArray,
        rhs: FloatArray,
        rows: list[int],
        equalities: Equalities | None = None,
        others: tuple[list[int], FloatArray, FloatArray] | None = None,
    ) -> kernel.DescentPlan:
        """The plan, bound, with ``bounds`` (inequality ``rows``) and ``equalities`` active.

        For a whole descent, which may add the rows its steps meet. ``others``: active
        inequality rows that are no bounds, held as the last of ``equalities``, their
        scaled directions off the other active rows, and R of ``equalities``
        (:meth:`kernel.DescentPlan.hold`), or None.
        """
        plan = self.bound()
        inactive = np.ones(len(self.arrays[6]), dtype=bool)
        inactive[rows] = False
        directions = upper = None
        if others is not None:
            inactive[others[0]] = False
            directions, upper = others[1], others[2]
        e = 0 if equalities is None else len(equalities[1])
        # the rows of two variables or more, which a whole descent holds as it meets them
        faces = self.index.faces
        room = min(len(self.arrays[4]), e + min(faces, _MET_ROWS)) if faces else 0
        plan.hold(bounds, signs, rhs, inactive, equalities, rows, directions, upper, room)
        return plan

    def search(
        self, phi: FloatArray, value: float, gradient: FloatArray, hg: FloatArray
    ) -> kernel.GaussNewtonSearch:
        """The step −H g from φ to its line search's end, on the bounds :meth:`start` held."""
        plan = self.bound()
        return self.library.gauss_newton_search(plan, phi, value, gradient, hg, plan.inactive)


_MET_ROWS = 32
"""Most rows that are no bounds a whole descent adds to those it holds (beyond: Python's)."""

_NO_FACES = np.empty((0, 4))
"""The faces of goals that are all squared distances."""


def compiled_step(
    library: kernel.Kernel,
    plan: kernel.ObjectivePlan,
    goal: FloatArray,
    weight: FloatArray,
    moves: FloatArray,
    faces: FloatArray | None,
    space: Any,
    weight_scale: float,
    *,
    sized: bool = True,
    kept: GaussNewtonStep | None = None,
    own: bool = False,
) -> GaussNewtonStep | None:
    """The kernel's Gauss–Newton iterations of a descent over φ, or None beyond its sizes.

    The kernel takes them where Woodbury's start is its own (n·k² ≤ ``_COMPILED_START``,
    k = 3v for v goal vectors: a point's, an x axis', a y axis'). With as many columns as
    half the variables or more (a short chain with an oriented goal), numpy's start is the
    dense inverse of the same matrix: the same H, Woodbury's to rounding.

    Args:
        library: The kernel.
        plan: The problem's objective plan.
        goal: The goals' vectors, (v, 3) (:meth:`kernel.Kernel.objective`).
        weight: Their weights, (v,).
        moves: Whether each variable moves each part, (n, parts).
        faces: Each goal's plane and kind (:meth:`kernel.Kernel.objective`), or None.
        space: The reduced space: θ at the descent's start (``base``), θ_V = scale ∘ φ,
            the dense inequality rows ``a_in`` and ``b_in``, and ``rows_in`` (their index).
        weight_scale: w: the descent minimises G/w.
        sized: False: at any size (comfort's rounds factor no Woodbury start).
        kept: A step an earlier solve made with ``own``, given back with this descent's
            arrays written into its own where it fits (:meth:`GaussNewtonStep.renewed`):
            a drag's events then bind the kernel's plan once. None: a new step.
        own: Whether the new step's varying arrays are copies of its own, so that a later
            solve may give it as ``kept``.
    """
    n, k = plan.n_variables, 3 * len(weight)
    if sized and n * k * k > _COMPILED_START:
        return None
    index = space.rows_in.index()
    given: tuple[FloatArray, ...] = (goal, weight, moves, space.base, space.scale, space.a_in)
    given += (space.b_in, _NO_FACES if faces is None else faces)
    if kept is not None and kept.renewed(plan, given, weight_scale, index):
        return kept
    arrays = tuple(np.ascontiguousarray(array, dtype=np.float64) for array in given)
    if own:  # what a solve varies, copied: renewed() writes into these
        arrays = tuple(
            array.copy() if j in _RENEWED and array is not _NO_FACES else array
            for j, array in enumerate(arrays)
        )
    return GaussNewtonStep(library, plan, arrays, weight_scale, k, index)


_RENEWED = (0, 1, 3, 6, 7)
"""The positions of a step's arrays that another solve of the same plan varies: the goals'
vectors and weights, θ at the start, the rows' bounds and the goals' faces."""


def fletcher_update(h: Metric, sigma: FloatArray, y: FloatArray) -> Metric:
    """H after a step σ with gradient change y: BFGS when σᵀy ≥ yᵀHy, else DFP.

    The switch of Fletcher 1970; H is returned unchanged unless σᵀy > 0. Both updates
    add ``V C Vᵀ`` with V = [σ, Hy]: BFGS with ``C = [[ρ(1 + ρ yᵀHy), −ρ], [−ρ, 0]]``
    (ρ = 1/σᵀy), DFP with ``C = diag(1/σᵀy, −1/yᵀHy)``.
    """
    sy = float(sigma @ y)
    if sy <= 1e-300:
        return h
    hy = h @ y
    yhy = float(y @ hy)
    if sy >= yhy:
        rho = 1.0 / sy
        core = np.array([[rho * (1.0 + rho * yhy), -rho], [-rho, 0.0]])
    else:
        core = np.array([[1.0 / sy, 0.0], [0.0, -1.0 / yhy]])
    return h.plus(np.column_stack([sigma, hy]), core)
