"""The benchmarks' verdict on Reach's targets: bench/results/summary.md.

Run from the repository root after the benchmarks::

    .venv/bin/python -m bench.report.summary [--results DIR]

Reads ``blender.json`` (Reach against Blender's Standard IK on the Rigify metarig),
``solver.json`` (Reach against scipy), ``bank.json`` (the problem bank), ``kernel.json``,
``bake.json``, ``large_rig.json``, ``levels.json``, ``comfort_cost.json``, ``natural.json``,
``imported.json``, ``plant.json`` and ``control_rigs.json`` (the speed targets,
priorities' and pins' cost, comfort's and Balance's cost, Plant Contacts' slide after, and
control rigs' drags against Blender's own evaluation), and, for the
headline numbers below the table, ``scale.json``, ``papers.json``, ``bake.json`` and
``methods.json`` and ``methods_blender.json`` (every solver method; the latter
through the add-on in Blender); a missing file leaves its rows "not
measured". The targets:

* four-limb drag: Reach's median per-event time ≤ 1.0 × Blender Standard IK (500
  iterations), with every event's residual ≤ 1e-6 × limb length;
* four-limb random targets: 100% of Reach's solves within 1e-6 × limb length and
  median time ≤ 2.0 × Standard IK (500);
* one-arm drag: Reach's median per-event time ≤ 3.0 × Standard IK (500);
* elbow limits (one arm and four limbs, random and drag): Reach ≥ 99.5% within 1e-6 ×
  limb length and no event violating a limit;
* SLSQP: Reach ≥ 5 × faster to the same objective (scipy's median time to Reach's
  final G over Reach's median solve time, 53-DOF human, full limits);
* mixed goal types (``mixed.json``): drag events of the Rigify basic human
  holding six constraints of six kinds take a median of ≤ 6 iterations, p90 ≤ 15, and a
  median event ≤ 5 ms (the peer column: the previous solver on the same problems, its
  solve alone);
* from ``scale.json``: a 600-DOF tree with 20 goals, warm drag event ≤ 20 ms median
  (beside the same figure's cold solve), and a 500-bone chain (1,500 DOFs) dragged at
  ≥ 10 events/s;
* priorities and pins (``levels.json``): a Solve whose left-hand goal cannot be met takes
  ≤ 2 × as long with that goal at a lower priority as with every goal weighted, and ≤ 2 ×
  with the feet pinned as with the feet's goals weighted;
* comfort (``comfort_cost.json``): a drag event with Comfort 1 (the default) ≤ 1.5 × the
  same drag with Comfort off, in every scenario measured;
* Balance (``natural.json``, ``imported.json``): every Solve with Balance on (the feet
  held, a hand reaching; the basic human and imported skeletons) ≤ 100 ms;
* control rigs (``control_rigs.json``): every drag event of the table ≤ 1.5 × Blender's
  own evaluation of the rig after the dragged control moved by hand;
* the problem bank (``bank.json``): no solve at ``max_iterations`` by cycling (those at it
  for the budget are shown beside) and final G ≤ SLSQP's
  + 1e-8 relative on ≥ 98%; every "not reachable" verdict true (multi-start SLSQP);
  reachable targets from rest met to 1e-6 × chain length on ≥ 99.5%.

Times per event are medians; the ratios are of medians.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.harness import results_folder, shown
from bench.report.summary_robustness import bank_targets, drag_targets, mixed_rows
from bench.report.summary_rows import Row, missing
from bench.report.summary_speed import (
    balance_rows,
    comfort_rows,
    control_rig_rows,
    levels_rows,
    plant_rows,
    speed_rows,
)

PEER = "standard_500"
PEER_NAME = "Standard IK 500 it."


def load(results: Path, name: str) -> dict[str, Any] | None:
    path = results / name
    if not path.exists():
        print(f"{name}: not found, its targets are not measured")
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def blender_summary(
    blender: dict[str, Any] | None, scenario: str, kind: str
) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """(Reach's summary, the peer's summary) of one scenario and kind, or why not."""
    if blender is None:
        return "blender.json missing (run bench.blender.versus_ik)"
    try:
        part = blender["scenarios"][scenario]["summary"][kind]
        return part["reach"], part[PEER]
    except KeyError as error:
        return f"not in blender.json ({error})"


def time_target(
    blender: dict[str, Any] | None,
    target: str,
    scenario: str,
    kind: str,
    limit: float,
    need_all: bool,
    floor: bool = False,
) -> Row:
    """A drag's or random targets' time against the peer's.

    ``floor``: the peer's cell also gives what writing a pose and Blender's evaluation of
    it alone take, without any solve (``pose_write_update_ms``): the least any event that
    writes a pose costs, against the peer's event, which moves an empty and evaluates only
    the bones its IK chain moves.
    """
    found = blender_summary(blender, scenario, kind)
    if isinstance(found, str):
        return missing(target, found)
    reach, peer = found
    ratio = reach["median_ms"] / peer["median_ms"]
    success = reach["success_1e-06"]
    met = ratio <= limit and (success >= 1.0 or not need_all)
    least = ""
    written = blender["scenarios"][scenario].get("pose_write_update_ms") if floor else None
    if written:
        least = (
            f"; a pose written and evaluated alone, no solve: {written:.2f} ms "
            f"({written / peer['median_ms']:.2f}×)"
        )
    return Row(
        target,
        f"{reach['median_ms']:.2f} ms, {success:.1%} ≤1e-6",
        f"{peer['median_ms']:.2f} ms, {peer['success_1e-06']:.1%} ≤1e-6{least}",
        f"{ratio:.2f}× (≤ {limit:g}×)",
        met,
    )


def limits_target(blender: dict[str, Any] | None, scenario: str, kind: str) -> Row:
    title = {"arm_limits": "one arm", "limbs_limits": "four limbs"}.get(scenario, scenario)
    target = f"elbow limits, {title}, {kind}: ≥99.5% ≤1e-6 and 0 violating events"
    found = blender_summary(blender, scenario, kind)
    if isinstance(found, str):
        return missing(target, found)
    reach, peer = found

    def violating(row: dict[str, Any]) -> int:  # Reach's reading: Euler bounds or polygons
        keys = ("violating_events_box", "violating_events_polygon")
        return max(int(row.get(key, 0)) for key in keys)

    read_back = float(reach.get("max_violation_read_deg", 0.0))
    met = reach["success_1e-06"] >= 0.995 and violating(reach) == 0 and read_back == 0.0
    return Row(
        target,
        f"{reach['success_1e-06']:.1%} ≤1e-6, {violating(reach)}/{reach['events']} violating",
        f"{peer['success_1e-06']:.1%} ≤1e-6, {violating(peer)}/{peer['events']} violating",
        "",
        met,
    )


def slsqp_target(solver: dict[str, Any] | None) -> Row:
    target = "SLSQP: Reach ≥5× faster to the same objective (53-DOF human, 4 goals)"
    if solver is None:
        return missing(target, "solver.json missing (run bench.solver.versus_scipy)")
    race = solver.get("time_to_objective", {}).get("human")
    if not isinstance(race, dict) or not isinstance(race.get("slsqp"), dict):
        why = "solver.json has no time_to_objective (re-run bench.solver.versus_scipy)"
        return missing(target, why)
    reach_s = race["reach"]["median_time_s"]
    slsqp = race["slsqp"]
    to = slsqp["median_time_to_reach_objective_s"]
    reached = f", reaches it in {slsqp['reached_rate']:.0%}"
    if to is None:
        return Row(target, f"{reach_s * 1e3:.1f} ms", "never (median)" + reached, "∞", True)
    ratio = to / reach_s
    return Row(
        target,
        f"{reach_s * 1e3:.1f} ms (solve)",
        f"{to * 1e3:.1f} ms to Reach's G{reached}",
        f"{ratio:.2f}× SLSQP/Reach (≥ 5×)",
        ratio >= 5.0,
    )


def rows(
    blender: dict[str, Any] | None,
    solver: dict[str, Any] | None,
    scale: dict[str, Any] | None = None,
) -> list[Row]:
    table = [
        time_target(
            blender,
            "four-limb drag: per-event time ≤1.0× Standard IK 500 it., every event ≤1e-6",
            "limbs",
            "drag",
            1.0,
            True,
        ),
        time_target(
            blender,
            "four-limb random: 100% ≤1e-6 and time ≤2.0× Standard IK 500 it.",
            "limbs",
            "random",
            2.0,
            True,
        ),
        time_target(
            blender,
            "one-arm drag: per-event time ≤3.0× Standard IK 500 it.",
            "arm",
            "drag",
            3.0,
            False,
            floor=True,
        ),
    ]
    for scenario in ("arm_limits", "limbs_limits"):
        for kind in ("random", "drag"):
            table.append(limits_target(blender, scenario, kind))
    table.append(slsqp_target(solver))
    table += drag_targets(scale)
    return table


def headlines(
    scale: dict[str, Any] | None, papers: dict[str, Any] | None, solver: dict[str, Any] | None
) -> list[str]:
    lines: list[str] = []
    if papers is not None:
        for tube in papers.get("tube", []):
            run = tube["reach"]
            lines.append(
                f"- 1994 tube task, {'grouped' if tube['grouped'] else 'independent'} spine "
                f"({tube['effective_dofs']} effective DOFs): Reach {run['median_ms']:.0f} ms "
                f"(G {run['objective']:.0e}), paper ≈ {tube['paper_s']:g} s on a 1990 SGI."
            )
        for entry in papers.get("figure_1990", []):
            low, high = entry["paper_hz"]
            paper = f"{low:g}" if low == high else f"{low:g}–{high:g}"
            drag, rest = entry["drag"], entry["from_rest"]
            lines.append(
                f"- 1990 figure, {entry['label']}: drag {drag['median_hz']:.0f} Hz median "
                f"({drag['p90_hz']:.0f} Hz at p90, {drag['success_1e-06']:.0%} ≤1e-6), from "
                f"rest {rest['median_hz']:.0f} Hz ({rest['success_1e-06']:.0%} ≤1e-6); "
                f"paper ≈ {paper} Hz."
            )
    if scale is not None:
        for fit in scale.get("fits", []):
            per_iteration, per_solve = fit.get("time_per_iteration"), fit.get("time_per_solve")
            if per_iteration and per_solve:
                lines.append(
                    f"- scale, {fit['figure']} with {fit['constraints']} constraint(s), "
                    f"DOFs {fit['n_dofs'][0]}–{fit['n_dofs'][-1]}: time per iteration ∝ "
                    f"DOFs^{per_iteration['exponent']:.2f}, per solve ∝ "
                    f"DOFs^{per_solve['exponent']:.2f}."
                )
    if solver is not None:
        bare = solver.get("time_to_objective", {}).get("human_bounds_only")
        if isinstance(bare, dict):
            for key, name in (("slsqp", "SLSQP"), ("lbfgsb", "L-BFGS-B")):
                row = bare.get(key)
                if isinstance(row, dict):
                    ratio = row.get("over_reach_median_time")
                    shown = "never" if ratio is None else f"{ratio:.2f}×"
                    lines.append(
                        f"- bounds-only human (shoulder polygons removed): {name} time to "
                        f"Reach's objective / Reach's solve time = {shown}."
                    )
    return lines


def bake_headline(bake: dict[str, Any] | None) -> list[str]:
    """The bake benchmark's line: Reach's frames per second beside Blender's IK."""
    if bake is None:
        return ["- bake: bake.json missing (run bench.blender.bake)"]
    reach, blender = bake["reach_bake"], bake["blender_standard_ik"]
    return [
        f"- bake, {bake['frames']} frames with 4 constraints on the Rigify human: Reach "
        f"{reach['frames_per_second']:.1f} frames/s ({reach['ms_per_frame']:.1f} ms a frame, "
        f"residual ≤ {reach['residual_max']:.1e} × limb, {reach['share_1e-5']:.0%} of frames "
        f"≤1e-5); Blender's Standard IK evaluates the same frames at "
        f"{blender['frames_per_second']:.0f} frames/s (residual median "
        f"{blender['residual_median']:.1e}, {blender['share_1e-5']:.0%} ≤1e-5).",
        *_walk_headline(bake.get("control_rig_walk")),
    ]


def _walk_headline(walk: dict[str, Any] | None) -> list[str]:
    """The control rig's walk baked (``bake.json``), where that run was made."""
    if walk is None:
        return []
    return [
        f"- bake of a walk on the Rigify basic human control rig ({walk['frames']} frames, "
        f"the torso keyed, feet on keyed goals): {walk['ms_per_frame']:.1f} ms a frame, "
        f"{walk['ms_per_frame'] / walk['played_ms_per_frame']:.1f}× Blender playing the "
        f"frames, residual ≤ {walk['residual_max']:.1e} × leg."
    ]


def method_notes(methods: dict[str, Any] | None) -> list[str]:
    """One line per method from ``methods.json``: success on the human's random targets,
    and its largest pin drift with the wrist pinned while the spine moves."""
    if methods is None:
        return []
    lines = []
    bank = {r["method"]: r for r in methods["methods"] if r["task"].startswith("bank")}
    for row in methods["methods"]:
        if row["task"] != "human: random targets":
            continue
        drift = max(p["pin_drift"] for p in methods["pinned"] if p["method"] == row["method"])
        line = (
            f"- method {row['method']}: {100 * row['success_1e-06']:.0f}% of random targets "
            f"within 1e-6 × limb ({100 * row['success_0.001']:.0f}% within 1e-3), median "
            f"{row['median_ms']:.1f} ms; largest pin drift with the wrist pinned and the "
            f"spine moving {drift:.2g} m"
        )
        peer = bank.get(row["method"])
        if peer is not None:
            line += (
                f"; the bank's CI slice: {100 * peer['success_1e-06']:.0f}% of reachable "
                f"cases within 1e-6 × chain ({100 * peer['success_0.001']:.0f}% within "
                f"1e-3), median {peer['median_ms']:.1f} ms"
            )
        lines.append(line + ".")
    return lines


def method_blender_notes(record: dict[str, Any] | None) -> list[str]:
    """One line per method from ``methods_blender.json``: reach.solve and the drag replay
    through the add-on on the Rigify human."""
    if record is None:
        return []
    lines = []
    solves = {r["method"]: r for r in record["methods"] if r["task"].endswith("reach.solve")}
    for row in record["methods"]:
        peer = solves.get(row["method"])
        if not row["task"].endswith("drag replay") or peer is None:
            continue
        lines.append(
            f"- method {row['method']} in Blender (Rigify human): reach.solve "
            f"{100 * peer['success_1e-06']:.0f}% within 1e-6 × arm "
            f"({100 * peer['success_0.001']:.0f}% within 1e-3), median "
            f"{peer['median_ms']:.1f} ms; drag replay {100 * row['success_1e-06']:.0f}% of "
            f"events within 1e-6 × arm ({100 * row['success_0.001']:.0f}% within 1e-3), "
            f"median solve {row['median_ms']:.1f} ms, largest limit violation "
            f"{row['max_violation']:.1e}."
        )
    return lines


def markdown(table: list[Row], notes: list[str], sources: dict[str, str]) -> str:
    lines = [
        "# Benchmarks: Reach's targets",
        "",
        "Reach against Blender's Standard IK (500 iterations) on the Rigify human metarig "
        "(bench.blender.versus_ik) and against scipy's SLSQP on the 53-DOF human "
        "(bench.solver.versus_scipy). Times are medians per event; ratios are of medians; "
        "≤1e-6 = share of events with every effector within 1e-6 × its limb length.",
        "",
        "Sources: " + ", ".join(f"{name} ({date})" for name, date in sources.items()) + ".",
        "",
        "| target | Reach | peer | ratio | met? |",
        "|---|---|---|---|---|",
    ]
    for row in table:
        met = "not measured" if row.met is None else ("yes" if row.met else "**no**")
        lines.append(f"| {row.target} | {row.reach} | {row.peer} | {row.ratio} | {met} |")
    measured = [row for row in table if row.met is not None]
    lines += [
        "",
        f"{sum(bool(row.met) for row in measured)} of {len(measured)} measured targets met.",
    ]
    if notes:
        lines += ["", "## Other headline numbers", "", *notes]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    results = results_folder(__doc__)
    data = {
        name: load(results, f"{name}.json")
        for name in (
            "blender",
            "solver",
            "scale",
            "papers",
            "mixed",
            "bank",
            "bake",
            "methods",
            "methods_blender",
            "kernel",
            "large_rig",
            "plant",
            "levels",
            "comfort_cost",
            "natural",
            "imported",
            "control_rigs",
        )
    }
    table = (
        rows(data["blender"], data["solver"], data["scale"])
        + mixed_rows(data["mixed"])
        + bank_targets(data["bank"])
        + speed_rows(data["kernel"], data["bake"], data["large_rig"])
        + levels_rows(data["levels"])
        + comfort_rows(data["comfort_cost"])
        + balance_rows(data["natural"], data["imported"])
        + plant_rows(data["plant"])
        + control_rig_rows(data["control_rigs"])
    )
    notes = (
        headlines(data["scale"], data["papers"], data["solver"])
        + bake_headline(data["bake"])
        + method_notes(data["methods"])
        + method_blender_notes(data["methods_blender"])
    )
    sources = {
        f"{name}.json": str(record.get("date", "undated"))
        + (" quick" if record.get("quick") else "")
        for name, record in data.items()
        if record is not None
    }
    text = markdown(table, notes, sources)
    output = results / "summary.md"
    output.write_text(text)
    width = max(len(row.target) for row in table)
    for row in table:
        met = "n/a" if row.met is None else ("yes" if row.met else "NO")
        print(f"{row.target:{width}s}  {met:3s}  {row.reach} | {row.peer} | {row.ratio}")
    print(f"wrote {shown(output)}")


if __name__ == "__main__":
    main()
