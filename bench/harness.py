"""A benchmark script's command line and files: where the repository and the results
are, the options every benchmark takes, and writing what it measured (JSON, Markdown).

It imports nothing heavy, so a benchmark imports ``machine`` (one BLAS thread) before it
and numpy after it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
RESULTS = ROOT / "bench" / "results"
"""Where the benchmarks write their results, and where plots and the summary read them."""


def use_repository() -> None:
    """Put the repository root and ``tests/`` on ``sys.path``.

    Then ``import solver`` finds the solver, and ``import fixtures`` the figures and
    peers the benchmarks share with the tests.
    """
    for folder in (ROOT, ROOT / "tests"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def shown(path: Path) -> Path:
    """``path`` for a message: relative to the repository root where it lies inside it."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


class Count(NamedTuple):
    """A count option of a benchmark (targets, events, repeats): what it counts, and its
    value with ``--quick`` and without, where the command line does not give it."""

    what: str
    quick: int
    full: int


class BenchmarkParser(argparse.ArgumentParser):
    """The command line every benchmark takes: ``--quick``, ``--seed`` (of the random
    targets), ``--output`` and the benchmark's counts; the script may add more options.

    Parsed arguments hold every count: the one given, else its quick or full value.

    Args:
        doc: The script's docstring; its first paragraph describes the command.
        name: The results' name: ``--output`` defaults to ``bench/results/<name>.json``.
        quick: What ``--quick`` runs instead of the whole benchmark.
        counts: The count options by name (``targets`` is ``--targets``).
    """

    def __init__(self, doc: str, name: str, quick: str, counts: Mapping[str, Count]) -> None:
        super().__init__(description=doc.split("\n\n")[0])
        self.counts = dict(counts)
        self.add_argument("--quick", action="store_true", help=quick)
        for option, count in self.counts.items():
            self.add_argument(
                f"--{option}",
                type=int,
                default=None,
                help=f"{count.what} (default {count.full}; {count.quick} with --quick)",
            )
        self.add_argument("--seed", type=int, default=0, help="seed of the random targets")
        self.add_argument("--output", type=Path, default=RESULTS / f"{name}.json")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, rest = super().parse_known_args(args, namespace)
        for option, count in self.counts.items():
            if getattr(parsed, option) is None:
                setattr(parsed, option, count.quick if parsed.quick else count.full)
        return parsed, rest


def results_folder(doc: str) -> Path:
    """The ``--results`` folder (default ``bench/results``) of a script that reads them.

    Args:
        doc: The script's docstring; its first paragraph describes the command.
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    folder: Path = parser.parse_args().results
    return folder


def write_results(output: Path, record: Mapping[str, Any], markdown: Sequence[str]) -> None:
    """Write a benchmark's record as JSON to ``output`` and its Markdown beside it (``.md``).

    Args:
        output: The JSON file.
        record: What the benchmark measured.
        markdown: The Markdown's lines.
    """
    json_text = json.dumps(record, indent=2) + "\n"
    write_files({output: json_text, output.with_suffix(".md"): "\n".join([*markdown, ""])})


def write_files(files: Mapping[Path, str]) -> None:
    """Write each file's text (making its folder) and name each file written."""
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {shown(path)}")


def table(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """The lines of a Markdown table: its header, the rule under it and one line a row."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines
