"""Reach in a headless Blender as a user's Blender gets it: built, validated, installed.

The add-on's tests, the demo and the benchmarks all load the extension this way:

1. :func:`isolate_user_folders` points Blender's user directories at a temporary
   folder. It must run *before* ``bpy`` is imported (Blender reads them once, on
   import), so that nothing touches the real Blender configuration; this module
   itself imports ``bpy`` only inside the functions that need it.
2. :func:`build` makes the extension's zip with Blender's own ``blender_ext.py build``
   and checks it with ``blender_ext.py validate``.
3. :func:`install` installs the zip into an isolated extension repository, enables it
   and returns its package, ``bl_ext.<repository>.reach``.

Usage::

    sys.path.insert(0, str(ROOT / "tools"))
    import blender_extension

    home = blender_extension.isolate_user_folders("reach-demo-")
    import bpy

    package = blender_extension.build(home / "build")
    reach = blender_extension.install(package, "reach_demo", home / "repository")
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
"""The repository root: the extension's source (it holds ``blender_manifest.toml``)."""

USER_FOLDERS = {
    "BLENDER_USER_RESOURCES": "resources",
    "BLENDER_USER_CONFIG": "config",
    "BLENDER_USER_SCRIPTS": "scripts",
    "BLENDER_USER_EXTENSIONS": "extensions",
    "BLENDER_USER_DATAFILES": "datafiles",
}
"""Blender's user-directory environment variables → their sub-folder of the home."""


class ExtensionError(RuntimeError):
    """Building, validating, installing or enabling the extension failed."""


def isolate_user_folders(prefix: str) -> Path:
    """Point Blender's user directories at a new temporary folder.

    Args:
        prefix: Prefix of the temporary folder's name, e.g. ``"reach-demo-"``.

    Returns:
        The new folder; the user directories are sub-folders of it. The caller owns it
        (and may put build output and the extension repository in it too).

    Raises:
        ExtensionError: If ``bpy`` has already been imported: Blender would keep using
            the directories it found then.
    """
    if "bpy" in sys.modules:
        raise ExtensionError("bpy is already imported: isolate the user folders before it")
    home = Path(tempfile.mkdtemp(prefix=prefix))
    for variable, folder in USER_FOLDERS.items():
        os.environ[variable] = str(home / folder)
    return home


def blender_ext() -> Path:
    """Blender's own extension tool, as shipped inside the bpy package.

    Raises:
        ExtensionError: If the bpy package does not hold it.
    """
    import bpy

    scripts = Path(bpy.utils.system_resource("SCRIPTS"))
    path = scripts / "addons_core/bl_pkg/cli/blender_ext.py"
    if not path.is_file():
        raise ExtensionError(f"blender_ext.py not found at {path}")
    return path


def run_blender_ext(*args: str) -> str:
    """Run ``blender_ext.py`` with ``args`` in this Python.

    Returns:
        What it printed on stdout.

    Raises:
        ExtensionError: If it fails; the message holds its exit status, stdout and stderr.
    """
    done = subprocess.run(
        [sys.executable, str(blender_ext()), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ExtensionError(
            f"blender_ext.py {' '.join(args)} failed (exit {done.returncode}):\n"
            f"{done.stdout}\n{done.stderr}"
        )
    return done.stdout


def build(out: Path, source: Path = ROOT) -> Path:
    """Build the extension with Blender's own tool and validate the zip.

    Args:
        out: Folder for the zip; created, and must not exist yet.
        source: The extension's source folder (the one with ``blender_manifest.toml``).

    Returns:
        The validated zip, ``out / reach-<version>.zip``.

    Raises:
        ExtensionError: If building or validating fails, or the build makes other than
            one ``reach-*.zip``.
    """
    out.mkdir(parents=True)
    run_blender_ext("build", "--source-dir", str(source), "--output-dir", str(out))
    packages = sorted(out.glob("reach-*.zip"))
    if len(packages) != 1:
        raise ExtensionError(
            f"expected one reach-*.zip in {out}, found {[p.name for p in packages]}"
        )
    (package,) = packages
    run_blender_ext("validate", str(package))
    return package


STAGED_OUT = frozenset({"tests", "bench", "tools", "requirements", "demo", "build", "dist"})
"""Top-level folders a per-platform build leaves out of its copy of the source, beside
hidden ones and caches (the manifest's build excludes them anyway)."""


def build_platforms(out: Path, source: Path = ROOT) -> dict[str, Path]:
    """One validated zip per platform the kernel is built for, each with its own library.

    Each platform's zip declares that platform alone (``platforms`` in its manifest, so
    Blender offers it only there) and carries only that platform's compiled kernel; the
    zip :func:`build` makes carries every library and installs anywhere (the solver
    picks its platform's library, or numpy).

    Args:
        out: Folder for the zips, ``reach-<version>-<platform>.zip``; created, must not
            exist yet.
        source: The extension's source folder.

    Returns:
        Each platform tag's zip.

    Raises:
        ExtensionError: If the source holds no built kernel, or a build fails.
    """
    folder = source / "solver" / "kernel" / "lib"
    libraries = sorted(folder.glob("reach_kernel-*"))
    if not libraries:
        raise ExtensionError(
            f"no compiled kernel in {folder}: build it first (python tools/build_kernel.py)"
        )
    out.mkdir(parents=True)
    manifest = (source / "blender_manifest.toml").read_text(encoding="utf-8")
    if "\n[" not in manifest:
        raise ExtensionError("blender_manifest.toml has no table to put platforms before")
    head, tables = manifest.split("\n[", 1)
    built: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="reach-platforms-") as staging:
        for library in libraries:
            tag = library.stem.removeprefix("reach_kernel-")
            stage = Path(staging) / tag
            shutil.copytree(source, stage, ignore=_staged_out(source), symlinks=False)
            for other in (stage / "solver" / "kernel" / "lib").iterdir():
                if other.name != library.name:
                    other.unlink()
            (stage / "blender_manifest.toml").write_text(
                f'{head}\nplatforms = ["{tag}"]\n\n[{tables}', encoding="utf-8"
            )
            package = build(Path(staging) / f"out-{tag}", stage)
            target = out / f"{package.stem}-{tag}.zip"
            shutil.move(package, target)
            built[tag] = target
    return built


def _staged_out(source: Path) -> Callable[[str, list[str]], set[str]]:
    """``copytree``'s ignore: :data:`STAGED_OUT`, hidden top-level names and caches."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == source
        return {
            name
            for name in names
            if name == "__pycache__" or (top and (name.startswith(".") or name in STAGED_OUT))
        }

    return ignore


def package_name(repository: str) -> str:
    """The enabled extension's package name in ``repository``: ``bl_ext.<repository>.reach``."""
    return f"bl_ext.{repository}.reach"


def install(package: Path, repository: str, directory: Path) -> ModuleType:
    """Install ``package`` into a new user extension repository and enable it.

    Args:
        package: The extension's zip, from :func:`build`.
        repository: The new repository's name and module, e.g. ``"reach_test"``.
        directory: The repository's folder (created by Blender).

    Returns:
        The enabled extension's package, ``bl_ext.<repository>.reach``.

    Raises:
        ExtensionError: If installing fails or the extension does not enable.
    """
    import bpy

    module = package_name(repository)
    bpy.context.preferences.extensions.repos.new(
        name=repository, module=repository, custom_directory=str(directory), source="USER"
    )
    result = bpy.ops.extensions.package_install_files(
        filepath=str(package), repo=repository, enable_on_install=True
    )
    if result != {"FINISHED"}:
        raise ExtensionError(f"installing {package.name} returned {result}")
    if module not in bpy.context.preferences.addons:
        raise ExtensionError(f"the extension did not enable ({module} is not an enabled add-on)")
    return importlib.import_module(module)
