"""The solver package's boundaries (no Blender imports, relative imports, a true __all__),
and no import circle in the solver or the add-on."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import GOAL_TYPES

import solver
import solver.goals

SOLVER_DIR = Path(solver.__file__).resolve().parent
FORBIDDEN = ("bpy", "mathutils", "bmesh", "addon")
SOLVER_FILES = sorted(SOLVER_DIR.rglob("*.py"))
ROOT = SOLVER_DIR.parent
ADDON_FILES = sorted((ROOT / "addon").rglob("*.py"))


def _module_name(path: Path) -> list[str]:
    """Dotted name parts of a file in the repository, e.g. ["solver", "goals", "aim"]."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _imports(source: str, path: Path) -> list[tuple[int, str, bool]]:
    """Every import in ``source`` as (line, absolute module name, was_relative).

    Relative imports are resolved against the file's package; ``from . import x`` yields
    ``<package>.x``. A relative import that climbs above ``solver`` resolves to a name
    outside it (e.g. ``addon`` for ``from ..addon import x`` in ``solver/x.py``).
    Calls of ``importlib.import_module("…")`` and ``__import__("…")`` with a literal
    name count as absolute imports.
    """
    name = _module_name(path)
    package = name if _is_package(path) else name[:-1]
    found: list[tuple[int, str, bool]] = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, False) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
                found.append((node.lineno, base, False))
                found.extend((node.lineno, f"{base}.{a.name}", False) for a in node.names)
                continue
            up = node.level - 1
            anchor = package[: max(len(package) - up, 0)]
            base_parts = anchor + (node.module.split(".") if node.module else [])
            base = ".".join(base_parts)
            found.append((node.lineno, base, True))
            found.extend(
                (node.lineno, f"{base}.{a.name}" if base else a.name, True) for a in node.names
            )
        elif isinstance(node, ast.Call):
            func = node.func
            dynamic = (isinstance(func, ast.Name) and func.id == "__import__") or (
                isinstance(func, ast.Attribute) and func.attr == "import_module"
            )
            if dynamic and node.args and isinstance(node.args[0], ast.Constant):
                value = node.args[0].value
                if isinstance(value, str):
                    found.append((node.lineno, value.lstrip("."), False))
    return found


def _forbidden(module: str) -> bool:
    return any(part in FORBIDDEN for part in module.split("."))


def _blender_imports(source: str, path: Path) -> list[str]:
    problems = []
    for line, module, relative in _imports(source, path):
        if _forbidden(module):
            problems.append(f"{path.name}:{line}: imports {module}")
        elif relative and module.split(".")[0] != "solver":
            problems.append(f"{path.name}:{line}: relative import leaves solver/: {module}")
    return problems


def _absolute_solver_imports(source: str, path: Path) -> list[str]:
    return [
        f"{path.name}:{line}: absolute import of {module}"
        for line, module, relative in _imports(source, path)
        if not relative and module.split(".")[0] == "solver"
    ]


def test_solver_has_python_files() -> None:
    names = {p.relative_to(SOLVER_DIR).as_posix() for p in SOLVER_FILES}
    assert {"__init__.py", "figure.py", "problem.py", "goals/__init__.py"} <= names


@pytest.mark.parametrize("path", SOLVER_FILES, ids=lambda p: p.relative_to(SOLVER_DIR).as_posix())
def test_solver_module_never_imports_blender_or_addon(path: Path) -> None:
    assert _blender_imports(path.read_text(encoding="utf-8"), path) == []


@pytest.mark.parametrize("path", SOLVER_FILES, ids=lambda p: p.relative_to(SOLVER_DIR).as_posix())
def test_solver_module_imports_solver_modules_relatively(path: Path) -> None:
    assert _absolute_solver_imports(path.read_text(encoding="utf-8"), path) == []


def _cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(source, file) pairs from sources listed by the file they are scanned as."""
    return [(source, where) for where, sources in table.items() for source in sources]


BLENDER_IMPORTS = {
    "figure.py": [
        "import bpy",
        "import bmesh.types",
        "from mathutils import Matrix",
        "import numpy, mathutils",
        "from addon import adapter",
        "import addon.adapter as a",
        "from ..addon import adapter",
        "from .. import addon",
    ],
    "goals/aim.py": ["from ...addon.adapter import to_figure", "from .. import bpy"],
    "solve.py": [
        "def f():\n    import bpy\n",
        "import importlib\nimportlib.import_module('bpy')",
        "__import__('mathutils')",
    ],
}
"""Sources that import Blender or the add-on, by the solver file they are scanned as."""

ABSOLUTE_IMPORTS = {
    "problem.py": ["import solver.figure", "from solver import goals"],
    "goals/aim.py": ["from solver.goals.base import Goal"],
}
"""Sources that import the solver absolutely."""

ALLOWED_IMPORTS = {
    "problem.py": ["import numpy as np\nfrom .figure import Figure"],
    "goals/base.py": ["from .. import exceptions", "from ..exceptions import SolverInputError"],
    "__init__.py": ["from . import goals"],
    "goals/__init__.py": ["from .base import Goal"],
    "figure.py": ["import bpyutils_free_name"],
}
"""Relative and third-party imports: the scanners must accept them."""


@pytest.mark.parametrize(("source", "where"), _cases(BLENDER_IMPORTS))
def test_scan_catches_blender_imports(source: str, where: str) -> None:
    # The scanner itself must be able to fail.
    assert _blender_imports(source, SOLVER_DIR / where) != []


@pytest.mark.parametrize(("source", "where"), _cases(ABSOLUTE_IMPORTS))
def test_scan_catches_absolute_solver_imports(source: str, where: str) -> None:
    assert _absolute_solver_imports(source, SOLVER_DIR / where) != []


@pytest.mark.parametrize(("source", "where"), _cases(ALLOWED_IMPORTS))
def test_scan_accepts_relative_and_third_party_imports(source: str, where: str) -> None:
    path = SOLVER_DIR / where
    assert _blender_imports(source, path) == []
    assert _absolute_solver_imports(source, path) == []


def _import_graph(files: list[Path]) -> dict[str, set[str]]:
    """Module → the modules among ``files`` it imports, at any depth of its code (also
    under ``if TYPE_CHECKING:``); a module's own packages are left out, since importing
    a module always runs them first."""
    modules = {".".join(_module_name(path)): path for path in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        parts = name.split(".")
        packages = {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
        imported = {m for _, m, _ in _imports(path.read_text(encoding="utf-8"), path)}
        graph[name] = {m for m in imported if m in modules and m not in packages}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (its modules in order, the first again at the end),
    or [] if there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        path.append(module)
        for other in sorted(graph.get(module, ())):
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(module)
        return []

    for module in sorted(graph):
        found = visit(module)
        if found:
            return found
    return []


def test_solver_has_no_import_circle() -> None:
    graph = _import_graph(SOLVER_FILES)
    assert "solver.segment" in graph["solver.kinematics"]
    assert "solver.segment" in graph["solver.figure"]
    assert _cycle(graph) == []


def test_addon_has_no_import_circle() -> None:
    # read as text: the add-on's modules import bpy, which this environment lacks
    graph = _import_graph(ADDON_FILES)
    assert "addon.bridge.rig" in graph["addon.bridge.goals"]
    assert _cycle(graph) == []


def test_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def test_relative_imports_resolve_inside_solver() -> None:
    imports = _imports(
        "from ..exceptions import SolverInputError", SOLVER_DIR / "goals" / "base.py"
    )
    assert (1, "solver.exceptions", True) in imports
    imports = _imports("from .figure import Figure", SOLVER_DIR / "__init__.py")
    assert (1, "solver.figure", True) in imports


@pytest.mark.parametrize("module", [solver, solver.goals], ids=lambda m: m.__name__)
def test_every_name_in_all_resolves(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert len(names) == len(set(names)), "duplicate names in __all__"
    for name in names:
        assert isinstance(name, str)
        assert getattr(module, name, None) is not None, f"{module.__name__}.{name}"  # type: ignore[attr-defined]


def test_all_lists_the_public_surface() -> None:
    expected = {"Figure", "Dof", "Effector", "Constraint", "AnyOf", "Problem", "solve", "goals"}
    assert expected <= set(solver.__all__)
    assert "SolverInputError" in solver.__all__
    assert {*GOAL_TYPES, "commensurate", "C5"} <= set(solver.goals.__all__)


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from solver import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(solver.__all__)


@pytest.mark.parametrize(
    "path",
    [p for p in SOLVER_FILES if p.name != "__init__.py"],
    ids=lambda p: p.relative_to(SOLVER_DIR).as_posix(),
)
def test_module_all_names_resolve(path: Path) -> None:
    module = importlib.import_module(".".join(_module_name(path)))
    for name in getattr(module, "__all__", ()):
        assert hasattr(module, name), f"{module.__name__}.{name}"


def test_importing_solver_loads_no_blender_module() -> None:
    code = (
        "import sys, solver, solver.goals\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    root = SOLVER_DIR.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_solver_is_imported_under_one_name_only() -> None:
    # Tests import the solver as `solver` only; a second copy would break isinstance.
    assert solver.Figure is sys.modules["solver.figure"].Figure
    assert not any(name.endswith(".solver") for name in sys.modules)


def test_fixtures_stay_out_of_the_extension() -> None:
    # Test and benchmark fixtures live under tests/, which the extension's build leaves out.
    manifest = tomllib.loads((SOLVER_DIR.parent / "blender_manifest.toml").read_text())
    assert "/tests/" in manifest["build"]["paths_exclude_pattern"]
    assert not (SOLVER_DIR / "models").exists()
    assert not (SOLVER_DIR / "peers.py").exists()
