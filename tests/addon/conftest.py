"""Headless Blender for the add-on's tests: the extension as a user's Blender gets it.

Before ``bpy`` is imported, Blender's user directories are pointed at a temporary
folder, so nothing touches the real Blender config. The session then builds the
extension with Blender's own ``blender_ext.py build``, validates the zip, installs it
into an isolated extension repository and enables it as ``bl_ext.reach_test.reach``
(each step in ``tools/blender_extension.py``, which the demo shares). Each test starts
from an empty file.

Run with ``--confcutdir=tests/addon`` (``tools/test`` does) in an environment with bpy.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import blender_extension  # noqa: E402

HOME = blender_extension.isolate_user_folders("reach-blender-")

import bpy  # noqa: E402, I001  (bpy first: it puts addon_utils on sys.path)
import addon_utils  # noqa: E402

REPOSITORY = "reach_test"
MODULE = blender_extension.package_name(REPOSITORY)


@pytest.fixture(scope="session")
def built_zip() -> Path:
    """The extension built and validated by Blender's own tool."""
    return blender_extension.build(HOME / "build", ROOT)


@pytest.fixture(scope="session")
def reach(built_zip: Path) -> Iterator[ModuleType]:
    """The installed, enabled extension's package (``bl_ext.reach_test.reach``)."""
    package = blender_extension.install(built_zip, REPOSITORY, HOME / "repository")
    addon_utils.enable("rigify", default_set=True)
    yield package
    addon_utils.disable(MODULE, default_set=True)


@pytest.fixture(scope="session")
def skeletons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each kind's imported skeleton, saved by a child Blender (see imported_skeletons)."""
    import imported_skeletons

    return imported_skeletons.make(tmp_path_factory.mktemp("skeletons"))


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
    """Leave before the interpreter's shutdown, which bpy cannot always finish.

    Once Rigify has been enabled, the bpy 4.2 module crashes (SIGSEGV) while Python
    finalises, and once Rigify has generated a control rig, the bpy 4.5 module hangs
    there; both after every test has run and reported. The tests' exit status is kept:
    failures still fail the run.
    """
    import control_rigs

    control_rigs.forget_generated()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_exit_status)
