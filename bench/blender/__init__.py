"""Benchmarks through the add-on, in Blender 5.0 as a Python module (``.venv-blender-5.0``):

* :mod:`~bench.blender.versus_ik`: Reach against Blender's own IK on the Rigify
  metarig (``blender.json``); :mod:`~bench.blender.drag_whatif` measures what would
  make its drag event faster (prints only);
* :mod:`~bench.blender.mixed_goals`: drags holding six goal types at once (``mixed.json``);
* :mod:`~bench.blender.drag_route`: the files one drag event's code runs through
  (``drag_route.json``);
* :mod:`~bench.blender.bake`: a 250-frame bake beside Blender's IK (``bake.json``);
* :mod:`~bench.blender.real_rigs`: every real rig the add-on's tests use (``rigs.json``);
* :mod:`~bench.blender.methods`: every solver method through the add-on
  (``methods_blender.json``);
* :mod:`~bench.blender.imported`: imported skeletons' tail effectors, masses, Balance and
  bakes (``imported.json``).

Importing this package points Blender's user folders at a new temporary folder,
:data:`HOME`, so that it happens before any of these modules imports ``bpy`` (Blender
reads them once, on import) and nothing touches the real Blender configuration.
"""

from tools import blender_extension

HOME = blender_extension.isolate_user_folders("reach-bench-")
"""Blender's user folders, and the extension's build and repository (``rigs.load_reach``)."""
