"""The stored method choice (``Object.reach.method``) as ``solve``'s keyword arguments."""

from __future__ import annotations

from typing import Any


def solve_options(method: Any) -> dict[str, Any]:
    """``method=`` and the chosen method's options for :func:`solver.solve`.

    A zero damping or step size means the solver's own default; a cut-off of −1 none.
    """
    kind = str(method.kind)
    options: dict[str, Any] = {"method": kind}
    if kind == "lbfgsb":
        options["tikhonov"] = float(method.tikhonov)
        if method.subdivide:
            options["subdivide"] = int(method.subdivide)
    elif kind == "dls":
        if method.damping > 0.0:
            options["damping"] = float(method.damping)
    elif kind == "jacobian_transpose":
        options["falloff"] = float(method.falloff)
        if method.step_size > 0.0:
            options["step_size"] = float(method.step_size)
        if method.cutoff >= 0:
            options["cutoff"] = int(method.cutoff)
    return options
