"""``summary.md``'s rows for the solver's robustness targets: the mixed-goal
drag in Blender (``mixed.json``), the long-chain drags (``scale.json``) and the problem
bank (``bank.json``)."""

from __future__ import annotations

from typing import Any

from bench.report.summary_rows import Row, missing


def mixed_rows(mixed: dict[str, Any] | None) -> list[Row]:
    """The mixed-goal drag's targets."""
    names = {
        "median iterations": "mixed goals drag: median iterations ≤ 6",
        "p90 iterations": "mixed goals drag: p90 iterations ≤ 15",
        "median event ms": "mixed goals drag: median event ≤ 5 ms",
    }
    if mixed is None:
        why = "mixed.json missing (run bench.blender.mixed_goals)"
        return [missing(target, why) for target in names.values()]
    table = []
    for key, target in names.items():
        entry = mixed["targets"][key]
        previous = entry.get("previous")
        table.append(
            Row(
                target,
                f"{entry['reach']:.3g}",
                "" if previous is None else f"{previous:.3g} (previous solver)",
                "",
                bool(entry["met"]),
            )
        )
    return table


def drag_targets(scale: dict[str, Any] | None) -> list[Row]:
    """The scale benchmark's warm-drag targets; the peer column is the cold solve."""
    names = (
        "600-DOF tree, 20 goals: warm drag event ≤ 20 ms median",
        "500-bone chain (1,500 DOFs): drag ≥ 10 events/s",
    )
    if scale is None:
        return [missing(name, "scale.json missing (run bench.solver.scale)") for name in names]
    found = scale.get("drag", {}).get("targets", [])
    if len(found) != len(names):
        why = "scale.json has no drag targets (re-run bench.solver.scale)"
        return [missing(name, why) for name in names]
    table = []
    for name, case in zip(names, found, strict=True):
        cold = [
            c["median_time_s"]
            for c in scale.get("cases", [])
            if c["figure"] == case["figure"]
            and c["n_dofs"] == case["n_dofs"]
            and c["constraints"] == case["constraints"]
        ]
        table.append(
            Row(
                name,
                f"{case['median_ms']:.1f} ms ({case['events_per_s']:.0f} events/s), "
                f"{case['median_iterations']:.0f} iterations",
                f"cold solve {cold[0] * 1e3:.0f} ms" if cold else "",
                "",
                bool(case["met"]),
            )
        )
    return table


def bank_targets(bank: dict[str, Any] | None) -> list[Row]:
    """The problem bank's targets (``bench.solver.bank``), the previous solver as the peer."""
    titles = (
        "bank: no solve ends at max_iterations by cycling (a dropped limit re-added "
        "with G no lower)",
        "bank: final G ≤ SLSQP's + 1e-8 rel. (default solve) on ≥98%",
        "bank: every 'not reachable' verdict true (multi-start SLSQP)",
        "bank: reachable from rest met to 1e-6 × chain on ≥99.5%",
    )
    if bank is None:
        return [missing(title, "bank.json missing (run bench.solver.bank)") for title in titles]
    overall = bank["summary"]["overall"]
    reach, previous = overall["reach_solve"], overall["previous_solve"]
    reach0, previous0 = overall["reach_descent"], overall["previous_descent"]

    def share(part: dict[str, Any]) -> str:
        return "n/a" if not part["of"] else f"{part['rate']:.1%} of {part['of']}"

    capped = reach["max_iterations"] + reach0["max_iterations"]
    versus = reach["at_most_slsqp"]
    verdicts = overall["verdicts"]
    rest = overall["reachable_from_rest"]
    previous_capped = previous["max_iterations"] + previous0["max_iterations"]
    cycling = reach.get("cycling", 0) + reach0.get("cycling", 0)
    return [
        Row(
            titles[0],
            f"{cycling} cycling; {capped} at max_iterations by the budget",
            f"previous: {previous_capped} at max_iterations",
            "",
            cycling == 0,
        ),
        Row(
            titles[1],
            share(versus),
            f"previous: {share(previous['at_most_slsqp'])}",
            "",
            versus["rate"] is not None and versus["rate"] >= 0.98,
        ),
        Row(
            titles[2],
            f"{verdicts['true']} of {verdicts['checked']} true",
            "previous: no verdicts",
            "",
            not verdicts["false"],
        ),
        Row(
            titles[3],
            share(rest["reach"]),
            f"previous: {share(rest['previous'])}, SLSQP: {share(rest['slsqp'])}",
            "",
            rest["reach"]["rate"] is not None and rest["reach"]["rate"] >= 0.995,
        ),
    ]
