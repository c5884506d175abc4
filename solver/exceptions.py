"""Errors raised by the solver.

Only bad input raises; a goal that cannot be reached, an iteration limit or a time
limit are results, reported by :class:`solver.SolveResult`.
"""

from __future__ import annotations

__all__ = ["ReachError", "SolverInputError"]


class ReachError(Exception):
    """Base class of every error the solver raises."""


class SolverInputError(ReachError, ValueError):
    """Bad input: a message names the offending item and, where useful, the valid choices.

    Attributes:
        item: Short name of the offending item (e.g. ``"segment 'hand'"``), or ``""``.
    """

    def __init__(self, message: str, *, item: str = "") -> None:
        super().__init__(message)
        self.item = item
