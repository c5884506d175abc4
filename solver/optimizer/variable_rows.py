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
from ..linalg import svd
from ..rows import LimitRows

__all__ = ["VariableRows", "variable_scale"]


@dataclass(frozen=True)
class VariableRows:
    """The limit rows over a problem's variables, scaled and normalised: θ-independent."""

    scale: FloatArray
    fixed: IntArray
    a_in: FloatArray
    in_rows: IntArray
    norms: FloatArray
    fixed_in: LimitRows
    a_eq: FloatArray
    lower: FloatArray
    upper: FloatArray
    rows_in: LimitRows

    @classmethod
    def of(cls, figure: Figure, variables: IntArray) -> VariableRows:
        """The rows of ``figure``'s limits over ``variables``, as a solve's space needs.

        Built from the limits' nonzeros (most rows are bounds, one nonzero each), so a
        figure of thousands of DOFs costs its rows, not rows × DOFs.
        """
        scale = variable_scale(figure, variables)
        n = figure.n_dofs
        mask = np.ones(n, dtype=bool)
        mask[variables] = False
        fixed = np.flatnonzero(mask)
        limits = figure.limits
        m = limits.a_in.shape[0]
        rows, columns, values = limits.rows_in.nonzeros()
        column = np.full(n, -1, np.intp)
        column[variables] = np.arange(variables.size)
        moving = column[columns] >= 0
        scaled = values[moving] * scale[column[columns[moving]]]
        norms = np.sqrt(np.bincount(rows[moving], weights=scaled * scaled, minlength=m))
        keep = norms > 1e-12
        in_rows = np.flatnonzero(keep)
        row = np.full(m, -1, np.intp)
        row[in_rows] = np.arange(in_rows.size)
        kept = keep[rows[moving]]
        unit_rows = row[rows[moving][kept]]
        unit_columns = column[columns[moving][kept]]
        unit_values = scaled[kept] / norms[rows[moving][kept]]
        unit = np.zeros((in_rows.size, variables.size))
        unit[unit_rows, unit_columns] = unit_values
        held = np.full(n, -1, np.intp)
        held[fixed] = np.arange(fixed.size)
        still = (held[columns] >= 0) & keep[rows]
        fixed_rows, fixed_columns = row[rows[still]], held[columns[still]]
        fixed_in = np.zeros((in_rows.size, fixed.size))
        fixed_in[fixed_rows, fixed_columns] = values[still]
        a_eq = limits.a_eq[:, variables] * scale
        if a_eq.shape[0]:
            _, singular, vt = svd(a_eq, full_matrices=False)
            rank = int(np.sum(singular > 1e-10 * max(float(singular.max(initial=0.0)), 1e-300)))
            a_eq = vt[:rank]
        return cls(
            scale=scale,
            fixed=fixed,
            a_in=unit,
            in_rows=in_rows,
            norms=norms[keep],
            fixed_in=LimitRows.of_nonzeros(fixed_in, fixed_rows, fixed_columns, values[still]),
            a_eq=a_eq,
            lower=figure.lower[variables] / scale,
            upper=figure.upper[variables] / scale,
            rows_in=LimitRows.of_nonzeros(unit, unit_rows, unit_columns, unit_values),
        )


def variable_scale(figure: Figure, variables: IntArray) -> FloatArray:
    """Each variable's scale s (θ = s ∘ φ): 1 − rigidity, and a translation by world length.

    A translation under a scaling rest (an armature in centimetres under a 0.01 scale)
    moves its segment by its axis's length a unit (:meth:`Kinematics.dof_axes
    <solver.kinematics.Kinematics.dof_axes>`); its φ is in world lengths, as every other
    figure's translations are, so that the goals' curvature along it is a rotation's
    order, as the descents' damping and steps assume.
    """
    dofs = figure.dofs
    scale = np.array([dofs[j].scale for j in variables], dtype=np.float64)
    kinematics = figure.kinematics
    rotation = kinematics.dof_rotation[variables]
    if kinematics.scaled and not rotation.all():
        _, axes, _ = kinematics.pose(np.zeros(figure.n_dofs), variables)
        per_unit = np.linalg.norm(axes, axis=1)
        scale = np.where(rotation, scale, scale / per_unit)
    return scale
