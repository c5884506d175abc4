"""Reach's Blender side: everything that imports ``bpy``.

``bridge`` is the one adapter between Blender data and the solver (``rig``, ``pose``,
``goals``, ``solving``, ``keys``). The features, one module each: ``drag`` (with
``drag_session`` and ``view``), ``live``, ``solve_ops``, ``figure_ops``, ``follower_ops``,
``joint_ops``; ``operator_base`` holds what the operators share and ``errors`` the
add-on's error. ``properties`` (with ``records``), ``panel`` and ``lists`` are the stored
settings and the sidebar; ``registration`` registers them all.
"""
