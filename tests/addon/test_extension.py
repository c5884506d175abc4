"""The extension builds, validates, installs, enables and registers like any other."""

from __future__ import annotations

import zipfile
from types import ModuleType

import addon_utils
import bpy
from conftest import MODULE

OPERATORS = ("figure_from_armature", "add_constraint", "solve", "clamp_pose", "drag_goal", "live")


def test_built_zip_holds_the_extension_without_tests_or_benchmarks(built_zip):
    names = zipfile.ZipFile(built_zip).namelist()
    assert "blender_manifest.toml" in names
    assert "__init__.py" in names
    assert "addon/bridge/rig.py" in names
    assert "solver/solve.py" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "tools/", ".venv"))]


def test_extension_is_enabled_from_its_own_repository(reach: ModuleType):
    assert reach.__name__ == MODULE
    assert MODULE in bpy.context.preferences.addons
    assert hasattr(bpy.types.Object, "reach")
    for name in OPERATORS:
        assert hasattr(bpy.ops.reach, name), name


def test_disable_then_enable_unregisters_and_registers_everything(reach: ModuleType):
    addon_utils.disable(MODULE, default_set=True)
    assert not hasattr(bpy.types.Object, "reach")
    for name in OPERATORS:
        assert not hasattr(bpy.types, f"REACH_OT_{name}"), name
    addon_utils.enable(MODULE, default_set=True)
    assert hasattr(bpy.types.Object, "reach")
    for name in OPERATORS:
        assert hasattr(bpy.types, f"REACH_OT_{name}"), name
    bpy.ops.object.armature_add()
    assert bpy.ops.reach.figure_from_armature(armature=bpy.context.object.name) == {"FINISHED"}


def test_solver_inside_the_extension_never_imports_bpy(reach: ModuleType):
    import importlib

    solver = importlib.import_module(f"{MODULE}.solver")
    assert "bpy" not in solver.__dict__
