"""The methods of :func:`solver.solve`, each one frozen object of its options.

``solve(problem, theta0, method=Dls(damping=0.1))`` runs a method with its options;
``method="dls"`` runs it with its defaults. Every method starts from the same reduced
space (scaled free DOFs, the limits as unit rows), keeps every limit at every step and
is driven through the same restarts (:mod:`solver.restarts`).
"""

from __future__ import annotations

from ..exceptions import SolverInputError
from .base import Method, Scaled
from .dls import Dls
from .goldfarb import START_METRICS, Goldfarb
from .jacobian_transpose import JacobianTranspose
from .lbfgsb import Lbfgsb

__all__ = [
    "METHODS",
    "START_METRICS",
    "Dls",
    "Goldfarb",
    "JacobianTranspose",
    "Lbfgsb",
    "Method",
    "Scaled",
    "as_method",
]

_CLASSES: dict[str, type[Method]] = {
    cls.name: cls for cls in (Goldfarb, Lbfgsb, Dls, JacobianTranspose)
}

METHODS = tuple(_CLASSES)
"""Names accepted by ``solve(method=...)``: each method with its default options."""


def as_method(method: object) -> Method:
    """``method`` as a method object: a :class:`Method` itself, or one named in :data:`METHODS`.

    Raises:
        SolverInputError: For anything else.
    """
    if isinstance(method, Method):
        return method
    if isinstance(method, str) and method in _CLASSES:
        return _CLASSES[method]()
    raise SolverInputError(
        f"unknown method {method!r}; choose one of {METHODS} or pass one of "
        "Goldfarb(...), Lbfgsb(...), Dls(...), JacobianTranspose(...)",
        item="method",
    )
