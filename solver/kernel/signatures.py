"""The C functions of ``reach_kernel.c`` the solver calls, and their ctypes signatures.

One table (:data:`SIGNATURES`): each exported function's result and argument types, in
the order the C source declares them; the kernel's tests read the C source and check
every entry against it. :class:`Functions` sets them on a loaded library.
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["SIGNATURES", "Functions"]

_POINTER = ctypes.c_void_p
_INT = ctypes.c_int32
_DOUBLE = ctypes.c_double

_HESSIAN_POSE = (_INT, _POINTER, _INT, _POINTER, _INT, *[_POINTER] * 12)
"""``POSE_HESSIAN`` of the C source: the tree's layout and one pose's arrays."""

SIGNATURES: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "rk_abi": (_INT, ()),
    "rk_frames": (None, (_INT, *[_POINTER] * 6, _INT, *[_POINTER] * 4)),
    "rk_factor": (None, (_INT, _INT, _INT, *[_POINTER] * 7)),
    "rk_gradient_tree": (None, (_INT, _POINTER, _INT, _POINTER, _INT, *[_POINTER] * 10)),
    "rk_objective": (_DOUBLE, (_POINTER, _POINTER, _INT, *[_POINTER] * 4)),
    "rk_hessian_tree": (None, (*_HESSIAN_POSE, *[_POINTER] * 3)),
    "rk_woodbury_start": (
        _DOUBLE,
        (_INT, _INT, _INT, *[_POINTER] * 3, *[_DOUBLE] * 3, *[_POINTER] * 2),
    ),
    "rk_newton_cg": (
        _INT,
        (
            *_HESSIAN_POSE,
            *[_POINTER] * 2,
            _DOUBLE,
            _INT,
            *[_POINTER] * 2,
            _INT,
            _INT,
            *[_POINTER] * 2,
            _DOUBLE,
            _INT,
            _DOUBLE,
            *[_POINTER] * 4,
        ),
    ),
    "rk_gauss_newton_start": (_INT, (_POINTER, _POINTER, _DOUBLE, *[_POINTER] * 7)),
    "rk_gauss_newton_search": (None, (_POINTER, _POINTER, _DOUBLE, *[_POINTER] * 8)),
    "rk_gauss_newton_descent": (
        _INT,
        (*[_POINTER] * 6, *[_DOUBLE] * 5, _INT, _DOUBLE, _POINTER),
    ),
    "rk_settle": (_INT, (*[_POINTER] * 5, _INT, _DOUBLE, *[_POINTER] * 2)),
    "rk_quick": (_INT, (*[_POINTER] * 12, _INT, *[_POINTER] * 3)),
    "rk_euler_quaternions": (None, (_INT, *[_POINTER] * 3)),
    "rk_quaternions_euler": (
        None,
        (_INT, _POINTER, _INT, _INT, _INT, _DOUBLE, *[_POINTER] * 4),
    ),
}
"""Each C function's result type (None: void) and argument types: int32_t as c_int32,
double as c_double, every pointer (arrays, the plans' structures) as c_void_p."""


class Functions:
    """A loaded library's functions, their signatures set from :data:`SIGNATURES`.

    Each is an attribute named as in C without ``rk_`` (``functions.frames`` is
    ``rk_frames``).

    Args:
        library: The loaded library.

    Raises:
        AttributeError: Where the library lacks one of the functions.
    """

    def __init__(self, library: ctypes.CDLL) -> None:
        for name, (result, arguments) in SIGNATURES.items():
            function = getattr(library, name)
            function.restype = result
            function.argtypes = list(arguments)
            self.__dict__[name.removeprefix("rk_")] = function

    def __getattr__(self, name: str) -> Any:
        """Only reached for a name that is no function of the table."""
        raise AttributeError(f"the kernel has no function rk_{name} in its signatures")
