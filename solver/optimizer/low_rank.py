"""H as a scaled identity plus a low-rank term, ``H = c I + U M Uᵀ``, or dense.

Every H of the descent is such a sum: the projector ``I − N(NᵀN)⁻¹Nᵀ`` (c = 1, U = N),
the Gauss–Newton start through Woodbury's identity (c = 1/μ, U = [Q, PF]; see
:mod:`.metric`), and each of Goldfarb's rank-one and BFGS/DFP rank-two updates adds
columns to U and a block to M. With r columns, ``H v`` costs O(n·r + r²) and an update
O(n·r), instead of O(n²) for a dense n×n H, so on a long chain with a few goals an
iteration costs O(n·k) in the k columns of the Gauss–Newton factor, not O(n²) (the
1994 paper keeps H dense: its figures had tens of DOFs). Once r reaches n/2, the dense
matrix is cheaper and H becomes dense for good.
"""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray

__all__ = ["Metric"]


class Metric:
    """A symmetric n×n matrix ``c I + U M Uᵀ`` (or dense), immutable.

    Args:
        n: Size.
        scale: c.
        basis: U, shape (n, r).
        core: M, symmetric, shape (r, r).
    """

    __slots__ = ("basis", "core", "matrix", "n", "scale")

    def __init__(self, n: int, scale: float, basis: FloatArray, core: FloatArray) -> None:
        self.n = n
        self.scale = scale
        self.basis = basis
        self.core = core
        self.matrix: FloatArray | None = None
        if basis.shape[1] and 2 * basis.shape[1] >= n:
            self.matrix = self.to_array()

    @classmethod
    def dense(cls, matrix: FloatArray) -> Metric:
        """A dense H, shape (n, n)."""
        n = matrix.shape[0]
        metric = cls(n, 0.0, np.empty((n, 0)), np.empty((0, 0)))
        metric.matrix = matrix
        return metric

    @classmethod
    def zero(cls, n: int) -> Metric:
        """The zero matrix (every direction held by the active rows)."""
        return cls(n, 0.0, np.empty((n, 0)), np.empty((0, 0)))

    @property
    def rank(self) -> int:
        """Columns of U; n for a dense H."""
        return self.n if self.matrix is not None else self.basis.shape[1]

    def __matmul__(self, vector: FloatArray) -> FloatArray:
        """H v, shape (n,)."""
        if self.matrix is not None:
            dense: FloatArray = self.matrix @ vector
            return dense
        result: FloatArray = self.scale * vector
        if self.basis.shape[1]:
            result = result + self.basis @ (self.core @ (self.basis.T @ vector))
        return result

    def plus(self, vectors: FloatArray, core: FloatArray) -> Metric:
        """``H + V C Vᵀ`` for V of shape (n, p) and symmetric C of shape (p, p)."""
        if self.matrix is not None:
            matrix = self.matrix + vectors @ core @ vectors.T
            return Metric.dense(0.5 * (matrix + matrix.T))
        r, p = self.basis.shape[1], vectors.shape[1]
        joined = np.zeros((r + p, r + p))
        joined[:r, :r] = self.core
        joined[r:, r:] = core
        return Metric(self.n, self.scale, np.hstack([self.basis, vectors]), joined)

    def plus_outer(self, vector: FloatArray, coefficient: float) -> Metric:
        """``H + c v vᵀ``."""
        return self.plus(vector[:, None], np.array([[coefficient]]))

    def to_array(self) -> FloatArray:
        """H as a dense symmetric matrix, shape (n, n)."""
        if self.matrix is not None:
            return self.matrix
        result: FloatArray = self.basis @ self.core @ self.basis.T
        result = 0.5 * (result + result.T)
        result[np.diag_indices(self.n)] += self.scale
        return result
