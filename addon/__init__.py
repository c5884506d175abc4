"""Reach's Blender side: everything that imports ``bpy``.

``adapter`` converts between Blender data and the solver; ``session`` holds the per-event
work of the drag loop and live mode; ``operators``, ``ui_operators``, ``modal``, ``live``,
``panel``, ``lists`` and ``properties`` are thin Blender classes over them;
``registration`` registers them.
"""
