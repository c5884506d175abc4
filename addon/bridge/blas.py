"""numpy's OpenBLAS held to one thread while Reach works.

Reach's matrices are small (tens of rows), and OpenBLAS's threads cost more to wake than
they save; where other processes keep the cores busy, they wait on each other. Blender
leaves numpy's OpenBLAS a thread per core, so each of Reach's entry points (an operator's
execute, invoke and modal step, live mode's handlers and timer) sets one thread and puts the
count back after (:func:`one_thread`, and the decorators :func:`held`,
:func:`held_event`, :func:`held_timer`): nothing else in Blender is changed. Where numpy
links no OpenBLAS (Accelerate, MKL) or its library is not found, nothing is done.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, wraps
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "Threads",
    "held",
    "held_event",
    "held_timer",
    "one_thread",
    "openblas_threads",
]

R = TypeVar("R")

_NAMES = ("scipy_openblas", "openblas")
"""The prefixes of OpenBLAS's thread functions: numpy 2's build, then earlier ones."""
_SUFFIXES = ("64_", "_64_", "")
"""Their suffixes: the 64-bit-integer builds' (numpy's wheels), then the plain name."""


@dataclass(frozen=True)
class Threads:
    """OpenBLAS's thread count, read and set (``openblas_get/set_num_threads``)."""

    get: Callable[[], int]
    set: Callable[[int], None]


@cache
def openblas_threads() -> Threads | None:
    """The thread functions of the OpenBLAS numpy loaded, or None where there is none.

    The library lies beside numpy's package (``numpy.libs`` on Linux and Windows,
    ``.dylibs`` or ``.libs`` inside it); loading it again gives the same library numpy uses.
    """
    package = Path(np.__file__).resolve().parent
    folders = (package.parent / "numpy.libs", package / ".libs", package / ".dylibs", package)
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*openblas*")):
            try:
                library = ctypes.CDLL(str(path))
            except OSError:
                continue
            found = _functions(library)
            if found is not None:
                return found
    return None


def _functions(library: ctypes.CDLL) -> Threads | None:
    """``library``'s get and set of its thread count, under any of OpenBLAS's names."""
    for name in _NAMES:
        for suffix in _SUFFIXES:
            try:
                get = getattr(library, f"{name}_get_num_threads{suffix}")
                put = getattr(library, f"{name}_set_num_threads{suffix}")
            except AttributeError:
                continue
            get.restype, get.argtypes = ctypes.c_int, []
            put.restype, put.argtypes = None, [ctypes.c_int]
            return Threads(get, put)
    return None


@contextmanager
def one_thread() -> Iterator[None]:
    """OpenBLAS on one thread within the block, its count as it was after."""
    threads = openblas_threads()
    before = 1 if threads is None else threads.get()
    if threads is None or before == 1:
        yield
        return
    threads.set(1)
    try:
        yield
    finally:
        threads.set(before)


# Blender checks an operator's execute, invoke and modal for their number of arguments,
# so each decorator's wrapper takes its method's own.


def held(method: Callable[[Any, Any], R]) -> Callable[[Any, Any], R]:
    """An operator's ``execute(self, context)`` run with OpenBLAS on one thread."""

    @wraps(method)
    def execute(self: Any, context: Any) -> R:
        with one_thread():
            return method(self, context)

    return execute


def held_event(method: Callable[[Any, Any, Any], R]) -> Callable[[Any, Any, Any], R]:
    """An operator's ``invoke`` or ``modal(self, context, event)`` run so."""

    @wraps(method)
    def step(self: Any, context: Any, event: Any) -> R:
        with one_thread():
            return method(self, context, event)

    return step


def held_timer(function: Callable[[], R]) -> Callable[[], R]:
    """A timer run so."""

    @wraps(function)
    def timer() -> R:
        with one_thread():
            return function()

    return timer
