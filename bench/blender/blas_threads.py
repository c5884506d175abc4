"""Solve on a busy machine: numpy's OpenBLAS on a thread per core, or held to one.

    .venv-blender-5.0/bin/python -m bench.blender.blas_threads [--quick] [--targets N]

Blender leaves numpy's OpenBLAS a thread per core. Reach's matrices are small, so it holds
OpenBLAS to one thread while it works (``addon.bridge.blas``). On the Rigify basic human
metarig with a constraint on each hand and foot (chains to the spine's root), each goal
moved to random targets, Solve (``reach.solve``) is timed from the rest pose, with
OpenBLAS given a thread per core as Blender leaves it: on a quiet machine, and beside one
busy process per core (a render on every core, a compile); each with Reach's hold, and
in the same process without it (``blas.one_thread`` replaced by a block that changes
nothing). Results: ``bench/results/blas_threads.json`` and ``blas_threads.md``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import bpy
import numpy as np

from bench.blender import rigs, scenarios
from bench.blender.comfort_cost import staged
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about

BUSY = "while True: pass"
"""What each busy process beside Blender runs."""


def _solves(obj: Any, goals: list[Any], targets: np.ndarray) -> list[float]:
    """Each target solved from the rest pose by Solve: ms."""
    times = []
    for points in targets:
        rigs.reset_pose(obj)
        for goal, point in zip(goals, points, strict=True):
            goal.location = tuple(point)
        bpy.context.view_layer.update()
        began = time.perf_counter()
        assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        times.append(1e3 * (time.perf_counter() - began))
    return times


@contextlib.contextmanager
def _busy(count: int) -> Any:
    """``count`` busy processes beside this one while the block runs."""
    processes = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]
    try:
        time.sleep(0.2)
        yield
    finally:
        for process in processes:
            process.kill()
            process.wait()


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "blas_threads", "10 targets", {"targets": Count("targets", 10, 40)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    blas = reach.addon.bridge.blas
    threads = blas.openblas_threads()
    cores = os.cpu_count() or 1
    rng = np.random.default_rng(args.seed)
    rows: dict[str, dict[str, float]] = {}
    try:
        if threads is None:
            raise SystemExit("numpy here links no OpenBLAS: nothing to measure")
        threads.set(cores)  # as Blender leaves it
        assert threads.get() == cores
        scenario = scenarios.SCENARIOS["limbs"]
        default = bpy.types.Object.bl_rna.properties["reach"].fixed_type.properties["comfort"]
        obj, goals, _ = staged(reach, scenario, comfort=default.default)
        rest = rigs.effector_points(obj, scenario.limbs)
        targets = rest[None] + rng.normal(scale=0.06, size=(args.targets, *rest.shape))
        _solves(obj, goals, targets[:2])  # the kernel loaded, the caches warm
        for place, busy in (("quiet", 0), ("busy", cores)):
            times: dict[bool, list[float]] = {True: [], False: []}
            with _busy(busy):
                for target in targets:  # held and not, in turns, so that both meet alike
                    for held in (True, False):
                        with contextlib.ExitStack() as stack:
                            if not held:
                                stack.enter_context(_unheld(blas))
                            times[held] += _solves(obj, goals, target[None])
            for held in (True, False):
                name = f"{place}, {'held to one thread' if held else 'a thread per core'}"
                rows[name] = {
                    "median_ms": statistics.median(times[held]),
                    "p90_ms": float(np.percentile(times[held], 90)),
                    "max_ms": max(times[held]),
                    "busy_processes": busy,
                }
    finally:
        rigs.unload_reach()
    record = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "openblas_threads": cores,
        "targets": args.targets,
        "runs": rows,
    }
    lines = [
        "# Solve with numpy's OpenBLAS on a thread per core, or held to one",
        "",
        f"Blender {record['blender']}, {record['cpu_model']}, {cores} cores (OpenBLAS on "
        f"{cores} threads, as Blender leaves it); {args.targets} Solves of the basic human "
        "metarig's four limbs from rest; busy: one busy process per core beside Blender (a "
        "render on every core). Held: Reach as shipped, OpenBLAS on one thread while it "
        "works; a thread per core: the same Solves, the hold taken out.",
        "",
        *table(
            ["machine, OpenBLAS", "median ms", "p90 ms", "max ms"],
            [
                [name, f"{r['median_ms']:.2f}", f"{r['p90_ms']:.2f}", f"{r['max_ms']:.2f}"]
                for name, r in rows.items()
            ],
        ),
    ]
    write_results(args.output, record, lines)
    print("\n".join(lines))


@contextlib.contextmanager
def _unheld(blas: Any) -> Any:
    """Reach without its hold on OpenBLAS's threads (``blas.one_thread`` holds nothing)."""
    kept = blas.one_thread
    blas.one_thread = contextlib.nullcontext
    try:
        yield
    finally:
        blas.one_thread = kept


if __name__ == "__main__":
    main()
