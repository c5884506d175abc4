"""numpy's OpenBLAS on one thread while Reach solves (``bridge.blas``), as Blender left it after."""

from __future__ import annotations

import bpy
import pytest
from rigs import four_limbs


def _counted(reach, monkeypatch):
    """OpenBLAS's thread functions, and the counts each solve ran with (solves watched)."""
    threads = reach.addon.bridge.blas.openblas_threads()
    assert threads is not None  # every Blender tested here links numpy to OpenBLAS
    solving = reach.addon.bridge.solving
    solve, seen = solving.solve, []

    def counted(*args, **kwargs):
        seen.append(threads.get())
        return solve(*args, **kwargs)

    monkeypatch.setattr(solving, "solve", counted)
    return threads, seen


def test_a_solve_runs_openblas_on_one_thread_and_leaves_blenders_count(reach, monkeypatch):
    threads, seen = _counted(reach, monkeypatch)
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


def test_live_mode_solves_on_one_thread_and_leaves_blenders_count(reach, monkeypatch):
    """Live mode's re-solve in Blender's depsgraph handler holds OpenBLAS to one thread."""
    threads, seen = _counted(reach, monkeypatch)
    was = threads.get()
    threads.set(2)
    try:
        obj = four_limbs()
        assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
        seen.clear()
        try:
            obj.location.x += 0.05
            bpy.context.view_layer.update()  # fires the depsgraph handler: live re-solves
            assert threads.get() == 2
        finally:
            assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}
        assert seen and set(seen) == {1}
        assert threads.get() == 2
    finally:
        threads.set(was)
