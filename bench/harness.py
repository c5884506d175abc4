"""A benchmark's command line and files: where the repository and the results are, the
options every benchmark takes, writing what it measured (JSON, Markdown), and importing
a module from a file outside the packages on ``sys.path``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
RESULTS = ROOT / "bench" / "results"
"""Where the benchmarks write their results, and where plots and the summary read them."""


def import_path(name: str, path: Path) -> ModuleType:
    """Import the module file or package folder at ``path`` as ``name``, once.

    For code that is not in a package on ``sys.path`` (the previous solver extracted to
    a temporary folder, the add-on tests' helpers): a package's modules may import one
    another relatively; the module is in ``sys.modules`` under ``name``, so absolute
    imports of ``name`` find it too.

    Raises:
        ImportError: When ``path`` is neither a Python file nor a package folder.
    """
    if name in sys.modules:
        return sys.modules[name]
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not Path(str(spec.origin)).is_file():
        raise ImportError(f"{shown(path)} is neither a Python file nor a package", name=name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


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
