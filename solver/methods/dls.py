"""Damped least squares by priority level, pins first.

After Baerlocher & Boulic 1998 and Greeff, Haber & Seidel 2005: higher levels and pins
are met first, each level in the null space of those above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._checks import nonnegative
from ..optimizer.dls import DAMPING, descend_dls
from ..optimizer.tasks import TaskModel, leaves_by_level
from ..result import Descent
from .base import Leg, Method

__all__ = ["Dls"]


@dataclass(frozen=True)
class Dls(Method):
    """Damped least-squares steps by ``priority`` level, pins first, limits kept every step.

    Attributes:
        damping: λ_max [length] of the damping near singular poses, ≥ 0, or None for
            0.05 × the longest chain.
    """

    name: ClassVar[str] = "dls"
    holds_pins: ClassVar[bool] = True

    damping: float | None = None

    def __post_init__(self) -> None:
        if self.damping is not None:
            object.__setattr__(self, "damping", nonnegative(self.damping, "damping"))

    def descend(self, leg: Leg) -> Descent:
        """One descent (see :meth:`Method.descend <solver.methods.base.Method.descend>`)."""
        damping = self.damping
        if damping is None:
            damping = DAMPING * max(leg.problem.longest_chain, 1.0)
        return descend_dls(
            TaskModel(leg.problem, leg.scaled.space),
            leaves_by_level(leg.problem),
            leg.start,
            leg.scaled.space,
            leg.budget,
            damping=damping,
            callback=leg.reporter,
        )
