"""Plot the benchmarks' results: PNG files beside the JSON files in bench/results.

Run from the repository root after the benchmarks::

    python bench/plots.py [--results DIR]

Reads whichever of ``blender.json``, ``solver.json``, ``scale.json`` and
``papers.json`` exist (a missing one is skipped with a message) and writes:

* ``blender_times.png``: per-event time of every method, one panel per scenario and
  kind (random targets, drag), as box plots (whiskers 10–90%) with the median marked;
* ``blender_success.png``: share of events within 1e-6 and 1e-3 × limb length, and
  share of events violating a limit, per method, scenario and kind;
* ``blender_drag.png``: per-event time along each scenario's drag, per method;
* ``solver_scipy.png``: Reach's solve time against scipy's time to reach Reach's
  objective (medians), and G against time for the traced targets;
* ``scale.png``: time per iteration and per solve against DOFs (log–log) with the
  fitted growth exponents;
* ``papers.png``: the tube task's solve time and the 1990 figure's update rate, beside
  the papers' numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from harness import results_folder, shown

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


# -- blender.json -------------------------------------------------------------------


def blender_times(data: dict[str, Any], results: Path) -> None:
    scenarios = data.get("scenarios", {})
    panels = [(key, kind) for key, sc in scenarios.items() for kind in kinds_of(sc)]
    if not panels:
        print("skip blender_times.png: no scenarios with events")
        return
    figure, axes = two_columns(len(panels), 3.6)
    for ax, (key, kind) in zip(axes.flat, panels, strict=False):
        scenario = scenarios[key]
        methods = [m for m in methods_of(scenario) if kind in scenario.get("events", {}).get(m, {})]
        samples = [np.asarray(scenario["events"][m][kind]["ms"], dtype=float) for m in methods]
        if not samples:
            ax.set_visible(False)
            continue
        ax.boxplot(samples, whis=(10, 90), showfliers=False, medianprops={"color": "black"})
        for k, values in enumerate(samples):
            ax.scatter([k + 1], [np.percentile(values, 90)], marker="v", color=colour(k), zorder=3)
        ax.set_yscale("log")
        ax.set_xticks(range(1, len(methods) + 1), [label(m) for m in methods], rotation=30)
        ax.set_ylabel("ms per event")
        ax.set_title(f"{scenario.get('title', key)}: {KIND_NAMES.get(kind, kind)}", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    figure.suptitle(
        "Reach vs Blender's IK: time from goal move to evaluated pose "
        "(box 25–75%, whiskers 10–90%, ▼ p90)"
    )
    figure.tight_layout(rect=(0.0, 0.0, 1.0, 0.98))
    save(figure, results / "blender_times.png")


def violating_events(row: dict[str, Any]) -> int:
    """Events violating a limit in Reach's reading: Euler bounds (box) or a polygon."""
    return max(int(row.get(key, 0)) for key in ("violating_events_box", "violating_events_polygon"))


def blender_success(data: dict[str, Any], results: Path) -> None:
    scenarios = data.get("scenarios", {})
    groups = [
        (key, kind) for key, scenario in scenarios.items() for kind in scenario.get("summary", {})
    ]
    if not groups:
        print("skip blender_success.png: no summaries")
        return
    methods: list[str] = []
    for key, _ in groups:
        methods += [m for m in methods_of(scenarios[key]) if m not in methods]
    measures = (
        ("success_1e-06", "events within 1e-6 × limb length"),
        ("success_0.001", "events within 1e-3 × limb length"),
        ("violating", "events violating a limit (Reach's reading: Euler bounds, polygons)"),
    )
    figure, axes = plt.subplots(len(measures), 1, figsize=(14, 3.4 * len(measures)))
    width = 0.8 / max(len(methods), 1)
    positions = np.arange(len(groups))
    for ax, (measure, title) in zip(np.atleast_1d(axes), measures, strict=True):
        for k, method in enumerate(methods):
            values = []
            for key, kind in groups:
                row = scenarios[key]["summary"][kind].get(method)
                if row is None:
                    values.append(np.nan)
                elif measure == "violating":
                    events = row.get("events") or 1
                    values.append(violating_events(row) / events)
                else:
                    values.append(row.get(measure, np.nan))
            ax.bar(
                positions + (k - (len(methods) - 1) / 2) * width,
                values,
                width,
                label=label(method),
                color=colour(k),
            )
        ax.set_xticks(
            positions,
            [f"{key}\n{kind}" for key, kind in groups],
            fontsize=8,
        )
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("share")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    np.atleast_1d(axes)[0].legend(
        ncol=len(methods), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.12)
    )
    figure.tight_layout()
    save(figure, results / "blender_success.png")


def blender_drag(data: dict[str, Any], results: Path) -> None:
    scenarios = {
        key: sc
        for key, sc in data.get("scenarios", {}).items()
        if any("drag" in per for per in sc.get("events", {}).values())
    }
    if not scenarios:
        print("skip blender_drag.png: no drag events")
        return
    figure, axes = two_columns(len(scenarios), 3.4)
    for ax, (key, scenario) in zip(axes.flat, scenarios.items(), strict=False):
        for k, method in enumerate(methods_of(scenario)):
            events = scenario["events"].get(method, {}).get("drag")
            if events is None:
                continue
            ax.plot(events["ms"], label=label(method), color=colour(k), linewidth=0.9)
        ax.set_yscale("log")
        ax.set_xlabel("drag event")
        ax.set_ylabel("ms")
        ax.set_title(scenario.get("title", key), fontsize=10)
        ax.grid(which="both", alpha=0.3)
    for ax in list(axes.flat)[len(scenarios) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7, ncol=2)
    figure.suptitle("Per-event time along the drag")
    figure.tight_layout(rect=(0.0, 0.0, 1.0, 0.97))
    save(figure, results / "blender_drag.png")


# -- solver.json ----------------------------------------------------------------------


def solver_scipy(data: dict[str, Any], results: Path) -> None:
    race = data.get("time_to_objective")
    if not isinstance(race, dict):
        print("skip solver_scipy.png: solver.json has no time_to_objective (old format)")
        return
    parts = [
        (key, title)
        for key, title in (("human", "full limits"), ("human_bounds_only", "bounds only"))
        if isinstance(race.get(key), dict)
    ]
    traces = [(title, trace) for key, title in parts for trace in race[key].get("traces", [])[:1]]
    figure, axes = plt.subplots(
        1, 1 + len(traces), figsize=(4.2 * (1 + len(traces)), 4), squeeze=False
    )
    ax = axes[0, 0]
    names, values, colours = [], [], []
    for key, title in parts:
        part = race[key]
        names.append(f"Reach\n{title}")
        values.append(part["reach"]["median_time_s"] * 1e3)
        colours.append(colour(0))
        for k, (method, name) in enumerate((("slsqp", "SLSQP"), ("lbfgsb", "L-BFGS-B"))):
            row = part.get(method)
            if not isinstance(row, dict):
                continue
            to = row.get("median_time_to_reach_objective_s")
            names.append(f"{name}\n{title}")
            values.append(np.nan if to is None else to * 1e3)
            colours.append(colour(k + 1))
    bars = ax.bar(range(len(values)), values, color=colours)
    for bar, value in zip(bars, values, strict=True):
        text = "never" if np.isnan(value) else f"{value:.1f}"
        ax.annotate(
            text,
            (bar.get_x() + bar.get_width() / 2, np.nan_to_num(value)),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_xticks(range(len(names)), names, fontsize=7)
    ax.set_ylabel("median ms")
    ax.set_title("Reach's solve vs scipy's time\nto Reach's objective", fontsize=10)
    for ax, (title, trace) in zip(axes[0, 1:], traces, strict=True):
        for k, (method, name) in enumerate(
            (("reach", "Reach"), ("slsqp", "SLSQP"), ("lbfgsb", "L-BFGS-B"))
        ):
            points = np.asarray(trace.get(method, []), dtype=float)
            if points.size:
                ax.plot(
                    points[:, 0] * 1e3,
                    np.maximum(points[:, 1], 1e-30),
                    label=name,
                    color=colour(k),
                    marker=".",
                    markersize=3,
                    linewidth=0.8,
                )
        ax.axhline(trace["threshold"], color="grey", linestyle=":", label="Reach's G (+slack)")
        ax.set_yscale("log")
        ax.set_xlabel("ms since the call")
        ax.set_ylabel("G")
        ax.set_title(f"target {trace['target']}, {title}", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(which="both", alpha=0.3)
    figure.tight_layout()
    save(figure, results / "solver_scipy.png")


# -- scale.json -----------------------------------------------------------------------


def scale(data: dict[str, Any], results: Path) -> None:
    cases = data.get("cases", [])
    if not cases:
        print("skip scale.png: no cases")
        return
    fits = {(row["figure"], row["constraints"]): row for row in data.get("fits", [])}
    series = sorted({(case["figure"], case["constraints"]) for case in cases})
    panels = (
        ("median_time_per_iteration_s", "time_per_iteration", "ms per iteration"),
        ("median_time_s", "time_per_solve", "ms per solve"),
        ("evaluate_s", "evaluate", "ms per problem.evaluate"),
    )
    figure, axes = plt.subplots(1, len(panels), figsize=(15, 4.6))
    for ax, (key, fit_key, title) in zip(axes, panels, strict=True):
        for k, (kind, constraints) in enumerate(series):
            chosen = sorted(
                (c for c in cases if c["figure"] == kind and c["constraints"] == constraints),
                key=lambda c: c["n_dofs"],
            )
            x = np.array([c["n_dofs"] for c in chosen], dtype=float)
            y = np.array([c[key] for c in chosen]) * 1e3
            style = "-" if kind == "chain" else "--"
            fit = fits.get((kind, constraints), {}).get(fit_key)
            name = f"{kind}, {constraints} con."
            if fit:
                name += f" (k={fit['exponent']:.2f})"
                line = fit["prefactor_s"] * 1e3 * x ** fit["exponent"]
                ax.plot(x, line, style, color=colour(k), alpha=0.4, linewidth=1)
            ax.plot(x, y, "o", color=colour(k), label=name, markersize=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("DOFs")
        ax.set_ylabel(title)
        ax.set_title(f"{title} (lines: fitted DOFs^k)", fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    figure.tight_layout()
    save(figure, results / "scale.png")


# -- papers.json ----------------------------------------------------------------------


def papers(data: dict[str, Any], results: Path) -> None:
    tubes = data.get("tube", [])
    figures = data.get("figure_1990", [])
    if not tubes and not figures:
        print("skip papers.png: no results")
        return
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.4))
    names, reach, paper = [], [], []
    for tube in tubes:
        names.append("grouped (22)" if tube["grouped"] else "independent (70)")
        reach.append(tube["reach"]["median_ms"] * 1e-3)
        paper.append(tube["paper_s"])
    positions = np.arange(len(names))
    left.bar(positions - 0.2, paper, 0.4, label="1994 paper (1990 SGI)", color=colour(1))
    left.bar(positions + 0.2, reach, 0.4, label="Reach", color=colour(0))
    for k, (p, r) in enumerate(zip(paper, reach, strict=True)):
        left.annotate(f"{p / r:.0f}×", (k + 0.2, r), ha="center", va="bottom", fontsize=8)
    left.set_yscale("log")
    left.set_xticks(positions, names)
    left.set_ylabel("seconds per solve")
    left.set_title("1994 tube task (Figure 3)", fontsize=10)
    left.legend(fontsize=8)
    names, values, low, high = [], [], [], []
    for entry in figures:
        for kind in ("drag", "from_rest"):
            names.append(f"{len(entry['constraints'])} × 7-DOF\n{kind.replace('_', ' ')}")
            values.append(entry[kind]["median_hz"])
            low.append(entry["paper_hz"][0])
            high.append(entry["paper_hz"][1])
    positions = np.arange(len(names))
    right.bar(positions + 0.2, values, 0.4, label="Reach (median)", color=colour(0))
    bars = right.bar(positions - 0.2, high, 0.4, label="1990 paper", color=colour(1))
    for bar, a, b in zip(bars, low, high, strict=True):
        text = f"{a:g}" if a == b else f"{a:g}–{b:g}"
        right.annotate(
            text, (bar.get_x() + bar.get_width() / 2, b), ha="center", va="bottom", fontsize=8
        )
    for k, value in enumerate(values):
        right.annotate(f"{value:.0f}", (k + 0.2, value), ha="center", va="bottom", fontsize=8)
    right.set_yscale("log")
    right.set_xticks(positions, names, fontsize=7)
    right.set_ylabel("updates per second (Hz)")
    right.set_title("1990 interactive figure, 53 DOFs", fontsize=10)
    right.legend(fontsize=8)
    figure.tight_layout()
    save(figure, results / "papers.png")


def main() -> None:
    results = results_folder(__doc__)
    plots = {
        "blender.json": (blender_times, blender_success, blender_drag),
        "solver.json": (solver_scipy,),
        "scale.json": (scale,),
        "papers.json": (papers,),
    }
    for name, makers in plots.items():
        data = load(results, name)
        if data is None:
            continue
        for make in makers:
            try:
                make(data, results)
            except (KeyError, TypeError, ValueError, IndexError) as error:
                print(f"skip {make.__name__} ({name}): unexpected layout: {error!r}")


if __name__ == "__main__":
    main()
