"""The stored method choice (``Object.reach.method``) as the solver's method object."""

from __future__ import annotations

import functools
from typing import Any

from ...solver import Dls, Goldfarb, JacobianTranspose, Lbfgsb, Method
from ..method_options import options_of

CLASSES: dict[str, type[Method]] = {
    cls.name: cls for cls in (Goldfarb, Lbfgsb, Dls, JacobianTranspose)
}
"""Each method's options class, by the solver's method name."""


def method_of(method: Any) -> Method:
    """The method object for :func:`solver.solve`: the chosen method with its stored options.

    Each option of :data:`.method_options.OPTIONS` under the chosen method sets its field;
    a value not above the option's ``unset`` (zero damping or step size, a cut-off of −1)
    leaves the solver's own default.
    """
    kind = str(method.kind)
    fields = tuple(
        (option.field, option.value(getattr(method, option.name))) for option in options_of(kind)
    )
    return _made(kind, fields)


@functools.lru_cache(maxsize=16)
def _made(kind: str, fields: tuple[tuple[str, Any], ...]) -> Method:
    """The method object of ``kind`` with ``fields``, made once for the same values.

    A drag asks every event for the same settings: the options' object (frozen, checked
    when made) is the same one.
    """
    return CLASSES.get(kind, Goldfarb)(**dict(fields))
