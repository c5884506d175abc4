"""The machine a benchmark ran on (BLAS threads as :mod:`bench` pinned them)."""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bench import THREAD_VARIABLES


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
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas_threads": blas_threads(),
    }


def record(quick: bool, task: str, **fields: Any) -> dict[str, Any]:
    """A benchmark's record: the machine (:func:`about`), whether it ran quick, its task
    in words, and its own ``fields``."""
    return {**about(), "quick": quick, "task": task, **fields}


def heading(title: str, record: Mapping[str, Any]) -> list[str]:
    """A solver benchmark's report head: its title, the machine and kernel, its task."""
    return [
        f"# {title}",
        "",
        described(record) + f" · {record['kernel']}",
        "",
        record["task"],
        "",
    ]


def described(record: Mapping[str, Any]) -> str:
    """One line of :func:`about`'s head for a Markdown report: date, machine, versions."""
    return (
        f"{record['date']} · {record['cpu_model']}, {record['cpu_count']} cores · "
        f"Python {record['python']} · numpy {record['numpy']}"
    )
