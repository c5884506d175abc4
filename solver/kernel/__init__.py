"""The compiled kernel: the solver's hot path in C (``reach_kernel.c``), through ctypes.

The extension ships one library per platform in ``lib/`` (``tools/build_kernel.py``
builds them all with one cross-compiler). Nothing is loaded on import: the first solve
asks :func:`active`, which loads the library for this platform, checks its calling
convention and then checks its answers against the numpy code on a small figure. Any
failure (no library, a library that does not load, a wrong answer) leaves the solver on
numpy, which computes the same to rounding, and :func:`status` says why.

``REACH_KERNEL=numpy`` in the environment keeps the solver on numpy; :func:`enabled`
switches the kernel off (or back on) for a block, as the tests do to run both paths.

The parts: :mod:`.loading` (finding, loading, checking, switching), :mod:`.signatures`
(the one table of the C functions' signatures), :mod:`.calls` (:class:`Kernel`: each C
function as a numpy call), :mod:`.layouts` (the arrays and structures the C code reads)
and :mod:`.records` (what the descent functions answer, their statuses named);
:mod:`.check` is the check on load.
"""

from __future__ import annotations

from .calls import Kernel, QuickComfort
from .layouts import DescentPlan, GradientTree, KernelTree, ObjectivePlan
from .loading import (
    ABI,
    LIBRARY_FOLDER,
    Status,
    active,
    enabled,
    library_name,
    platform_tag,
    status,
)
from .records import (
    DescentStatus,
    DescentStops,
    GaussNewtonDescent,
    GaussNewtonSearch,
    GaussNewtonStart,
    Quick,
    SearchStatus,
    Settled,
    SettleStatus,
    StartStatus,
)

__all__ = [
    "ABI",
    "LIBRARY_FOLDER",
    "DescentPlan",
    "DescentStatus",
    "DescentStops",
    "GaussNewtonDescent",
    "GaussNewtonSearch",
    "GaussNewtonStart",
    "GradientTree",
    "Kernel",
    "KernelTree",
    "ObjectivePlan",
    "Quick",
    "QuickComfort",
    "SearchStatus",
    "SettleStatus",
    "Settled",
    "StartStatus",
    "Status",
    "active",
    "enabled",
    "library_name",
    "platform_tag",
    "status",
]
