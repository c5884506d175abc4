"""The plots of ``blender.json``: times, success and violations, and the drag (``plots``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from bench.report.plot_style import (
    KIND_NAMES,
    colour,
    kinds_of,
    label,
    methods_of,
    save,
    two_columns,
)

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
