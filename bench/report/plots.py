"""Plot the benchmarks' results: PNG files beside the JSON files in bench/results.

Run from the repository root after the benchmarks::

    .venv/bin/python -m bench.report.plots [--results DIR]

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
  fitted growth exponents, and the warm drags' time per iteration against the
  variables for each number of goal residuals;
* ``papers.png``: the tube task's solve time and the 1990 figure's update rate, beside
  the papers' numbers;
* ``plant.png``: for the walks ``plant.json`` draws, each foot's contacts on a timeline
  (the stances the walk was made with, the frames Plant Contacts held the toe) and the
  toe's speed frame by frame before and after.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from bench.harness import results_folder
from bench.report.plot_style import colour, load, save
from bench.report.plots_blender import blender_drag, blender_success, blender_times

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
    sweep = data.get("drag", {}).get("sweep", [])
    figure, axes = plt.subplots(1, len(panels) + bool(sweep), figsize=(20 if sweep else 15, 4.6))
    if sweep:
        drag_panel(axes[-1], sweep, data["drag"].get("fits", []))
    for ax, (key, fit_key, title) in zip(axes, panels, strict=False):
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


def drag_panel(ax: Any, sweep: list[dict[str, Any]], fits: list[dict[str, Any]]) -> None:
    """The warm drags' ms per iteration against variables n, one series per residuals m."""
    exponents = {f["residuals"]: f["exponent"] for f in fits if f["against"] == "variables"}
    for k, residuals in enumerate(sorted({case["residuals"] for case in sweep})):
        chosen = sorted(
            (c for c in sweep if c["residuals"] == residuals), key=lambda c: c["variables"]
        )
        name = f"m = {residuals}"
        if residuals in exponents:
            name += f" (k={exponents[residuals]:.2f})"
        x = [c["variables"] for c in chosen]
        y = [c["median_time_per_iteration_ms"] for c in chosen]
        ax.plot(x, y, "o-", color=colour(k), label=name, markersize=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("variables n")
    ax.set_ylabel("ms per iteration")
    ax.set_title("chain drag events: ms per iteration (k: fitted n^k)", fontsize=10)
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=7)


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


METHOD_TASKS = ("human: random targets", "bank (CI slice): reachable cases")
"""The tasks of ``methods.json`` whose runs ``methods.png`` plots."""


def methods(data: dict[str, Any], results: Path) -> None:
    """Per task, the share of runs meeting every goal to 1e-6 (solid) and 1e-3 (dashed)
    × limb within a time, one line per method."""
    rows = [r for r in data["methods"] if r["task"] in METHOD_TASKS and "runs_ms" in r]
    if not rows:
        print("skip methods.png: no per-run results")
        return
    figure, axes = plt.subplots(1, len(METHOD_TASKS), figsize=(12, 4.4), squeeze=False)
    order = list(dict.fromkeys(r["method"] for r in data["methods"]))
    for ax, task in zip(axes[0], METHOD_TASKS, strict=True):
        for row in (r for r in rows if r["task"] == task):
            times = np.asarray(row["runs_ms"])
            errors = np.asarray(row["runs_error"])
            grid = np.logspace(np.log10(max(times.min(), 1e-2)), np.log10(times.max()), 200)
            index = order.index(row["method"])
            for tolerance, style in ((1e-6, "-"), (1e-3, "--")):
                share = [np.mean((times <= t) & (errors <= tolerance)) for t in grid]
                ax.plot(
                    grid,
                    100 * np.asarray(share),
                    style,
                    color=colour(index),
                    label=row["method"] if tolerance == 1e-6 else None,
                )
        ax.set_xscale("log")
        ax.set_xlabel("ms per solve")
        ax.set_ylabel("% of runs met (solid 1e-6, dashed 1e-3 × limb)")
        ax.set_title(task)
        ax.set_ylim(0, 102)
        ax.legend(fontsize=8)
    figure.tight_layout()
    save(figure, results / "methods.png")


# -- plant.json -----------------------------------------------------------------------


def plant(data: dict[str, Any], results: Path) -> None:
    """Per drawn walk and foot: the stances and held frames as bars, and the toe's speed
    (mm a frame) before and after planting."""
    drawn = {name: run["picture"] for name, run in data["runs"].items() if "picture" in run}
    if not drawn:
        print("skip plant.png: no walk drawn")
        return
    rows = [(name, foot, path) for name, run in drawn.items() for foot, path in run["feet"].items()]
    figure, axes = plt.subplots(len(rows), 1, figsize=(12, 2.3 * len(rows)), squeeze=False)
    for ax, (name, foot, path) in zip(axes[:, 0], rows, strict=True):
        frames = np.asarray(drawn[name]["frames"])
        standing = np.zeros(len(frames) - 1, dtype=bool)
        for first, last in path["truth"]:
            standing[first : last - 1] = True  # the steps from frame first+1 to last
        top = 1.0
        for k, when in enumerate(("before", "after")):
            points = np.asarray(path[when])
            speed = 1e3 * np.linalg.norm(np.diff(points, axis=0), axis=1)
            top = max(top, 3.0 * float(speed[standing].max(initial=0.0)))
            ax.plot(frames[1:], speed, color=colour(k), lw=1.2, label=f"toe speed {when}")
        for first, last in path["truth"]:
            ax.axvspan(first - 0.5, last + 0.5, ymin=0.0, ymax=0.03, color="0.4", lw=0)
        held = np.asarray(path["held"], dtype=bool)
        ax.fill_between(
            frames, 0, top, where=held, color=colour(2), alpha=0.12, step="mid", label="toe held"
        )
        ax.set_ylim(0, top)
        ax.set_ylabel("mm / frame")
        ax.set_title(
            f"{name}: {foot} (grey bars: the stances the walk was made with; "
            "the swings run off the top)",
            fontsize=9,
        )
        ax.legend(fontsize=7, loc="upper right")
    axes[-1, 0].set_xlabel("frame")
    figure.tight_layout()
    save(figure, results / "plant.png")


def main() -> None:
    results = results_folder(__doc__)
    plots = {
        "blender.json": (blender_times, blender_success, blender_drag),
        "solver.json": (solver_scipy,),
        "scale.json": (scale,),
        "papers.json": (papers,),
        "methods.json": (methods,),
        "plant.json": (plant,),
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
