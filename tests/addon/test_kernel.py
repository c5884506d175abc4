"""The compiled kernel inside Blender: shipped in the extension, loaded, checked, and
solving as numpy does; one zip per platform carries its own library alone."""

from __future__ import annotations

import sys
import tomllib
import zipfile
from pathlib import Path

import bpy
import numpy as np
import rigs
from conftest import HOME, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import blender_extension

PLATFORMS = {"linux-x64", "macos-x64", "macos-arm64", "windows-x64", "windows-arm64"}


def test_the_installed_extension_solves_with_its_compiled_kernel(reach):
    status = reach.solver.kernel.status()
    assert status.compiled, status.text
    assert Path(reach.solver.kernel.LIBRARY_FOLDER).is_relative_to(Path(reach.__file__).parent)


def test_solve_meets_the_goals_alike_on_both_paths(reach):
    obj = rigs.four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = (goal.location[0] - 0.05, goal.location[1] - 0.1, goal.location[2] + 0.15)
    before = rigs.pose_channels(obj)
    results = []
    for compiled in (True, False):
        for bone, channels in before.items():  # the same start pose for both
            pose = obj.pose.bones[bone]
            values = rigs.channel_values(channels)
            pose.location, pose.rotation_euler = values[0:3], values[3:6]
            pose.rotation_quaternion = values[6:10]
        bpy.context.view_layer.update()
        with reach.solver.kernel.enabled(compiled):
            assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        bpy.context.view_layer.update()
        stats = obj.reach.stats
        results.append((stats.outcome, rigs.world_tail(obj, "forearm.L")))
    (outcome, hand), (numpy_outcome, numpy_hand) = results
    assert outcome == numpy_outcome == "met"
    np.testing.assert_allclose(hand, numpy_hand, atol=1e-5)
    np.testing.assert_allclose(hand, np.array(goal.location), atol=1e-5)


def test_each_platform_gets_a_zip_with_its_own_library_alone():
    built = blender_extension.build_platforms(HOME / "platforms")
    assert set(built) == PLATFORMS
    for tag, package in built.items():
        with zipfile.ZipFile(package) as archive:
            names = archive.namelist()
            manifest = tomllib.loads(archive.read("blender_manifest.toml").decode())
        assert manifest["platforms"] == [tag]
        libraries = [name for name in names if name.startswith("solver/kernel/lib/")]
        assert libraries == [f"solver/kernel/lib/{reach_library(tag)}"]
        assert "solver/kernel/reach_kernel.c" in names
        assert not [n for n in names if n.startswith(("tests/", "bench/", "tools/", ".venv"))]


def reach_library(tag: str) -> str:
    suffix = {"linux": ".so", "macos": ".dylib", "windows": ".dll"}[tag.split("-")[0]]
    return f"reach_kernel-{tag}{suffix}"
