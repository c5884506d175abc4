"""Headless Blender for the add-on's tests: the extension as a user's Blender gets it.

Before ``bpy`` is imported, Blender's user directories are pointed at a temporary
folder, so nothing touches the real Blender config. The session then builds the
extension with Blender's own ``blender_ext.py build``, validates the zip, installs it
into an isolated extension repository and enables it as ``bl_ext.reach_test.reach``.
Each test starts from an empty file.

Run with ``--confcutdir=tests/addon`` (``tools/test`` does) in an environment with bpy.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

HOME = Path(tempfile.mkdtemp(prefix="reach-blender-"))
for _variable, _folder in (
    ("BLENDER_USER_RESOURCES", "resources"),
    ("BLENDER_USER_CONFIG", "config"),
    ("BLENDER_USER_SCRIPTS", "scripts"),
    ("BLENDER_USER_EXTENSIONS", "extensions"),
    ("BLENDER_USER_DATAFILES", "datafiles"),
):
    os.environ[_variable] = str(HOME / _folder)

import bpy  # noqa: E402, I001  (bpy first: it puts addon_utils on sys.path)
import addon_utils  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "reach_test"
MODULE = f"bl_ext.{REPOSITORY}.reach"


def blender_ext() -> Path:
    """Blender's own extension tool, as shipped inside the bpy package."""
    path = Path(bpy.utils.system_resource("SCRIPTS")) / "addons_core/bl_pkg/cli/blender_ext.py"
    assert path.is_file(), f"blender_ext.py not found at {path}"
    return path


def run_blender_ext(*args: str) -> str:
    """Run ``blender_ext.py`` with the given arguments; fail the session loudly."""
    done = subprocess.run(
        [sys.executable, str(blender_ext()), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (
        f"blender_ext.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


@pytest.fixture(scope="session")
def built_zip() -> Path:
    """The extension built and validated by Blender's own tool."""
    out = HOME / "build"
    out.mkdir()
    run_blender_ext("build", "--source-dir", str(ROOT), "--output-dir", str(out))
    (package,) = out.glob("reach-*.zip")
    run_blender_ext("validate", str(package))
    return package


@pytest.fixture(scope="session")
def reach(built_zip: Path) -> Iterator[ModuleType]:
    """The installed, enabled extension's package (``bl_ext.reach_test.reach``)."""
    repos = bpy.context.preferences.extensions.repos
    repos.new(
        name=REPOSITORY, module=REPOSITORY, custom_directory=str(HOME / "repository"), source="USER"
    )
    result = bpy.ops.extensions.package_install_files(
        filepath=str(built_zip), repo=REPOSITORY, enable_on_install=True
    )
    assert result == {"FINISHED"}
    assert MODULE in bpy.context.preferences.addons, "the extension did not enable"
    addon_utils.enable("rigify", default_set=True)
    yield importlib.import_module(MODULE)
    addon_utils.disable(MODULE, default_set=True)


@pytest.fixture(autouse=True)
def empty_file(reach: ModuleType) -> Iterator[None]:
    """Every test starts from an empty file, with the extension enabled."""
    bpy.ops.wm.read_homefile(use_empty=True)
    yield
    reach.addon.live.stop()


_exit_status = 0


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remember the session's exit status for :func:`pytest_unconfigure`."""
    global _exit_status
    _exit_status = int(exitstatus)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave before the interpreter's shutdown on Blender 4.2.

    Once Rigify has been enabled, the bpy 4.2 module crashes (SIGSEGV) while Python
    finalises, after every test has run and reported; 5.0 does not. The tests' exit
    status is kept: failures still fail the run.
    """
    if bpy.app.version < (5, 0, 0):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status)
