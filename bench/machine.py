"""The machine a benchmark ran on, and where its results go."""

from __future__ import annotations

import platform
from pathlib import Path


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
