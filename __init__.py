"""Reach: spatial-constraint inverse kinematics for Blender armatures.

The repository root is the extension package (``bl_ext.<repository>.reach`` inside
Blender). It imports nothing at module level, so that tools which import it outside
Blender (pytest collecting ``tests/``, for one) never need ``bpy``; Blender calls
:func:`register` and :func:`unregister`, which load ``addon/``.
"""


def register() -> None:
    """Register the add-on's classes, properties and handlers with Blender."""
    from .addon import registration

    registration.register()


def unregister() -> None:
    """Unregister everything :func:`register` added."""
    from .addon import registration

    registration.unregister()
