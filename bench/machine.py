"""The machine a benchmark ran on, and where its results go.

Importing this module pins BLAS to one thread (unless ``OPENBLAS_NUM_THREADS`` /
``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` are set), so benchmarks import it before numpy:
the matrices are tiny, and on a busy machine threaded BLAS makes times vary tenfold.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
for _variable in THREAD_VARIABLES:
    os.environ.setdefault(_variable, "1")


def blas_threads() -> dict[str, str]:
    """The BLAS thread settings the benchmark ran with."""
    return {variable: os.environ[variable] for variable in THREAD_VARIABLES}


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_results(output: Path, text: str, markdown: str) -> None:
    """Write a benchmark's JSON ``text`` to ``output`` and its Markdown beside it."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    output.with_suffix(".md").write_text(markdown)
    root = Path(__file__).resolve().parents[1]
    for path in (output, output.with_suffix(".md")):
        print(f"wrote {path.relative_to(root) if path.is_relative_to(root) else path}")
