"""The limit rows over a problem's variables, scaled and normalised, made once a problem.

They depend on the figure and the variables alone, so a problem keeps them
(:class:`solver.problem.Derived`) and every solve's reduced space
(:class:`~solver.optimizer.space.ReducedSpace`) starts from them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import FloatArray, IntArray
from ..figure import Figure
from ..rows import LimitRows

__all__ = ["VariableRows"]


@dataclass(frozen=True)
class VariableRows:
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
    def of(cls, figure: Figure, variables: IntArray) -> VariableRows:
        """The rows of ``figure``'s limits over ``variables``, as a solve's space needs."""
        dofs = figure.dofs
        scale = np.array([dofs[j].scale for j in variables], dtype=np.float64)
        mask = np.ones(figure.n_dofs, dtype=bool)
        mask[variables] = False
        fixed = np.flatnonzero(mask)
        limits = figure.limits
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
            lower=figure.lower[variables] / scale,
            upper=figure.upper[variables] / scale,
            rows_in=LimitRows(unit),
        )
