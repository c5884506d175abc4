"""Comfort: a secondary aim below every goal, pulling the free DOFs toward a natural pose.

Sparse goals leave a figure's redundancy to the descent: with one hand goal and the feet
held, nothing says where the rest of the body goes. Comfort is that missing term
(Phillips, Zhao & Badler 1990 name it; UE's preferred angles and HumanIK's stiffness
play its part): the lowest priority level, minimised only where no goal moves
(:mod:`solver.optimizer.relax` where the goals are one level, :mod:`solver.optimizer.levels`
otherwise), so it never costs a goal anything.

Its potential over the scaled variables φ = θ / s (s = 1 − rigidity) is

    C(φ) = Σ_j m_j (φ_j − τ_j)²,   τ = (θ₀ + c·(θ_ref − θ₀)) / s  on the free DOFs,

θ₀ the solve's start, θ_ref the reference pose and c the share. Dividing by s weighs a
stiff joint's departure more (1 / s² per radian): rigidity is the joints' stiffness.
m is the DOF's weight: unless given, 1 for a rotation and 1 / L² for a translation, L
the longest chain, so a translation by a chain's length weighs as a radian. With
``share=1`` the pose relaxes toward the reference as far as the goals let it; with a
smaller share each solve goes that share of the way, so a drag relaxes it over a few
events and keeps the rest near where it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import FloatArray, IntArray, finite_array, finite_scalar, same
from .exceptions import SolverInputError

__all__ = ["Comfort", "checked_comfort", "same_comfort"]


@dataclass(frozen=True, eq=False)
class Comfort:
    """The comfort aim of a solve: a reference pose and how far toward it each solve goes.

    Attributes:
        reference: θ_ref, shape (n_dofs,): the rest pose (zeros) or a stored one.
        share: c in (0, 1]: the share of the way from the start toward the reference
            that each solve aims at.
        weights: m ≥ 0 per DOF, shape (n_dofs,): what a departure of one radian (a
            rotation) or one unit of length (a translation) costs. None: 1 per radian,
            and a translation by the longest chain weighing as a radian. Least squares
            spreads a motion over many joints; the add-on weighs each rotation by the
            moment of inertia of what it carries and the load it bears, so the trunk,
            which bears the body, stays and the limbs move.

    Raises:
        SolverInputError: For a reference or weights with NaN or infinite values, a
            negative weight, or a share outside (0, 1].
    """

    reference: FloatArray
    share: float = 1.0
    weights: FloatArray | None = None

    def __post_init__(self) -> None:
        reference = finite_array(self.reference, "comfort reference")
        if reference.ndim != 1:
            raise SolverInputError(
                f"comfort reference must be one value per DOF, got shape {reference.shape}",
                item="comfort reference",
            )
        share = finite_scalar(self.share, "comfort share")
        if not 0.0 < share <= 1.0:
            raise SolverInputError(
                f"comfort share must be in (0, 1], got {self.share!r}; leave comfort out "
                "(None) to turn it off",
                item="comfort share",
            )
        object.__setattr__(self, "reference", reference)
        object.__setattr__(self, "share", share)
        if self.weights is not None:
            weights = finite_array(self.weights, "comfort weights", reference.shape)
            if np.any(weights < 0.0):
                raise SolverInputError(
                    f"comfort weights must be ≥ 0, got {float(weights.min()):g} for DOF "
                    f"{int(np.argmin(weights))}",
                    item="comfort weights",
                )
            object.__setattr__(self, "weights", weights)

    @classmethod
    def rest(cls, n_dofs: int, share: float = 1.0) -> Comfort:
        """Comfort toward the rest pose θ = 0."""
        return cls(np.zeros(n_dofs), share)

    def masses(self, variables: IntArray, units: FloatArray | None = None) -> FloatArray:
        """m_j of the free DOFs: the weights given, else ``units`` (1 or 1 / L² by kind).

        Raises:
            SolverInputError: Without weights, for no ``units``.
        """
        if self.weights is not None:
            return self.weights[variables]
        if units is None:
            raise SolverInputError("comfort without weights needs the units of its masses")
        return units

    def target(self, start: FloatArray, variables: IntArray, scale: FloatArray) -> FloatArray:
        """τ over the free DOFs: the share of the way from θ₀ to the reference, over s.

        Args:
            start: θ₀, shape (n_dofs,).
            variables: θ indices of the free DOFs, shape (n_v,).
            scale: s of each free DOF, shape (n_v,).
        """
        aim = start + self.share * (self.reference - start)
        target: FloatArray = aim[variables] / scale
        return target

    def factor(self, masses: FloatArray) -> FloatArray:
        """F with ``F Fᵀ`` the Hessian of C over φ: ``diag(√(2m))``, shape (n_v, n_v)."""
        return np.diag(np.sqrt(2.0 * masses))


def checked_comfort(comfort: object, n_dofs: int) -> Comfort | None:
    """``comfort`` for a figure of ``n_dofs`` DOFs (None: no comfort).

    Raises:
        SolverInputError: For something that is not a :class:`Comfort`, or a reference
            pose of the wrong length.
    """
    if comfort is None:
        return None
    if not isinstance(comfort, Comfort):
        raise SolverInputError(
            f"comfort must be a solver.Comfort or None, got {type(comfort).__name__}",
            item="comfort",
        )
    if comfort.reference.shape != (n_dofs,):  # the weights have its shape
        raise SolverInputError(
            f"comfort reference has {comfort.reference.shape[0]} values; the figure has "
            f"{n_dofs} DOFs",
            item="comfort reference",
        )
    return comfort


def same_comfort(first: Comfort | None, second: Comfort | None) -> bool:
    """Whether two comforts (or None) pull alike: the same reference, share and weights.

    A drag's events each make their comfort anew from the same settings; compared by
    value, they find the problem made for the first (:meth:`solver.Problem.with_comfort`).
    """
    if first is None or second is None:
        return first is second
    if first.share != second.share or not same(first.reference, second.reference):
        return False
    if first.weights is None or second.weights is None:
        return first.weights is second.weights
    return same(first.weights, second.weights)
