"""Optimisation backends and their shared pieces."""

from .result import SolveResult

__all__ = ["SolveResult"]
