"""The active set of a projected-gradient method (Rosen 1960).

Its rows, projections and multipliers, the ratio test, and the floor of the
Kuhn–Tucker test on them.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._checks import BoolArray, FloatArray, IntArray
from ..rows import LimitRows

__all__ = ["START_SLACK", "ActiveSet", "kkt_floor"]

START_SLACK = 1e-10
"""A row is active at a descent's start when its slack is at most this."""


_INDEPENDENT = 1e-10
"""Squared length of a unit row's part off the active rows' span above which it counts as
independent of them."""
ROUNDING = 1e-7
"""Relative size of ‖Pg‖ against ‖g‖ below which rounding hides any further decrease."""
ROUNDING_ROOT = 1e-6
"""Size of ‖Pg‖ against √G below which a step's decrease (about ‖Pg‖²) is lost to rounding."""


def kkt_floor(tolerance: float, gradient: FloatArray, value: float) -> float:
    """ε of the Kuhn–Tucker test: ``max(tolerance, 1e-7·‖g‖, 1e-6·√G)``.

    The relative terms matter only while G stays large (an unreachable goal): a step
    along a projected gradient of size 1e-6·√G lowers G by about 1e-12·G, which
    rounding hides.
    """
    norm = float(np.sqrt(gradient @ gradient))
    return max(tolerance, ROUNDING * norm, ROUNDING_ROOT * float(np.sqrt(abs(value))))


def kkt_message(projected: float, floor: float, tolerance: float) -> str:
    """What a descent that stops at a Kuhn–Tucker point says (``floor``: :func:`kkt_floor`'s)."""
    return f"Kuhn–Tucker point: projected gradient {projected:.3g} ≤ {floor:.3g}" + (
        "" if floor == tolerance else " (the rounding floor of a large G)"
    )


class ActiveSet:
    """Active rows N (as columns), (NᵀN)⁻¹ and their right-hand sides, kept together.

    Equalities are always the first ``k`` columns; ``rows`` lists the active inequality
    rows after them. The inequality rows may come as :class:`~solver.rows.LimitRows`
    (products by their nonzeros).
    """

    def __init__(
        self,
        a_eq: FloatArray,
        b_eq: FloatArray,
        a_in: FloatArray | LimitRows,
        b_in: FloatArray,
    ) -> None:
        self.a_eq, self.b_eq, self.b_in = a_eq, b_eq, b_in
        self.a_in = a_in if isinstance(a_in, LimitRows) else LimitRows(a_in, sparse=False)
        self.n = a_eq.shape[1]
        self.k = a_eq.shape[0]
        self.rows: list[int] = []
        self._box: tuple[FloatArray, FloatArray] | None = None
        self._refresh()

    @classmethod
    def at(
        cls,
        phi: FloatArray,
        a_eq: FloatArray,
        b_eq: FloatArray,
        a_in: FloatArray | LimitRows,
        b_in: FloatArray,
        *,
        slack: float,
    ) -> ActiveSet:
        """The rows active at ``phi``.

        The equalities, then each inequality whose slack is at most ``slack``, tightest
        first, unless it depends on the rows before it.
        """
        active = cls(a_eq, b_eq, a_in, b_in)
        slacks = active.a_in @ phi - b_in
        # Gram–Schmidt over the rows taken so far decides independence (as
        # :meth:`independent` would); the set's matrices are formed once, at the end.
        span = np.linalg.qr(a_eq.T)[0] if active.k else np.empty((active.n, 0))
        for j in np.argsort(slacks):
            if slacks[j] > slack:
                break
            rest = _off_span(active.a_in[j], span)
            size = float(rest @ rest)
            if size > _INDEPENDENT:
                active.rows.append(int(j))
                span = np.column_stack([span, rest / np.sqrt(size)])
        if active.rows:
            active._refresh()
        return active

    def with_row(self, row: int) -> ActiveSet:
        """A copy with inequality ``row`` added."""
        other = ActiveSet.__new__(ActiveSet)
        other.__dict__.update(self.__dict__)
        other.rows = [*self.rows, row]
        other._refresh()
        return other

    def add(self, row: int) -> None:
        """Add inequality ``row``."""
        self.rows.append(row)
        self._refresh()

    def remove(self, position: int) -> int:
        """Remove the active inequality at ``position`` in :attr:`rows`; return its row."""
        row = self.rows.pop(position)
        self._refresh()
        return row

    def _refresh(self) -> None:
        self._basis: FloatArray | None = None
        self._bounds: IntArray | None = None
        self._held_at: tuple[IntArray, FloatArray] | None = None
        self._bounds_known = False
        self.gram_inverse: FloatArray
        if not self.k and not self.rows:  # no row at all (a drag event's start, often)
            self.matrix, self.rhs, self.gram_inverse = _no_rows(self.n)
            return
        self.matrix = np.vstack([self.a_eq, self.a_in[self.rows]]).T  # (n, q)
        self.rhs = np.concatenate([self.b_eq, self.b_in[self.rows]])
        self.gram_inverse = _gram_inverse(self.matrix)

    @property
    def basis(self) -> FloatArray:
        """An orthonormal basis of the active rows' span, as columns (n, q).

        Kept until the rows change: every Gauss–Newton start on the same rows reuses it.
        """
        if self._basis is None:
            if self.bounds is not None or not self.matrix.shape[1]:
                self._basis = self.matrix  # bounds' rows are orthonormal already
            else:
                self._basis = np.linalg.qr(self.matrix)[0]
        return self._basis

    @property
    def bounds(self) -> IntArray | None:
        """The variable each active row bounds, when each is a bound: ±1 on one variable.

        Projecting off such rows zeroes their variables, at no cost per row (a long
        chain's limits are bounds, polygons' edges are not). None when some row is not
        a bound, or two bound the same variable.
        """
        if not self._bounds_known:
            self._bounds, self._bounds_known = self._bound_variables(), True
        return self._bounds

    def _bound_variables(self) -> IntArray | None:
        """Each active row's variable when every one is a bound, all apart; else None."""
        if not self.k and not self.rows:
            return None
        variables = self.a_in.bounds()[0][self.rows]
        if self.k:  # equalities are rows too (rare: found afresh)
            variables = np.concatenate((LimitRows(self.a_eq, sparse=False).bounds()[0], variables))
        listed = variables.tolist()  # (a set of a few ints costs less than np.unique's sort)
        if min(listed) < 0 or len(set(listed)) != len(listed):
            return None
        return variables

    @property
    def held(self) -> np.ndarray[Any, np.dtype[np.uint8]] | None:
        """1 for each variable an active bound holds, 0 elsewhere (all 0 with no row active).

        :meth:`project` zeroes the held variables: the compiled Newton step's projection.
        None when some active row is not a bound.
        """
        if not self.matrix.shape[1]:
            return np.zeros(self.n, dtype=np.uint8)
        bounds = self.bounds
        if bounds is None:
            return None
        held = np.zeros(self.n, dtype=np.uint8)
        held[bounds] = 1
        return held

    def projector(self, exclude: int | None = None) -> FloatArray:
        """Projector onto the null space of the active rows (less column ``exclude``)."""
        matrix = self.matrix
        if exclude is not None:
            matrix = np.delete(matrix, exclude, axis=1)
        if not matrix.shape[1]:
            return np.eye(self.n)
        basis = np.linalg.qr(matrix)[0]
        result: FloatArray = np.eye(self.n) - basis @ basis.T
        return result

    def project(self, vector: FloatArray, exclude: int | None = None) -> FloatArray:
        """``vector`` less its component in the span of the active rows (less ``exclude``).

        Without column ``exclude``, ``(NᵀN)⁻¹`` of the other columns is the Schur
        complement of ``exclude``'s diagonal entry in :attr:`gram_inverse`: O(n·q + q²),
        no n×n projector.
        """
        bounds = self.bounds
        if bounds is not None:  # exactly what the product below gives for bounds
            zeroed = vector.copy()
            zeroed[bounds if exclude is None else np.delete(bounds, exclude)] = 0.0
            return zeroed
        matrix, inverse = self.matrix, self.gram_inverse
        if exclude is not None:
            keep = np.arange(matrix.shape[1]) != exclude
            column = inverse[keep, exclude]
            inverse = (
                inverse[np.ix_(keep, keep)] - np.outer(column, column) / inverse[exclude, exclude]
            )
            matrix = matrix[:, keep]
        if not matrix.shape[1]:
            return vector
        result: FloatArray = vector - matrix @ (inverse @ (matrix.T @ vector))
        return result

    def independent(self, row: FloatArray) -> bool:
        """Whether ``row`` (unit) is linearly independent of the active rows.

        Measured against the rows' orthonormal :attr:`basis`, not through
        :attr:`gram_inverse`: where the active rows are nearly dependent (a smallest
        singular value of 1e-6 squares to a Gram matrix of condition 1e12), the product
        with ``(NᵀN)⁻¹`` loses the row's part off their span to rounding, and a row in
        their span would be taken for independent and make NᵀN singular.
        """
        if self.bounds is not None or not self.matrix.shape[1]:
            rest = self.project(row)  # bounds' span: their variables zeroed, exactly
        else:
            rest = _off_span(row, self.basis)
        return float(rest @ rest) > _INDEPENDENT

    def multipliers(self, gradient: FloatArray) -> FloatArray:
        """Lagrange multipliers λ = (NᵀN)⁻¹Nᵀg of ``gradient``, equalities first."""
        if not self.matrix.shape[1]:
            return np.empty(0)
        result: FloatArray = self.gram_inverse @ (self.matrix.T @ gradient)
        return result

    def correct(self, phi: FloatArray) -> FloatArray:
        """Put ``phi`` back onto the active rows (a correction of rounding size).

        An active bound's variable is set to the bound itself, exactly (``s φ_j = b``
        with ``s = ±1`` is ``φ_j = s b``), so that rounding never leaves a variable
        beyond its bound; the other rows are met to rounding by the least-squares
        projection, taken when any is off by more than 1e-13.
        """
        if not self.matrix.shape[1]:
            return phi
        variables, values = self._bound_values()
        exact = phi
        if self.bounds is None or self.k:  # rows that are no inequality bounds
            residual = self.matrix.T @ phi - self.rhs
            if float(np.abs(residual).max()) > 1e-13:
                exact = phi - self.matrix @ (self.gram_inverse @ residual)
        if variables.size:
            exact = phi.copy() if exact is phi else exact
            exact[variables] = values
        return exact

    def _bound_values(self) -> tuple[IntArray, FloatArray]:
        """The variables the active inequality bounds hold and the value each is held at.

        ``s φ_j ≥ b`` with ``s = ±1`` is held at ``φ_j = s b``; found once per set of rows.
        """
        if self._held_at is None:
            columns, signs = self.a_in.bounds()
            rows = np.asarray(self.rows, dtype=np.intp)
            bound = rows[columns[rows] >= 0]
            self._held_at = (columns[bound], signs[bound] * self.b_in[bound])
        return self._held_at

    def inside(self, phi: FloatArray) -> FloatArray:
        """``phi`` with each variable within every bound among the rows, exactly.

        A descent's exit: its points meet the active bounds exactly (:meth:`correct`)
        and the ratio test keeps the others, but where two rows tie in the ratio test
        the one not added may be left beyond its bound by rounding; this clamp, of
        rounding size, takes it back.
        """
        if self._box is None:  # the rows and b of every set a descent makes are its start's
            self._box = self.a_in.box(self.b_in)
        inside: FloatArray = np.clip(phi, *self._box)
        return inside

    def first_block(
        self, step: FloatArray, phi: FloatArray, inactive: BoolArray
    ) -> tuple[float, int]:
        """The ratio test: how far along ``step`` from ``phi`` the first inactive row holds.

        Returns:
            ``(λ_max, row)``: the largest step factor that keeps every ``inactive`` row
            satisfied and the row met there, or ``(inf, -1)`` when no row blocks. A row
            in the span of the active rows (a degenerate vertex: three limits through
            one point) cannot be added, and is passed over; the step keeps it to
            rounding.
        """
        rates = self.a_in @ step
        blocking = inactive & (rates < -1e-14 * float(np.sqrt(step @ step)))
        while True:
            limit = np.inf
            hit = -1
            if blocking.any():
                candidates = np.flatnonzero(blocking)
                slack = self.a_in.rows_times(candidates, phi) - self.b_in[candidates]
                ratios = np.maximum(slack, 0.0) / -rates[candidates]
                best = int(np.argmin(ratios))
                limit = float(ratios[best])
                hit = int(candidates[best])
            if hit < 0 or self.independent(self.a_in[hit]):
                return limit, hit
            blocking[hit] = False


def _off_span(row: FloatArray, span: FloatArray) -> FloatArray:
    """``row`` less its part in the span of the orthonormal columns ``span``.

    Gram–Schmidt twice over: one pass leaves a part in the span of rounding times the
    row's length, which is all of what is left where the row lies nearly in the span.
    """
    once = row - span @ (span.T @ row)
    rest: FloatArray = once - span @ (span.T @ once)
    return rest


def _gram_inverse(matrix: FloatArray) -> FloatArray:
    """``(NᵀN)⁻¹`` of the active rows as columns N, shape (q, q).

    The rows are independent (:meth:`ActiveSet.independent` admits each one), so NᵀN
    is invertible; where rounding makes it singular all the same, the pseudo-inverse
    stands in: multipliers and projections then take the least-squares answer, never
    an error.
    """
    if not matrix.shape[1]:
        return np.empty((0, 0))
    gram = matrix.T @ matrix
    identity = _identity(matrix.shape[1])
    if (gram == identity).all():  # bounds on distinct variables: inv's own answer, exactly
        return identity.copy()
    try:
        inverse = np.linalg.inv(gram)
    except np.linalg.LinAlgError:
        inverse = None
    if inverse is None or not np.isfinite(inverse).all():
        inverse = np.linalg.pinv(gram, hermitian=True)
    return np.asarray(inverse, dtype=np.float64)


@functools.lru_cache(maxsize=64)
def _identity(q: int) -> FloatArray:
    """The identity of size ``q``, read-only: an active set's NᵀN where its rows are bounds."""
    identity = np.eye(q)
    identity.setflags(write=False)
    return identity


@functools.lru_cache(maxsize=64)
def _no_rows(n: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """N, its right-hand sides and (NᵀN)⁻¹ of an active set with no row, read-only."""
    arrays = (np.empty((n, 0)), np.empty(0), np.empty((0, 0)))
    for array in arrays:
        array.setflags(write=False)
    return arrays
