"""The solver's variables: scaled free DOFs φ and the joint limits over them.

The variables are the problem's free DOFs V (in some chain, not locked). With the scale
``s = 1 − rigidity`` (a translation under a scaling rest also over its world length a
unit: :func:`.variable_rows.variable_scale`), ``θ_V = s ∘ φ`` and every other DOF keeps
its start value. A limit
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
from .variable_rows import VariableRows

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
        kept in ``problem.derived`` (drag events share them through ``Problem.with_goals``).
        """
        rows = problem.derived.variable_rows
        if rows is None:
            rows = VariableRows.of(problem.figure, problem.variables)
            problem.derived.variable_rows = rows
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

    def keeps(self, phi: FloatArray, slack: float = 1e-12) -> bool:
        """Whether ``phi`` keeps every limit row and equality to within ``slack``."""
        if np.any(self.rows_in @ phi - self.b_in < -slack):
            return False
        return not (self.a_eq.shape[0] and np.any(np.abs(self.a_eq @ phi - self.b_eq) > slack))
