"""Finding, loading and checking the kernel, and switching it on and off.

Nothing is loaded on import: the first solve asks :func:`active`, which loads the library
for this platform from :data:`LIBRARY_FOLDER`, checks its calling convention (:data:`ABI`)
and then its answers against the numpy code on a small figure (:mod:`.check`). Any
failure leaves the solver on numpy, and :func:`status` says why.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .calls import Kernel

__all__ = [
    "ABI",
    "LIBRARY_FOLDER",
    "Status",
    "active",
    "enabled",
    "library_name",
    "platform_tag",
    "status",
]

ABI = 24
"""The calling convention this module speaks (``rk_abi()`` of ``reach_kernel.c``)."""

LIBRARY_FOLDER = Path(__file__).resolve().parent / "lib"
"""Where the built libraries are, one per platform."""

_SYSTEMS = {"linux": ("linux", ".so"), "darwin": ("macos", ".dylib"), "win32": ("windows", ".dll")}
_MACHINES = {"x86_64": "x64", "amd64": "x64", "arm64": "arm64", "aarch64": "arm64"}


def platform_tag(system: str | None = None, machine: str | None = None) -> str | None:
    """Blender's name of a platform (``linux-x64``, ``macos-arm64``, …), None if unknown.

    Args:
        system: ``sys.platform`` (default this one's).
        machine: ``platform.machine()`` (default this one's).
    """
    system = sys.platform if system is None else system
    machine = platform.machine() if machine is None else machine
    if system not in _SYSTEMS or machine.lower() not in _MACHINES:
        return None
    return f"{_SYSTEMS[system][0]}-{_MACHINES[machine.lower()]}"


def library_name(tag: str) -> str:
    """The library's file name for a platform tag, e.g. ``reach_kernel-linux-x64.so``."""
    suffix = {name: ext for name, ext in _SYSTEMS.values()}[tag.split("-")[0]]
    return f"reach_kernel-{tag}{suffix}"


@dataclass(frozen=True)
class Status:
    """Which path the solver runs, and why.

    Attributes:
        compiled: True when the kernel is in use.
        text: One line for people: the library and platform, or why numpy runs.
    """

    compiled: bool
    text: str


_state: dict[str, tuple[Kernel | None, Status]] = {}
"""The loaded kernel (or None) and its status, once loaded."""
_switch = {"on": True}


def _load() -> tuple[Kernel | None, Status]:
    """Load, check and return the kernel, or None and the reason."""
    if os.environ.get("REACH_KERNEL", "").lower() in {"0", "numpy", "off"}:
        return None, Status(False, "numpy (REACH_KERNEL asks for it)")
    tag = platform_tag()
    if tag is None:
        return None, Status(
            False, f"numpy (no kernel is built for {sys.platform} {platform.machine()})"
        )
    path = LIBRARY_FOLDER / library_name(tag)
    if not path.is_file():
        return None, Status(False, f"numpy (the kernel for {tag} is not installed)")
    try:
        library = ctypes.CDLL(str(path))
        abi = library.rk_abi  # the one function read before the signatures are known
        abi.restype = ctypes.c_int32
        found = int(abi())
        if found != ABI:
            return None, Status(False, f"numpy (the {tag} kernel speaks ABI {found}, not {ABI})")
        kernel = Kernel(library)
    except (OSError, AttributeError) as error:
        return None, Status(False, f"numpy (the {tag} kernel did not load: {error})")
    from .check import self_check  # its tree is made when the kernel is first loaded

    try:
        problem = self_check(kernel)
    except Exception as error:  # a kernel that fails so is not used either
        problem = f"{type(error).__name__}: {error}"
    if problem is not None:
        return None, Status(False, f"numpy (the {tag} kernel failed its check: {problem})")
    return kernel, Status(True, f"compiled kernel ({tag})")


def _loaded() -> tuple[Kernel | None, Status]:
    if "loaded" not in _state:
        _state["loaded"] = _load()
    return _state["loaded"]


def active() -> Kernel | None:
    """The kernel when it is loaded, checked and switched on; else None (use numpy)."""
    if not _switch["on"]:
        return None
    return _loaded()[0]


def status() -> Status:
    """Which path solves, loading the kernel on first use to find out."""
    if not _switch["on"]:
        return Status(False, "numpy (the kernel is switched off)")
    return _loaded()[1]


@contextmanager
def enabled(on: bool) -> Iterator[None]:
    """Run a block with the kernel switched on (when it loads) or off; restores after."""
    before = _switch["on"]
    _switch["on"] = on
    try:
        yield
    finally:
        _switch["on"] = before
