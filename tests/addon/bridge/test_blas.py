"""numpy's OpenBLAS on one thread while Reach solves (``bridge.blas``), as Blender left it after."""

from __future__ import annotations

import bpy
import pytest
from rigs import four_limbs


def test_a_solve_runs_openblas_on_one_thread_and_leaves_blenders_count(reach, monkeypatch):
    threads = reach.addon.bridge.blas.openblas_threads()
    assert threads is not None  # every Blender tested here links numpy to OpenBLAS
    solving = reach.addon.bridge.solving
    seen: list[int] = []

    def counted(*args, **kwargs):
        seen.append(threads.get())
        return solve(*args, **kwargs)

    solve = solving.solve
    monkeypatch.setattr(solving, "solve", counted)
    was = threads.get()
    threads.set(2)  # as a user's Blender may have it: a thread per core
    try:
        obj = four_limbs()
        goal = obj.reach.constraints["hand.L"].goal
        goal.location = (goal.location[0] - 0.05, goal.location[1], goal.location[2] + 0.1)
        assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        assert seen and set(seen) == {1}
        assert threads.get() == 2
    finally:
        threads.set(was)


def test_an_error_in_the_block_puts_the_count_back(reach):
    threads = reach.addon.bridge.blas.openblas_threads()
    assert threads is not None
    was = threads.get()
    threads.set(2)
    try:
        with pytest.raises(RuntimeError), reach.addon.bridge.blas.one_thread():
            assert threads.get() == 1
            raise RuntimeError("a solve failed")
        assert threads.get() == 2
    finally:
        threads.set(was)
