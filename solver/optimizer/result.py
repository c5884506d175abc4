"""The result of :func:`solver.solve`."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._checks import FloatArray

__all__ = ["SolveResult"]


@dataclass(frozen=True)
class SolveResult:
    """What :func:`solver.solve` found, in scipy's vocabulary plus IK extras.

    Attributes:
        x: Joint values θ, shape (n_dofs,); never violates a limit.
        fun: G_all at ``x``.
        jac: ∂G_all/∂θ at ``x``, shape (n_dofs,), 0 for fixed DOFs.
        nit: Iterations, over all descents.
        nfev: Objective evaluations, over all descents.
        status: ``"converged"`` (a Kuhn–Tucker point; the goals may still be
            unreachable, see ``fun``), ``"time_limit"``, ``"max_iterations"`` or
            ``"stalled"``.
        message: Human-readable reason.
        active_set: Labels of the joint limits active at ``x``.
        active: Rows of ``figure.limits`` (inequalities) active at ``x``.
        max_violation: Largest limit violation at ``x`` (≤ 1e-9).
        projected_gradient: ‖Pg‖ in the solver's scaled variables at ``x``.
        elapsed: Wall time [s].
        restarts: Restarts run after the first descent.
    """

    x: FloatArray = field(repr=False)
    fun: float
    jac: FloatArray = field(repr=False)
    nit: int
    nfev: int
    status: str
    message: str
    active_set: tuple[str, ...]
    active: tuple[int, ...]
    max_violation: float
    projected_gradient: float
    elapsed: float
    restarts: int

    @property
    def success(self) -> bool:
        """True when the solver stopped at a Kuhn–Tucker point."""
        return self.status == "converged"

    @property
    def theta(self) -> FloatArray:
        """Alias of :attr:`x`."""
        return self.x

    @property
    def objective(self) -> float:
        """Alias of :attr:`fun`."""
        return self.fun

    @property
    def iterations(self) -> int:
        """Alias of :attr:`nit`."""
        return self.nit
