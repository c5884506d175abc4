"""The speed targets' rows of ``summary.md``: the compiled kernel, the bake, large rigs,
priorities and pins, comfort, Balance, Plant Contacts (its slide after and its time per
frame), and control rigs' drags against Blender's own evaluation."""

from __future__ import annotations

from typing import Any

from bench.report.summary_rows import Row, missing

__all__ = [
    "balance_rows",
    "comfort_rows",
    "control_rig_rows",
    "levels_rows",
    "plant_rows",
    "speed_rows",
]

COMFORT_LIMIT = 1.5
"""A drag event with Comfort 1 (the default) takes at most this many times one with Comfort off."""
BALANCE_LIMIT_MS = 100.0
"""A Solve with Balance on takes at most this many milliseconds."""
CONTROL_RIG_LIMIT = 1.5
"""A drag event on a control rig takes at most this many times Blender's own evaluation of
the rig after the dragged control moved by hand."""


def speed_rows(
    kernel: dict[str, Any] | None,
    bake: dict[str, Any] | None,
    large_rig: dict[str, Any] | None,
) -> list[Row]:
    """Rows from ``kernel.json``, ``bake.json`` and ``large_rig.json``."""
    return [*_kernel_rows(kernel), *_bake_rows(bake), *_large_rig_rows(large_rig)]


def levels_rows(levels: dict[str, Any] | None) -> list[Row]:
    """Rows from ``levels.json``: a Solve with priorities, and one with pins, against the
    same goals weighted, where one goal cannot be met."""
    titles = {
        "prioritised": "prioritised Solve, a goal not met: ≤2× the same goals weighted",
        "pinned": "pinned Solve, a goal not met: ≤2× the same pins weighted",
    }
    if levels is None:
        return [
            missing(title, "levels.json missing (run bench.solver.levels)")
            for title in titles.values()
        ]
    rows = []
    for way, title in titles.items():
        row, limit = levels["ways"][way], float(levels["limit"])
        against = levels["ways"][row["against"]]
        rows.append(
            Row(
                title,
                f"{row['median_ms']:.0f} ms",
                f"{row['against']} {against['median_ms']:.0f} ms",
                f"{row['ratio']:.2f}× (≤ {limit:g}×)",
                row["ratio"] <= limit,
            )
        )
    return rows


def comfort_rows(comfort: dict[str, Any] | None) -> list[Row]:
    """The row from ``comfort_cost.json``: the drag whose event Comfort slows most, over
    ``versus_ik``'s scenarios and the whole-body reaches, against the same drag with
    Comfort off (medians, measured in turn in one process)."""
    title = f"Comfort: a drag event ≤{COMFORT_LIMIT:g}× the same drag without Comfort"
    if comfort is None:
        return [missing(title, "comfort_cost.json missing (run bench.blender.comfort_cost)")]
    drags = {
        name: (float(run["1"]["drag_median_ms"]), float(run["0"]["drag_median_ms"]))
        for group in ("scenarios", "whole_body")
        for name, run in comfort[group].items()
    }
    most, (on, off) = max(drags.items(), key=lambda item: item[1][0] / item[1][1])
    return [
        Row(
            title,
            f"{on:.2f} ms (most: {most})",
            f"without {off:.2f} ms",
            f"{on / off:.2f}× (≤ {COMFORT_LIMIT:g}×)",
            on / off <= COMFORT_LIMIT,
        )
    ]


def balance_rows(natural: dict[str, Any] | None, imported: dict[str, Any] | None) -> list[Row]:
    """The row from ``natural.json`` (the basic human's feet held, the hand reaching near and
    far) and ``imported.json`` (imported skeletons, the hand reaching): the slowest Solve with
    Balance on, beside the same Solve with Balance off."""
    title = f"Balance: a Solve ≤{BALANCE_LIMIT_MS:g} ms (feet held, a hand reaching)"
    solves = {}
    for source, label in ((natural, "basic human"), (imported, "")):
        for name, run in ({} if source is None else source.get("balance", {})).items():
            case, _, balance = name.rpartition(" ")
            solves[(f"{label} {case}".strip(), balance)] = float(run["solve_ms"])
    slowest = [(case, ms) for (case, balance), ms in solves.items() if balance == "on"]
    if not slowest:
        return [
            missing(
                title,
                "natural.json and imported.json missing (run bench.blender.natural and imported)",
            )
        ]
    case, ms = max(slowest, key=lambda item: item[1])
    off = solves.get((case, "off"))
    return [
        Row(
            title,
            f"{ms:.1f} ms (slowest: {case})",
            "" if off is None else f"Balance off {off:.1f} ms",
            f"{ms / BALANCE_LIMIT_MS:.2f}× the target",
            ms <= BALANCE_LIMIT_MS,
        )
    ]


def control_rig_rows(control_rigs: dict[str, Any] | None) -> list[Row]:
    """The row from ``control_rigs.json``: every drag of the table (each Rigify kind's limbs
    in FK and IK mode, from the trunk, heads, tails, jaws) over Blender's own evaluation
    of the rig after the dragged control moved by hand, measured between the drag's
    events; the worst row beside the count."""
    title = (
        f"control rigs: every drag event ≤{CONTROL_RIG_LIMIT:g}× Blender's own evaluation "
        "after the control moved by hand"
    )
    if control_rigs is None:
        return [missing(title, "control_rigs.json missing (run bench.blender.control_rigs)")]
    drags = control_rigs["rigs"]
    within = [r for r in drags if r["over_evaluation"] <= CONTROL_RIG_LIMIT]
    worst = max(drags, key=lambda r: r["over_evaluation"])
    return [
        Row(
            title,
            f"{len(within)} of {len(drags)} drags",
            f"worst: {worst['rig']} ({worst['limb']}, {worst['mode']})",
            f"{worst['over_evaluation']:.2f}× (≤ {CONTROL_RIG_LIMIT:g}×)",
            len(within) == len(drags),
        )
    ]


def plant_rows(plant: dict[str, Any] | None) -> list[Row]:
    """Rows from ``plant.json``: each walk's largest toe travel after, the legs' largest
    twist against the motion, and ms per frame, of the walks whose legs reach their planted
    feet and, apart, of those whose hips give."""
    slide = "Plant Contacts, sliding walks: each stance's toe travel ≤3 mm after"
    twist = (
        "Plant Contacts: no thigh, shin or foot turns about its own length over 10° from the motion"
    )
    speed = "Plant Contacts: ≤10 ms a frame"
    giving = "Plant Contacts, legs out of reach (the hips give): ≤10 ms a frame"
    if plant is None:
        return [missing(title, "not measured") for title in (slide, twist, speed, giving)]
    runs = plant["runs"].values()
    after = max(run["after_mm_max"] for run in runs)
    before = max(run["before_mm_max"] for run in runs)
    rows = [
        Row(
            slide,
            f"{after:.2f} mm",
            f"before {before:.1f} mm",
            f"{after / 3.0:.2f}× the target",
            after <= 3.0,
        )
    ]
    turned = [(n, r["twist_deg_max"]) for n, r in plant["runs"].items() if "twist_deg_max" in r]
    if turned:
        most, degrees = max(turned, key=lambda x: x[1])
        rows.append(Row(twist, f"{degrees:.1f}°", f"most: {most}", "", degrees <= 10.0))
    else:
        rows.append(missing(twist, "not measured"))
    for title, straight in ((speed, False), (giving, True)):
        chosen = [
            (n, r["ms_per_frame"]) for n, r in plant["runs"].items() if r["straight"] == straight
        ]
        if not chosen:
            rows.append(missing(title, "not measured"))
            continue
        slowest, ms = max(chosen, key=lambda x: x[1])
        rows.append(
            Row(
                title,
                f"{ms:.1f} ms",
                f"slowest: {slowest}",
                f"{ms / 10.0:.2f}× the target",
                ms <= 10.0,
            )
        )
    return rows


def _kernel_rows(kernel: dict[str, Any] | None) -> list[Row]:
    agree = "compiled kernel and numpy agree on the whole bank (outcome, G; evaluations ≤1e-12)"
    chain = "600-DOF chain, 20 goals: warm drag event ≤10 ms (compiled kernel)"
    if kernel is None:
        return [missing(agree, "not measured"), missing(chain, "not measured")]
    bank = kernel["bank"]
    alike = bank["same_outcome"] == bank["same_g"] == bank["cases"]
    difference = bank["largest_evaluation_difference"]
    rows = [
        Row(
            agree,
            f"{bank['same_outcome']}/{bank['cases']} outcomes, {bank['same_g']}/{bank['cases']} G",
            f"largest difference {difference:.1e}",
            "",
            alike and difference <= 1e-12,
        )
    ]
    sizes = [
        s
        for s in kernel["sizes"]
        if (s["figure"], s["n_dofs"], s["constraints"]) == ("chain", 600, 20)
    ]
    if not sizes:
        return [*rows, missing(chain, "not measured")]
    size = sizes[0]
    rows.append(
        Row(
            chain,
            f"{size['kernel_event_ms']:.1f} ms",
            f"numpy {size['numpy_event_ms']:.1f} ms",
            f"{size['kernel_event_ms'] / 10.0:.2f}× the target",
            size["kernel_event_ms"] <= 10.0,
        )
    )
    return rows


def _bake_rows(bake: dict[str, Any] | None) -> list[Row]:
    rate = "bake, 250 frames, 4 constraints: ≥1,000 frames/s"
    unmet = "bake with a goal out of reach: a frame ≤3× a met frame"
    if bake is None:
        return [missing(rate, "not measured"), missing(unmet, "not measured")]
    met, out = bake["reach_bake"], bake["reach_bake_out_of_reach"]
    blender = bake["blender_standard_ik"]
    ratio = out["ms_per_frame"] / met["ms_per_frame"]
    return [
        Row(
            rate,
            f"{met['frames_per_second']:.0f} frames/s",
            f"Standard IK {blender['frames_per_second']:.0f} frames/s (evaluation)",
            f"{1000.0 / met['frames_per_second']:.2f}× the target's time",
            met["frames_per_second"] >= 1000.0,
        ),
        Row(
            unmet,
            f"{out['ms_per_frame']:.1f} ms",
            f"met {met['ms_per_frame']:.1f} ms",
            f"{ratio:.2f}× (≤ 3×)",
            ratio <= 3.0,
        ),
    ]


def _large_rig_rows(large_rig: dict[str, Any] | None) -> list[Row]:
    target = "2,000 bones, 200 constraints: every {} ≤1.5× the time budget"
    names = {"drag": "drag event", "live": "live update"}
    if large_rig is None:
        return [missing(target.format(name), "not measured") for name in names.values()]
    rows = []
    for key, name in names.items():
        run = large_rig["sessions"][key]
        rows.append(
            Row(
                target.format(name),
                f"{run['median_ms']:.0f} ms median, {run['max_over_budget']:.2f}× at most",
                f"budget {run['median_budget_ms']:.0f} ms",
                f"{run['median_over_budget']:.2f}× (≤ 1.5×)",
                run["max_over_budget"] <= 1.5,
            )
        )
    return rows
