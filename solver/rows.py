"""Limit rows as a matrix whose products cost O(nonzeros) where most entries are zero.

A figure's inequality rows are mostly bounds, one nonzero each, and polygon edges, two:
on a 500-bone chain A is 3,000 × 1,500 with 3,000 nonzeros, and the dense product
``A v`` that the ratio test of every step and every limit check take reads 36 MB. Kept
as its nonzeros, the product is a weighted ``bincount`` over 3,000 entries, or, where
every row has one nonzero (bounds alone, as on a chain), a gather of them. Small or
dense matrices keep the dense product, which is faster there.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._checks import FloatArray, IntArray

__all__ = ["LimitRows", "RowIndex"]

Int32Array = np.ndarray[Any, np.dtype[np.int32]]
"""Indices as the compiled kernel reads them."""


class RowIndex(NamedTuple):
    """Each row's bound and span, by which the compiled kernel takes a row's products.

    Attributes:
        bound: The variable each row bounds (as :meth:`LimitRows.bounds`), else −1, (m,).
        span: Each row's nonzero entries, from the first to past the last (n, n for a row
            of zeros), (m, 2): a bound's products by its one entry, another row's over its
            span, not over all n variables.
        faces: How many rows hold two entries or more (a limit polygon's edges).
    """

    bound: Int32Array
    span: Int32Array
    faces: int


_SPARSE_SIZE = 1 << 16
"""Entries of A from which its nonzeros may replace the dense product."""
_SPARSE_SHARE = 0.125
"""Largest share of nonzero entries for which they replace the dense product."""


class LimitRows:
    """Rows of a limit matrix A, shape (m, n): products by nonzeros when A is sparse.

    Args:
        dense: A, shape (m, n); not to be changed afterwards.
        sparse: Whether to look for A's nonzeros (one pass over A); False keeps the
            dense product only.
    """

    __slots__ = (
        "_bounds",
        "_columns",
        "_index",
        "_rows",
        "_single",
        "_values",
        "dense",
        "shape",
        "sparse",
    )

    def __init__(self, dense: FloatArray, *, sparse: bool = True) -> None:
        self.dense = dense
        self.shape: tuple[int, int] = (dense.shape[0], dense.shape[1])
        self.sparse = False
        self._rows: IntArray = np.empty(0, np.intp)
        self._columns: IntArray = np.empty(0, np.intp)
        self._values: FloatArray = np.empty(0)
        self._single: tuple[IntArray, FloatArray] | None = None  # row i: A[i, c[i]] = a[i]
        self._bounds: tuple[IntArray, FloatArray] | None = None
        self._index: RowIndex | None = None
        if sparse and dense.size >= _SPARSE_SIZE:
            rows, columns = np.nonzero(dense)
            self._adopt(rows, columns, dense[rows, columns])

    @classmethod
    def of_nonzeros(
        cls, dense: FloatArray, rows: IntArray, columns: IntArray, values: FloatArray
    ) -> LimitRows:
        """A's rows where its nonzeros are known already (no pass over A to find them).

        Args:
            dense: A, shape (m, n); not to be changed afterwards.
            rows: The row of each nonzero.
            columns: Its column.
            values: Its value.
        """
        limit = cls(dense, sparse=False)
        limit._adopt(rows, columns, values)
        return limit

    def _adopt(self, rows: IntArray, columns: IntArray, values: FloatArray) -> None:
        """Multiply by these nonzeros of A when A is large and sparse enough."""
        if self.dense.size >= _SPARSE_SIZE and rows.size <= _SPARSE_SHARE * self.dense.size:
            self.sparse = True
            self._rows, self._columns, self._values = rows, columns, values
            if rows.size == self.shape[0] and (np.bincount(rows, minlength=rows.size) == 1).all():
                single_columns = np.empty(rows.size, np.intp)
                single_values = np.empty(rows.size)
                single_columns[rows], single_values[rows] = columns, values
                self._single = (single_columns, single_values)

    def nonzeros(self) -> tuple[IntArray, IntArray, FloatArray]:
        """A's nonzero entries: their rows, columns and values."""
        if self.sparse:
            return self._rows, self._columns, self._values
        rows, columns = np.nonzero(self.dense)
        return rows, columns, self.dense[rows, columns]

    def bounds(self) -> tuple[IntArray, FloatArray]:
        """Per row, the variable it bounds and its entry there (±1), found once.

        A row that is no bound (not ±1 on one variable alone) has −1 and 0.
        """
        if self._bounds is None:
            nonzero = self.dense != 0.0
            single = nonzero.sum(axis=1) == 1
            columns = np.argmax(nonzero, axis=1) if self.shape[1] else np.zeros(0, np.intp)
            values = self.dense[np.arange(self.shape[0]), columns] if self.shape[1] else columns
            bound = single & (np.abs(values) == 1.0)
            self._bounds = (
                np.where(bound, columns, -1).astype(np.intp),
                np.where(bound, values, 0.0).astype(np.float64),
            )
        return self._bounds

    def index(self) -> RowIndex:
        """Each row's bound and span (:class:`RowIndex`), found once from A's nonzeros."""
        if self._index is None:
            self._index = _row_index(self.shape, *self.nonzeros(), self.bounds()[0])
        return self._index

    def box(self, b: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The bounds among the rows of ``A φ ≥ b``: each variable's lowest and highest value.

        Returns:
            ``(lower, upper)``, shape (n,) each, −inf and +inf where no row bounds the
            variable; the other rows are not in them.
        """
        variables, signs = self.bounds()
        lower = np.full(self.shape[1], -np.inf)
        upper = np.full(self.shape[1], np.inf)
        below, above = signs > 0.0, signs < 0.0
        np.maximum.at(lower, variables[below], b[below])
        np.minimum.at(upper, variables[above], -b[above])
        return lower, upper

    def __matmul__(self, vector: FloatArray) -> FloatArray:
        """A v, shape (m,)."""
        if not self.sparse:
            dense: FloatArray = self.dense @ vector
            return dense
        if self._single is not None:
            single: FloatArray = self._single[1] * vector[self._single[0]]
            return single
        products = self._values * vector[self._columns]
        counted = np.bincount(self._rows, weights=products, minlength=self.shape[0])
        return np.asarray(counted, dtype=np.float64)

    def __getitem__(self, index: int | IntArray | list[int]) -> FloatArray:
        """Rows of A, dense."""
        rows: FloatArray = self.dense[index]
        return rows

    def rows_times(self, index: IntArray, vector: FloatArray) -> FloatArray:
        """``A[index] v``, shape (len(index),)."""
        if self._single is not None:
            single: FloatArray = self._single[1][index] * vector[self._single[0][index]]
            return single
        if self.sparse:
            return (self @ vector)[index]
        result: FloatArray = self.dense[index] @ vector
        return result


def _row_index(
    shape: tuple[int, int], rows: IntArray, columns: IntArray, values: FloatArray, bound: IntArray
) -> RowIndex:
    """:meth:`LimitRows.index` of A's nonzeros and its rows' bounds."""
    m, n = shape
    kept = values != 0.0
    rows, columns = rows[kept], columns[kept]
    first = np.full(m, n, dtype=np.intp)
    past = np.full(m, n, dtype=np.intp)
    np.minimum.at(first, rows, columns)
    touched = np.zeros(m, dtype=bool)
    touched[rows] = True
    past[touched] = 0
    np.maximum.at(past, rows, columns + 1)
    span: Int32Array = np.ascontiguousarray(np.stack([first, past], axis=1), dtype=np.int32)
    faces = int(np.count_nonzero(past - first > 1))
    return RowIndex(bound.astype(np.int32), span, faces)
