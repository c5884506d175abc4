"""What every plot of ``plots`` shares: method names, colours, loading and saving."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from bench.harness import shown

METHOD_NAMES = {
    "reach": "Reach",
    "standard_500": "Standard IK 500",
    "standard_50": "Standard IK 50",
    "itasc_500": "iTaSC 500",
    "itasc_50": "iTaSC 50",
    "itasc_500_fine": "iTaSC 500, 1e-4",
}
KIND_NAMES = {"random": "random targets from rest", "drag": "drag events"}
COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def label(method: str) -> str:
    return METHOD_NAMES.get(method, method)


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def load(results: Path, name: str) -> dict[str, Any] | None:
    path = results / name
    if not path.exists():
        print(f"skip {name}: not found in {shown(results)}")
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        print(f"skip {name}: {error}")
        return None
    return data


def two_columns(panels: int, height: float) -> tuple[plt.Figure, np.ndarray]:
    """A figure 13 inches wide with ``panels`` axes in two columns, ``height`` inches a row."""
    rows = math.ceil(panels / 2)
    figure, axes = plt.subplots(rows, 2, figsize=(13, height * rows), squeeze=False)
    return figure, axes


def save(figure: plt.Figure, path: Path) -> None:
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    print(f"wrote {shown(path)}")


def methods_of(scenario: dict[str, Any]) -> list[str]:
    """Methods of a scenario, Reach first, then in the JSON's order."""
    found: list[str] = []
    for per_kind in scenario.get("summary", {}).values():
        found += [method for method in per_kind if method not in found]
    found += [method for method in scenario.get("events", {}) if method not in found]
    return sorted(found, key=lambda method: method != "reach")


def kinds_of(scenario: dict[str, Any]) -> list[str]:
    kinds = list(scenario.get("summary", {}))
    for per_method in scenario.get("events", {}).values():
        kinds += [kind for kind in per_method if kind not in kinds]
    return kinds
