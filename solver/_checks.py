"""Validation helpers shared by the solver's constructors, and its array types."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .exceptions import SolverInputError

FloatArray = NDArray[np.float64]
IntArray = np.ndarray[tuple[int], np.dtype[np.intp]]
BoolArray = np.ndarray[tuple[int, ...], np.dtype[np.bool_]]

AXIS_NAMES = {"x": 0, "y": 1, "z": 2}

_Copied = TypeVar("_Copied")


def copied_with(instance: _Copied, **changes: Any) -> _Copied:
    """``instance`` with the attributes ``changes`` names changed, the rest shared.

    What ``dataclasses.replace`` makes of a frozen dataclass, at a third of its cost: the
    attributes are copied, not passed through ``__init__`` one by one (drag events and
    a moving armature's frames make several). The caller names only its own fields.
    """
    other: _Copied = object.__new__(type(instance))
    other.__dict__.update(instance.__dict__)
    other.__dict__.update(changes)
    return other


_FEW = 16
"""Arrays of at most this many floats are checked on Python's floats (:func:`finite_array`):
numpy's checks of a few values cost more than the values (a drag event makes goals)."""


def finite_array(value: ArrayLike, what: str, shape: Sequence[int] | None = None) -> FloatArray:
    """Return ``value`` as a float array, checking its shape and that every entry is finite.

    Args:
        value: Anything numpy can turn into a float array.
        what: Name of the item, used in error messages.
        shape: Expected shape, or ``None`` for any shape.

    Returns:
        A new float64 array.

    Raises:
        SolverInputError: If ``value`` is not numeric, has the wrong shape, or holds
            NaN or infinite numbers.
    """
    if (
        isinstance(value, np.ndarray)
        and value.dtype == np.float64
        and value.size <= _FEW
        and (shape is None or value.shape == tuple(shape))
    ):  # a goal's point or axes: its few values checked on Python's floats
        array = value.copy()
        if all(map(math.isfinite, array.ravel().tolist())):
            return array
        raise SolverInputError(f"{what} holds NaN or infinite numbers: {array.tolist()}", item=what)
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise SolverInputError(f"{what} must be numeric, got {value!r}", item=what) from error
    if shape is not None and array.shape != tuple(shape):
        raise SolverInputError(
            f"{what} must have shape {tuple(shape)}, got {array.shape}", item=what
        )
    if not np.isfinite(array).all():
        raise SolverInputError(f"{what} holds NaN or infinite numbers: {array.tolist()}", item=what)
    return array


def finite_values(value: ArrayLike, what: str, shape: tuple[int, ...]) -> list[Any]:
    """``value`` as (nested) lists of Python floats, checked as :func:`finite_array` checks it.

    A float array of the shape is taken as it is, its values checked on Python's floats:
    :func:`finite_array`'s conversions cost more than the few products of a rotation, which
    the add-on makes several times a drag event.
    """
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.shape == shape:
        values: list[Any] = value.tolist()
        flat = values if len(shape) == 1 else [x for row in values for x in row]
        if all(map(math.isfinite, flat)):
            return values
    checked: list[Any] = finite_array(value, what, shape).tolist()
    return checked


def same(first: NDArray[Any], second: NDArray[Any]) -> bool:
    """Whether two arrays hold the same values in the same shape (NaN equals nothing).

    ``np.array_equal`` for arrays known to be arrays, without its conversions: the
    solver asks it of its caches at every evaluation, the add-on of the pose's channels.
    """
    return first.shape == second.shape and bool((first == second).all())


def finite_scalar(value: float, what: str) -> float:
    """Return ``value`` as a float, checking it is finite.

    Raises:
        SolverInputError: If ``value`` is not a finite number.
    """
    try:
        number = float(value)
    except (TypeError, ValueError) as error:
        raise SolverInputError(f"{what} must be a number, got {value!r}", item=what) from error
    if not math.isfinite(number):
        raise SolverInputError(f"{what} must be finite, got {number}", item=what)
    return number


def unit_vector(value: ArrayLike | str, what: str) -> FloatArray:
    """Return a unit 3-vector from an axis name (``"x"``, ``"y"``, ``"z"``) or a 3-vector.

    Raises:
        SolverInputError: For an unknown axis name, a zero vector, or NaN.
    """
    if isinstance(value, str):
        key = value.strip().lower().lstrip("+")
        sign = -1.0 if key.startswith("-") else 1.0
        key = key.lstrip("-")
        if key not in AXIS_NAMES:
            raise SolverInputError(
                f"{what}: unknown axis {value!r}; choose 'x', 'y', 'z' or a 3-vector", item=what
            )
        axis = np.zeros(3)
        axis[AXIS_NAMES[key]] = sign
        return axis
    vector = finite_array(value, what, (3,))
    norm = math.sqrt(float(vector @ vector))
    if norm < 1e-12:
        raise SolverInputError(f"{what} is a zero vector; an axis needs a direction", item=what)
    return vector / norm


def nonnegative(value: float, what: str) -> float:
    """Return ``value`` as a finite float ≥ 0.

    Raises:
        SolverInputError: If ``value`` is negative, NaN or infinite.
    """
    number = finite_scalar(value, what)
    if number < 0.0:
        raise SolverInputError(f"{what} must be ≥ 0, got {number}", item=what)
    return number


def whole(value: object, name: str, least: int) -> int:
    """Return ``value`` as an int ≥ ``least`` (a bool is not one).

    Raises:
        SolverInputError: Naming the option, for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise SolverInputError(f"{name} must be an integer ≥ {least}, got {value!r}", item=name)
    return int(value)
