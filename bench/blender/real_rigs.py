"""Every real rig the tests use: Rigify's eight metarigs and a BVH import, in Blender.

    .venv-blender-5.0/bin/python -m bench.blender.real_rigs [--quick] [--events N]

Per rig, as ``tests/addon/test_real_rigs.py`` sets it up (``tests/addon/rig_scenes.py``):
Make Figure, five constraints of different goal types on leaf chains, Solve, then a drag
of the first goal through poses within the limits, each event as a user's drag runs it.
The table: bones, DOFs, the solve's variables, milliseconds per drag event (median and
p90), the largest residual on Blender's evaluated pose over the constraints (relative to
each chain's length) and the sidebar's verdict. Results: ``bench/results/rigs.json`` and
``rigs.md``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from bench.blender import rigs
from bench.harness import ROOT, BenchmarkParser, Count, import_path, table, write_results
from bench.machine import about

TESTS = ROOT / "tests"
# rig_scenes imports its neighbour ``rigs`` by the name it has on the add-on's tests' path
# (tests/addon is not a package): it is loaded from its file by that name, as those tests
# load it; the shared fixtures import as the package ``tests.fixtures`` from the root.
import_path("rigs", TESTS / "addon" / "rigs.py")
rig_scenes = import_path("rig_scenes", TESTS / "addon" / "rig_scenes.py")


def measure(reach: Any, kind: str, events: int, folder: Path) -> dict[str, Any]:
    obj = rig_scenes.new_rig(kind, folder)
    chains = rig_scenes.leaf_chains(obj)
    names = rig_scenes.constrain(obj, chains)
    limbs = {n: rig_scenes.chain_length(obj, c) for n, c in zip(names, chains, strict=True)}
    bpy.ops.reach.solve(armature=obj.name)
    setup = reach.addon.bridge.goals.build_problem(obj, bpy.context.scene)
    goal = obj.reach.constraints[names[0]].goal
    path = rig_scenes.reachable_path(reach, obj, chains[0], events, seed=5)
    drag = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    times = []
    for point in path:
        begin = time.perf_counter()
        drag.step(point["location"])
        times.append(1e3 * (time.perf_counter() - begin))
    drag.finish()
    residuals = rig_scenes.residuals(reach, obj)
    worst = max(residuals[n] / limbs[n] for n in names)
    return {
        "rig": kind,
        "bones": len(obj.data.bones),
        "dofs": setup.rig.figure.n_dofs,
        "variables": int(setup.problem.variables.size),
        "constraints": [f"{n} on {c[0]}" for n, c in zip(names, chains, strict=True)],
        "median_event_ms": float(np.median(times)),
        "p90_event_ms": float(np.percentile(times, 90)),
        "worst_residual_over_chain": worst,
        "violation": rig_scenes.limit_violation(reach, obj),
        "verdict": obj.reach.stats.message,
    }


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "rigs", "20 drag events", {"events": Count("events", 20, 100)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as folder:
            records = [measure(reach, kind, args.events, Path(folder)) for kind in rig_scenes.RIGS]
    finally:
        rigs.unload_reach()
    meta = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "events": args.events,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    rows = [
        [
            r["rig"],
            r["bones"],
            r["dofs"],
            r["variables"],
            f"{r['median_event_ms']:.1f} / {r['p90_event_ms']:.1f}",
            f"{r['worst_residual_over_chain']:.1e}",
            f"{r['violation']:.0e}",
            r["verdict"],
        ]
        for r in records
    ]
    columns = [
        "rig",
        "bones",
        "DOFs",
        "variables",
        "ms per drag event (median / p90)",
        "residual / chain",
        "limit violation",
        "verdict",
    ]
    lines = [
        "# Real rigs: Rigify's metarigs and a BVH import",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}, {args.events} drag events per rig; "
        "five constraints of different goal types per rig; residuals on Blender's "
        "evaluated pose.",
        "",
        *table(columns, rows),
    ]
    for line in lines:
        print(line)
    write_results(args.output, {**meta, "rigs": records}, lines)


if __name__ == "__main__":
    main()
