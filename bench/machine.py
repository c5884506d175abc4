"""The machine a benchmark ran on.

Importing this module pins BLAS to one thread (unless ``OPENBLAS_NUM_THREADS`` /
``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` are set), so benchmarks import it before numpy:
the matrices are tiny, and on a busy machine threaded BLAS makes times vary tenfold.
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import Any

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


def about() -> dict[str, Any]:
    """The head of every benchmark's record: date, machine, Python, numpy, BLAS threads."""
    import numpy as np  # here, not above: this module is imported before numpy

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas_threads": blas_threads(),
    }
