"""numpy's singular value decomposition and least squares, round LAPACK's failures.

numpy's ``svd`` and ``lstsq`` call LAPACK's divide-and-conquer drivers, which on some
CPUs' OpenBLAS kernels stop without converging on ordinary, well-scaled matrices (a
96 × 79 matrix of entries between 0.07 and 1, on numpy 1.26's OpenBLAS on an AVX-512
Xeon, and on its Prescott kernels). The same matrix transposed, or its triangular factor
R of ``A = Q R``, converges there: the decomposition is taken from those instead, the
same up to rounding. Where numpy converges, its own result is returned untouched.
"""

from __future__ import annotations

import numpy as np

from ._checks import FloatArray

__all__ = ["lstsq", "svd"]


def svd(
    matrix: FloatArray, full_matrices: bool = True
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``np.linalg.svd(matrix, full_matrices)``: U, the singular values and Vᵀ.

    Where LAPACK does not converge on ``matrix``, from its transpose's decomposition,
    else from that of R in ``matrix = Q R`` (``Q`` of orthonormal columns), whichever
    converges first.

    Raises:
        numpy.linalg.LinAlgError: Where none converges (a matrix with NaN or infinity).
    """
    try:
        u, sigma, vt = np.linalg.svd(matrix, full_matrices=full_matrices)
        return u, sigma, vt
    except np.linalg.LinAlgError:
        if not np.isfinite(matrix).all():
            raise
    try:
        u_t, sigma, vt_t = np.linalg.svd(matrix.T, full_matrices=full_matrices)
        return vt_t.T, sigma, u_t.T
    except np.linalg.LinAlgError:
        pass
    return _through_qr(matrix, full_matrices)


def _through_qr(
    matrix: FloatArray, full_matrices: bool
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The decomposition of ``matrix`` (m, n) from that of its QR factorisation's R.

    A tall matrix ``A = Q R`` has the singular values of R (n, n) and U = Q U_R; a wide
    one is the transpose of a tall one. With ``full_matrices``, the orthonormal
    complement of Q's columns completes U (or Vᵀ).
    """
    rows, columns = matrix.shape
    if rows < columns:
        u_t, sigma, vt_t = _through_qr(matrix.T, full_matrices)
        return vt_t.T, sigma, u_t.T
    q, r = np.linalg.qr(matrix, mode="complete" if full_matrices else "reduced")
    u_r, sigma, vt = np.linalg.svd(r[:columns], full_matrices=False)
    u: FloatArray = q[:, :columns] @ u_r
    if full_matrices:
        u = np.concatenate([u, q[:, columns:]], axis=1)
    return u, sigma, vt


def lstsq(matrix: FloatArray, rhs: FloatArray) -> FloatArray:
    """``np.linalg.lstsq(matrix, rhs, rcond=None)[0]``: the least-norm least-squares solution.

    ``rhs`` is one vector, shape (m,).

    Where LAPACK does not converge, from :func:`svd`, with numpy's cut-off: singular
    values below ``max(m, n)`` machine epsilons of the largest count as zero.

    Raises:
        numpy.linalg.LinAlgError: Where no decomposition converges.
    """
    try:
        return np.asarray(np.linalg.lstsq(matrix, rhs, rcond=None)[0], dtype=np.float64)
    except np.linalg.LinAlgError:
        pass
    u, sigma, vt = svd(matrix, full_matrices=False)
    cut = np.finfo(np.float64).eps * max(matrix.shape) * float(sigma.max(initial=0.0))
    kept = sigma > cut
    inverse = np.zeros_like(sigma)
    inverse[kept] = 1.0 / sigma[kept]
    solution = vt.T @ (inverse * (u.T @ rhs))
    return solution
