"""Build Reach's compiled kernel for every platform Blender 4.2+ runs on, or for one.

``solver/kernel/reach_kernel.c`` is compiled with Zig's C compiler (the ``ziglang``
package: one cross-compiler, no system toolchain) into ``solver/kernel/lib/``, one
shared library per platform, each for the platform's baseline CPU and with no fused
multiply-adds, so that it computes what numpy computes to rounding. A library newer
than the source and this script is not built again.

Usage: python tools/build_kernel.py [--platform TAG ...] [--force]
(TAG: linux-x64, macos-x64, macos-arm64, windows-x64, windows-arm64; default all).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "solver" / "kernel" / "reach_kernel.c"
OUTPUT = ROOT / "solver" / "kernel" / "lib"

TARGETS = {
    "linux-x64": ("x86_64-linux-gnu.2.17", ".so"),
    "macos-x64": ("x86_64-macos.11.0", ".dylib"),
    "macos-arm64": ("aarch64-macos.11.0", ".dylib"),
    "windows-x64": ("x86_64-windows-gnu", ".dll"),
    "windows-arm64": ("aarch64-windows-gnu", ".dll"),
}
"""Blender's platform names → Zig's target (the oldest C library Blender runs on) and suffix."""

FLAGS = ("-O2", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math", "-mcpu=baseline")
"""Optimised, position independent, no contraction into FMA (numpy does none): rounding
the same as numpy's on every CPU of the platform."""


class KernelBuildError(RuntimeError):
    """The compiler is missing or failed."""


def library(tag: str) -> Path:
    """The library's path for a platform tag."""
    return OUTPUT / f"reach_kernel-{tag}{TARGETS[tag][1]}"


def build(tag: str, *, force: bool = False) -> Path:
    """Build the library for ``tag`` unless it is newer than the source; return its path.

    Raises:
        KernelBuildError: If ``ziglang`` is not installed or the compiler fails.
    """
    if tag not in TARGETS:
        raise KernelBuildError(f"no kernel target {tag!r}; the targets are {', '.join(TARGETS)}")
    out = library(tag)
    newest = max(SOURCE.stat().st_mtime, Path(__file__).stat().st_mtime)
    if not force and out.is_file() and out.stat().st_mtime >= newest:
        return out
    try:
        import ziglang  # noqa: F401 (only to say it is missing)
    except ImportError as error:
        raise KernelBuildError(
            "building the kernel needs the ziglang package: pip install ziglang"
        ) from error
    OUTPUT.mkdir(parents=True, exist_ok=True)
    target = TARGETS[tag][0]
    command = [sys.executable, "-m", "ziglang", "cc", "-target", target, *FLAGS]
    if not tag.startswith("macos"):  # symbols the loader does not need (Mach-O keeps its own)
        command.append("-s")
    partial = out.with_suffix(out.suffix + ".part")
    command += ["-o", str(partial), str(SOURCE)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise KernelBuildError(f"zig cc for {tag} failed:\n{done.stderr.strip()}")
    for extra in [*OUTPUT.glob("*.lib"), *OUTPUT.glob("*.pdb")]:  # Windows import libraries
        extra.unlink()
    partial.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Build the platforms asked for (default all); 0 when every one is built."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", action="append", choices=sorted(TARGETS), dest="tags")
    parser.add_argument("--force", action="store_true", help="build even if up to date")
    arguments = parser.parse_args(argv)
    try:
        for tag in arguments.tags or list(TARGETS):
            print(f"kernel {tag}: {build(tag, force=arguments.force).relative_to(ROOT)}")
    except KernelBuildError as error:
        print(f"tools/build_kernel.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
