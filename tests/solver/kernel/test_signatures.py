"""The kernel's Python face against its C source: signatures and statuses, one truth.

The ctypes signatures (:data:`solver.kernel.signatures.SIGNATURES`) and the named statuses
(:mod:`solver.kernel.records`) each repeat what ``reach_kernel.c`` declares; a mismatch
would pass wrong arguments or read a wrong answer without an error. These tests read the
C source and hold each against it.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

import solver.kernel
from solver.kernel import DescentStatus, SearchStatus, StartStatus
from solver.kernel.signatures import SIGNATURES, Functions

SOURCE = (Path(solver.kernel.__file__).parent / "reach_kernel.c").read_text(encoding="utf-8")


def _macros() -> dict[str, str]:
    """Each ``#define NAME`` of the source with its body, continuation lines joined."""
    joined = SOURCE.replace("\\\n", " ")
    return dict(re.findall(r"^#define (\w+)[ \t]+(.*)$", joined, flags=re.MULTILINE))


def _ctype(declaration: str) -> object:
    """The ctypes type a C parameter or result type is passed as."""
    if "*" in declaration:
        return ctypes.c_void_p
    words = declaration.replace("const", " ").split()
    kind = words[0]
    return {"int32_t": ctypes.c_int32, "double": ctypes.c_double, "void": None}[kind]


def _exported() -> dict[str, tuple[object, tuple[object, ...]]]:
    """Each ``RK_EXPORT`` function of the source: its result and parameter types."""
    macros = _macros()
    found = {}
    pattern = r"RK_EXPORT\s+([\w ]+?)\s+(rk_\w+)\(([^)]*)\)\s*\{"
    for result, name, parameters in re.findall(pattern, SOURCE):
        for macro, body in macros.items():
            parameters = re.sub(rf"\b{macro}\b", body, parameters)
        listed = [p.strip() for p in parameters.split(",") if p.strip() not in {"", "void"}]
        found[name] = (_ctype(result), tuple(_ctype(p) for p in listed))
    return found


def test_the_table_names_every_exported_function_and_nothing_else() -> None:
    assert set(_exported()) == set(SIGNATURES)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_each_signature_is_the_c_sources(name: str) -> None:
    result, arguments = _exported()[name]
    assert SIGNATURES[name][0] is result
    assert SIGNATURES[name][1] == arguments


@pytest.mark.parametrize("statuses", [StartStatus, SearchStatus, DescentStatus])
def test_each_named_status_is_the_c_sources_number(statuses: type) -> None:
    numbers = {name: int(value) for name, value in re.findall(r"\b(RK_[A-Z_]+) = (-?\d+)", SOURCE)}
    for member in statuses:
        assert numbers[f"RK_{member.name}"] == member.value, member


def test_a_function_outside_the_table_is_named_in_the_error() -> None:
    library = solver.kernel.active()
    if library is None:
        assert not solver.kernel.status().compiled
        return
    functions = Functions(library.library)
    assert functions.abi() == solver.kernel.ABI
    with pytest.raises(AttributeError, match="rk_not_there"):
        functions.not_there  # noqa: B018
