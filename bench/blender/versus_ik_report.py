"""``versus_ik``'s results: per-method summaries, console and Markdown tables, JSON."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from typing import Any

import numpy as np

from bench.blender.events import METHOD_TITLES, SUCCESS, VIOLATING_DEG


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = np.array([run["ms"] for run in runs])
    errors = np.array([run["error"] for run in runs])
    row: dict[str, Any] = {
        "events": len(runs),
        "median_ms": float(np.median(times)),
        "p90_ms": float(np.percentile(times, 90)),
        "max_ms": float(np.max(times)),
        "median_error": float(np.median(errors)),
        "max_error": float(np.max(errors)),
        **{f"success_{t:g}": float(np.mean(errors <= t)) for t in SUCCESS},
        "max_violation_box_deg": max(run["violation_box"] for run in runs),
        "max_violation_euler_deg": max(run["violation_euler"] for run in runs),
        "max_violation_swing_deg": max(run["violation_swing"] for run in runs),
        "violating_events_box": sum(run["violation_box"] > VIOLATING_DEG for run in runs),
        "violating_events_swing": sum(run["violation_swing"] > VIOLATING_DEG for run in runs),
    }
    if "solve_ms" in runs[0]:
        row["median_solve_ms"] = statistics.median(run["solve_ms"] for run in runs)
        row["median_iterations"] = statistics.median(run["iterations"] for run in runs)
        row["statuses"] = dict(Counter(run["status"] for run in runs))
        row["max_violation_read_deg"] = max(run["violation_read"] for run in runs)
    if "violation_polygon" in runs[0]:
        polygon = np.array([run["violation_polygon"] for run in runs])
        row["median_violation_polygon_deg"] = float(np.median(polygon))
        row["max_violation_polygon_deg"] = float(np.max(polygon))
        row["violating_events_polygon"] = int(np.sum(polygon > VIOLATING_DEG))
        signed = np.array([run["polygon_signed"] for run in runs])
        row["boundary_events_polygon"] = int(np.sum(signed >= -VIOLATING_DEG))
    if "violation_polygon_read" in runs[0]:
        row["max_violation_polygon_read_deg"] = max(run["violation_polygon_read"] for run in runs)
    return row


def columns(runs: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per-event records as one list per field, floats to 4 significant digits."""
    return {
        key: [float(f"{run[key]:.4g}") if isinstance(run[key], float) else run[key] for run in runs]
        for key in runs[0]
    }


# --- output --------------------------------------------------------------------------------

COLUMNS = (
    ("method", "{}", "", 22),
    ("median ms", "{:.2f}", "median_ms", 10),
    ("p90 ms", "{:.2f}", "p90_ms", 9),
    ("max ms", "{:.2f}", "max_ms", 9),
    ("med. err", "{:.1e}", "median_error", 9),
    ("max err", "{:.1e}", "max_error", 9),
    ("ok 1e-6", "{:.0%}", "success_1e-06", 8),
    ("ok 1e-3", "{:.0%}", "success_0.001", 8),
    ("viol. box°", "{:.2f}", "max_violation_box_deg", 11),
    ("viol. swing°", "{:.2f}", "max_violation_swing_deg", 13),
)
"""(header, format, summary field or "" for the method's title, printed width)."""
POLYGON_COLUMNS = (
    ("viol. poly°", "{:.2f}", "max_violation_polygon_deg", 12),
    ("poly. viol.", "{:d}", "violating_events_polygon", 12),
    ("poly. binds", "{:d}", "boundary_events_polygon", 12),
)
"""Columns added for scenarios with limit polygons."""


def record_columns(record: dict[str, Any]) -> tuple[tuple[str, str, str, int], ...]:
    return COLUMNS + (POLYGON_COLUMNS if record.get("limit_polygons") else ())


def table_rows(record: dict[str, Any]) -> list[tuple[str, list[str]]]:
    rows = []
    for kind in ("random", "drag"):
        for method, row in record["summary"][kind].items():
            cells = [
                fmt.format(row[field] if field else METHOD_TITLES[method])
                for _, fmt, field, _ in record_columns(record)
            ]
            rows.append((kind, cells))
    return rows


def print_table(record: dict[str, Any]) -> None:
    shown = record_columns(record)
    header = " ".join(
        f"{name:{'<' if k == 0 else '>'}{w}s}" for k, (name, _, _, w) in enumerate(shown)
    )
    print(f"\n{record['title']} — {record['variables']} variables")
    print(f"{'kind':7s}{header}")
    for kind, cells in table_rows(record):
        line = " ".join(
            f"{cell:{'<' if k == 0 else '>'}{w}s}"
            for k, (cell, (_, _, _, w)) in enumerate(zip(cells, shown, strict=True))
        )
        print(f"{kind:7s}{line}")


def markdown(meta: dict[str, Any], records: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Reach vs Blender's IK on the Rigify basic human metarig",
        "",
        f"{meta['date']} · {meta['cpu_model']}, {meta['cpu_count']} cores · Blender "
        f"{meta['blender']} (bpy module) · Python {meta['python']} · numpy {meta['numpy']}",
        "",
        "Per event: time from goal move to the evaluated pose (ms); residual = largest "
        "effector-to-target distance over its limb length, on Blender's evaluated pose; "
        "ok = share of events with every residual within 1e-6 / 1e-3 × limb length; "
        "viol. box° = largest angle from an elbow's evaluated local rotation to the "
        "nearest rotation inside its IK limits read as Reach reads them (bounds on Euler "
        "YXZ angles); viol. swing° = the same for Blender Standard IK's reading (twist "
        "about Y bounded by the Y limits, swing bounded by sin(limit/2) on a quarter "
        "ellipse per quadrant). random: from the rest pose to FK targets of random "
        "poses (inside the limits in both readings); drag: one goal dragged, steps of "
        "2% of its limb length, the other goals held (Reach warm starts; Blender's IK "
        "always solves from the pose channels, i.e. the rest pose). With limit polygons: "
        "viol. poly° = largest signed distance of an upper arm's (X, Z) angles past an "
        "edge of its polygon, the evaluated local rotation read as Reach reads the bone "
        "(Euler YXZ), 0 inside; poly. viol. = events with viol. poly° > 0.001°; "
        "poly. binds = events on (within 0.001°) or past a polygon's boundary.",
        "",
        "| method | settings |",
        "|---|---|",
    ]
    for method, title in METHOD_TITLES.items():
        used = [record["settings"].get(method) for record in records.values()]
        used = [settings for settings in used if settings is not None]
        if used:
            shown = ", ".join(f"{k}={v}" for k, v in used[0].items())
            lines.append(f"| {title} | {shown} |")
    lines.append("")
    for record in records.values():
        lines.append(
            f"## {record['title']} — {record['variables']} variables, "
            f"{record['summary']['random']['reach']['events']} random targets, "
            f"{record['summary']['drag']['reach']['events']}-event drag of {record['dragged']}"
        )
        lines.append("")
        lines.append(
            f"Depsgraph update without IK: {record['depsgraph_update_without_ik_ms']:.2f} ms; "
            "a pose written as Reach writes it (every bone's rotation channels at once, "
            "the object tagged) and the update after it, without IK: "
            f"{record['pose_write_update_ms']:.2f} ms, the floor of any event that writes "
            "a pose."
        )
        lines.append("")
        if "note" in record:
            lines.append(record["note"])
            lines.append("")
        for bone, polygon in record.get("limit_polygons", {}).items():
            corners = ", ".join(f"({x:g}, {z:g})" for x, z in polygon["vertices_deg"])
            lines.append(
                f"Limit polygon of {bone} over rotations {', '.join(polygon['axes'])} "
                f"(Euler {polygon['euler_order']}) [deg]: {corners}."
            )
        if record.get("limit_polygons"):
            lines.append("")
        shown = record_columns(record)
        lines.append("| kind | " + " | ".join(name for name, *_ in shown) + " |")
        lines.append("|---|" + "---|" * len(shown))
        for kind, cells in table_rows(record):
            lines.append(f"| {kind} | " + " | ".join(cells) + " |")
        lines.append("")
        if record["elbow_limits"]:
            for kind in ("random", "drag"):
                counts = ", ".join(
                    f"{title} {row['violating_events_box']}/{row['violating_events_swing']}"
                    f" (Euler-angle excess up to {row['max_violation_euler_deg']:.1f}°)"
                    for method, row in record["summary"][kind].items()
                    for title in [METHOD_TITLES[method]]
                )
                lines.append(f"Events violating (box/swing, > 0.001°), {kind}: {counts}.")
            lines.append("")
        for kind in ("random", "drag"):
            row = record["summary"][kind]["reach"]
            lines.append(
                f"Reach {kind}: median solve {row['median_solve_ms']:.2f} ms, median "
                f"{row['median_iterations']:g} iterations, statuses {row['statuses']}, "
                f"largest violation read back by read_pose {row['max_violation_read_deg']:.2g}°"
                + (
                    f", of the polygons alone {row['max_violation_polygon_read_deg']:.2g}°."
                    if "max_violation_polygon_read_deg" in row
                    else "."
                )
            )
        lines.append("")
        if "drag_profile_ms_per_event" in record:
            lines.append("Reach drag event, where the time goes (ms per event):")
            lines.append("")
            lines.append("| phase | ms |")
            lines.append("|---|---|")
            for phase, value in record["drag_profile_ms_per_event"].items():
                indent = len(phase) - len(phase.lstrip(" "))
                lines.append(f"| {'&nbsp;' * indent}{phase.strip()} | {value:.2f} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def dump(meta: dict[str, Any], records: dict[str, dict[str, Any]]) -> str:
    """JSON, indented, but each per-event list on one line."""
    compact: dict[str, str] = {}
    shown = {}
    for key, record in records.items():
        events = {}
        for method, kinds in record["events"].items():
            for kind, fields in kinds.items():
                for name, values in fields.items():
                    token = f"@@{len(compact)}@@"
                    compact[token] = json.dumps(values, separators=(",", ":"))
                    events.setdefault(method, {}).setdefault(kind, {})[name] = token
        shown[key] = {**record, "events": events}
    text = json.dumps({**meta, "scenarios": shown}, indent=1)
    for token, values in compact.items():
        text = text.replace(f'"{token}"', values)
    return text + "\n"
