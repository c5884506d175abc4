"""Reach's Blender side: everything that imports ``bpy``.

``bridge`` is the one adapter between Blender data and the solver; every other module
is one feature (its operators, panels, handlers) or what the features share, and
``registration`` registers them all. Where each one is: ``docs/files.md``.
"""
