"""The solver's variables: scaled free DOFs φ and the joint limits over them.

The variables are the problem's free DOFs V (in some chain, not locked). With the scale
``s = 1 − rigidity``, ``θ_V = s ∘ φ`` and every other DOF keeps its start value. A limit
row ``aᵀθ ≥ b`` becomes ``(a_V ∘ s)ᵀφ ≥ b − a_Fᵀθ_F``, normalised to a unit row; rows
with no free DOF are constants (checked at the start pose) and dropped. Equalities are
replaced by an orthonormal basis of their row space, so that redundant joint-group
equations do no harm. The inequality rows are also kept as :class:`~solver.rows.LimitRows`
(``rows_in``), whose products go by their nonzeros on a long chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._checks import FloatArray, IntArray
from ..problem import Problem
from ..rows import LimitRows

__all__ = ["ReducedSpace"]


@dataclass(frozen=True, eq=False)
class ReducedSpace:
    """The map θ ↔ φ and the unit-row limits ``E φ = e``, ``A φ ≥ b``.

    Attributes:
        variables: θ indices of the free DOFs, shape (n_v,).
        scale: s per free DOF, shape (n_v,).
        base: θ with the fixed DOFs at their start values, shape (n_dofs,).
        a_eq: Orthonormal equality rows, shape (k, n_v).
        b_eq: Shape (k,).
        a_in: Unit inequality rows, shape (m, n_v).
        b_in: Shape (m,).
        in_rows: For each inequality row, its row in ``figure.limits``, shape (m,).
        lower: Lower bounds of φ (−inf where none), shape (n_v,).
        upper: Upper bounds of φ (+inf where none), shape (n_v,).
        rows_in: ``a_in`` as :class:`~solver.rows.LimitRows`: products by its nonzeros
            (bounds and polygon edges touch one or two variables each).
    """

    variables: IntArray
    scale: FloatArray
    base: FloatArray = field(repr=False)
    a_eq: FloatArray = field(repr=False)
    b_eq: FloatArray = field(repr=False)
    a_in: FloatArray = field(repr=False)
    b_in: FloatArray = field(repr=False)
    in_rows: IntArray = field(repr=False)
    lower: FloatArray = field(repr=False)
    upper: FloatArray = field(repr=False)
    rows_in: LimitRows = field(repr=False)

    @classmethod
    def build(cls, problem: Problem, theta0: FloatArray) -> ReducedSpace:
        """Reduce ``problem``'s limits to its free DOFs at the start pose ``theta0``.

        The rows over the variables depend on the problem alone: they are made once and
        kept in ``problem.memo`` (drag events share them through ``Problem.with_goals``).
        """
        rows = problem.memo.get("reduced_rows")
        if not isinstance(rows, _Rows):
            rows = _Rows.of(problem)
            problem.memo["reduced_rows"] = rows
        variables, scale = problem.variables, rows.scale
        phi0 = theta0[variables] / scale
        limits = problem.limits
        b_in = limits.b_in[rows.in_rows]
        if rows.fixed_in.shape[1]:
            b_in = b_in - rows.fixed_in @ theta0[rows.fixed]
        b_in = b_in / rows.norms
        b_eq: FloatArray = np.asarray(rows.a_eq @ phi0, dtype=np.float64)
        return cls(
            variables,
            scale,
            theta0.copy(),
            rows.a_eq,
            b_eq,
            rows.a_in,
            b_in,
            rows.in_rows,
            rows.lower,
            rows.upper,
            rows.rows_in,
        )

    @property
    def n(self) -> int:
        """Number of variables."""
        return len(self.variables)

    def phi(self, theta: FloatArray) -> FloatArray:
        """φ of a full θ, shape (n_v,)."""
        return theta[self.variables] / self.scale

    def theta(self, phi: FloatArray) -> FloatArray:
        """Full θ of φ, shape (n_dofs,)."""
        theta = self.base.copy()
        theta[self.variables] = self.scale * phi
        return theta


@dataclass(frozen=True)
class _Rows:
    """The limit rows over a problem's variables, scaled and normalised: θ-independent."""

    scale: FloatArray
    fixed: IntArray
    a_in: FloatArray
    in_rows: IntArray
    norms: FloatArray
    fixed_in: FloatArray
    a_eq: FloatArray
    lower: FloatArray
    upper: FloatArray
    rows_in: LimitRows

    @classmethod
    def of(cls, problem: Problem) -> _Rows:
        variables = problem.variables
        dofs = problem.figure.dofs
        scale = np.array([dofs[j].scale for j in variables], dtype=np.float64)
        mask = np.ones(problem.n_dofs, dtype=bool)
        mask[variables] = False
        fixed = np.flatnonzero(mask)
        limits = problem.limits
        a_in = limits.a_in[:, variables] * scale
        norms = np.linalg.norm(a_in, axis=1)
        keep = norms > 1e-12
        in_rows = np.flatnonzero(keep)
        a_eq = limits.a_eq[:, variables] * scale
        if a_eq.shape[0]:
            _, singular, vt = np.linalg.svd(a_eq, full_matrices=False)
            rank = int(np.sum(singular > 1e-10 * max(float(singular.max(initial=0.0)), 1e-300)))
            a_eq = vt[:rank]
        unit = a_in[keep] / norms[keep, None]
        return cls(
            scale=scale,
            fixed=fixed,
            a_in=unit,
            in_rows=in_rows,
            norms=norms[keep],
            fixed_in=limits.a_in[np.ix_(in_rows, fixed)],
            a_eq=a_eq,
            lower=problem.figure.lower[variables] / scale,
            upper=problem.figure.upper[variables] / scale,
            rows_in=LimitRows(unit),
        )
