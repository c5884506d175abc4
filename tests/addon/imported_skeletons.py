"""Game skeletons as Blender's own BVH, FBX and glTF importers read them, made in a child
Blender and appended from the files it saves.

The BVH skeleton of ``tests/fixtures/bvh.py`` is imported, exported as FBX or glTF and
imported back in a fresh Blender process: Blender 4.2's glTF exporter and importer
crashed now and then in the test process after a hundred tests had run there (each sets
the window's scene), never in a fresh one. Run as a script, this module writes one
``<kind>.blend`` per kind into the folder it is given.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# kind -> (the BVH's scale, the armature object's scale before export)
KINDS = {
    "bvh": (0.01, 1.0),
    "fbx": (0.01, 1.0),
    "gltf": (0.01, 1.0),
    # in centimetres under a 0.01 scale: glTF brings the joints back in place but each
    # bone 100 times its joints' spacing
    "gltf_cm": (1.0, 0.01),
}


def make(folder: Path) -> dict[str, Path]:
    """Write every kind's ``.blend`` into ``folder`` from a child Blender; their paths.

    Raises:
        RuntimeError: If the child failed, with what it printed.
    """
    done = subprocess.run(
        [sys.executable, __file__, str(folder)], capture_output=True, text=True, check=False
    )
    paths = {kind: folder / f"{kind}.blend" for kind in KINDS}
    missing = [kind for kind, path in paths.items() if not path.exists()]
    if done.returncode != 0 or missing:
        raise RuntimeError(
            f"importing skeletons failed (exit {done.returncode}, missing {missing}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return paths


def append(path: Path) -> Any:
    """Append the armature saved in ``path`` to the open file's scene and make it active."""
    import bpy

    with bpy.data.libraries.load(str(path)) as (source, target):
        target.objects = list(source.objects)
    obj = None
    for each in target.objects:
        bpy.context.scene.collection.objects.link(each)
        if each.type == "ARMATURE":
            obj = each
    assert obj is not None, f"no armature in {path}"
    bpy.context.view_layer.objects.active = obj
    bpy.context.view_layer.update()  # the appended objects' world matrices
    return obj


def _save(kind: str, folder: Path) -> None:
    import bpy

    from tests.fixtures import bvh

    bpy.ops.wm.read_homefile(use_empty=True)
    scale, object_scale = KINDS[kind]
    source = folder / "skeleton.bvh"
    source.write_text(bvh.bvh_text())
    assert bpy.ops.import_anim.bvh(filepath=str(source), global_scale=scale) == {"FINISHED"}
    bpy.context.active_object.scale = (object_scale,) * 3
    if kind != "bvh":
        path = str(folder / f"{kind}.{'fbx' if kind == 'fbx' else 'glb'}")
        if kind == "fbx":
            bpy.ops.export_scene.fbx(filepath=path, add_leaf_bones=False)
        else:
            bpy.ops.export_scene.gltf(filepath=path, export_format="GLB")
        bpy.ops.wm.read_homefile(use_empty=True)
        if kind == "fbx":
            assert bpy.ops.import_scene.fbx(filepath=path) == {"FINISHED"}
        else:
            assert bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / f"{kind}.blend"))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    out = Path(sys.argv[1])
    for each in KINDS:
        _save(each, out)
    sys.stdout.flush()
    os._exit(0)  # bpy cannot always finish the interpreter's shutdown
