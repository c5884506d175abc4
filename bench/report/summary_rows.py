"""One row of ``summary.md``'s target table, shared by the modules that make rows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    target: str
    reach: str
    peer: str
    ratio: str
    met: bool | None  # None: not measured


def missing(target: str, why: str) -> Row:
    return Row(target, why, "", "", None)
