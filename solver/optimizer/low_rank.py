"""H as a scaled identity plus a low-rank term, ``H = c I + U M Uᵀ``, or dense.

Every H of the descent is such a sum: the projector ``I − N(NᵀN)⁻¹Nᵀ`` (c = 1, U = N),
the Gauss–Newton start through Woodbury's identity (c = 1/μ, Uᵀ = [Qᵀ; L⁻¹FᵀP], kept as
the rows of FᵀP and their turn L⁻¹; see :mod:`.metric`), and each of Goldfarb's rank-one
and BFGS/DFP rank-two updates adds columns to U and a block to M. With r columns,
``H v`` costs O(n·r + r²) and an update O(n·p + r²) for its p columns (written after U's
others, in place), instead of O(n²) for a dense n×n H, so on a long chain with a few
goals an iteration costs O(n·k) in the k columns of the Gauss–Newton factor, not O(n²)
(the 1994 paper keeps H dense: its figures had tens of DOFs). Once r reaches n/2, the
dense matrix is cheaper and H becomes dense for good. U is kept as its rows Uᵀ,
contiguous, as the compiled Newton step reads them.
"""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray

__all__ = ["Metric"]


_SPARE = 16
"""Rows of room a new U keeps for the updates that follow it."""


class _Rows:
    """Uᵀ's rows in a buffer with room below them, shared by the metrics that extend it.

    A metric of rank r reads rows ``[:r]``; :meth:`Metric.plus` writes its vectors into
    the rows after them when its metric is the last to have extended the buffer, so an
    update copies p rows rather than all r + p, and no metric's rows ever change.
    """

    __slots__ = ("array", "used")

    def __init__(self, array: FloatArray, used: int) -> None:
        self.array = array
        self.used = used


class Metric:
    """A symmetric n×n matrix ``c I + U M Uᵀ`` (or dense), immutable.

    U may be kept as rows R and a turn T of some of them, ``Uᵀ = K R`` with K the
    identity but for T on rows ``[s, s + p)``: Woodbury's start keeps its k rows so,
    with T of k×k, instead of forming their n×k product (see :mod:`.metric`).

    Args:
        n: Size.
        scale: c.
        basis: U, shape (n, r).
        core: M, symmetric, shape (r, r).
    """

    __slots__ = ("_rank", "_rows", "core", "matrix", "n", "scale", "turn")

    def __init__(self, n: int, scale: float, basis: FloatArray, core: FloatArray) -> None:
        r = basis.shape[1]
        rows = np.empty((r + _SPARE, n))
        rows[:r] = basis.T
        self._set(n, scale, _Rows(rows, r), r, core, None)

    def _set(
        self,
        n: int,
        scale: float,
        rows: _Rows,
        rank: int,
        core: FloatArray,
        turn: tuple[int, FloatArray] | None,
    ) -> None:
        self.n = n
        self.scale = scale
        self._rows = rows
        self._rank = rank
        self.core = core
        self.turn = turn
        """``(s, T)``: T (p, p), lower triangular, turns rows ``[s, s + p)`` of :attr:`rows`;
        None: no turn."""
        self.matrix: FloatArray | None = None
        if rank and 2 * rank >= n:
            self.matrix = self.to_array()

    @staticmethod
    def room(n: int, r: int) -> FloatArray:
        """An empty buffer for R's r rows (its first r), with room for updates after."""
        return np.empty((r + _SPARE, n))

    @classmethod
    def of_rows(
        cls,
        scale: float,
        room: FloatArray,
        r: int,
        core: FloatArray,
        turn: tuple[int, FloatArray] | None = None,
    ) -> Metric:
        """``c I + U M Uᵀ`` with R the first r rows of ``room`` (from :meth:`room`).

        Args:
            scale: c.
            room: The buffer.
            r: Rows of R.
            core: M, (r, r).
            turn: ``(s, T)``: Uᵀ is R with rows ``[s, s + p)`` turned by T (p, p), lower
                triangular.
        """
        metric = cls.__new__(cls)
        metric._set(room.shape[1], scale, _Rows(room, r), r, core, turn)
        return metric

    @classmethod
    def dense(cls, matrix: FloatArray) -> Metric:
        """A dense H, shape (n, n)."""
        metric = cls.zero(matrix.shape[0])
        metric.matrix = matrix
        return metric

    @classmethod
    def zero(cls, n: int) -> Metric:
        """The zero matrix (every direction held by the active rows); no room for rows."""
        return cls.of_rows(0.0, np.empty((0, n)), 0, np.empty((0, 0)))

    @property
    def basis(self) -> FloatArray:
        """U, shape (n, r): a view, or the turned rows' copy."""
        return self._turned().T

    @property
    def rows(self) -> FloatArray:
        """R, shape (r, n), C-contiguous (a view): Uᵀ before :attr:`turn`."""
        rows: FloatArray = self._rows.array[: self._rank]
        return rows

    @property
    def rank(self) -> int:
        """Columns of U; n for a dense H."""
        return self.n if self.matrix is not None else self._rank

    def __matmul__(self, vector: FloatArray) -> FloatArray:
        """H v, shape (n,)."""
        if self.matrix is not None:
            dense: FloatArray = self.matrix @ vector
            return dense
        result: FloatArray = self.scale * vector
        if self._rank:
            rows = self._rows.array[: self._rank]
            coefficients = rows @ vector
            if self.turn is None:
                result += (self.core @ coefficients) @ rows
                return result
            start, turn = self.turn
            end = start + turn.shape[0]
            coefficients[start:end] = turn @ coefficients[start:end]
            coefficients = self.core @ coefficients
            coefficients[start:end] = coefficients[start:end] @ turn
            result += coefficients @ rows
        return result

    def plus(self, vectors: FloatArray, core: FloatArray) -> Metric:
        """``H + V C Vᵀ`` for V of shape (n, p) and symmetric C of shape (p, p)."""
        if self.matrix is not None:
            matrix = self.matrix + vectors @ core @ vectors.T
            return Metric.dense(0.5 * (matrix + matrix.T))
        r, p = self._rank, vectors.shape[1]
        joined = np.zeros((r + p, r + p))
        joined[:r, :r] = self.core
        joined[r:, r:] = core
        rows = self._rows
        if rows.used != r or r + p > rows.array.shape[0]:
            array = np.empty((2 * (r + p) + _SPARE, self.n))
            array[:r] = rows.array[:r]
            rows = _Rows(array, r)
        rows.array[r : r + p] = vectors.T
        rows.used = r + p
        metric = Metric.__new__(Metric)
        metric._set(self.n, self.scale, rows, r + p, joined, self.turn)
        return metric

    def plus_outer(self, vector: FloatArray, coefficient: float) -> Metric:
        """``H + c v vᵀ``."""
        return self.plus(vector[:, None], np.array([[coefficient]]))

    def to_array(self) -> FloatArray:
        """H as a dense symmetric matrix, shape (n, n)."""
        if self.matrix is not None:
            return self.matrix
        rows = self._turned()
        result: FloatArray = rows.T @ self.core @ rows
        result = 0.5 * (result + result.T)
        result[np.diag_indices(self.n)] += self.scale
        return result

    def _turned(self) -> FloatArray:
        """Uᵀ, shape (r, n): R with the turned rows turned."""
        rows: FloatArray = self._rows.array[: self._rank]
        if self.turn is None:
            return rows
        start, turn = self.turn
        turned = rows.copy()
        turned[start : start + turn.shape[0]] = turn @ rows[start : start + turn.shape[0]]
        return turned
