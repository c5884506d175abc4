"""Jacobian-transpose steps (Grimes & Pentney 2001).

Handles pull like springs, and joints far from a handle move less for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._checks import whole
from ..optimizer.jacobian_transpose import FALLOFF, SLOPE, descend_transpose, tree_weights
from ..optimizer.tasks import TaskModel
from ..result import Descent
from .base import Leg, Method, positive

__all__ = ["JacobianTranspose"]


@dataclass(frozen=True)
class JacobianTranspose(Method):
    """Gradient steps on the handles, joint weights falling off with tree distance.

    Attributes:
        step_size: The constant step e > 0, or None for the Gauss–Newton model's step
            along the pull.
        falloff: Joint weight per segment of tree distance from a handle, in (0, 1].
        cutoff: Joints more than this many segments from a handle do not move for it
            (None: no cut-off).
        slope: The stop's threshold on the slope of the last 15 steps, > 0.
    """

    name: ClassVar[str] = "jacobian_transpose"

    step_size: float | None = None
    falloff: float = FALLOFF
    cutoff: int | None = None
    slope: float = SLOPE

    def __post_init__(self) -> None:
        if self.step_size is not None:
            object.__setattr__(self, "step_size", positive(self.step_size, "step_size"))
        object.__setattr__(self, "falloff", positive(self.falloff, "falloff", most=1.0))
        if self.cutoff is not None:
            object.__setattr__(self, "cutoff", whole(self.cutoff, "cutoff", 0))
        object.__setattr__(self, "slope", positive(self.slope, "slope"))

    def descend(self, leg: Leg) -> Descent:
        """One descent (see :meth:`Method.descend <solver.methods.base.Method.descend>`)."""
        model = TaskModel(leg.problem, leg.scaled.space)
        return descend_transpose(
            model,
            tree_weights(model, self.falloff, self.cutoff),
            leg.start,
            leg.scaled.space,
            leg.budget,
            scale=leg.scaled.weight,
            step_size=self.step_size,
            slope=self.slope,
            callback=leg.reporter,
        )
