"""The problem bank's results summed up: per family and overall, and the targets met or not.

Part of ``bench.solver.bank``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import numpy as np

from bench.harness import table

RUNS = (("reach", "descent"), ("reach", "solve"), ("previous", "descent"), ("previous", "solve"))
"""(solver, kind) of every Reach run of a case."""
TITLES = {
    "reach": "Reach",
    "previous": "previous (2d225ae)",
    "descent": "restarts=0",
    "solve": "default restarts",
}


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p90": None}
    return {"median": statistics.median(values), "p90": float(np.percentile(values, 90))}


def _share(flags: list[bool]) -> dict[str, Any]:
    return {
        "count": sum(flags),
        "of": len(flags),
        "rate": sum(flags) / len(flags) if flags else None,
    }


def _verdicts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """ "Not reachable" verdicts of Reach's solve, checked against multi-start SLSQP."""
    checked, true, false, unchecked = 0, 0, [], []
    for row in rows:
        if row["reach"]["solve"]["outcome"] != "not_reachable":
            continue
        slsqp = row["slsqp"]
        if "reachable" in row["tags"]:
            false.append(row["case"])
        elif slsqp["best"] is None:
            unchecked.append(row["case"])
        else:
            checked += 1
            if slsqp["best_met"]:
                false.append(row["case"])
            else:
                true += 1
    return {"checked": checked, "true": true, "false": false, "unchecked_by_slsqp": unchecked}


def group(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One family's (or the whole bank's) summary."""
    out: dict[str, Any] = {"cases": len(rows)}
    for name, kind in RUNS:
        runs = [row[name][kind] for row in rows]
        compared = [run["at_most_slsqp"] for run in runs if run["at_most_slsqp"] is not None]
        out[f"{name}_{kind}"] = {
            "statuses": dict(Counter(run["status"] for run in runs)),
            "outcomes": dict(Counter(str(run["outcome"]) for run in runs)),
            "iterations": _spread([run["iterations"] for run in runs]),
            "time_s": _spread([run["time"] for run in runs]),
            "max_iterations": sum(run["status"] == "max_iterations" for run in runs),
            "cycling": sum((run.get("readds") or 0) > 0 for run in runs),
            "at_most_slsqp": _share(compared),
            "at_most_slsqp_misses": [
                row["case"]
                for row, run in zip(rows, runs, strict=True)
                if run["at_most_slsqp"] is False
            ],
            "max_violation": max(run["violation"] for run in runs),
        }
    from_rest = [row for row in rows if {"reachable", "from_rest"} <= set(row["tags"])]
    measured = [row for row in from_rest if row["slsqp"]["met"] is not None]
    out["reachable_from_rest"] = {
        "reach": _share([row["reach"]["solve"]["met"] for row in from_rest]),
        "reach_misses": [row["case"] for row in from_rest if not row["reach"]["solve"]["met"]],
        "previous": _share([row["previous"]["solve"]["met"] for row in from_rest]),
        "slsqp": _share([row["slsqp"]["met"] for row in measured]),
        "slsqp_multistart": _share([row["slsqp"]["best_met"] for row in measured]),
    }
    slsqp_times = [row["slsqp"]["time"] for row in rows if row["slsqp"]["time"] is not None]
    out["slsqp_time_s"] = _spread(slsqp_times)
    out["verdicts"] = _verdicts(rows)
    out["slsqp_outside"] = sorted(
        (
            (row["case"], row["slsqp"]["violation"])
            for row in rows
            if (row["slsqp"].get("violation") or 0.0) > 1e-9
        ),
        key=lambda item: -item[1],
    )
    out["unreachable_tags_met_by_slsqp"] = [
        row["case"] for row in rows if "unreachable" in row["tags"] and row["slsqp"]["best_met"]
    ]
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole bank's summary and each family's."""
    families = sorted({row["family"] for row in rows}, key=[r["family"] for r in rows].index)
    return {
        "overall": group(rows),
        "families": {f: group([row for row in rows if row["family"] == f]) for f in families},
    }


def _rate(share: dict[str, Any]) -> str:
    if not share["of"]:
        return "n/a"
    return f"{share['rate']:.1%} ({share['count']}/{share['of']})"


def targets(overall: dict[str, Any]) -> list[list[str]]:
    """The targets, one row each: target, Reach, previous, SLSQP, met?"""
    reach, previous = overall["reach_solve"], overall["previous_solve"]
    reach0, previous0 = overall["reach_descent"], overall["previous_descent"]
    capped = reach["max_iterations"] + reach0["max_iterations"]
    rows = [
        [
            "(a) solves ending at max_iterations: 0",
            f"{reach0['max_iterations']} + {reach['max_iterations']}",
            f"{previous0['max_iterations']} + {previous['max_iterations']}",
            "",
            "yes" if capped == 0 else "**no**",
        ],
        [
            "(a) solves that re-add a dropped limit with G no lower (cycling): 0",
            f"{reach0['cycling']} + {reach['cycling']}",
            "not measured",
            "",
            "yes" if reach0["cycling"] + reach["cycling"] == 0 else "**no**",
        ],
    ]
    for kind, ours, theirs in (("restarts=0", reach0, previous0), ("default", reach, previous)):
        share = ours["at_most_slsqp"]
        met = share["rate"] is not None and share["rate"] >= 0.98
        rows.append(
            [
                f"(a) final G ≤ SLSQP's + 1e-8 rel., {kind}: ≥ 98%",
                _rate(share),
                _rate(theirs["at_most_slsqp"]),
                "100% (itself)",
                "yes" if met else "**no**",
            ]
        )
    verdicts = overall["verdicts"]
    true_all = not verdicts["false"]
    rows.append(
        [
            "(b) every 'not reachable' verdict true (multi-start SLSQP)",
            f"{verdicts['true']}/{verdicts['checked']} true, false: {verdicts['false'] or 'none'}, "
            f"{len(verdicts['unchecked_by_slsqp'])} by construction only",
            "no verdicts",
            "",
            "yes" if true_all else "**no**",
        ]
    )
    rest = overall["reachable_from_rest"]
    rate = rest["reach"]["rate"]
    rows.append(
        [
            "(c) reachable from rest met to 1e-6 × chain: ≥ 99.5%",
            _rate(rest["reach"]),
            _rate(rest["previous"]),
            f"{_rate(rest['slsqp'])}; multi-start {_rate(rest['slsqp_multistart'])}",
            "yes" if rate is not None and rate >= 0.995 else "**no**",
        ]
    )
    return rows


def _statuses(part: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in sorted(part["statuses"].items()))


def family_lines(name: str, part: dict[str, Any]) -> list[str]:
    """One family's table: every Reach run's statuses, iterations, time and SLSQP share."""
    rows = []
    for solver_name, kind in RUNS:
        run = part[f"{solver_name}_{kind}"]
        iterations, times = run["iterations"], run["time_s"]
        rows.append(
            [
                f"{TITLES[solver_name]}, {TITLES[kind]}",
                _statuses(run),
                ", ".join(f"{k} {v}" for k, v in sorted(run["outcomes"].items())),
                f"{iterations['median']:g} / {iterations['p90']:g}",
                f"{times['median'] * 1e3:.1f} / {times['p90'] * 1e3:.1f}",
                _rate(run["at_most_slsqp"]),
            ]
        )
    columns = ["run", "statuses", "outcomes", "iterations med / p90", "ms med / p90", "G ≤ SLSQP"]
    return [f"### {name} ({part['cases']} cases)", "", *table(columns, rows), ""]


def markdown(record: dict[str, Any]) -> list[str]:
    """The Markdown report: the targets, then each family and the misses by name."""
    summary = record["summary"]
    overall = summary["overall"]
    setup = record["setup"]
    lines = [
        "# The problem bank: Reach against the previous solver and SLSQP",
        "",
        f"{record['date']}, bank {setup['bank']!r} ({overall['cases']} cases: "
        + ", ".join(f"{f} {n}" for f, n in setup["cases"].items())
        + f"), {setup['previous']}, SLSQP from {setup['slsqp_starts']} starts below "
        f"{setup['multistart_below_variables']} variables and only below "
        f"{setup['slsqp_below_variables']}; {setup['wall_time_s']:.0f} s on {setup['jobs']} "
        "workers.",
        "",
        "SLSQP's G is taken at its pose moved into the limits (`clamp_to_limits`): "
        f"from the same start it ended outside them in {len(overall['slsqp_outside'])} cases"
        + (
            " (by up to "
            + ", ".join(f"{v:.2g} in {c}" for c, v in overall["slsqp_outside"][:3])
            + ")"
            if overall["slsqp_outside"]
            else ""
        )
        + ".",
        "",
        "Every G is the one Reach's descents minimise, SLSQP's too: targets beyond twice "
        "their chain's reach moved in onto that sphere (`solver.solve.within_reach`), in "
        f"{sum(bool(row['slsqp'].get('moved')) for row in record['cases'])} cases; whether "
        "goals are met is judged on the goals as set.",
        "",
        "## Targets",
        "",
        *table(["target", "Reach", "previous", "SLSQP", "met?"], targets(overall)),
        "",
        "## Per family",
        "",
        *family_lines("whole bank", overall),
    ]
    for name, part in summary["families"].items():
        lines += family_lines(name, part)
    named = {
        "above SLSQP's G (restarts=0)": overall["reach_descent"]["at_most_slsqp_misses"],
        "above SLSQP's G (default restarts)": overall["reach_solve"]["at_most_slsqp_misses"],
        "reachable from rest, not met": overall["reachable_from_rest"]["reach_misses"],
        "tagged unreachable yet met by multi-start SLSQP (a bank error)": overall[
            "unreachable_tags_met_by_slsqp"
        ],
    }
    lines += ["## By name", ""]
    lines += [f"- {what}: {', '.join(cases) or 'none'}" for what, cases in named.items()]
    return lines
