"""The stored method choice (``Object.reach.method``) as the solver's method object."""

from __future__ import annotations

from typing import Any

from ...solver import Dls, Goldfarb, JacobianTranspose, Lbfgsb, Method


def method_of(method: Any) -> Method:
    """The method object for :func:`solver.solve`: the chosen method with its stored options.

    A zero damping or step size means the solver's own default; a cut-off of −1 none.
    """
    kind = str(method.kind)
    chosen: Method
    if kind == "lbfgsb":
        chosen = Lbfgsb(tikhonov=float(method.tikhonov), subdivide=int(method.subdivide))
    elif kind == "dls":
        chosen = Dls(damping=float(method.damping) if method.damping > 0.0 else None)
    elif kind == "jacobian_transpose":
        chosen = JacobianTranspose(
            step_size=float(method.step_size) if method.step_size > 0.0 else None,
            falloff=float(method.falloff),
            cutoff=int(method.cutoff) if method.cutoff >= 0 else None,
        )
    else:
        chosen = Goldfarb()
    return chosen
